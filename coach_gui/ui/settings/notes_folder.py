"""Choosing the notes folder (issue 14): the learner's own vault, picked from File › Open
notes folder…, Settings or the Welcome. The folder is read first (in the background, writing
nothing), and the learner sees what Coach found in it before anything changes: how many
notes, how many with core assertions, how many files it cannot read."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QFileDialog, QMessageBox, QProgressDialog, QWidget

from coach_gui.domain.errors import ConfigError
from coach_gui.domain.notes import KnowledgeBaseSnapshot
from coach_gui.operations.vocabulary import short_path
from coach_gui.ui.kit.button_keys import with_mnemonics
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.tasks import Task

if TYPE_CHECKING:
    from coach_gui.operations.cases import Notes
    from coach_gui.ui.settings.config_owner import ConfigOwner


def what_is_there(snapshot: KnowledgeBaseSnapshot) -> str:
    """The folder's contents in one sentence, for the learner."""
    notes = len(snapshot.notes)
    with_assertions = sum(1 for e in snapshot.notes if e.note.core_assertions)
    unreadable = len(snapshot.broken)
    text = f"{notes} note{'s' if notes != 1 else ''}, {with_assertions} with core assertions"
    if unreadable:
        text += f", {unreadable} file{'s' if unreadable != 1 else ''} Coach cannot read"
    return text


READING_SHOWN_AFTER_MS = 500  # how long a folder is read before the wait is shown


class NotesFolderChooser:
    """Asks for a folder, reads it, confirms, has the owner save `kb.path` and calls
    `switched`."""

    def __init__(
        self,
        parent: QWidget,
        notes: Notes,
        owner: ConfigOwner,
        switched: Callable[[], None],
    ) -> None:
        self._parent, self._notes, self._switched = parent, notes, switched
        self._owner = owner  # the window's one writer of the settings (ADR 0030)
        self.reading: QProgressDialog | None = None  # while a folder is read

    def _failed(self, error: Exception) -> None:
        show_failure(self._parent, error)

    def choose(self) -> None:
        folder = QFileDialog.getExistingDirectory(
            self._parent, "Open a notes folder — Coach", self._notes.location
        )
        if folder:
            self.look_at(Path(folder))

    def look_at(self, folder: Path) -> None:
        """Read the folder in the background; a large one says so, with Cancel (issue 33:
        ten thousand notes take seconds, and nothing showed meanwhile)."""
        notes = self._notes
        reading = self.reading = QProgressDialog(
            f"Reading {short_path(str(folder))}…", "&Cancel", 0, 0, self._parent
        )
        reading.setWindowTitle("Open notes folder")
        reading.setAccessibleName("Reading the notes folder")
        reading.setMinimumDuration(READING_SHOWN_AFTER_MS)  # a small folder: no flash

        def done(then: Callable[[], None]) -> None:
            reading.canceled.disconnect()
            reading.reset()
            reading.deleteLater()
            then()

        task = Task(
            self._parent,
            op=lambda _p: notes.read_folder(folder),  # reads, writes nothing there
            success=lambda snapshot: done(lambda: self._confirm(folder, snapshot)),
            failure=lambda error: done(lambda: self._failed(error)),
            name="read notes folder",
        )
        reading.canceled.connect(task.cancel)  # nothing changes; the reading is dropped
        reading.canceled.connect(reading.deleteLater)
        task.run()

    def _confirm(self, folder: Path, snapshot: KnowledgeBaseSnapshot) -> None:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Open notes folder",
            f"Use {short_path(str(folder))} for your notes?",
            parent=self._parent,
        )
        box.setInformativeText(
            f"Coach found {what_is_there(snapshot)}. It reads the folder as it is and "
            "writes only what you change there: your edits, new notes, and deleted notes "
            "moved to the trash. Other programs may keep using it; Coach follows their "
            "changes."
        )
        use = box.addButton("&Use this folder", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        with_mnemonics(box)
        box.setDefaultButton(use)
        box.setAccessibleName("Open notes folder")
        box.exec()
        if box.clickedButton() is not use:
            return
        notes = self._notes

        def saved(_config: object) -> None:
            notes.open_folder(folder)
            self._switched()

        try:
            self._owner.update({"kb.path": str(folder)}, done=saved, failed=self._failed)
        except ConfigError as error:
            self._failed(error)
