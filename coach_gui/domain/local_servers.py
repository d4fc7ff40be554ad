"""The local model servers Coach knows how to find (issue 31): each runtime's name, default
loopback address and API, and what a search found. Plain data for the Welcome and Settings;
`adapters/discovery.py` does the asking."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Candidate:
    """Where one runtime listens by default, and which API it speaks there."""

    name: str
    url: str
    wire: str  # "ollama" | "openai"
    load_a_model: str  # what to do when it runs with no model loaded


DEFAULT_CANDIDATES: Final = (
    Candidate("Ollama", "http://127.0.0.1:11434", "ollama",
              "download one: run `ollama pull llama3.2:3b` in a terminal"),
    Candidate("LM Studio", "http://127.0.0.1:1234", "openai",
              "load one in LM Studio's Developer tab"),
    Candidate("llama.cpp", "http://127.0.0.1:8080", "openai",
              "start llama-server with a model (llama-server -m model.gguf)"),
    Candidate("Jan", "http://127.0.0.1:1337", "openai",
              "start a model in Jan, then its Local API Server"),
    Candidate("vLLM", "http://127.0.0.1:8000", "openai",
              "start it with a model (vllm serve <model>)"),
    Candidate("GPT4All", "http://127.0.0.1:4891", "openai",
              "download a model in GPT4All and turn on its local API server"),
)  # fmt: skip


@dataclass(frozen=True)
class FoundServer:
    """A server that answered: its models, or why it cannot be used yet (`problem`)."""

    name: str
    url: str
    wire: str
    models: tuple[str, ...] = ()
    problem: str | None = None

    @property
    def usable(self) -> bool:
        return self.problem is None and bool(self.models)

    def describe(self) -> str:
        """One line a learner can act on."""
        if self.problem is not None:
            return self.problem
        count = len(self.models)
        listed = ", ".join(self.models[:4]) + (", …" if count > 4 else "")
        return f"{self.name} at {self.url}: {count} model{'s' if count != 1 else ''} ({listed})"
