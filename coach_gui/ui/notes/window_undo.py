"""Undo in the main window: Ctrl+Z, Ctrl+Shift+Z / Ctrl+Y, and Edit › Undo / Redo.

What an undo applies to, the most specific first:
- the text field with focus: its own typing (Qt's; the keys reach it before the menu);
- in the notes view, the open note's core assertions: adding, editing, removing and moving
  them, since the note was opened (the stack is the note's: opening another clears it);
- in the note list (with focus there), the last note deleted in this window: it comes
  back from the trash at its path, with its id. Right after a delete the status bar offers
  *Undo* too. A restore that ends after another notes folder was opened is not shown there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLineEdit, QPlainTextEdit, QPushButton, QTextEdit

from coach_gui.ui.notes.deleted_notes import DeletedNotesDialog, restore_deleted

if TYPE_CHECKING:
    from PySide6.QtWidgets import QSplitter, QStackedWidget, QStatusBar, QWidget

    from coach_gui.domain.deleted_notes import DeletedNote, RestoredNote
    from coach_gui.operations.cases import UseCases
    from coach_gui.services.ports.notes import NoteStore
    from coach_gui.ui.notes.note_editor import NoteEditor

UNDO_OFFER_MS = 30_000  # how long the status bar offers Undo after a delete


def _typing_in() -> QLineEdit | QPlainTextEdit | QTextEdit | None:
    focus = QApplication.focusWidget()
    if isinstance(focus, (QLineEdit, QPlainTextEdit, QTextEdit)) and not focus.isReadOnly():
        return focus
    return None


class UndoHost(Protocol):
    """The window WindowUndo works in: its notes view, editor and status line."""

    @property
    def cases(self) -> UseCases: ...

    @property
    def editor(self) -> NoteEditor: ...

    @property
    def note_list(self) -> QWidget: ...

    @property
    def stack(self) -> QStackedWidget: ...

    @property
    def splitter(self) -> QSplitter: ...  # the notes view in `stack`

    def statusBar(self) -> QStatusBar: ...

    def show_restored(self, restored: RestoredNote) -> None: ...


class WindowUndo:
    def __init__(self, window: UndoHost) -> None:
        self._window = window
        self._parent = window.statusBar().window()  # dialogs and messages open over it
        self.last_deleted: DeletedNote | None = None
        self._restoring = False
        self.button = QPushButton("&Undo", window.statusBar())
        self.button.setAccessibleName("Undo delete")
        self.button.setAutoDefault(False)
        self.button.clicked.connect(self.undo_delete)
        self.button.hide()
        window.statusBar().insertPermanentWidget(1, self.button)  # after the folder
        self._offer = QTimer(window.statusBar())
        self._offer.setSingleShot(True)
        self._offer.setInterval(UNDO_OFFER_MS)
        self._offer.timeout.connect(self.button.hide)

    # --- deletes --------------------------------------------------------------------
    def note_deleted(self, gone: DeletedNote) -> None:
        """Offer to put `gone` back: the status bar's Undo, and Ctrl+Z."""
        self.last_deleted = gone
        what = f"Put “{gone.title}” back where it was (Ctrl+Z in the note list)"
        self.button.setToolTip(what)
        self.button.setAccessibleDescription(what)
        self.button.setVisible(gone.restorable)
        self._offer.start()

    def forget_deletes(self) -> None:
        """Another notes folder is open: its deletes are not this one's."""
        self.last_deleted = None
        self.button.hide()

    def undo_delete(self) -> None:
        gone = self.last_deleted
        if gone is None or self._restoring:
            return
        window = self._window
        if not gone.restorable:
            window.statusBar().showMessage(gone.advice, 15_000)
            return
        self._restoring = True
        self.button.hide()
        store = window.cases.notes.store

        def done(restored: RestoredNote) -> None:
            self._restoring = False
            if self.last_deleted is gone:
                self.last_deleted = None
            self._show(store, restored)

        def failed() -> None:
            self._restoring = False

        restore_deleted(self._parent, store, gone, done, failed=failed)

    def show_deleted_notes(self) -> DeletedNotesDialog:
        """File › Deleted notes…"""
        window = self._window
        store = window.cases.notes.store

        def restored(note: RestoredNote) -> None:
            if self.last_deleted is not None and self.last_deleted.note_id == note.entry.note.id:
                self.forget_deletes()
            self._show(store, note)

        dialog = DeletedNotesDialog(store, restored, self._parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.open()
        return dialog

    def _show(self, store: NoteStore, restored: RestoredNote) -> None:
        """A restore is done: shown in the window if its notes folder is still open."""
        window = self._window
        if window.cases.notes.store is store:
            window.show_restored(restored)
            return
        window.statusBar().showMessage(
            f"Restored “{restored.entry.note.title}” to {restored.entry.file_name} in "
            f"{store.location}, the notes folder open before.",
            8000,
        )

    # --- Ctrl+Z, Ctrl+Shift+Z -------------------------------------------------------
    def undo(self) -> None:
        field = _typing_in()
        if field is not None:  # Edit › Undo chosen while typing: the typing
            field.undo()
            return
        window = self._window
        stack = window.editor.assertions.undo_stack
        on_notes = window.stack.currentWidget() is window.splitter
        focus = QApplication.focusWidget()
        in_list = focus is not None and window.note_list.isAncestorOf(focus)
        if on_notes and in_list and self.last_deleted is not None:
            self.undo_delete()  # deleting is what one just did there
        elif on_notes and stack.canUndo():
            self._undo_assertion("Undone")
        else:
            window.statusBar().showMessage("Nothing to undo here.", 4000)

    def redo(self) -> None:
        field = _typing_in()
        if field is not None:
            field.redo()
            return
        window = self._window
        stack = window.editor.assertions.undo_stack
        if window.stack.currentWidget() is window.splitter and stack.canRedo():
            self._undo_assertion("Redone", redo=True)
        else:
            window.statusBar().showMessage("Nothing to redo here.", 4000)

    def _undo_assertion(self, done: str, *, redo: bool = False) -> None:
        stack = self._window.editor.assertions.undo_stack
        what = stack.redoText() if redo else stack.undoText()
        if redo:
            stack.redo()
        else:
            stack.undo()
        self._window.statusBar().showMessage(f"{done}: {what.lower()}.", 4000)
