"""The status-bar indicator for Tier 1: the model name when Ollama is ready, or why practice
falls back to built-in challenges. Click it to check again; the tooltip says how to fix it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QToolButton, QWidget

from coach_gui.domain.errors import CoachError
from coach_gui.ui.tasks import Task

if TYPE_CHECKING:
    from coach_gui.adapters.ollama import OllamaClient
    from coach_gui.bootstrap import AppContext


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


def probe_tier1(client: OllamaClient, model: str) -> Tier1Status:
    """Ask Ollama for its version and models (blocking: call it on a worker thread)."""
    try:
        version = client.version()
        installed = client.has_model(model)
    except CoachError as exc:
        return Tier1Status(Tier1State.UNREACHABLE, model, detail=str(exc))
    state = Tier1State.READY if installed else Tier1State.MODEL_MISSING
    return Tier1Status(state, model, version)


def _dot(colour: QColor, size: int) -> QIcon:
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawEllipse(1, 1, size - 2, size - 2)
    painter.end()
    return QIcon(pixmap)


def state_colour(state: Tier1State, palette: QPalette) -> QColor:
    """Green, amber or red, readable on the current (light or dark) palette."""
    dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
    if state is Tier1State.READY:
        return QColor("#6fcf73" if dark else "#2e7d32")
    if state is Tier1State.MODEL_MISSING:
        return QColor("#ffb74d" if dark else "#b26a00")
    if state is Tier1State.UNREACHABLE:
        return QColor("#ff8a80" if dark else "#b3261e")
    return palette.color(QPalette.ColorRole.PlaceholderText)


class Tier1StatusIndicator(QToolButton):
    """A flat button for the status bar; `refresh()` checks Ollama on a worker thread."""

    status_changed = Signal(object)  # Tier1Status, on the GUI thread

    def __init__(
        self,
        client_factory: Callable[[], OllamaClient],
        model: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._client_factory = client_factory
        self._model = model
        self._task: Task[Tier1Status] | None = None
        self.setObjectName("tier1Status")
        self.setAutoRaise(True)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)
        self.setAccessibleName("Tier 1 status")
        self.clicked.connect(self.refresh)
        self._show(Tier1Status(Tier1State.CHECKING, model))

    @classmethod
    def for_context(
        cls, context: AppContext, parent: QWidget | None = None
    ) -> Tier1StatusIndicator:
        return cls(context.ollama_client, context.config.tier1.model, parent)

    @property
    def status(self) -> Tier1Status:
        return self._status

    def set_model(self, model: str) -> None:
        """After Settings changed the model: check again for the new one."""
        self._model = model
        self.refresh()

    def refresh(self) -> None:
        if self._task is not None and not self._task.done:
            return  # a check is already on its way
        model, make_client = self._model, self._client_factory
        self._show(Tier1Status(Tier1State.CHECKING, model))

        def check(_progress: object) -> Tier1Status:
            try:
                client = make_client()  # raises OllamaNotLoopback for a bad URL
            except CoachError as exc:
                return Tier1Status(Tier1State.UNREACHABLE, model, detail=str(exc))
            try:
                return probe_tier1(client, model)
            finally:
                client.close()

        self._task = Task(self, check, self._show, name="tier1-status").run()

    def _show(self, status: Tier1Status) -> None:
        self._status = status
        size = max(self.fontMetrics().height() - 4, 8)
        self.setIconSize(QSize(size, size))
        self.setIcon(_dot(state_colour(status.state, self.palette()), size))
        self.setText(status.label)
        self.setToolTip(status.fix)
        self.setAccessibleDescription(f"{status.label}. {status.fix}")
        if status.state is not Tier1State.CHECKING:
            self.status_changed.emit(status)
