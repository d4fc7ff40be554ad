"""The status-bar indicator for Tier 1: the model name when Ollama is ready, or why practice
falls back to built-in challenges. Click it to check again; the tooltip says how to fix it.
The check itself is `operations.tier1`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPaintEvent, QPalette, QPixmap
from PySide6.QtWidgets import (
    QSizePolicy,
    QStyle,
    QStyleOptionToolButton,
    QStylePainter,
    QToolButton,
    QWidget,
)

from coach_gui.operations.tier1 import Tier1State, Tier1Status, check_tier1
from coach_gui.ui.kit.tasks import Task

if TYPE_CHECKING:
    from coach_gui.operations.cases import LocalServer
    from coach_gui.services.ports.practice import LocalModelServer


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
        client_factory: Callable[[], LocalModelServer],
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
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)  # see below
        self.setAccessibleName("Tier 1 status")
        self.clicked.connect(self.refresh)
        self._show(Tier1Status(Tier1State.CHECKING, model))

    def minimumSizeHint(self) -> QSize:
        """Short of room (a narrow status bar), only the dot: the privacy line beside it
        keeps its words, and the state is in the tooltip and the accessible description."""
        option = self._dot_only()
        return self.style().sizeFromContents(
            QStyle.ContentsType.CT_ToolButton, option, self.iconSize(), self
        )

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.width() >= self.sizeHint().width():
            super().paintEvent(event)
            return
        option = self._dot_only()
        QStylePainter(self).drawComplexControl(QStyle.ComplexControl.CC_ToolButton, option)

    def _dot_only(self) -> QStyleOptionToolButton:
        option = QStyleOptionToolButton()
        self.initStyleOption(option)
        option.toolButtonStyle = Qt.ToolButtonStyle.ToolButtonIconOnly
        option.text = ""
        return option

    @classmethod
    def for_server(cls, server: LocalServer, parent: QWidget | None = None) -> Tier1StatusIndicator:
        """Checking the model the settings name on the configured server."""
        return cls(server.client, server.model, parent)

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

        self._task = Task(
            self, lambda _progress: check_tier1(make_client, model), self._show, name="tier1-status"
        ).run()

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
