"""The sealing side of the journal: sessions read back as records, sealed traces and
bindings written, sessions left open by a crash found.

A session being practised is marked live by an exclusive lock on a small file
(`SessionLocks`), which the operating system releases when its process ends, even when
killed. A session not sealed whose mark no process holds was left open by a crash; one
never marked (practised by a Coach that does not mark its sessions) counts as crashed
once it has been idle for `UNMARKED_GRACE`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Literal

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.practice import SqlitePracticeJournal
from coach_gui.adapters.journal.records import lenient, read_records, trace_row
from coach_gui.adapters.journal.schedule_rows import SCHEDULE_TABLES, schedule_fields
from coach_gui.adapters.journal.trace_log import append_traces, read_log
from coach_gui.domain.practice import PracticeSession
from coach_gui.domain.session_records import AttemptBinding, SessionRecords, StoredTrace
from coach_gui.domain.trace_log import StoredLog
from coach_gui.domain.traces import SealedPracticeTrace

MarkState = Literal["live", "stale", "unmarked"]

# An open session nobody marked live is taken as crashed only after this long idle.
UNMARKED_GRACE = timedelta(hours=6)

try:
    import fcntl
except ImportError:  # not POSIX: sessions go unmarked (crashed once idle)
    fcntl = None  # type: ignore[assignment]


class SessionLocks:
    """Marks sessions live while a Coach process practises them."""

    def __init__(self, folder: Path) -> None:
        self._folder = folder
        self._held: dict[str, int] = {}

    def _path(self, session_id: str) -> Path:
        return self._folder / f"{session_id}.lock"

    def hold(self, session_id: str) -> None:
        """Mark `session_id` live until `release` (or until this process ends)."""
        if fcntl is None or session_id in self._held:
            return
        self._folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self._path(session_id), os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        self._held[session_id] = fd

    def release(self, session_id: str) -> None:
        fd = self._held.pop(session_id, None)
        if fd is not None:
            with contextlib.suppress(OSError):
                self._path(session_id).unlink()
            os.close(fd)

    def state(self, session_id: str) -> MarkState:
        """`live` while a running process (this one included) holds the session's mark;
        `stale` when it was marked by a process that ended without releasing it (killed);
        `unmarked` when it was never marked, or was released."""
        if session_id in self._held:
            return "live"
        try:
            fd = os.open(self._path(session_id), os.O_RDWR)
        except OSError:
            return "unmarked"
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return "live"
        finally:
            os.close(fd)  # (closing also drops the lock just taken)
        return "stale"

    def forget(self, session_id: str) -> None:
        """Remove a stale mark (its session is sealed now)."""
        if self.state(session_id) == "stale":
            with contextlib.suppress(OSError):
                self._path(session_id).unlink()


def default_locks(journal: Journal) -> SessionLocks:
    return SessionLocks(journal.path.parent / "live-sessions")


class LivePracticeJournal(SqlitePracticeJournal):
    """`PracticeJournal` that marks a session live before its row is written, so another
    Coach process never takes it for one a crash left open."""

    def __init__(self, journal: Journal, locks: SessionLocks | None = None) -> None:
        super().__init__(journal)
        self.locks = locks or default_locks(journal)

    def start_session(self, session: PracticeSession, decision: str | None = None) -> None:
        self.locks.hold(session.id)
        super().start_session(session, decision)

    def release(self, session_id: str) -> None:
        """The session is sealed (or abandoned): it is no longer live."""
        self.locks.release(session_id)


class SqliteTraceJournal:
    """`TraceJournal` over the SQLite journal."""

    def __init__(
        self,
        journal: Journal,
        locks: SessionLocks | None = None,
        *,
        now: Callable[[], datetime] | None = None,
    ) -> None:
        self._journal = journal
        self._locks = locks or default_locks(journal)
        self._now = now or (lambda: datetime.now(UTC))

    # --- reading -------------------------------------------------------------------------------
    def session_ids(
        self, *, newest_first: bool = False, limit: int | None = None, offset: int = 0
    ) -> list[str]:
        # By when each was started, not by when it was stored here: sessions synced from
        # another computer arrive later than they were practised (ADR 0027).
        order = "started_at DESC, id DESC" if newest_first else "started_at, id"
        with self._journal.read() as conn:
            rows = conn.execute(
                f"SELECT id FROM sessions ORDER BY {order} LIMIT ? OFFSET ?",
                (-1 if limit is None else limit, offset),
            ).fetchall()
        return [row[0] for row in rows]

    def orphaned_ids(self) -> list[str]:
        with self._journal.read() as conn:
            rows = conn.execute(_ORPHANS).fetchall()
        return [str(row[0]) for row in rows]

    def trace_log(self) -> StoredLog:
        with self._journal.read() as conn, lenient(conn):
            return read_log(conn)

    def records_for(self, session_ids: Sequence[str]) -> list[SessionRecords]:
        with self._journal.read() as conn:
            try:
                return read_records(conn, session_ids)
            except sqlite3.OperationalError:  # text that is not UTF-8: read it leniently
                with lenient(conn):
                    return read_records(conn, session_ids)

    def session_records(self, session_id: str) -> SessionRecords | None:
        found = self.records_for([session_id])
        return found[0] if found else None

    def trace_row(self, trace_id: str) -> StoredTrace | None:
        with self._journal.read() as conn, lenient(conn):
            return trace_row(conn, trace_id)

    def scheduler_decision(self, decision_id: str) -> str | None:
        with self._journal.read() as conn:
            row = conn.execute(
                "SELECT fields FROM scheduler_decisions WHERE id = ?", (decision_id,)
            ).fetchone()
        return None if row is None else str(row[0])

    def schedule_records(self) -> list[tuple[str, str, dict[str, object]]]:
        found: list[tuple[str, str, dict[str, object]]] = []
        with self._journal.read() as conn:
            for table in (
                "review_changes",
                "schedule_holds",
                "fsrs_parameters",
                "learner_corrections",
                "imported_reviews",
            ):
                for row in conn.execute(f"SELECT * FROM {table}"):
                    fields = schedule_fields(table, dict(row))
                    found.append((SCHEDULE_TABLES[table], str(row["id"]), fields or {}))
            # The learner's pairings of computers (issue 34): each id is its content id.
            for row in conn.execute(
                "SELECT id, device_id, name, public_key, action, created_at FROM sync_pairings"
            ):
                pairing = {k: row[k] for k in ("device_id", "name", "public_key", "action")}
                found.append(
                    ("sync_pairing", str(row["id"]), {**pairing, "created_at": row["created_at"]})
                )
        return found

    def find(self, record_id: str) -> tuple[str | None, str | None] | None:
        with self._journal.read() as conn:
            if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (record_id,)).fetchone():
                return record_id, None
            row = conn.execute(
                "SELECT session_id FROM sealed_traces WHERE trace_id = ?", (record_id,)
            ).fetchone()
        return None if row is None else (row[0], record_id)

    def open_session_ids(self) -> list[str]:
        with self._journal.read() as conn:
            rows = conn.execute(_OPEN_SESSIONS).fetchall()
        found = []
        for session_id, ended_at, last_active in rows:
            state = self._locks.state(session_id)
            if state == "live":
                continue
            # Never marked live: practised by a Coach that does not mark its sessions (or
            # an older one), so it may still be open there; taken as crashed once idle.
            if state == "stale" or ended_at is not None or self._idle(last_active):
                found.append(session_id)
        return found

    def _idle(self, last_active: str) -> bool:
        try:
            when = datetime.fromisoformat(last_active)
        except ValueError:
            return True
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return self._now() - when > UNMARKED_GRACE

    def sessions_with_pending(self) -> list[str]:
        with self._journal.read() as conn:
            rows = conn.execute(_WITH_PENDING).fetchall()
        return [row[0] for row in rows]

    # --- writing -------------------------------------------------------------------------------
    def store_session_trace(
        self, trace: SealedPracticeTrace, *, expected: SessionRecords
    ) -> str | None:
        session_id = trace.input.session_id
        key = self._journal.head_key()  # before the writer: the keyring may ask to unlock
        with self._journal.write() as conn, lenient(conn):
            row = conn.execute(
                "SELECT sealed_trace_id FROM sessions WHERE id = ?", (session_id,)
            ).fetchone()
            if row is not None and row[0] is not None:
                return str(row[0])  # sealed meanwhile by another process
            if read_records(conn, [session_id]) != [expected]:
                return None
            conn.execute(
                "INSERT INTO sealed_traces (trace_id, session_id, kind, input_digest, body,"
                " created_at) VALUES (?, ?, 'session', ?, ?, ?)",
                (trace.trace_id, session_id, trace.input_digest, trace.body, trace.input.sealed_at),
            )
            append_traces(conn, [trace.trace_id], trace.input.sealed_at, key)
            conn.execute(
                "UPDATE sessions SET ended_at = ?, disposition = ?, sealed_trace_id = ?"
                " WHERE id = ?",
                (trace.input.sealed_at, trace.input.disposition.value, trace.trace_id, session_id),
            )
        self._locks.forget(session_id)
        return trace.trace_id

    def store_bound_trace(
        self, new_bindings: Sequence[AttemptBinding], trace: SealedPracticeTrace
    ) -> None:
        key = self._journal.head_key()
        with self._journal.write() as conn:
            conn.executemany(
                "INSERT INTO attempt_bindings (id, attempt_id, verdict_id, original_trace_id,"
                " created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    (b.id, b.attempt_id, b.verdict_id, b.original_trace_id, b.created_at)
                    for b in new_bindings
                ],
            )
            conn.execute(
                "INSERT INTO sealed_traces (trace_id, session_id, kind, input_digest, body,"
                " created_at) VALUES (?, ?, 'bound', ?, ?, ?)",
                (
                    trace.trace_id,
                    trace.input.session_id,
                    trace.input_digest,
                    trace.body,
                    trace.input.sealed_at,
                ),
            )
            append_traces(conn, [trace.trace_id], trace.input.sealed_at, key)
            conn.executemany(
                "UPDATE attempt_bindings SET bound_trace_id = ? WHERE id = ?",
                [(trace.trace_id, binding) for binding in trace.input.attempt_binding_ids],
            )


# Sessions not sealed yet, with when they were last written to.
_OPEN_SESSIONS = """
SELECT s.id, s.ended_at, max(
    s.started_at,
    coalesce((SELECT max(c.created_at) FROM challenges c WHERE c.session_id = s.id), ''),
    coalesce((SELECT max(a.submitted_at) FROM attempts a WHERE a.session_id = s.id), ''))
FROM sessions s WHERE s.sealed_trace_id IS NULL ORDER BY s.started_at, s.id
"""

# Sealed sessions with an answer neither its trace nor a binding judges, or with a binding
# whose bound trace was never sealed (a crash between the two writes).
_WITH_PENDING = """
SELECT s.id FROM sessions s
WHERE s.sealed_trace_id IS NOT NULL AND (
    EXISTS (
        SELECT 1 FROM attempts a
        WHERE a.session_id = s.id
        AND NOT EXISTS (SELECT 1 FROM attempt_bindings b WHERE b.attempt_id = a.id)
        AND NOT EXISTS (
            SELECT 1 FROM verdicts v
            WHERE v.attempt_id = a.id AND v.id IN (
                SELECT j.value FROM sealed_traces t, json_each(t.body, '$.input.verdict_ids') j
                WHERE t.trace_id = s.sealed_trace_id)))
    OR EXISTS (
        SELECT 1 FROM attempt_bindings b JOIN attempts a ON a.id = b.attempt_id
        WHERE a.session_id = s.id AND b.bound_trace_id IS NULL))
ORDER BY s.started_at, s.id
"""


# What `coach verify` reports as missing its owner: a deleted session row leaves these.
_ORPHANS = """
SELECT trace_id FROM sealed_traces
 WHERE kind IN ('session', 'bound') AND session_id NOT IN (SELECT id FROM sessions)
UNION ALL SELECT id FROM challenges WHERE session_id NOT IN (SELECT id FROM sessions)
UNION ALL SELECT id FROM challenge_rejections WHERE session_id NOT IN (SELECT id FROM sessions)
UNION ALL SELECT id FROM attempts WHERE session_id NOT IN (SELECT id FROM sessions)
UNION ALL SELECT id FROM verdicts WHERE attempt_id NOT IN (SELECT id FROM attempts)
UNION ALL SELECT id FROM judge_refusals WHERE attempt_id NOT IN (SELECT id FROM attempts)
UNION ALL SELECT trace_id FROM eval_children WHERE eval_run_id NOT IN (SELECT id FROM eval_runs)
UNION ALL SELECT trace_id FROM sealed_traces
 WHERE kind = 'eval_child' AND trace_id NOT IN (SELECT trace_id FROM eval_children)
LIMIT 10
"""
