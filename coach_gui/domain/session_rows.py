"""Journal rows (column name -> value, as stored) to the records of whole sessions.

One place for it, used twice: the journal reading sessions back (`coach verify`, the
Sessions view) and sync checking a segment's sessions before they are stored (issue 20,
ADR 0027). A row that no longer reads as its record (changed outside Coach) becomes a
`BrokenRow`, so verification sees a mismatch instead of an exception.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
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

Row = Mapping[str, Any]

# Field names per record, looked up once (reading them off the class each time is slow).
_ASSESSMENTS = TypeAdapter(tuple[Assessment, ...])
_FIELDS: dict[type[Record], tuple[str, ...]] = {
    model: tuple(model.model_fields)
    for model in (RejectionRecord, Attempt, JudgeRefusal, OutboxRecord, StoredTrace, AttemptBinding)
}


def _json_list(text: str) -> tuple[Any, ...]:
    return () if text == "[]" else tuple(json.loads(text))


def session_record(row: Row) -> SessionRecord:
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


def _challenge(row: Row) -> ChallengeRecord:
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


def _rejection(row: Row) -> RejectionRecord:
    return RejectionRecord(**{k: row[k] for k in _FIELDS[RejectionRecord]})


def _attempt(row: Row) -> Attempt:
    return Attempt(**{k: row[k] for k in _FIELDS[Attempt]})


def _verdict(row: Row) -> VerdictRecord:
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


def _refusal(row: Row) -> JudgeRefusal:
    return JudgeRefusal(**{k: row[k] for k in _FIELDS[JudgeRefusal]})


def _binding(row: Row) -> StoredBinding:
    fields = {k: row[k] for k in _FIELDS[AttemptBinding]}
    return StoredBinding(binding=AttemptBinding(**fields), bound_trace_id=row["bound_trace_id"])


def outbox_record(row: Row) -> OutboxRecord:
    return OutboxRecord(**{k: row[k] for k in _FIELDS[OutboxRecord]})


def stored_trace(row: Row) -> StoredTrace:
    return StoredTrace(**{k: row[k] for k in _FIELDS[StoredTrace]})


# The tables whose rows belong to a session, each with its record. Their rows are given
# to `assemble` in this order of tables, each table's rows in the order of `SORT_KEYS`.
DECODERS: dict[str, Callable[[Row], Any]] = {
    "challenges": _challenge,
    "challenge_rejections": _rejection,
    "attempts": _attempt,
    "verdicts": _verdict,
    "judge_refusals": _refusal,
    "attempt_bindings": _binding,
    "outbox": outbox_record,
    "sealed_traces": stored_trace,
}

# How each table's rows of one session are ordered (the journal's ORDER BY; traces sealed
# at the same moment stay in the order they were stored: sort stably).
SORT_KEYS: dict[str, Callable[[Row], tuple[Any, ...]]] = {
    "challenges": lambda r: (r["position"], r["id"]),
    "challenge_rejections": lambda r: (r["created_at"], r["id"]),
    "attempts": lambda r: (r["submitted_at"], r["id"]),
    "verdicts": lambda r: (r["created_at"], r["id"]),
    "judge_refusals": lambda r: (r["created_at"], r["id"]),
    "attempt_bindings": lambda r: (r["created_at"], r["id"]),
    "outbox": lambda r: (r["id"],),
    "sealed_traces": lambda r: (r["created_at"],),
}

_FIELD_OF = {
    "challenges": "challenges",
    "challenge_rejections": "rejections",
    "attempts": "attempts",
    "verdicts": "verdicts",
    "judge_refusals": "refusals",
    "attempt_bindings": "bindings",
    "outbox": "outbox",
    "sealed_traces": "traces",
}


def row_id(table: str, row: Row) -> str:
    return str(row["trace_id"] if table == "sealed_traces" else row["id"])


def _problem(error: Exception) -> str:
    return str(error).splitlines()[0][:200]


def assemble(
    session_ids: Sequence[str],
    session_rows: Iterable[Row],
    rows: Iterable[tuple[str, str, Row]],
) -> list[SessionRecords]:
    """The records of `session_ids`, in that order, from their `sessions` rows and every
    other row of theirs as (table, session id, row) (ids without a session row are left
    out)."""
    parts: dict[str, dict[str, list[Any]]] = {sid: defaultdict(list) for sid in session_ids}
    sessions: dict[str, SessionRecord] = {}
    for row in session_rows:
        try:
            sessions[row["id"]] = session_record(row)
        except (ValueError, TypeError, RecursionError) as error:  # (nested too deep)
            parts[row["id"]]["broken"].append(
                BrokenRow(table="sessions", id=row["id"], problem=_problem(error))
            )
    for table, owner, row in rows:
        bucket = parts[owner]
        try:
            bucket[table].append(DECODERS[table](row))
        except (ValueError, TypeError, RecursionError) as error:  # (nested too deep)
            bucket["broken"].append(
                BrokenRow(table=table, id=row_id(table, row), problem=_problem(error))
            )
    found: list[SessionRecords] = []
    for sid in session_ids:
        if sid not in sessions:
            continue
        got = parts[sid]
        found.append(
            SessionRecords(
                session=sessions[sid],
                broken=tuple(got["broken"]),
                **{_FIELD_OF[table]: tuple(got[table]) for table in DECODERS},
            )
        )
    return found
