"""Alt+letter keys for the standard buttons of dialogs and message boxes: Qt's own texts
("Save", "Cancel", "Discard", "OK", "Close") have none on Linux and Windows.

    box.setStandardButtons(buttons.Save | buttons.Discard | buttons.Cancel)
    with_mnemonics(box)  # &Save, &Discard, &Cancel
"""

from __future__ import annotations

from PySide6.QtWidgets import QDialogButtonBox, QMessageBox, QWidget

# Distinct letters within each usual set: Save/Discard/Cancel, OK/Cancel, Close.
TEXTS = {
    "Ok": "&OK",
    "Save": "&Save",
    "Discard": "&Discard",
    "Cancel": "&Cancel",
    "Close": "&Close",
    "Open": "&Open",
    "Apply": "&Apply",
    "Retry": "&Retry",
    "RestoreDefaults": "Restore &defaults",
}


def with_mnemonics(box: QDialogButtonBox | QMessageBox) -> None:
    """Give each standard button in `box` its Alt+letter (a text set on purpose stays)."""
    kinds = type(box).StandardButton
    for name, text in TEXTS.items():
        button = box.button(getattr(kinds, name))
        if button is not None and "&" not in button.text():
            button.setText(text)


def tell(parent: QWidget | None, icon: QMessageBox.Icon, title: str, text: str) -> None:
    """QMessageBox.information / .critical, with &OK (waits until it is closed)."""
    box = QMessageBox(icon, title, text, QMessageBox.StandardButton.Ok, parent)
    with_mnemonics(box)
    box.exec()
