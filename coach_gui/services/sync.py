"""Sync (issue 20, docs/adr/0027-two-devices-one-history.md): merge every device's new
segments into this journal, then write this device's new records as a segment of its own.

Import comes first, this device's own folder included: a device that restored a backup of
its journal gets its own later records back from there before it writes anything, so it
never writes a record twice. A segment is checked whole before any of it is stored: as a
file (complete, its digest, its device), record by record (as a local write would be),
and each session it touches as `coach verify` checks it; one that refers to records of a
segment not here yet waits for it, and is tried again once others are in.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from coach_gui.domain.session_records import SessionRecords
from coach_gui.domain.sync import (
    FORMAT,
    VERSION,
    Ignored,
    Segment,
    SegmentHeader,
    SyncRecord,
    SyncReport,
    Unreadable,
    device_label,
    parse_segment,
    segment_bytes,
)
from coach_gui.services.ports.sealing import TraceRowReader
from coach_gui.services.ports.sync import SyncFolder, SyncJournal
from coach_gui.services.verify import check_session

MAX_SEGMENT_RECORDS = 5000  # a segment holds whole sessions, about this many records
_NOT_SEGMENT = "not a Coach sync segment; left as it is"


def check_sessions(
    records: Sequence[SessionRecords], rows: TraceRowReader
) -> tuple[str, str] | None:
    """The first record of these sessions that does not check out, as `coach verify`
    would report it: (id, reason), or None."""
    for session in records:
        failure = check_session(session, rows)
        if failure is not None:
            return failure.id, failure.reason
    return None


class _Run:
    def __init__(
        self,
        folder: SyncFolder,
        journal: SyncJournal,
        report: SyncReport,
        now: Callable[[], str],
        stop: Callable[[], bool],
    ) -> None:
        self.stop = stop
        self.folder = folder
        self.journal = journal
        self.report = report
        self.now = now
        self.names = {d.device_id: d.name for d in journal.devices_seen()}
        self.names[report.device_id] = report.device_name

    def label(self, device_id: str) -> str:
        return device_label(self.names.get(device_id, "a device"), device_id)

    def new_segments(self) -> list[Segment]:
        known = self.journal.known_segments()
        found: list[Segment] = []
        for device in self.folder.devices():
            segments, others = self.folder.files(device)
            self.report.ignored += [Ignored(self.label(device), n, _NOT_SEGMENT) for n in others]
            for name in segments:
                if (device, name) in known:
                    continue
                data = self.folder.read(device, name)
                if data is None:
                    continue
                parsed = parse_segment(data, device_id=device, file_name=name)
                if isinstance(parsed, Unreadable):
                    self.report.ignored.append(Ignored(self.label(device), name, parsed.reason))
                    continue
                self.names.setdefault(device, parsed.header.device_name)
                found.append(parsed)
        return found

    def merge(self, pending: list[Segment]) -> None:
        """Import until nothing more goes in: one that waits is tried after the others."""
        while pending:
            waiting: list[tuple[Segment, str]] = []
            for segment in pending:
                if self.stop():  # quitting: what went in stays in, the rest next time
                    return
                outcome = self.journal.import_segment(segment, self.now(), check_sessions)
                where = self.label(segment.header.device_id)
                if outcome.status == "waiting":
                    waiting.append((segment, outcome.reason or ""))
                    continue
                if outcome.status == "rejected":
                    reason = outcome.reason or "it does not check out"
                    self.report.rejected.append(Ignored(where, segment.name, reason))
                    continue
                self.report.segments_imported.append(segment.name)
                self.report.records_in += outcome.added
                self.report.duplicates += outcome.duplicates
                self.report.conflicts += [
                    {"device": where, "file": segment.name, "kind": kind, "id": record_id}
                    for kind, record_id in outcome.conflicts
                ]
            if len(waiting) == len(pending):  # nothing went in: the rest waits for next time
                for segment, reason in waiting:
                    self.report.ignored.append(
                        Ignored(self.label(segment.header.device_id), segment.name, reason)
                    )
                return
            pending = [segment for segment, _ in waiting]

    def export(self) -> None:
        batch = self.journal.pending_export()
        chunk: list[SyncRecord] = []
        for group in batch.groups:
            if chunk and len(chunk) + len(group) > MAX_SEGMENT_RECORDS:
                self._write(chunk)
                chunk = []
            chunk += group
        if chunk:
            self._write(chunk)
        self.journal.record_exported(batch.marks)

    def _write(self, records: list[SyncRecord]) -> None:
        header = SegmentHeader(
            format=FORMAT,
            version=VERSION,
            device_id=self.report.device_id,
            device_name=self.report.device_name,
            sequence=self.folder.next_sequence(),
            created_at=self.now(),
        )
        data, segment = segment_bytes(header, records)
        self.folder.write_own(segment.name, data)
        self.journal.record_written(segment, self.now())
        self.report.segments_written.append(segment.name)
        self.report.records_out += len(records)


def sync_now(
    folder: SyncFolder,
    journal: SyncJournal,
    *,
    device_name: str,
    location: str,
    now: Callable[[], str],
    stop: Callable[[], bool] = lambda: False,
) -> SyncReport:
    """Import every new segment, then export this device's new records; the status.
    `stop` says to stop between two segments (the window is closing). Raises SyncError
    when the folder cannot be used."""
    folder.check()
    report = SyncReport(device_id=folder.device_id, device_name=device_name, folder=location)
    run = _Run(folder, journal, report, now, stop)
    run.merge(run.new_segments())
    if not stop():
        run.export()
    report.devices = journal.devices_seen()
    return report
