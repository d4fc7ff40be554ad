"""The window's sync status (issue 20, ADR 0027): a short line in the status bar, and the
sync itself, run on a worker when the window opens and after each session, never on the
GUI thread. Hidden while sync is off."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from coach_gui.domain.sync import SyncReport, device_label
from coach_gui.operations.vocabulary import clock
from coach_gui.ui.kit.button_keys import with_mnemonics
from coach_gui.ui.kit.tasks import Lane, Task
from coach_gui.ui.kit.theme import warning_colour

if TYPE_CHECKING:
    from coach_gui.domain.changes import Changes
    from coach_gui.operations.cases import Sync
    from coach_gui.ui.shell.pairing_dialog import PairingDialog

log = logging.getLogger(__name__)
_STOPPED = "Sync stopped unexpectedly; the log file has the details (Help › Where my data lives)."


def status_text(report: SyncReport, now: str) -> str:
    others = [d for d in report.devices if not d.this_device]
    computers = f"{len(others)} other computer{'' if len(others) == 1 else 's'}"
    text = f"Synced {clock(now)} · {computers}"
    if report.records_in:
        text += f" · {report.records_in} new from them"
    if report.rejected or report.conflicts:
        text += " · something did not check out"
    if report.waiting:
        text += " · a computer waits to be paired"
    return text


def status_details(report: SyncReport) -> str:
    """The tooltip: where, what went in and out, each computer, what waits and why."""
    lines = [
        f"This computer: {device_label(report.device_name, report.device_id)}",
        f"Sync folder: {report.folder}",
        f"Brought in {report.records_in} records; wrote {report.records_out}.",
    ]
    for seen in report.devices:
        if not seen.this_device:
            when = clock(seen.last_segment_at) if seen.last_segment_at else "never"
            lines.append(f"{device_label(seen.name, seen.device_id)}: last wrote at {when}")
    for item in report.rejected:
        lines.append(f"Not brought in, {item.file} from {item.device}: {item.reason}")
    for item in report.ignored:
        lines.append(f"Left for later, {item.file}: {item.reason}")
    for item in report.refused:
        lines.append(f"Refused, {item.file} from {item.device}: {item.reason}")
    for waiting in report.waiting:
        label = device_label(waiting.name, waiting.device_id)
        again = " again (forgotten here)" if waiting.forgotten else ""
        lines.append(f"Waiting to be paired{again}: {label}, fingerprint {waiting.fingerprint}")
    if report.fingerprint:
        lines.append(f"This computer's fingerprint: {report.fingerprint}")
    if report.conflicts:
        lines.append(
            f"{len(report.conflicts)} records from another computer differ from the ones "
            "here; the ones here are kept (run `coach verify`)."
        )
    return "\n".join(lines)


class SyncStatus(QLabel):
    """`run()` syncs now (once at a time: a request meanwhile runs after it)."""

    imported = Signal(object)  # the SyncReport, when records came in: the views read again

    def __init__(self, sync: Sync, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._sync = sync
        self._running = False
        self._again = False
        self._asked: set[str] = set()  # computers asked about while this window is open
        self.pairing: PairingDialog | None = None  # the question on screen, if any
        self.pair_failure: QMessageBox | None = None  # why a Pair did not pair, on screen
        self.fingerprint: str | None = None  # this computer's, once it has synced
        self.setAccessibleName("Sync")
        self.setVisible(sync.on)

    def take_changes(self, changes: Changes) -> None:
        """Sessions or verdicts made here go to the other computers."""
        if changes.made_here:
            self.run()

    def run(self) -> None:
        if not self._sync.on:
            self.hide()
            return
        self.show()
        if self._running:
            self._again = True
            return
        self._running = True
        self.setText("Syncing…")
        self.setStyleSheet("")
        sync = self._sync
        Task(
            self,
            op=lambda progress: sync.sync(stop=lambda: progress.cancelled),
            success=self._done,
            failure=self._failed,
            lane=Lane.GENERAL,  # the journal's own lock orders its writes
            name="sync",
        ).run()

    def _finish(self) -> None:
        self._running = False
        if self._again:
            self._again = False
            self.run()

    def _done(self, report: SyncReport) -> None:
        self.fingerprint = report.fingerprint or None
        self.setText(status_text(report, self._sync.now()))
        self.setToolTip(status_details(report))
        self.setAccessibleDescription(self.toolTip())
        if not report.ok:
            self.setStyleSheet(f"color: {warning_colour(self.palette())};")
        if report.records_in:
            self.imported.emit(report)
        self._ask_to_pair(report)
        self._finish()

    def _ask_to_pair(self, report: SyncReport) -> None:
        """Ask about the first computer waiting to be paired (once while the window is
        open, and none after a Not now; `coach sync --trust` or the next start asks
        again)."""
        if self.pairing is not None:
            return
        waiting = next((w for w in report.waiting if w.device_id not in self._asked), None)
        if waiting is None:
            return
        self._asked.add(waiting.device_id)
        from coach_gui.ui.shell.pairing_dialog import PairingDialog

        dialog = PairingDialog(waiting, report.fingerprint, self.window())
        self.pairing = dialog

        def answered(result: int) -> None:
            self.pairing = None
            dialog.deleteLater()
            if result == PairingDialog.DialogCode.Accepted:
                label = device_label(waiting.name, waiting.device_id)
                self._pair(waiting.fingerprint, label, waiting.device_id)  # then syncs
            else:  # Not now: no more questions this run (anyone can plant many "computers";
                # they stay listed in the tooltip, and `coach sync --trust` pairs one)
                self._asked.update(w.device_id for w in report.waiting)

        dialog.finished.connect(answered)
        dialog.open()

    def _pair(self, fingerprint: str, label: str, device_id: str) -> None:
        sync = self._sync
        Task(
            self,
            op=lambda _progress: sync.pair(fingerprint),
            success=lambda _pairing: self.run(),
            failure=lambda error: self._pair_failed(error, label, device_id),
            lane=Lane.GENERAL,
            name="pair a computer",
        ).run()

    def _pair_failed(self, error: Exception, label: str, device_id: str) -> None:
        """Pairing did not happen: said in the status line and in a message the learner
        sees at once (not only in the tooltip), with what to do."""
        from coach_gui.domain.errors import CoachError

        if isinstance(error, CoachError):
            reason = str(error)
        else:
            log.error("pairing failed", exc_info=error)
            reason = (
                "Something went wrong; the log file has the details (Help › Where my data "
                "lives). Coach asks again at the next sync; or run \u201ccoach sync --trust\u201d "
                "with its fingerprint."
            )
        text = f"{label} was not paired, so nothing of it comes in yet. {reason}"
        self.setText("Not paired: see the message")
        self.setStyleSheet(f"color: {warning_colour(self.palette())};")
        self.setToolTip(text)
        self.setAccessibleDescription(text)
        self._asked.discard(device_id)  # the learner wanted it: asked again at the next sync
        box = QMessageBox(
            QMessageBox.Icon.Warning, "Computer not paired", text, parent=self.window()
        )
        box.setStandardButtons(QMessageBox.StandardButton.Ok)
        with_mnemonics(box)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.finished.connect(lambda _result: setattr(self, "pair_failure", None))
        self.pair_failure = box
        box.open()  # not modal to the app: the window goes on

    def _failed(self, error: Exception) -> None:
        from coach_gui.domain.errors import CoachError

        self.setText("Not synced")
        self.setStyleSheet(f"color: {warning_colour(self.palette())};")
        if isinstance(error, CoachError):
            reason = str(error)
        else:
            log.error("sync failed", exc_info=error)
            reason = _STOPPED
        self.setToolTip(reason)
        self.setAccessibleDescription(reason)
        self._finish()
