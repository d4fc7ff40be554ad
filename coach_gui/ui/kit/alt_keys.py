"""Alt+letter never types into a text field (issue 33).

Alt+N while *Next* was disabled put an "n" in the answer; Alt+S appended "s" to the Ollama
address in Settings. A mnemonic whose control is disabled (or a letter no control takes)
is not a shortcut, so Qt hands the key press to the focused field, which types the letter.
A key press with Alt that reaches a text field is, by then, one no enabled mnemonic or
shortcut took: this application-wide filter drops it. Not on macOS, where Option+letter
types accented letters and mnemonics are not used.

    guard_alt_letters(app)   # once; every window, dialog and field after it
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractSpinBox, QComboBox, QLineEdit, QPlainTextEdit, QTextEdit

_TEXT_FIELDS = (QLineEdit, QTextEdit, QPlainTextEdit, QAbstractSpinBox, QComboBox)
_OTHER = (
    Qt.KeyboardModifier.ControlModifier
    | Qt.KeyboardModifier.MetaModifier
    | Qt.KeyboardModifier.GroupSwitchModifier  # AltGr on X11: it types @, €, { …
)


def types_a_letter_with_alt(event: QKeyEvent) -> bool:
    """Alt (alone, not AltGr or Ctrl+Alt) with a key that would type a character."""
    modifiers = event.modifiers()
    if not modifiers & Qt.KeyboardModifier.AltModifier or modifiers & _OTHER:
        return False
    text = event.text()
    return bool(text) and text.isprintable() and not text.isspace()


class AltLetterGuard(QObject):
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # True: no enabled mnemonic took it, so it types nothing.
        return (
            event.type() == QEvent.Type.KeyPress
            and isinstance(watched, _TEXT_FIELDS)
            and isinstance(event, QKeyEvent)
            and types_a_letter_with_alt(event)
        )


def guard_alt_letters(app: QCoreApplication | None = None) -> None:
    """Install the guard on the application, once."""
    app = app or QCoreApplication.instance()
    if app is None or sys.platform == "darwin" or app.property("altLetterGuard"):
        return
    guard = AltLetterGuard(app)
    app.installEventFilter(guard)
    app.setProperty("altLetterGuard", True)
