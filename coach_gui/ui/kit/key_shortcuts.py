"""A QShortcut with its context really set. PySide6 6.11 ignores the `context=` keyword of
`QShortcut(key, parent, callable, context=...)`: the shortcut stays a WindowShortcut, so
two panels with the same keys on screen make both ambiguous (neither fires) and a key
meant for one widget fires anywhere in the window. `setContext` after construction works."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QWidget


def shortcut(
    keys: str, parent: QWidget, slot: Callable[[], object], context: Qt.ShortcutContext
) -> QShortcut:
    made = QShortcut(QKeySequence(keys), parent)
    made.setContext(context)
    made.activated.connect(slot)
    return made
