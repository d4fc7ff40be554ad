"""File › Deleted notes…: the notes Coach moved to a trash from this notes folder, and
*Restore*, which puts one back where it was, with its id (so its practice history stays
attached), never over a file that took its place (ADR 0024)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.deleted_notes import DeletedNote, RestoreBlocked
from coach_gui.operations.vocabulary import to_the_minute
from coach_gui.ui.kit.button_keys import with_mnemonics
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.tasks import Lane, Task

if TYPE_CHECKING:
    from coach_gui.domain.deleted_notes import RestoredNote
    from coach_gui.services.ports.notes import NoteStore

INTRO = (
    "Notes Coach deleted from this folder that are still in a trash. Restore puts the "
    "selected one back where it was, with its practice history."
)
EMPTY = "No deleted notes: nothing Coach deleted from this folder is still in a trash."


def restore_deleted(
    owner: QWidget,
    store: NoteStore,
    gone: DeletedNote,
    done: Callable[[RestoredNote], None],
    *,
    asking: Callable[[], QWidget] | None = None,
    failed: Callable[[], None] | None = None,
    file_name: str | None = None,
) -> None:
    """Put `gone` back (on the writer lane; `owner`, the main window, outlives any dialog,
    so a note put back on disk always reaches the list). When a file took its place, ask
    (over `asking()`, else `owner`) to restore it beside it instead; any other failure is
    shown; `failed` runs if the note stays deleted."""
    from coach_gui.ui.kit.confirmations import confirm_restore_as

    def on_failure(error: Exception) -> None:
        over = asking() if asking is not None else owner
        if isinstance(error, RestoreBlocked):
            if confirm_restore_as(
                over, gone.title, error.file_name, error.suggestion, folder=error.folder
            ):
                restore_deleted(
                    owner,
                    store,
                    gone,
                    done,
                    asking=asking,
                    failed=failed,
                    file_name=error.suggestion,
                )
                return
        else:
            show_failure(over, error)
        if failed is not None:
            failed()

    Task(
        owner,
        op=lambda _p: store.restore(gone.key, file_name=file_name),
        success=done,
        failure=on_failure,
        lane=Lane.WRITER,
        name="restore note",
    ).run()


class DeletedNotesDialog(QDialog):
    """Calls `restored(RestoredNote)` once a note is back on disk (even if the dialog was
    closed meanwhile), and closes."""

    listed = Signal()  # the deleted notes are on screen

    def __init__(
        self,
        store: NoteStore,
        restored: Callable[[RestoredNote], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._restored = restored
        self.deleted: list[DeletedNote] = []
        self.setWindowTitle("Deleted notes — Coach")
        self.setAccessibleName("Deleted notes")
        intro = QLabel(INTRO, self)
        intro.setWordWrap(True)
        intro.setAccessibleName("About deleted notes")
        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["Note", "Was at", "Deleted", "Now in"])
        self.table.setAccessibleName("Deleted notes")
        self.table.setAccessibleDescription("Newest first; Enter restores the selected note")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # rows are picked with the arrows; Tab moves on
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.currentCellChanged.connect(lambda *_a: self._update())
        self.message = QLabel("Looking for deleted notes…", self)
        self.message.setWordWrap(True)
        self.message.setAccessibleName("Deleted notes: status")
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        with_mnemonics(buttons)
        self.restore_button = QPushButton("&Restore", self)
        self.restore_button.setAccessibleName("Restore the selected note")
        self.restore_button.setEnabled(False)
        self.restore_button.setDefault(True)
        buttons.addButton(self.restore_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        self.restore_button.clicked.connect(self.restore_selected)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.message)
        layout.addWidget(buttons)
        self.resize(760, 380)
        self.reload()

    def reload(self) -> None:
        store = self._store
        Task(
            self,
            op=lambda _p: store.deleted(),
            success=self._show,
            failure=self._list_failed,
            lane=Lane.WRITER,  # it forgets what left the trash: a write, after any delete
            name="list deleted notes",
        ).run()

    def _list_failed(self, error: Exception) -> None:
        self.message.setText("The deleted notes could not be listed.")
        show_failure(self, error)

    def _show(self, deleted: Sequence[DeletedNote]) -> None:
        self.deleted = list(deleted)
        self.table.setRowCount(len(self.deleted))
        for row, gone in enumerate(self.deleted):
            cells = (gone.title, gone.file_name, to_the_minute(gone.deleted_at), gone.where)
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(row, column, item)
        if self.deleted:
            self.table.setCurrentCell(0, 0)
            self.table.setFocus()
        self._update()
        self.listed.emit()

    def _selected(self) -> DeletedNote | None:
        row = self.table.currentRow()
        return self.deleted[row] if 0 <= row < len(self.deleted) else None

    def _update(self) -> None:
        gone = self._selected()
        self.restore_button.setEnabled(gone is not None and gone.restorable)
        if not self.deleted:
            self.message.setText(EMPTY)
        elif gone is not None and not gone.restorable:
            self.message.setText(gone.advice)
        else:
            self.message.setText("")

    def restore_selected(self) -> None:
        gone = self._selected()
        if gone is None or not gone.restorable:
            return
        self.restore_button.setEnabled(False)
        owner = self.parentWidget() or self
        restored = self._restored

        def done(note: RestoredNote) -> None:
            restored(note)
            if shiboken6.isValid(self):
                self.accept()

        def over() -> QWidget:  # where to ask: over this dialog while it is open
            return self if shiboken6.isValid(self) and self.isVisible() else owner

        restore_deleted(owner, self._store, gone, done, asking=over, failed=self._refresh)

    def _refresh(self) -> None:
        if shiboken6.isValid(self) and self.isVisible():
            self.reload()
