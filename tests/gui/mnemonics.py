"""The Alt+letter keys a window offers, read from its widgets as Qt registers them: a
button's or group box's title, a label's (for its buddy), each tab, each menu title. Two
on screen at once with the same letter make that key do nothing but move focus."""

from __future__ import annotations

from collections import defaultdict

from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QAbstractButton, QGroupBox, QLabel, QMenuBar, QTabBar, QWidget


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
