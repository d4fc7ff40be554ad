"""Journal rows to domain records, for many sessions at once (a few queries per hundred
sessions, so `coach verify` and the Sessions view stay fast on a large journal).

A row that no longer reads as its record (changed outside Coach) becomes a `BrokenRow`;
text that is not valid UTF-8 is read with replacement characters. Either way verification
sees a mismatch instead of an exception.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pydantic import TypeAdapter

from coach_gui.domain.challenges import ChallengeKind
from coach_gui.domain.practice import Attempt, Disposition, JudgeRefusal, SessionMode, VerdictRecord
from coach_gui.domain.records import Record
from coach_gui.domain.session_records import (
    AttemptBinding,
    BrokenRow,
    ChallengeRecord,
    OutboxRecord,
    RejectionRecord,
    SessionRecord,
    SessionRecords,
    StoredBinding,
    StoredTrace,
)
from coach_gui.domain.verdicts import Assessment, Gap

CHUNK = 200  # sessions per query: well under SQLite's limit on bound parameters

# Field names per record, looked up once (reading them off the class each time is slow).
_ASSESSMENTS = TypeAdapter(tuple[Assessment, ...])
_FIELDS: dict[type[Record], tuple[str, ...]] = {
    model: tuple(model.model_fields)
    for model in (RejectionRecord, Attempt, JudgeRefusal, OutboxRecord, StoredTrace, AttemptBinding)
}


def _json_list(text: str) -> tuple[Any, ...]:
    return () if text == "[]" else tuple(json.loads(text))


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


def _session(row: sqlite3.Row) -> SessionRecord:
    return SessionRecord(
        id=row["id"],
        note_id=row["note_id"],
        note_title=row["note_title_at_start"],
        note_digest=row["note_digest"],
        config_digest=row["config_digest"],
        mode=SessionMode(row["mode"]),
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        disposition=None if row["disposition"] is None else Disposition(row["disposition"]),
        scheduler_decision_id=row["scheduler_decision_id"],
        gap_ids=_json_list(row["gap_ids"]),
        sealed_trace_id=row["sealed_trace_id"],
    )


def _challenge(row: sqlite3.Row) -> ChallengeRecord:
    return ChallengeRecord(
        id=row["id"],
        session_id=row["session_id"],
        position=row["position"],
        kind=ChallengeKind(row["kind"]),
        text=row["text"],
        origin=row["origin"],
        parent_challenge_id=row["parent_challenge_id"],
        model=row["model"],
        target_assertions=_json_list(row["target_assertions"]),
        created_at=row["created_at"],
    )


def _rejection(row: sqlite3.Row) -> RejectionRecord:
    return RejectionRecord(**{k: row[k] for k in _FIELDS[RejectionRecord]})


def _attempt(row: sqlite3.Row) -> Attempt:
    return Attempt(**{k: row[k] for k in _FIELDS[Attempt]})


def _verdict(row: sqlite3.Row) -> VerdictRecord:
    return VerdictRecord(
        id=row["id"],
        attempt_id=row["attempt_id"],
        outbox_id=row["outbox_id"],
        passed=row["verdict"] == "pass",
        gaps=tuple(Gap(**gap) for gap in _json_list(row["gaps"])),
        feedback=row["feedback"],
        assertions_sent=bool(row["assertions_sent"]),
        assertions=_json_list(row["assertions"]),
        judge_model=row["judge_model"],
        created_at=row["created_at"],
        assessments=_ASSESSMENTS.validate_json(row["assessments"]),
    )


def _refusal(row: sqlite3.Row) -> JudgeRefusal:
    return JudgeRefusal(**{k: row[k] for k in _FIELDS[JudgeRefusal]})


def _binding(row: sqlite3.Row) -> StoredBinding:
    fields = {k: row[k] for k in _FIELDS[AttemptBinding]}
    return StoredBinding(binding=AttemptBinding(**fields), bound_trace_id=row["bound_trace_id"])


def _outbox(row: sqlite3.Row) -> OutboxRecord:
    return OutboxRecord(**{k: row[k] for k in _FIELDS[OutboxRecord]})


def _trace(row: sqlite3.Row) -> StoredTrace:
    return StoredTrace(**{k: row[k] for k in _FIELDS[StoredTrace]})


def trace_row(conn: sqlite3.Connection, trace_id: str) -> StoredTrace | None:
    row = conn.execute(
        "SELECT trace_id, session_id, kind, input_digest, body, created_at FROM sealed_traces"
        " WHERE trace_id = ?",
        (trace_id,),
    ).fetchone()
    if row is None:
        return None
    try:
        return _trace(row)
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

_DECODERS: dict[str, Callable[[sqlite3.Row], Any]] = {
    "challenges": _challenge,
    "challenge_rejections": _rejection,
    "attempts": _attempt,
    "verdicts": _verdict,
    "judge_refusals": _refusal,
    "attempt_bindings": _binding,
    "outbox": _outbox,
    "sealed_traces": _trace,
}


def _row_id(table: str, row: sqlite3.Row) -> str:
    return str(row["trace_id"] if table == "sealed_traces" else row["id"])


def read_records(conn: sqlite3.Connection, session_ids: Sequence[str]) -> list[SessionRecords]:
    """The records of `session_ids`, in that order (unknown ids left out)."""
    found: list[SessionRecords] = []
    for start in range(0, len(session_ids), CHUNK):
        found.extend(_read_chunk(conn, list(session_ids[start : start + CHUNK])))
    return found


def _read_chunk(conn: sqlite3.Connection, ids: list[str]) -> list[SessionRecords]:
    marks = ",".join("?" * len(ids))
    parts: dict[str, dict[str, list[Any]]] = {sid: defaultdict(list) for sid in ids}
    sessions: dict[str, SessionRecord] = {}
    for row in conn.execute(f"SELECT * FROM sessions WHERE id IN ({marks})", ids):
        try:
            sessions[row["id"]] = _session(row)
        except (ValueError, TypeError) as error:
            problem = str(error).splitlines()[0][:200]
            parts[row["id"]]["broken"].append(
                BrokenRow(table="sessions", id=row["id"], problem=problem)
            )
    for table, query in _QUERIES.items():
        decode = _DECODERS[table]
        owner = (
            "session_id" if table in ("challenges", "challenge_rejections", "attempts") else "owner"
        )
        for row in conn.execute(query.format(ids=marks), ids):
            bucket = parts[row[owner]]
            try:
                bucket[table].append(decode(row))
            except (ValueError, TypeError) as error:
                problem = str(error).splitlines()[0][:200]
                bucket["broken"].append(
                    BrokenRow(table=table, id=_row_id(table, row), problem=problem)
                )
    found: list[SessionRecords] = []
    for sid in ids:
        if sid not in sessions:
            continue
        got = parts[sid]
        found.append(
            SessionRecords(
                session=sessions[sid],
                challenges=tuple(got["challenges"]),
                rejections=tuple(got["challenge_rejections"]),
                attempts=tuple(got["attempts"]),
                verdicts=tuple(got["verdicts"]),
                refusals=tuple(got["judge_refusals"]),
                bindings=tuple(got["attempt_bindings"]),
                outbox=tuple(got["outbox"]),
                traces=tuple(got["sealed_traces"]),
                broken=tuple(got["broken"]),
            )
        )
    return found
