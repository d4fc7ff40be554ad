"""A push button a screen reader can name and describe, with its tooltip."""

from __future__ import annotations

from PySide6.QtWidgets import QPushButton, QWidget


def button(parent: QWidget, text: str, name: str, description: str) -> QPushButton:
    made = QPushButton(text, parent)
    made.setAccessibleName(name)
    made.setAccessibleDescription(description)
    made.setToolTip(description)
    return made
