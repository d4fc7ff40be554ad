"""One segment merged into the journal (ADR 0027), inside the caller's transaction:
stored kind by kind, parents first, by id; then every session it touches checked as `coach
verify` checks it. Anything wrong raises `Stop` with the outcome, and the caller's
transaction rolls the whole segment back."""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Mapping
from typing import Any

from coach_gui.adapters.journal.records import read_records, trace_row
from coach_gui.adapters.journal.sync_kinds import (
    KINDS,
    THROUGH_ANSWER,
    THROUGH_REQUEST,
    Kind,
)
from coach_gui.domain.session_records import StoredTrace
from coach_gui.domain.sync import Segment, SegmentOutcome, SyncRecord, newer_rating
from coach_gui.domain.traces import VerifyFailure
from coach_gui.services.ports.sync import SessionCheck

log = logging.getLogger(__name__)
_WAITING = "it refers to records not here yet (an earlier segment)"
_NEWER = "written by a newer Coach; update Coach here"
_UNSTORABLE = (
    "it holds a value no journal column holds (a number too large, broken text, or a value"
    " nested deeper than Coach ever writes)"
)
_REFUSED = (
    "the journal refused one of its records (it would change a sealed record or break a "
    "rule every record keeps); the log file has the details"
)


class Stop(Exception):
    """The segment does not go in (now): `outcome` says why."""

    def __init__(self, outcome: SegmentOutcome) -> None:
        self.outcome = outcome


def columns_of(conn: sqlite3.Connection, table: str) -> tuple[str, ...]:
    return tuple(str(row[1]) for row in conn.execute(f"PRAGMA table_info({table})"))


class TraceRows:
    """`coach verify`'s trace lookup, inside the import's own transaction."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def trace_row(self, trace_id: str) -> StoredTrace | None:
        return trace_row(self._conn, trace_id)

    def scheduler_decision(self, decision_id: str) -> str | None:
        row = self._conn.execute(
            "SELECT fields FROM scheduler_decisions WHERE id = ?", (decision_id,)
        ).fetchone()
        return None if row is None else str(row[0])


_PARAMS = 500  # ids per query, under SQLite's limit on bound parameters


class Merge:
    """One segment's records stored by id, inside the caller's transaction: per kind,
    parents first, the ids already here looked up in a few queries and the new rows
    inserted together; a record already here must be the identical record."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.added = 0
        self.duplicates = 0
        self.conflicts: set[tuple[str, str]] = set()
        self.sessions: set[str] = set()
        self.new_sessions: set[str] = set()  # sessions this segment brought (none was here)
        self.answers: dict[str, str] = {}  # attempt id -> session id, of this segment
        self.traces: list[tuple[str, str]] = []  # (sealed at, trace id) stored now
        self._pending_seals: list[tuple[str, str]] = []

    def run(
        self,
        segment: Segment,
        check: SessionCheck,
        checked: Mapping[str, tuple[str, str] | None],
    ) -> Merge:
        """Store `segment`, then check every session it touches. `checked` holds the
        result of checking the sessions that arrived whole in it before it was stored
        (`services.sync_prepare`): it stands for a session none of which was here before
        and no record of which was a conflict; every other session is read back and
        checked here."""
        by_kind: dict[str, list[SyncRecord]] = {}
        for record in segment.records:
            by_kind.setdefault(record.kind, []).append(record)
        try:
            for kind in KINDS:
                records = by_kind.get(kind.name, [])
                if not records:
                    continue
                columns = set(columns_of(self.conn, kind.table))
                if any(not set(r.row) <= columns for r in records):
                    raise Stop(SegmentOutcome("rejected", reason=_NEWER))
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
                raise Stop(SegmentOutcome("waiting", reason=_WAITING)) from None
            log.warning("a segment was refused: %s", error)
            raise Stop(SegmentOutcome("rejected", reason=_REFUSED)) from None
        except sqlite3.DatabaseError as error:  # a trigger's refusal: a sealed record changed
            log.warning("a segment was refused: %s", error)
            raise Stop(SegmentOutcome("rejected", reason=_REFUSED)) from None
        except (OverflowError, UnicodeEncodeError):  # a number or text no column can hold
            raise Stop(SegmentOutcome("rejected", reason=_UNSTORABLE)) from None
        self._check(check, checked)
        return self

    def _check(self, check: SessionCheck, checked: Mapping[str, tuple[str, str] | None]) -> None:
        touched = sorted(self.sessions)
        vouched = (
            {}
            if self.conflicts
            else {s: checked[s] for s in touched if s in self.new_sessions and s in checked}
        )
        failure = next((f for f in vouched.values() if f is not None), None)
        if failure is None:
            rest = [s for s in touched if s not in vouched]
            try:
                records = read_records(self.conn, rest)  # (UTF-8: it came as JSON)
                unread = sorted(set(rest) - {r.session.id for r in records})
                if unread:  # its row no longer reads as a session
                    failure = (unread[0], VerifyFailure.DIGEST_MISMATCH.value)
                else:
                    failure = check(records, TraceRows(self.conn))
            except RecursionError:  # a value nested deeper than anything Coach writes
                raise Stop(SegmentOutcome("rejected", reason=_UNSTORABLE)) from None
        if failure is not None:
            record_id, reason = failure
            raise Stop(
                SegmentOutcome("rejected", reason=f"{record_id} does not check out: {reason}")
            )

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
        new: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
        seal: list[tuple[str, str]] = []
        for record in records:
            here = stored.get(record.id)
            if here is not None:
                if {c: here.get(c) for c in record.row} == record.row:
                    self.duplicates += 1
                else:
                    self.conflicts.add((record.kind, record.id))
                continue
            row = record.row
            if kind.name == "session":
                self.new_sessions.add(record.id)
                if row.get("sealed_trace_id") is not None:
                    seal.append((str(row["sealed_trace_id"]), str(row["id"])))
                    row = {**row, "sealed_trace_id": None}  # sealed once its trace is stored
            elif kind.name == "trace":
                self.traces.append((str(row["created_at"]), str(row["trace_id"])))
            new.setdefault(tuple(row), []).append(row)
        for columns, rows in new.items():
            marks = ", ".join("?" * len(columns))  # by position: faster than by name
            self.conn.executemany(
                f"INSERT INTO {kind.table} ({', '.join(columns)}) VALUES ({marks})",
                [tuple(row.values()) for row in rows],  # (each in the order of `columns`)
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
            raise Stop(
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
