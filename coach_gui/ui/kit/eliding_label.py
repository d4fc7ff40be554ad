"""A one-line label that gives way first when its row is short of room: narrower than its
text, it shows the start and the end with … between. For text also shown in full
elsewhere (its tooltip, a dialog), such as the notes folder in the status bar, so that
the row's other labels keep all their words."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel

SHORTEST = 12  # characters' room it keeps at least


class ElidingLabel(QLabel):
    """`text()` is always the whole text; only the painting is shortened."""

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        shortest = self.fontMetrics().averageCharWidth() * SHORTEST
        return QSize(min(hint.width(), shortest), hint.height())

    def paintEvent(self, event: QPaintEvent) -> None:
        room = self.contentsRect()
        metrics = self.fontMetrics()
        if metrics.horizontalAdvance(self.text()) <= room.width():
            super().paintEvent(event)  # all of it fits (and can be selected)
            return
        shown = metrics.elidedText(self.text(), Qt.TextElideMode.ElideMiddle, room.width())
        painter = QPainter(self)
        self.style().drawItemText(
            painter,
            room,
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            shown,
            self.foregroundRole(),
        )
