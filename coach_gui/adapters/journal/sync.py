"""The journal's side of sync (issue 20, ADR 0027): the records ready to travel, and a
segment from another device (or this one's, after a restore) merged in.

A segment is stored in one transaction: every record checked as a local write would be
(`sync_kinds`), stored by id (a record already here must be the identical record, else
it is a conflict and the one here stays), the sessions it touches checked as `coach
verify` checks them, its traces appended to this journal's own trace log (signed with
this computer's key), and where each record came from remembered. Anything wrong rolls
the whole segment back; a segment that refers to records not here yet waits for them.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.sync_kinds import BY_NAME, KINDS
from coach_gui.adapters.journal.sync_merge import Merge, Stop, columns_of
from coach_gui.adapters.journal.trace_log import HeadSigner, append_traces, log_record
from coach_gui.domain.errors import JournalError
from coach_gui.domain.sync import (
    SESSION_TABLES,
    DeviceSeen,
    ExportBatch,
    Row,
    Segment,
    SegmentOutcome,
    StoredTypes,
    SyncRecord,
    shown,
)
from coach_gui.domain.sync_pairing import Pairing
from coach_gui.services.ports.sync import SessionCheck

# What makes a session's records ready to travel, by the rowid its last export reached:
# a trace (a session sealed, answers judged later), a verdict or a refusal stored since.
_WATCHED = ("sealed_traces", "verdicts", "judge_refusals")
# (Rows that came in a segment, imported ones, lead nowhere: they travel from elsewhere.)
_CANDIDATES = """
SELECT session_id FROM sealed_traces t WHERE rowid > :sealed_traces_since
    AND session_id IS NOT NULL AND NOT EXISTS
    (SELECT 1 FROM sync_records r WHERE r.record_id = t.trace_id AND r.kind = 'trace')
UNION SELECT a.session_id FROM verdicts v JOIN attempts a ON a.id = v.attempt_id
    WHERE v.rowid > :verdicts_since AND NOT EXISTS
    (SELECT 1 FROM sync_records r WHERE r.record_id = v.id AND r.kind = 'verdict')
UNION SELECT a.session_id FROM judge_refusals j JOIN attempts a ON a.id = j.attempt_id
    WHERE j.rowid > :judge_refusals_since AND NOT EXISTS
    (SELECT 1 FROM sync_records r WHERE r.record_id = j.id AND r.kind = 'judge_refusal')
"""


class SqliteSyncJournal:
    """The `SyncJournal` port over the SQLite journal."""

    def __init__(self, journal: Journal, device_id: str | None) -> None:
        self._journal = journal
        self._device_id = device_id
        self._key: HeadSigner | None = None
        self._key_read = False
        self._batching = False
        self._batch: _Batch | None = None

    # --- what this journal knows --------------------------------------------------------
    def known_segments(self) -> set[tuple[str, str]]:
        """(device id, file name) of every segment written or imported here."""
        with self._journal.read() as conn:
            rows = conn.execute("SELECT device_id, file_name FROM sync_segments").fetchall()
        return {(str(r[0]), str(r[1])) for r in rows}

    def devices_seen(self) -> list[DeviceSeen]:
        with self._journal.read() as conn:
            rows = conn.execute(
                "SELECT device_id, count(*), sum(records), max(created_at),"
                " (SELECT device_name FROM sync_segments n WHERE n.device_id = s.device_id"
                "  ORDER BY n.sequence DESC LIMIT 1)"
                " FROM sync_segments s GROUP BY device_id ORDER BY device_id"
            ).fetchall()
        return [
            DeviceSeen(
                device_id=str(r[0]),
                name=str(r[4]),
                segments=int(r[1]),
                records=int(r[2] or 0),
                last_segment_at=r[3],
                this_device=r[0] == self._device_id,
            )
            for r in rows
        ]

    def origin_of(self, record_id: str) -> tuple[str, str] | None:
        """(device id, device name) of the other device a record was imported from (None:
        made here, or not synced)."""
        with self._journal.read() as conn:
            row = conn.execute(
                "SELECT r.device_id, g.device_name FROM sync_records r"
                " JOIN sync_segments g ON g.digest = r.segment"
                " WHERE r.record_id = ? AND g.written = 0 LIMIT 1",
                (record_id,),
            ).fetchone()
        return None if row is None else (str(row[0]), str(row[1]))

    def last_sequence(self) -> int:
        """The largest sequence number of a segment this computer wrote (or imported back
        from its own folder, signed with its key): the next one follows it (issue 34)."""
        with self._journal.read() as conn:
            row = conn.execute(
                "SELECT coalesce(max(sequence), 0) FROM sync_segments WHERE device_id = ?",
                (self._device_id,),
            ).fetchone()
        return int(row[0])

    # --- pairing (issue 34, ADR 0033) -----------------------------------------------------
    def pairing_history(self) -> list[Pairing]:
        """Every pairing record, in the order made."""
        with self._journal.read() as conn:
            rows = conn.execute(
                "SELECT id, device_id, name, public_key, action, created_at FROM sync_pairings"
                " ORDER BY rowid"
            ).fetchall()
        return [
            Pairing(
                device_id=str(r[1]),
                name=str(r[2]),
                public_key=str(r[3]),
                action="trust" if r[4] == "trust" else "forget",
                created_at=str(r[5]),
                id=str(r[0]),
            )
            for r in rows
        ]

    def record_pairing(self, pairing: Pairing) -> None:
        """Store a pairing (sealed: its id is its content id) and log it in the trace
        log, whose head is signed with the keyring's key."""
        sealed = pairing.sealed()
        signer = self._journal.head_key()
        with self._journal.write() as conn:
            inserted = conn.execute(
                "INSERT OR IGNORE INTO sync_pairings (id, device_id, name, public_key, action,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (sealed.id, *sealed.fields().values()),
            ).rowcount
            log_record(conn, bool(inserted), sealed.id, sealed.created_at, signer)

    def sources(self) -> list[tuple[str, str, dict[str, int]]]:
        """(device id, its latest name, records imported from it by when they were
        imported) of every other computer records were imported from."""
        with self._journal.read() as conn:
            rows = conn.execute(
                "SELECT r.device_id, g.synced_at, count(*),"
                " (SELECT device_name FROM sync_segments n WHERE n.device_id = r.device_id"
                "  ORDER BY n.sequence DESC LIMIT 1)"
                " FROM sync_records r JOIN sync_segments g ON g.digest = r.segment"
                " WHERE g.written = 0 GROUP BY r.device_id, g.digest ORDER BY r.device_id"
            ).fetchall()
        found: dict[str, tuple[str, dict[str, int]]] = {}
        for device_id, synced_at, records, name in rows:
            when = found.setdefault(str(device_id), (str(name), {}))[1]
            when[str(synced_at)] = when.get(str(synced_at), 0) + int(records)
        return [(device_id, name, when) for device_id, (name, when) in found.items()]

    # --- export ----------------------------------------------------------------------------
    def pending_export(self) -> ExportBatch:
        """The records ready to travel that no segment holds yet, grouped by the practice
        session they belong to (a group is never split across segments). Only sessions
        with a trace, verdict or refusal stored since the last export are looked in."""
        groups: dict[str, list[SyncRecord]] = {}
        with self._journal.read() as conn:
            row = conn.execute("SELECT value FROM sync_state WHERE key = 'export'").fetchone()
            since: dict[str, int] = {} if row is None else json.loads(row[0])
            marks = {
                table: int(
                    conn.execute(f"SELECT coalesce(max(rowid), 0) FROM {table}").fetchone()[0]
                )
                for table in _WATCHED
            }
            candidates = [
                str(r[0])
                for r in conn.execute(
                    _CANDIDATES, {f"{t}_since": since.get(t, 0) for t in _WATCHED}
                )
            ]
            params = {"sessions": json.dumps(candidates)}
            for kind in KINDS:
                columns = columns_of(conn, kind.table)
                synced: set[str] = set()
                if not kind.id_in_sql:
                    synced = {
                        str(r[0])
                        for r in conn.execute(
                            "SELECT record_id FROM sync_records WHERE kind = ?", (kind.name,)
                        )
                    }
                for row in conn.execute(kind.pending, params):
                    values: Row = {column: row[column] for column in columns}
                    record_id = kind.record_id(values)
                    if record_id in synced:
                        continue
                    record = SyncRecord(kind.name, record_id, values)
                    groups.setdefault(str(row["owner"]), []).append(record)
        return ExportBatch([groups[owner] for owner in sorted(groups)], marks)

    def record_exported(self, marks: dict[str, int]) -> None:
        """Everything up to `marks` is in a segment now: the next export starts there."""
        with self._journal.write() as conn:
            conn.execute(
                "INSERT INTO sync_state (key, value) VALUES ('export', ?)"
                " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (json.dumps(marks),),
            )

    def record_written(self, segment: Segment, synced_at: str) -> None:
        """This device wrote `segment` into its folder: its records are in a segment now."""
        with self._journal.write() as conn:
            self._remember(conn, segment, synced_at, segment.records, written=True)

    def _remember(
        self,
        conn: sqlite3.Connection,
        segment: Segment,
        synced_at: str,
        records: Sequence[SyncRecord],
        *,
        written: bool,
    ) -> None:
        header = segment.header
        conn.execute(
            "INSERT OR IGNORE INTO sync_segments (digest, device_id, device_name, sequence,"
            " file_name, created_at, records, synced_at, written)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                segment.digest,
                header.device_id,
                header.device_name,
                header.sequence,
                segment.name,
                header.created_at,
                len(segment.records),
                synced_at,
                int(written),
            ),
        )
        conn.executemany(
            "INSERT OR IGNORE INTO sync_records (kind, record_id, device_id, segment)"
            " VALUES (?, ?, ?, ?)",
            [(r.kind, r.id, header.device_id, segment.digest) for r in records],
        )

    # --- import ----------------------------------------------------------------------------
    @contextlib.contextmanager
    def importing(self) -> Iterator[None]:
        """Around the import of many segments: the journal's bulk writes, and a few
        segments stored in one transaction (a commit rewrites every index page its
        segments touched, which for records with random ids is most of them). A segment
        that does not go in takes the transaction back, and the batch's earlier segments
        are stored again (a savepoint for each measured slower: it copies every page it
        changes)."""
        with self._journal.bulk():
            self._batching = True
            try:
                yield
            finally:
                self._batching = False
                self._commit()

    def settle(self, now: bool = False) -> None:
        """While the import waits for the next segment, or before it reads one itself:
        commit the segments stored so far, if `now` or if the transaction has been open
        a while (so another write waits about a second, and a commit is not paid for
        every segment)."""
        batch = self._batch
        if batch is not None and (now or time.monotonic() - batch.began >= _BATCH_SECONDS):
            self._commit()

    def _commit(self) -> None:
        batch, self._batch = self._batch, None
        if batch is not None:
            batch.stack.close()

    def stored_types(self) -> StoredTypes:
        """For each table of a practice session's records: the types of value each
        column stores exactly as given (SQLite's column affinity), so a check of a row
        before it is stored holds for the row stored."""
        with self._journal.read() as conn:
            return {
                table: {
                    str(column[1]): _UNCHANGED[_affinity(str(column[2]))]
                    for column in conn.execute(f"PRAGMA table_info({table})")
                }
                for table in (*SESSION_TABLES.values(), "scheduler_decisions")
            }

    def import_segment(
        self,
        segment: Segment,
        synced_at: str,
        check: SessionCheck,
        checked: Mapping[str, tuple[str, str] | None] | None = None,
    ) -> SegmentOutcome:
        """Merge `segment` in, all or nothing. `checked`: the sessions that arrived whole
        in it, already checked (`services.sync_prepare`)."""
        problem = _first_problem(segment.records)
        if problem is not None:
            return SegmentOutcome("rejected", reason=problem)
        if not self._key_read:  # once per sync, before the writer: it may ask to unlock
            self._key, self._key_read = self._journal.head_key(), True
        job = _Job(segment, synced_at, check, checked or {})
        if not self._batching:
            try:
                # Not durable: a segment a power cut takes back is imported again next sync.
                with self._journal.write(durable=False) as conn:
                    return self._merge(conn, job)
            except Stop as stop:
                return stop.outcome
        if self._batch is None:
            self._batch = _Batch(self._journal)
        batch = self._batch
        try:
            outcome = self._merge(batch.conn, job)
        except Stop as stop:
            self._store_again(batch)
            return stop.outcome
        except BaseException as error:  # the whole transaction goes, and the error on
            self._batch = None
            batch.stack.__exit__(type(error), error, error.__traceback__)
            raise
        batch.jobs.append(job)
        batch.outcomes.append(outcome)
        if len(batch.jobs) >= _BATCH_SEGMENTS:
            self._commit()
        return outcome

    def _store_again(self, batch: _Batch) -> None:
        """Take the batch's transaction back (a segment did not go in) and store its
        earlier segments again, in a new one. They go in the same way unless another
        Coach wrote to the journal in between (the lock is let go for a moment): then,
        or on any error, the whole batch is taken back and the learner asked to sync
        again (the next sync imports it all; nothing half-stored is ever committed)."""
        try:
            batch.conn.execute("ROLLBACK")
            batch.conn.execute("BEGIN IMMEDIATE")
            for job, before in zip(batch.jobs, batch.outcomes, strict=True):
                if self._merge(batch.conn, job) != before:
                    raise _Changed
        except BaseException as error:
            self._batch = None
            batch.stack.__exit__(type(error), error, error.__traceback__)  # rolls back
            if isinstance(error, _Changed | Stop):
                raise JournalError(
                    "The journal changed while sync was storing files from another computer;"
                    " sync again."
                ) from None
            raise

    def _merge(self, conn: sqlite3.Connection, job: _Job) -> SegmentOutcome:
        segment, synced_at = job.segment, job.synced_at
        if conn.execute(
            "SELECT 1 FROM sync_segments WHERE digest = ?", (segment.digest,)
        ).fetchone():
            return SegmentOutcome("duplicate", duplicates=len(segment.records))
        outcome = Merge(conn).run(segment, job.check, job.checked)
        new_traces = outcome.pop()
        if new_traces:
            append_traces(conn, new_traces, synced_at, self._key)
        merged = [r for r in segment.records if (r.kind, r.id) not in outcome.conflicts]
        own = segment.header.device_id == self._device_id  # restored: ours again
        self._remember(conn, segment, synced_at, merged, written=own)
        return outcome.result()


_BATCH_SEGMENTS = 4  # segments stored in one transaction during `importing()`
_BATCH_SECONDS = 1.0  # ... or fewer, if the import would wait with it open this long


@dataclass(frozen=True)
class _Job:
    segment: Segment
    synced_at: str
    check: SessionCheck
    checked: Mapping[str, tuple[str, str] | None]


class _Batch:
    """One write transaction holding a few segments (`SqliteSyncJournal.importing`)."""

    def __init__(self, journal: Journal) -> None:
        self.stack = contextlib.ExitStack()
        # Not durable: a segment a power cut takes back is imported again next sync.
        self.conn = self.stack.enter_context(journal.write(durable=False))
        self.began = time.monotonic()
        self.jobs: list[_Job] = []
        self.outcomes: list[SegmentOutcome] = []  # what each job did (the same if redone)


class _Changed(Exception):
    """A segment stored again did not go in as it did the first time."""


_NONE = "NoneType"
_UNCHANGED = {
    "integer": frozenset({"int", _NONE}),
    "text": frozenset({"str", _NONE}),
    "blob": frozenset({"int", "str", _NONE}),
    "real": frozenset({_NONE}),  # an integer would be stored as a float
    "numeric": frozenset({"int", _NONE}),
}


def _affinity(declared: str) -> str:
    """SQLite's rules for a column's type affinity, from its declared type."""
    declared = declared.upper()
    if "INT" in declared:
        return "integer"
    if any(word in declared for word in ("CHAR", "CLOB", "TEXT")):
        return "text"
    if not declared or "BLOB" in declared:
        return "blob"
    if any(word in declared for word in ("REAL", "FLOA", "DOUB")):
        return "real"
    return "numeric"


def _first_problem(records: Sequence[SyncRecord]) -> str | None:
    for record in records:
        kind = BY_NAME.get(record.kind)
        if kind is None:
            return (
                f"it holds a kind of record this Coach does not know ({shown(record.kind)[:40]});"
                " update Coach here"
            )
        if kind.record_id(record.row) != record.id:
            return f"{_named(record)} does not match its id"
        problem = None if kind.problem is None else kind.problem(record.row)
        if problem is not None:
            return f"{_named(record)}: {problem}"
    return None


def _named(record: SyncRecord) -> str:
    """A record from a file as a reason names it (escaped where it is not Unicode)."""
    return f"{shown(record.kind)[:40]} {shown(record.id)[:80]}"
