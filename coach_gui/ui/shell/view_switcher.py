"""The row of tabs over the main window's content that switches views (Today, Notes,
Practice, Sent to judge, Sessions, Consistency, Statistics), one tab per checkable view action.

It has a row of its own: in the toolbar, beside the note and privacy buttons, the views
went behind the toolbar's » chevron as soon as the window was narrower than about 1,000
pixels (a 1.5x screen). Tabs that still do not fit shrink and elide their words, never
hide: each tab's tooltip and accessible name say the whole view's name, and the File menu
lists them with their shortcuts (Ctrl+0 to Ctrl+6)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QWheelEvent
from PySide6.QtWidgets import QTabBar, QWidget


class ViewSwitcher(QTabBar):
    """Follows the actions (a view shown by its shortcut selects its tab) and triggers the
    action of the tab clicked."""

    def __init__(self, actions: Sequence[QAction], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("viewSwitcher")
        self.setAccessibleName("Views")
        self._actions = list(actions)
        self._following = False
        self.setDocumentMode(True)
        self.setExpanding(False)
        self.setDrawBase(True)
        self.setUsesScrollButtons(False)  # narrower than its tabs: they elide, none hides
        self.setElideMode(Qt.TextElideMode.ElideRight)
        # Like the toolbar's buttons: the keyboard switches views with Ctrl+0-6 from anywhere.
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for index, action in enumerate(self._actions):
            self.addTab(action.iconText())
            self.setAccessibleTabName(index, action.text().replace("&", ""))
            tip = action.toolTip()  # the view's name and shortcut
            self.setTabToolTip(index, f"{tip}\n{action.statusTip()}" if action.statusTip() else tip)
            action.toggled.connect(lambda on, i=index: self._toggled(i, on))
        checked = next((n for n, a in enumerate(self._actions) if a.isChecked()), 0)
        self._follow(checked)
        self.currentChanged.connect(self._chosen)

    def _toggled(self, index: int, on: bool) -> None:
        if on:
            self._follow(index)

    def _follow(self, index: int) -> None:
        self._following = True
        try:
            self.setCurrentIndex(index)
        finally:
            self._following = False

    def _chosen(self, index: int) -> None:
        if not self._following and 0 <= index < len(self._actions):
            self._actions[index].trigger()

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.ignore()  # scrolling past the tabs must not switch views
