"""File › Import from Anki or CSV… (issue 37): the file is read on a worker and previewed
(the notes it would write, into which folders, with how many key points and reviews; what
it skips and why), then imported on the writer lane with progress and Cancel. Nothing is
written before *Import*; a cancel keeps the notes written so far, with their history.

    dialog = ImportDialog(cases.imports, Path("deck.apkg"), window)
    dialog.imported.connect(lambda report: views.broadcast(report.changes))
    dialog.open()
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QListWidget,
    QProgressBar,
    QPushButton,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.tasks import Lane, Task, TaskProgress

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from coach_gui.domain.anki_notes import Skipped
    from coach_gui.operations.anki_import import ImportPreview, ImportReport

ROWS_SHOWN = 1_000  # notes listed in the preview (a deck of 20,000 says how many more)


class Importing(Protocol):
    """The import use case (`cases.imports`); both run on a worker."""

    def preview(self, path: Path) -> ImportPreview: ...

    def apply(
        self,
        preview: ImportPreview,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> ImportReport: ...


def _counted(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def preview_text(preview: ImportPreview) -> str:
    """What the import would do, in a sentence or two."""
    notes = len(preview.notes)
    if not notes:
        return (
            f"Nothing to import from {preview.path.name}: "
            + ("every note in it was skipped (below says why)." if preview.skipped else
               "it holds no notes.")
        )  # fmt: skip
    folders = preview.folders
    where = folders[0] if len(folders) == 1 else f"{len(folders):,} folders"
    key_points = sum(len(n.key_points) for n in preview.notes)
    text = (
        f"{_counted(notes, 'new note')} with {_counted(key_points, 'key point')} into "
        f"{where} of your notes folder, and {_counted(preview.reviews, 'review')} of history "
        "so each key point's schedule goes on where Anki left it."
    )
    if preview.media:
        text += f" {_counted(preview.media, 'picture or sound')} copied beside the notes."
    text += " No file you have now is changed."
    return text


def report_text(report: ImportReport) -> str:
    """What the import did."""
    made = _counted(len(report.created), "note")
    text = (
        f"Imported {made} with {_counted(report.reviews_imported, 'review')} of history."
        if not report.cancelled
        else f"Stopped: {made} imported before you cancelled; they are kept, with their history."
    )
    if report.skipped:
        text += f" {_counted(len(report.skipped), 'item')} skipped (listed below)."
    return text


class ImportDialog(QDialog):
    imported = Signal(object)  # ImportReport, once the import ended (done or cancelled)
    previewed = Signal(object)  # ImportPreview, once on screen (or the failure's text)

    def __init__(self, imports: Importing, path: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Import {path.name} — Coach")
        self.setAccessibleName("Import from Anki or CSV")
        self.resize(760, 520)
        self._imports, self._path = imports, path
        self._preview: ImportPreview | None = None
        self._stop = threading.Event()
        self.report: ImportReport | None = None
        self.applying = False

        self.heading = QLabel(f"Reading {path.name}…", self)
        self.heading.setWordWrap(True)
        self.heading.setAccessibleName("What the import does")
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.pages = QStackedWidget(self)

        self.table = QTableWidget(0, 4, self)
        self.table.setHorizontalHeaderLabels(["Note", "Folder", "Key points", "Reviews"])
        self.table.setAccessibleName("Notes to import")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setTabKeyNavigation(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.more = QLabel(self)
        self.skipped_label = QLabel("Skipped:", self)
        self.skipped = QListWidget(self)
        self.skipped.setAccessibleName("Skipped, and why")
        self.skipped.setWordWrap(True)
        listing = QWidget(self)
        rows = QVBoxLayout(listing)
        rows.setContentsMargins(0, 0, 0, 0)
        rows.addWidget(self.table, 3)
        rows.addWidget(self.more)
        rows.addWidget(self.skipped_label)
        rows.addWidget(self.skipped, 1)
        self.pages.addWidget(listing)

        self.progress = QProgressBar(self)
        self.progress.setAccessibleName("Import progress")
        self.progress.setRange(0, 0)
        working = QWidget(self)
        work_column = QVBoxLayout(working)
        work_column.addStretch(1)
        work_column.addWidget(self.progress)
        work_column.addStretch(1)
        self.pages.addWidget(working)
        self.pages.setCurrentIndex(1)  # "reading…" until the preview arrives

        self.buttons = QDialogButtonBox(self)
        self.import_button = QPushButton("&Import", self)
        self.import_button.setEnabled(False)
        self.import_button.setDefault(True)
        self.cancel_button = QPushButton("Cancel", self)
        self.buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.import_button.clicked.connect(self._apply)
        self.cancel_button.clicked.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.buttons)
        imports = self._imports
        Task(
            self,
            op=lambda _p: imports.preview(path),
            success=self._show_preview,
            failure=self._unreadable,
            name="preview an import",
        ).run()

    # --- the preview ----------------------------------------------------------------------
    def _show_preview(self, preview: ImportPreview) -> None:
        self._preview = preview
        self.heading.setText(preview_text(preview))
        self._fill(
            [(n.title, n.folder or "(the notes folder)", str(len(n.key_points)), str(n.reviews))
             for n in preview.notes[:ROWS_SHOWN]],
            len(preview.notes),
        )  # fmt: skip
        self._list_skipped(preview.skipped)
        self.pages.setCurrentIndex(0)
        self.import_button.setText(f"&Import {_counted(len(preview.notes), 'note')}")
        self.import_button.setEnabled(bool(preview.notes))
        self.import_button.setDefault(bool(preview.notes))  # Enter imports
        self.import_button.setMinimumWidth(self.import_button.sizeHint().width())
        if not preview.notes:
            self.cancel_button.setText("Close")
        self.previewed.emit(preview)

    def _fill(self, rows: Sequence[tuple[str, str, str, str]], total: int) -> None:
        """The table's rows (the first ROWS_SHOWN of `total`): counts to the right."""
        self.table.setRowCount(len(rows))
        for row, cells in enumerate(rows):
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column >= 2:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(row, column, item)
        hidden = total - len(rows)
        self.more.setText(f"… and {hidden:,} more." if hidden > 0 else "")
        self.more.setVisible(hidden > 0)

    def _list_skipped(self, skipped: Sequence[Skipped]) -> None:
        self.skipped.clear()
        for item in skipped:
            self.skipped.addItem(f"{item.item} — {item.reason}")
            self.skipped.item(self.skipped.count() - 1).setToolTip(item.reason)
        self.skipped_label.setText(f"Skipped ({len(skipped):,}):" if skipped else "")
        self.skipped_label.setVisible(bool(skipped))
        self.skipped.setVisible(bool(skipped))

    def _unreadable(self, error: Exception) -> None:
        self.heading.setText(f"{self._path.name} could not be read. {learner_message(error)}")
        self.pages.hide()
        self.cancel_button.setText("Close")
        self.previewed.emit(None)

    # --- the import -----------------------------------------------------------------------
    def _apply(self) -> None:
        preview = self._preview
        if preview is None or self.applying:
            return
        self.applying = True
        total = len(preview.notes)
        self.heading.setText(f"Importing {_counted(total, 'note')}…")
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        self.pages.setCurrentIndex(1)
        self.import_button.setEnabled(False)
        imports, stop = self._imports, self._stop

        def run(progress: TaskProgress) -> ImportReport:
            return imports.apply(
                preview, progress=lambda done, of: progress(done, of), cancelled=stop.is_set
            )

        Task(
            self,
            op=run,
            success=self._done,
            failure=self._failed,
            progress=lambda update: self.progress.setValue(update.done),
            lane=Lane.WRITER,
            name="import notes",
        ).run()

    def _done(self, report: ImportReport) -> None:
        self.applying = False
        self.report = report
        self.heading.setText(report_text(report))
        self.table.setHorizontalHeaderLabels(["Note", "File", "Key points", "Reviews"])
        self._fill(
            [(m.title, m.file_name, str(m.key_points), str(m.reviews))
             for m in report.created[:ROWS_SHOWN]],
            len(report.created),
        )  # fmt: skip
        self._list_skipped(report.skipped)
        self.pages.setCurrentIndex(0)
        self.import_button.hide()
        self.cancel_button.setText("Close")
        self.cancel_button.setEnabled(True)
        self.cancel_button.setDefault(True)
        self.imported.emit(report)

    def _failed(self, error: Exception) -> None:
        self.applying = False
        self.heading.setText(
            f"The import stopped: {learner_message(error)} The notes written before it are "
            "kept; importing the file again adds only the rest."
        )
        self.pages.setCurrentIndex(0)
        self.import_button.hide()
        self.cancel_button.setText("Close")
        self.cancel_button.setEnabled(True)

    def reject(self) -> None:
        """Cancel: before *Import*, closes; while importing, stops after the note being
        written (the dialog closes once the import has said what it kept)."""
        if self.applying:
            self.stop()
            return
        super().reject()

    def stop(self) -> None:
        """Stop the import after the note being written (it keeps its history)."""
        self._stop.set()
        self.heading.setText("Stopping after the note being written…")
        self.cancel_button.setEnabled(False)
