"""F5 in a view reads that view again. The window's own F5 (File > Reload notes) matches
too, and Qt runs neither of two shortcuts that match ("ambiguous"), so the view takes the
key first: it accepts the ShortcutOverride that comes before the key press.

    RefreshOnF5(today_view, today_view.refresh)
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QWidget


class RefreshOnF5(QObject):
    def __init__(self, view: QWidget, refresh: Callable[[], object]) -> None:
        super().__init__(view)
        self._refresh = refresh
        view.installEventFilter(self)  # key events climb from the focused child to here

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_F5 and not event.modifiers():
                event.accept()
                if event.type() == QEvent.Type.KeyPress:
                    self._refresh()
                return True
        return super().eventFilter(watched, event)
