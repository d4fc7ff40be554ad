"""Journal rows to domain records, for many sessions at once (a few queries per hundred
sessions, so `coach verify` and the Sessions view stay fast on a large journal).

A row that no longer reads as its record (changed outside Coach) becomes a `BrokenRow`;
text that is not valid UTF-8 is read with replacement characters. Either way verification
sees a mismatch instead of an exception.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence

from coach_gui.domain.corrections import LearnerCorrection
from coach_gui.domain.session_records import OutboxRecord, SessionRecords, StoredTrace
from coach_gui.domain.session_rows import assemble, stored_trace
from coach_gui.domain.session_rows import outbox_record as _outbox

CHUNK = 200  # sessions per query: well under SQLite's limit on bound parameters


def lenient_text(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


@contextlib.contextmanager
def lenient(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Read text that is not UTF-8 (a changed byte) as a mismatch to report, not a crash."""
    conn.text_factory = lenient_text
    try:
        yield conn
    finally:
        conn.text_factory = str


def trace_row(conn: sqlite3.Connection, trace_id: str) -> StoredTrace | None:
    row = conn.execute(
        "SELECT trace_id, session_id, kind, input_digest, body, created_at FROM sealed_traces"
        " WHERE trace_id = ?",
        (trace_id,),
    ).fetchone()
    if row is None:
        return None
    try:
        return stored_trace(row)
    except (ValueError, TypeError):
        return None


def outbox_record(conn: sqlite3.Connection, outbox_id: str) -> OutboxRecord | None:
    """One outbox row (None if there is none, or it no longer reads as one)."""
    row = conn.execute("SELECT * FROM outbox WHERE id = ?", (outbox_id,)).fetchone()
    if row is None:
        return None
    try:
        return _outbox(row)
    except (ValueError, TypeError):
        return None


_OWN_SESSION = ("challenges", "challenge_rejections", "attempts")
# Each table's rows in `session_rows.SORT_KEYS`'s order, tables in `DECODERS`'s order.
_QUERIES: dict[str, str] = {
    "challenges": "SELECT * FROM challenges WHERE session_id IN ({ids})"
    " ORDER BY session_id, position, id",
    "challenge_rejections": "SELECT * FROM challenge_rejections WHERE session_id IN ({ids})"
    " ORDER BY session_id, created_at, id",
    "attempts": "SELECT * FROM attempts WHERE session_id IN ({ids})"
    " ORDER BY session_id, submitted_at, id",
    "verdicts": "SELECT a.session_id AS owner, v.* FROM verdicts v"
    " JOIN attempts a ON a.id = v.attempt_id WHERE a.session_id IN ({ids})"
    " ORDER BY v.created_at, v.id",
    "judge_refusals": "SELECT a.session_id AS owner, r.* FROM judge_refusals r"
    " JOIN attempts a ON a.id = r.attempt_id WHERE a.session_id IN ({ids})"
    " ORDER BY r.created_at, r.id",
    "attempt_bindings": "SELECT a.session_id AS owner, b.* FROM attempt_bindings b"
    " JOIN attempts a ON a.id = b.attempt_id WHERE a.session_id IN ({ids})"
    " ORDER BY b.created_at, b.id",
    # The requests the session's verdicts and refusals came from, found from the sessions'
    # answers (by index: a union of every verdict would be read whole for each chunk).
    "outbox": "WITH a AS (SELECT id, session_id FROM attempts WHERE session_id IN ({ids})),"
    " cited(owner, outbox_id) AS (SELECT a.session_id, v.outbox_id FROM a"
    " JOIN verdicts v ON v.attempt_id = a.id WHERE v.outbox_id IS NOT NULL"
    " UNION SELECT a.session_id, r.outbox_id FROM a"
    " JOIN judge_refusals r ON r.attempt_id = a.id WHERE r.outbox_id IS NOT NULL)"
    " SELECT cited.owner AS owner, o.* FROM cited JOIN outbox o ON o.id = cited.outbox_id"
    " ORDER BY o.id",
    "sealed_traces": "SELECT session_id AS owner, trace_id, session_id, kind, input_digest,"
    " body, created_at FROM sealed_traces WHERE session_id IN ({ids})"
    " ORDER BY created_at, rowid",
}


def read_records(conn: sqlite3.Connection, session_ids: Sequence[str]) -> list[SessionRecords]:
    """The records of `session_ids`, in that order (unknown ids left out)."""
    found: list[SessionRecords] = []
    for start in range(0, len(session_ids), CHUNK):
        found.extend(_read_chunk(conn, list(session_ids[start : start + CHUNK])))
    return found


def _read_chunk(conn: sqlite3.Connection, ids: list[str]) -> list[SessionRecords]:
    marks = ",".join("?" * len(ids))
    sessions = conn.execute(f"SELECT * FROM sessions WHERE id IN ({marks})", ids).fetchall()
    rows = (
        (table, row["session_id" if table in _OWN_SESSION else "owner"], row)
        for table, query in _QUERIES.items()
        for row in conn.execute(query.format(ids=marks), ids)
    )
    found = assemble(ids, sessions, rows)
    corrections: dict[str, list[LearnerCorrection]] = {}
    for row in conn.execute(_CORRECTIONS.format(ids=marks), ids):
        with contextlib.suppress(ValueError, TypeError):  # `coach verify` reports a changed one
            corrections.setdefault(row["session_id"], []).append(
                LearnerCorrection(**{k: row[k] for k in LearnerCorrection.model_fields})
            )
    return [
        r.model_copy(update={"corrections": tuple(corrections[r.session.id])})
        if r.session.id in corrections
        else r
        for r in found
    ]


# The learner's corrections of the sessions' verdicts (issue 36), oldest first: records of
# their own, sealed in the trace log, given with the session they correct.
_CORRECTIONS = (
    "SELECT * FROM learner_corrections WHERE session_id IN ({ids}) ORDER BY created_at, id"
)
