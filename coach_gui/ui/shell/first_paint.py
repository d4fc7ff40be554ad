"""Run something once a window's first paint is on screen (ADR 0019): what it loads then
never holds up that paint. A zero-timer posted when the window is shown runs *before* its
first paint, so it is the paint itself that is waited for."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget


class FirstPaint(QObject):
    """Calls `run` once, after the widget's next paint (or after `fallback_ms`)."""

    FALLBACK_MS = 1000

    def __init__(
        self, window: QWidget, run: Callable[[], None], *, fallback_ms: int = FALLBACK_MS
    ) -> None:
        super().__init__(window)
        self._window = window
        self._run: Callable[[], None] | None = run
        window.installEventFilter(self)
        QTimer.singleShot(fallback_ms, self, self._go)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self._window and event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, self, self._go)  # after this paint pass is flushed
        return False

    def _go(self) -> None:
        if self._run is not None:
            run, self._run = self._run, None
            self._window.removeEventFilter(self)
            self.deleteLater()
            run()
