"""The questions Coach asks before anything is lost: each says what will happen, and
the safe answer is the default."""

from __future__ import annotations

from enum import Enum

from PySide6.QtWidgets import QMessageBox, QWidget

from coach_gui.ui.kit.button_keys import with_mnemonics


class UnsavedChoice(Enum):
    SAVE = "save"
    DISCARD = "discard"
    CANCEL = "cancel"


def ask_about_unsaved(parent: QWidget, title: str) -> UnsavedChoice:
    buttons = QMessageBox.StandardButton
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Unsaved changes",
        f"Save your changes to “{title}”?",
        buttons.Save | buttons.Discard | buttons.Cancel,
        parent,
    )
    box.setInformativeText("If you don't save, your changes will be lost.")
    box.setDefaultButton(buttons.Save)
    with_mnemonics(box)
    box.setAccessibleName("Unsaved changes")
    answer = box.exec()
    if answer == buttons.Save:
        return UnsavedChoice.SAVE
    if answer == buttons.Discard:
        return UnsavedChoice.DISCARD
    return UnsavedChoice.CANCEL


def _confirm(parent: QWidget, heading: str, text: str, detail: str, action: str) -> bool:
    box = QMessageBox(QMessageBox.Icon.Question, heading, text, parent=parent)
    box.setInformativeText(detail)
    yes = box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    with_mnemonics(box)
    box.setAccessibleName(heading)
    box.exec()
    return box.clickedButton() is yes


def confirm_delete(parent: QWidget, title: str, file_name: str, trash: str) -> bool:
    return _confirm(
        parent,
        "Delete note",
        f"Delete “{title}”?",
        f"The file {file_name} will be moved to {trash}.\n\n"
        "Nothing is erased: to restore it, press Ctrl+Z right after, or use "
        "Deleted notes… in the File menu.",
        "&Move to trash",
    )


def confirm_discard_new(parent: QWidget, title: str) -> bool:
    return _confirm(
        parent,
        "Discard new note",
        f"Discard the new note “{title}”?",
        "It has not been saved, so nothing is written or moved.",
        "&Discard note",
    )


def confirm_restore_as(
    parent: QWidget, title: str, taken: str, suggestion: str, *, folder: bool = False
) -> bool:
    """A file took the deleted note's place (`folder`: where its folder was): put the
    note back beside it instead?"""
    where = "where the note's folder was" if folder else "there now"
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Restore note",
        f"A file named {taken} is {where}, so “{title}” cannot go back in its place.",
        parent=parent,
    )
    box.setInformativeText(
        f"Coach never overwrites a file: {taken} stays as it is. Put the deleted note back "
        f"beside it as {suggestion}, with its practice history?"
    )
    name = suggestion.rsplit("/", 1)[-1]
    yes = box.addButton(f"&Restore as “{name}”", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(yes)
    with_mnemonics(box)
    box.setAccessibleName("Restore note")
    box.exec()
    return box.clickedButton() is yes
