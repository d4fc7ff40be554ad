"""File › Export to Anki… and Export as CSV… (issue 37): where to, then every key point
written on a worker with progress and Cancel; nothing half-written is ever left (the file
appears whole, or an earlier one stays as it was).

    exporter = Exporter(cases.exports, window, say=window.statusBar().showMessage)
    exporter.ask("anki")        # the save dialog, then the export
    exporter.export("csv", Path("key-points.csv"))
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QProgressDialog, QWidget

from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.tasks import Task, TaskProgress

if TYPE_CHECKING:
    from coach_gui.operations.anki_export import ExportResult

Format = Literal["anki", "csv"]
SUFFIX: dict[Format, str] = {"anki": ".apkg", "csv": ".csv"}
FILTER: dict[Format, str] = {
    "anki": "Anki package (*.apkg)",
    "csv": "CSV, one row per key point (*.csv)",
}


class Exporting(Protocol):
    """The export use case (`cases.exports`); both run on a worker."""

    def anki(
        self, path: Path, *, progress: Callable[[int, int], None], cancelled: Callable[[], bool]
    ) -> ExportResult: ...

    def csv(
        self, path: Path, *, progress: Callable[[int, int], None], cancelled: Callable[[], bool]
    ) -> ExportResult: ...


def result_text(result: ExportResult) -> str:
    cards = f"{result.cards:,} key point{'' if result.cards == 1 else 's'}"
    if result.format == "anki":
        text = (
            f"Exported {cards} as Anki cards, with {result.reviews:,} reviews of history, "
            f"to {result.path}. In Anki: File › Import."
        )
    else:
        text = f"Exported {cards} as CSV rows to {result.path}."
    if result.notes_without_key_points:
        text += f" {result.notes_without_key_points:,} notes without key points are left out."
    return text


class Exporter(QObject):
    exported = Signal(object)  # ExportResult
    stopped = Signal()  # cancelled: nothing was written

    def __init__(self, exports: Exporting, parent: QWidget, *, say: Callable[[str], None]):
        super().__init__(parent)
        self._exports = exports
        self._parent = parent
        self._say = say
        self.busy = False
        self.dialog: QProgressDialog | None = None

    def ask(self, format: Format) -> None:
        """Ask where to write (suggesting the home folder), then export."""
        suggested = str(Path.home() / f"coach-key-points{SUFFIX[format]}")
        title = "Export to Anki" if format == "anki" else "Export as CSV"
        path, _filter = QFileDialog.getSaveFileName(
            self._parent, title, suggested, f"{FILTER[format]};;All files (*)"
        )
        if path:
            self.export(format, Path(path))

    def export(self, format: Format, path: Path) -> None:
        if self.busy:
            return
        if not path.suffix:
            path = path.with_suffix(SUFFIX[format])
        self.busy = True
        stop = threading.Event()
        dialog = self.dialog = QProgressDialog(
            f"Writing {path.name}…", "Cancel", 0, 0, self._parent
        )
        dialog.setWindowTitle("Export — Coach")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(400)  # shown only when it takes a while
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(stop.set)
        exports = self._exports
        write = exports.anki if format == "anki" else exports.csv

        def run(progress: TaskProgress) -> ExportResult:
            return write(path, progress=lambda done, of: progress(done, of), cancelled=stop.is_set)

        def moved(done: int, total: int | None) -> None:
            if total:
                dialog.setMaximum(total)
            dialog.setValue(done)

        Task(
            self._parent,
            op=run,
            success=self._done,
            failure=self._failed,
            progress=lambda update: moved(update.done, update.total),
            name="export key points",
        ).run()

    def _close(self) -> None:
        self.busy = False
        if self.dialog is not None:
            self.dialog.reset()
            self.dialog.deleteLater()
            self.dialog = None

    def _done(self, result: ExportResult) -> None:
        self._close()
        self._say(result_text(result))
        self.exported.emit(result)

    def _failed(self, error: Exception) -> None:
        from coach_gui.domain.anki_cards import ExportCancelled

        self._close()
        if isinstance(error, ExportCancelled):
            self._say("Export stopped: nothing was written.")
            self.stopped.emit()
            return
        show_failure(self._parent, error)
