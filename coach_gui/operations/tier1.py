"""Is the local model ready? Ollama's state as the status indicator, the welcome dialog and
practice all read it: ready with the model, running without it, or not reachable, with
what to do about each in the learner's words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from coach_gui.domain.errors import CoachError
from coach_gui.services.ports.practice import LocalModelServer, Tier1Health


class Tier1State(Enum):
    CHECKING = "checking"
    READY = "ready"  # Ollama answers and has the configured model
    MODEL_MISSING = "model_missing"  # Ollama answers; the model must be downloaded
    UNREACHABLE = "unreachable"  # nothing usable answers at the configured URL


@dataclass(frozen=True)
class Tier1Status:
    state: Tier1State
    model: str
    version: str | None = None
    detail: str = ""  # what happened, in the learner's words (an error message)

    @property
    def label(self) -> str:
        if self.state is Tier1State.READY:
            return self.model
        if self.state is Tier1State.MODEL_MISSING:
            return "offline: built-in challenges"
        if self.state is Tier1State.UNREACHABLE:
            return "Ollama not reachable"
        return "checking Ollama…"

    @property
    def fix(self) -> str:
        """The tooltip: what the state means and what to do about it."""
        if self.state is Tier1State.READY:
            return (
                f"Challenges are written on this computer by {self.model} "
                f"(Ollama {self.version}). Click to check again."
            )
        if self.state is Tier1State.MODEL_MISSING:
            return (
                f"Ollama {self.version} is running, but the model '{self.model}' is not "
                f"installed, so practice uses built-in challenges. Run `ollama pull "
                f"{self.model}` or use Download model in the practice pane, then click here."
            )
        if self.state is Tier1State.UNREACHABLE:
            return f"{self.detail}\nPractice uses built-in challenges. Click to check again."
        return "Checking whether Ollama is running…"


def probe_tier1(client: Tier1Health, model: str) -> Tier1Status:
    """Ask Ollama for its version and models (blocking: call it on a worker thread)."""
    try:
        version = client.version()
        installed = client.has_model(model)
    except CoachError as exc:
        return Tier1Status(Tier1State.UNREACHABLE, model, detail=exc.learner_text)
    state = Tier1State.READY if installed else Tier1State.MODEL_MISSING
    return Tier1Status(state, model, version)


def check_tier1(make_client: Callable[[], LocalModelServer], model: str) -> Tier1Status:
    """Probe with a client of its own, closed afterwards; a client that cannot even be
    built (a bad URL) reads as unreachable."""
    try:
        client = make_client()  # builds only; nothing is sent yet
    except CoachError as exc:
        return Tier1Status(Tier1State.UNREACHABLE, model, detail=exc.learner_text)
    try:
        return probe_tier1(client, model)
    finally:
        client.close()
