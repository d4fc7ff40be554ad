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

import json
import logging
import sqlite3
from collections.abc import Sequence
from typing import Any

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.records import lenient, read_records, trace_row
from coach_gui.adapters.journal.sync_kinds import (
    BY_NAME,
    KINDS,
    THROUGH_ANSWER,
    THROUGH_REQUEST,
    Kind,
)
from coach_gui.adapters.journal.trace_log import HeadSigner, append_traces
from coach_gui.domain.session_records import StoredTrace
from coach_gui.domain.sync import (
    DeviceSeen,
    ExportBatch,
    Row,
    Segment,
    SegmentOutcome,
    SyncRecord,
    newer_rating,
)
from coach_gui.services.ports.sync import SessionCheck


class TraceRows:
    """`coach verify`'s trace lookup, inside the import's own transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def trace_row(self, trace_id: str) -> StoredTrace | None:
        return trace_row(self._conn, trace_id)


log = logging.getLogger(__name__)
_WAITING = "it refers to records not here yet (an earlier segment)"
_NEWER = "written by a newer Coach; update Coach here"
_REFUSED = (
    "the journal refused one of its records (it would change a sealed record or break a "
    "rule every record keeps); the log file has the details"
)


class _Stop(Exception):
    def __init__(self, outcome: SegmentOutcome) -> None:
        self.outcome = outcome


# What makes a session's records ready to travel, by the rowid its last export reached:
# a trace (a session sealed, answers judged later), a verdict or a refusal stored since.
_WATCHED = ("sealed_traces", "verdicts", "judge_refusals")
_CANDIDATES = """
SELECT session_id FROM sealed_traces WHERE rowid > :sealed_traces_since
    AND session_id IS NOT NULL
UNION SELECT a.session_id FROM verdicts v JOIN attempts a ON a.id = v.attempt_id
    WHERE v.rowid > :verdicts_since
UNION SELECT a.session_id FROM judge_refusals r JOIN attempts a ON a.id = r.attempt_id
    WHERE r.rowid > :judge_refusals_since
"""


def _columns(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})"))


def _where(kind: Kind) -> str:
    return " AND ".join(f"{column} = :{column}" for column in kind.key)


class SqliteSyncJournal:
    """The `SyncJournal` port over the SQLite journal."""

    def __init__(self, journal: Journal, device_id: str | None) -> None:
        self._journal = journal
        self._device_id = device_id
        self._key: HeadSigner | None = None
        self._key_read = False

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
                columns = _columns(conn, kind.table)
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
    def import_segment(
        self, segment: Segment, synced_at: str, check: SessionCheck
    ) -> SegmentOutcome:
        """Merge `segment` in, all or nothing."""
        problem = _first_problem(segment.records)
        if problem is not None:
            return SegmentOutcome("rejected", reason=problem)
        if self._known_digest(segment.digest):
            return SegmentOutcome("duplicate", duplicates=len(segment.records))
        if not self._key_read:  # once per sync, before the writer: it may ask to unlock
            self._key, self._key_read = self._journal.head_key(), True
        key = self._key
        try:
            with self._journal.write() as conn:
                outcome = _Merge(conn).run(segment, check)
                new_traces = outcome.pop()
                if new_traces:
                    append_traces(conn, new_traces, synced_at, key)
                merged = [r for r in segment.records if (r.kind, r.id) not in outcome.conflicts]
                own = segment.header.device_id == self._device_id  # restored: ours again
                self._remember(conn, segment, synced_at, merged, written=own)
                return outcome.result()
        except _Stop as stop:
            return stop.outcome

    def _known_digest(self, digest: str) -> bool:
        with self._journal.read() as conn:
            found = conn.execute("SELECT 1 FROM sync_segments WHERE digest = ?", (digest,))
            return found.fetchone() is not None


def _first_problem(records: Sequence[SyncRecord]) -> str | None:
    for record in records:
        kind = BY_NAME.get(record.kind)
        if kind is None:
            return (
                f"it holds a kind of record this Coach does not know ({record.kind}); "
                "update Coach here"
            )
        if kind.record_id(record.row) != record.id:
            return f"{record.kind} {record.id} does not match its id"
        problem = None if kind.problem is None else kind.problem(record.row)
        if problem is not None:
            return f"{record.kind} {record.id}: {problem}"
    return None


_PARAMS = 500  # ids per query, under SQLite's limit on bound parameters


class _Merge:
    """One segment's records stored by id, inside the caller's transaction: per kind,
    parents first, the ids already here looked up in a few queries and the new rows
    inserted together; a record already here must be the identical record."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.added = 0
        self.duplicates = 0
        self.conflicts: set[tuple[str, str]] = set()
        self.sessions: set[str] = set()
        self.answers: dict[str, str] = {}  # attempt id -> session id, of this segment
        self.traces: list[tuple[str, str]] = []  # (sealed at, trace id) stored now
        self._pending_seals: list[tuple[str, str]] = []

    def run(self, segment: Segment, check: SessionCheck) -> _Merge:
        by_kind: dict[str, list[SyncRecord]] = {}
        for record in segment.records:
            by_kind.setdefault(record.kind, []).append(record)
        try:
            for kind in KINDS:
                records = by_kind.get(kind.name, [])
                if not records:
                    continue
                columns = set(_columns(self.conn, kind.table))
                if any(not set(r.row) <= columns for r in records):
                    raise _Stop(SegmentOutcome("rejected", reason=_NEWER))
                if kind.name == "self_rating":
                    for record in records:
                        self._rating(dict(record.row))
                else:
                    self._store(kind, records)
            # Every row is in, the sessions' own traces too: seal the sessions now.
            self.conn.executemany(
                "UPDATE sessions SET sealed_trace_id = ? WHERE id = ? AND sealed_trace_id IS NULL",
                self._pending_seals,
            )
            for kind in KINDS:
                self._owners(kind, by_kind.get(kind.name, []))
        except sqlite3.IntegrityError as error:
            if "FOREIGN KEY" in str(error):
                raise _Stop(SegmentOutcome("waiting", reason=_WAITING)) from None
            log.warning("a segment was refused: %s", error)
            raise _Stop(SegmentOutcome("rejected", reason=_REFUSED)) from None
        except sqlite3.DatabaseError as error:  # a trigger's refusal: a sealed record changed
            log.warning("a segment was refused: %s", error)
            raise _Stop(SegmentOutcome("rejected", reason=_REFUSED)) from None
        with lenient(self.conn):
            touched = read_records(self.conn, sorted(self.sessions))
        failure = check(touched, TraceRows(self.conn))
        if failure is not None:
            record_id, reason = failure
            raise _Stop(
                SegmentOutcome("rejected", reason=f"{record_id} does not check out: {reason}")
            )
        return self

    def _stored(self, kind: Kind, records: list[SyncRecord]) -> dict[str, dict[str, Any]]:
        """The rows here that have the ids of `records` (a one-column key)."""
        (key,) = kind.key
        found: dict[str, dict[str, Any]] = {}
        ids = [r.id for r in records]
        for start in range(0, len(ids), _PARAMS):
            chunk = ids[start : start + _PARAMS]
            marks = ", ".join("?" * len(chunk))
            for row in self.conn.execute(
                f"SELECT * FROM {kind.table} WHERE {key} IN ({marks})", chunk
            ):
                found[str(row[key])] = dict(row)
        return found

    def _store(self, kind: Kind, records: list[SyncRecord]) -> None:
        stored = self._stored(kind, records)
        new: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        seal: list[tuple[str, str]] = []
        for record in records:
            here = stored.get(record.id)
            if here is not None:
                if {c: here.get(c) for c in record.row} == record.row:
                    self.duplicates += 1
                else:
                    self.conflicts.add((record.kind, record.id))
                continue
            row: dict[str, Any] = dict(record.row)
            if kind.name == "session" and row.get("sealed_trace_id") is not None:
                seal.append((str(row["sealed_trace_id"]), str(row["id"])))
                row["sealed_trace_id"] = None  # sealed once its trace is stored
            if kind.name == "trace":
                self.traces.append((str(row["created_at"]), str(row["trace_id"])))
            new.setdefault(tuple(row), []).append(row)
        for columns, rows in new.items():
            marks = ", ".join(f":{column}" for column in columns)
            self.conn.executemany(
                f"INSERT INTO {kind.table} ({', '.join(columns)}) VALUES ({marks})", rows
            )
            self.added += len(rows)
        self._pending_seals.extend(seal)

    def _owners(self, kind: Kind, records: list[SyncRecord]) -> None:
        """Note the sessions `records` belong to, to check them once all is stored."""
        column = kind.owner
        if not records or column is None:
            return
        if column == THROUGH_REQUEST:
            self._requests(records)
            return
        if column != THROUGH_ANSWER:
            owners = {str(r.row[column]) for r in records if r.row.get(column)}
            self.sessions |= owners
            if kind.name == "attempt":
                self.answers.update((r.id, str(r.row["session_id"])) for r in records)
            return
        unknown = sorted({str(r.row["attempt_id"]) for r in records} - set(self.answers))
        for start in range(0, len(unknown), _PARAMS):
            chunk = unknown[start : start + _PARAMS]
            marks = ", ".join("?" * len(chunk))
            self.answers.update(
                (str(row[0]), str(row[1]))
                for row in self.conn.execute(
                    f"SELECT id, session_id FROM attempts WHERE id IN ({marks})", chunk
                )
            )
        self.sessions |= {
            self.answers[str(r.row["attempt_id"])]
            for r in records
            if str(r.row["attempt_id"]) in self.answers
        }

    def _requests(self, records: list[SyncRecord]) -> None:
        """A judge request travels only with an answer it judged (whose session is then
        checked, the request's sealed digest with it)."""
        ids = [r.id for r in records]
        judged: dict[str, str] = {}
        for start in range(0, len(ids), _PARAMS):
            chunk = ids[start : start + _PARAMS]
            marks = ", ".join("?" * len(chunk))
            for outbox_id, session_id in self.conn.execute(
                "SELECT c.outbox_id, a.session_id FROM (SELECT outbox_id, attempt_id FROM"
                f" verdicts WHERE outbox_id IN ({marks}) UNION SELECT outbox_id, attempt_id"
                f" FROM judge_refusals WHERE outbox_id IN ({marks})) c"
                " JOIN attempts a ON a.id = c.attempt_id",
                chunk + chunk,
            ):
                judged[str(outbox_id)] = str(session_id)
        if set(ids) - set(judged):
            raise _Stop(
                SegmentOutcome("rejected", reason="it holds a judge request that judged nothing")
            )
        self.sessions |= set(judged.values())

    def _rating(self, row: dict[str, Any]) -> None:
        """One rating per answer and assertion: the later one wins (`newer_rating`)."""
        found = self.conn.execute(
            "SELECT * FROM self_ratings WHERE attempt_id = :attempt_id"
            " AND assertion_digest = :assertion_digest",
            row,
        ).fetchone()
        stored = None if found is None else {c: found[c] for c in row}
        if stored == row:
            self.duplicates += 1
            return
        if stored is None:
            marks = ", ".join(f":{column}" for column in row)
            self.conn.execute(f"INSERT INTO self_ratings ({', '.join(row)}) VALUES ({marks})", row)
        elif not newer_rating(row, stored):
            self.duplicates += 1  # the one here is the later rating: it stays
            return
        else:
            sets = ", ".join(
                f"{c} = :{c}" for c in row if c not in ("attempt_id", "assertion_digest")
            )
            self.conn.execute(
                f"UPDATE self_ratings SET {sets} WHERE attempt_id = :attempt_id"
                " AND assertion_digest = :assertion_digest",
                row,
            )
        self.added += 1

    def pop(self) -> list[str]:
        return [trace_id for _, trace_id in sorted(self.traces)]

    def result(self) -> SegmentOutcome:
        status = "imported" if self.added or self.conflicts else "duplicate"
        return SegmentOutcome(
            status,  # type: ignore[arg-type]
            added=self.added,
            duplicates=self.duplicates,
            conflicts=tuple(sorted(self.conflicts)),
        )
