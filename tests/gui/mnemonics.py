"""The Alt+letter keys a window offers, read from its widgets as Qt registers them: a
button's or group box's title, a label's (for its buddy), each tab, each menu title. Two
on screen at once with the same letter make that key do nothing but move focus."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QKeySequence
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QGroupBox,
    QLabel,
    QMenuBar,
    QTabBar,
    QWidget,
)


def _key(text: str) -> str:
    return QKeySequence.mnemonic(text).toString()


def offered(root: QWidget) -> list[tuple[str, str]]:
    """(Alt+letter, what it belongs to) for every mnemonic shown in `root` now."""
    found: list[tuple[str, str]] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        texts: list[str] = []
        if isinstance(widget, QAbstractButton):
            texts.append(widget.text())
        elif isinstance(widget, QGroupBox):
            texts.append(widget.title())
        elif isinstance(widget, QLabel) and widget.buddy() is not None:
            texts.append(widget.text())
        elif isinstance(widget, QTabBar):
            texts += [widget.tabText(i) for i in range(widget.count()) if widget.isTabVisible(i)]
        elif isinstance(widget, QMenuBar):
            texts += [action.text() for action in widget.actions() if action.isVisible()]
        found += [(_key(text), f"{type(widget).__name__} “{text}”") for text in texts if _key(text)]
    return found


def clashes(root: QWidget) -> dict[str, list[str]]:
    """The Alt+letter keys that belong to more than one control on screen in `root`."""
    owners: dict[str, list[str]] = defaultdict(list)
    for key, owner in offered(root):
        owners[key].append(owner)
    return {key: names for key, names in owners.items() if len(names) > 1}


def buttons_without_a_key(root: QWidget) -> list[str]:
    """Push buttons shown in `root` that no Alt+letter presses."""
    from PySide6.QtWidgets import QPushButton

    return [
        button.text()
        for button in root.findChildren(QPushButton)
        if button.isVisible() and not _key(button.text())
    ]


def activate(window: QWidget) -> bool:
    """Make `window` the active one, as a click on it would: shortcuts go only there.
    Asked again now and then: on a busy machine the first request can be overtaken."""
    for attempt in range(500):
        if QApplication.activeWindow() is window:
            return True
        handle = window.windowHandle()
        if handle is not None and attempt % 20 == 0:
            handle.requestActivate()
        QTest.qWait(10)
    return False


@dataclass
class Seen:
    """What a modal dialog offered, read when it showed (then it is answered)."""

    title: str = ""
    keys: list[tuple[str, str]] = field(default_factory=list)
    clashes: dict[str, list[str]] = field(default_factory=dict)
    keyless: list[str] = field(default_factory=list)
    answered: bool = False  # the key closed it
    done: bool = False

    def wait(self, timeout_ms: int = 10_000) -> Seen:
        """Once the dialog was looked at and answered (or closed because it was not)."""
        waited = 0
        while not self.done and waited < timeout_ms:
            QTest.qWait(10)
            waited += 10
        assert self.done, "no modal dialog showed"
        return self


def inspect_next_modal(press: str) -> Seen:
    """Before the action that opens a modal dialog: read its keys when it shows, then
    press Alt+`press` in it, as a person would (the dialog closes, or the test fails)."""
    seen = Seen()

    def look(tries_left: int) -> None:
        modal = QApplication.activeModalWidget()
        if modal is None or not modal.isVisible():
            if tries_left:
                QTimer.singleShot(10, lambda: look(tries_left - 1))
            return
        seen.title = modal.windowTitle()
        seen.keys, seen.clashes = offered(modal), clashes(modal)
        seen.keyless = buttons_without_a_key(modal)
        if f"Alt+{press}" in dict(seen.keys) and not seen.clashes and activate(modal):
            QTest.keyClick(modal, getattr(Qt.Key, f"Key_{press}"), Qt.KeyboardModifier.AltModifier)
        QTimer.singleShot(10, lambda: closed(modal, 100))  # a mnemonic clicks a moment later

    def closed(modal: QWidget, tries_left: int) -> None:
        shown = shiboken6.isValid(modal) and modal.isVisible()  # closed may mean deleted
        if shown and tries_left:
            QTimer.singleShot(10, lambda: closed(modal, tries_left - 1))
            return
        seen.answered = not shown
        if shown:
            modal.close()  # the key is missing or did nothing: the test fails, never hangs
        seen.done = True

    QTimer.singleShot(0, lambda: look(500))
    return seen
