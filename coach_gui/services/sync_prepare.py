"""A segment made ready to import (issue 20, ADR 0027): read from its bytes and its
sessions checked as `coach verify` checks them, before any of it is stored.

This is the part of an import that needs no journal, so a long import can do it for the
next segments in a second process while this one stores the current segment
(`services.sync`). What is checked here stands for the check after storing only where
the two cannot differ: for a session that arrives whole in the segment (its row, every
row of its own, the requests its verdicts cite, the traces and the decision it refers to)
and whose every value is stored exactly as it came (an integer into an integer column,
text into a text column). The journal then uses this result for a session it did not hold
before the segment (so nothing of it was here) and reads back and checks every other
session it touches, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from coach_gui.domain.session_records import StoredTrace
from coach_gui.domain.session_rows import SORT_KEYS, assemble, stored_trace
from coach_gui.domain.sync import (
    SESSION_TABLES,
    Segment,
    StoredTypes,
    SyncRecord,
    Unreadable,
    parse_segment,
)
from coach_gui.services.verify import check_session

_OF_ANSWER = ("verdict", "judge_refusal", "binding")


@dataclass(frozen=True)
class Prepared:
    """A segment read, with the result of checking each session that arrived whole in it:
    session id -> (record id, reason) of its first failure, or None when it checks out."""

    segment: Segment
    checked: dict[str, tuple[str, str] | None] = field(default_factory=dict)


class _SegmentRows:
    """`check_session`'s lookups, answered from the segment; `missed` when one was not in
    it (then the journal may hold the answer, and only its own check can tell)."""

    def __init__(self, traces: Mapping[str, SyncRecord], decisions: Mapping[str, str]) -> None:
        self._traces = traces
        self._decisions = decisions
        self.missed = False

    def trace_row(self, trace_id: str) -> StoredTrace | None:
        record = self._traces.get(trace_id)
        if record is None:
            self.missed = True
            return None
        try:
            return stored_trace(record.row)
        except (ValueError, TypeError):
            return None  # as the journal answers for a row that does not read as a trace

    def scheduler_decision(self, decision_id: str) -> str | None:
        fields = self._decisions.get(decision_id)
        if fields is None:
            self.missed = True
        return fields


class _AsIs:
    """Whether a row has every column of its table and each value is stored exactly as
    given, by its column's type (rows of a table come in a few shapes: each shape is
    worked out once)."""

    def __init__(self, types: StoredTypes) -> None:
        self._types = types
        self._shapes: dict[tuple[Any, ...], bool] = {}

    def __call__(self, table: str, row: Mapping[str, Any]) -> bool:
        shape = (table, *row, *map(type, row.values()))
        known = self._shapes.get(shape)
        if known is None:
            columns = self._types.get(table, {})
            known = self._shapes[shape] = row.keys() == columns.keys() and all(
                type(value).__name__ in columns[column] for column, value in row.items()
            )
        return known


def prepare(
    data: bytes, device_id: str, file_name: str, types: StoredTypes, public_key: bytes
) -> Prepared | Unreadable:
    """Read the segment in `data` (found as `file_name` in `device_id`'s folder, whose
    computer was paired with `public_key`), its signature first, and check every session
    that arrived whole in it. Needs no journal: it may run in another process."""
    parsed = parse_segment(data, device_id=device_id, file_name=file_name, public_key=public_key)
    if isinstance(parsed, Unreadable):
        return parsed
    try:
        checked = check_whole_sessions(parsed.records, types)
    except Exception:  # what cannot be read here, the journal judges once it is stored
        checked = {}  # (nested too deep, text that is not Unicode, ...): vouch for nothing
    return Prepared(parsed, checked)


def check_whole_sessions(
    records: Sequence[SyncRecord], types: StoredTypes
) -> dict[str, tuple[str, str] | None]:
    """Each session that arrived whole in `records` (see the module's docstring) ->
    its first failure as `coach verify` reports it, or None."""
    by_kind: dict[str, list[SyncRecord]] = {}
    for record in records:
        by_kind.setdefault(record.kind, []).append(record)
    sessions = {r.id: r for r in by_kind.get("session", [])}
    if not sessions:
        return {}
    as_is = _AsIs(types)
    # A row of a session's tables with any value stored otherwise than it came (an owner
    # given as a number, say, which SQLite stores as text and so as that session's row)
    # could be stored as another session's than it reads here: then none is vouched for.
    for kind, table in SESSION_TABLES.items():
        if not all(as_is(table, r.row) for r in by_kind.get(kind, [])):
            return {}
    if not all(as_is("scheduler_decisions", r.row) for r in by_kind.get("scheduler_decision", [])):
        return {}
    outbox = {r.id: r for r in by_kind.get("outbox", [])}
    traces = {r.id: r for r in by_kind.get("trace", [])}
    decision_rows = {r.id: r.row for r in by_kind.get("scheduler_decision", [])}
    decisions = {key: str(row.get("fields")) for key, row in decision_rows.items()}
    # The sessions that cannot be vouched for here: they refer to a request or decision
    # not in the segment (the journal may hold it).
    unknown: set[str] = set()
    for sid, session in sessions.items():
        decision_id = session.row.get("scheduler_decision_id")
        if decision_id is not None and decision_id not in decision_rows:
            unknown.add(sid)
    # Every other row of each session, by table: (session id, row).
    owned: dict[str, list[tuple[str, Mapping[str, Any]]]] = {table: [] for table in SORT_KEYS}
    answers = {r.id: str(r.row.get("session_id")) for r in by_kind.get("attempt", [])}
    cited: set[tuple[str, str]] = set()
    for kind, table in SESSION_TABLES.items():
        if kind in ("session", "outbox"):
            continue
        through_answer = kind in _OF_ANSWER
        for record in by_kind.get(kind, []):
            row = record.row
            owner = (
                answers.get(str(row.get("attempt_id"))) if through_answer else row.get("session_id")
            )
            if owner not in sessions:
                continue
            owned[table].append((str(owner), row))
            if kind != "binding" and row.get("outbox_id"):
                cited.add((str(owner), str(row["outbox_id"])))
    for owner, outbox_id in cited:
        request = outbox.get(outbox_id)
        if request is None:
            unknown.add(owner)
        else:
            owned["outbox"].append((owner, request.row))
    rows: list[tuple[str, str, Mapping[str, Any]]] = []
    for table, key in SORT_KEYS.items():
        mine = [(owner, row) for owner, row in owned[table] if owner not in unknown]
        try:
            mine.sort(key=_by_owner(key))
        except TypeError:  # a NULL where a value belongs: the journal refuses the row
            unknown.update(owner for owner, _ in mine)
        rows += [(table, owner, row) for owner, row in mine]
    ids = [sid for sid in sessions if sid not in unknown]
    rows = [item for item in rows if item[1] not in unknown]
    checked: dict[str, tuple[str, str] | None] = {}
    for found in assemble(ids, (sessions[sid].row for sid in ids), rows):
        reader = _SegmentRows(traces, decisions)
        failure = check_session(found, reader)
        if not reader.missed:
            checked[found.session.id] = None if failure is None else (failure.id, failure.reason)
    return checked


def _by_owner(
    key: Callable[[Mapping[str, Any]], tuple[Any, ...]],
) -> Callable[[tuple[str, Mapping[str, Any]]], tuple[Any, ...]]:
    """Rows of many sessions, each session's in the journal's order."""
    return lambda item: (item[0], *key(item[1]))
