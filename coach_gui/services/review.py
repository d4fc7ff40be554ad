"""Reviewing practice: the sessions list and the gap lists (`coach sessions`, `coach gaps`,
the GUI's Sessions view and gap board). Read-only; derived from sealed records.

A gap names an assertion by its index among the assertions sent with the answer; the
verdict keeps those assertions, so the text shown is the one the answer was judged
against, even if the note has changed since. A note's *open* gaps are another matter:
its key points as they are now whose latest judged session missed them, by the one rule
of `domain.memory.open_gaps` that Today reads too (ADR 0023).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from coach_gui.domain.corrections import gaps_in_force
from coach_gui.domain.memory import (
    AssertionGap,
    AssertionRating,
    GapLedger,
    assertion_digest,
    note_ratings,
    open_gaps,
)
from coach_gui.domain.notes import Note
from coach_gui.domain.session_records import SessionRecords
from coach_gui.domain.session_state import attempt_states, review_mode
from coach_gui.services.ports.sealing import SessionReader
from coach_gui.services.verify import check_session

PAGE = 50
_CHUNK = 200


@dataclass(frozen=True)
class SessionSummary:
    """One row of the sessions list."""

    session_id: str
    started_at: str
    note_id: str
    note_title: str
    items: int  # answers given
    passed: int
    gaps: int  # gaps listed across the judged answers
    pending: int  # answers still waiting to be judged
    mode: str  # judged_with_assertions | judged_without | pending | no_answers
    disposition: str | None
    trace_id: str | None
    bound_trace_ids: tuple[str, ...]
    verified: bool | None  # None: not sealed yet

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "bound_trace_ids": list(self.bound_trace_ids)}


def summarise(records: SessionRecords, reader: SessionReader) -> SessionSummary:
    session = records.session
    states = attempt_states(records)
    verdicts = [s.verdict for s in states if s.verdict is not None]
    sealed = session.sealed_trace_id is not None
    return SessionSummary(
        session_id=session.id,
        started_at=session.started_at,
        note_id=session.note_id,
        note_title=session.note_title,
        items=len(states),
        passed=sum(v.passed for v in verdicts),
        gaps=sum(len(gaps_in_force(v, records.corrections)) for v in verdicts),
        pending=len(states) - len(verdicts),
        mode=review_mode(states),
        disposition=None if session.disposition is None else session.disposition.value,
        trace_id=session.sealed_trace_id,
        bound_trace_ids=tuple(t.trace_id for t in records.traces if t.kind == "bound"),
        verified=check_session(records, reader) is None if sealed else None,
    )


def list_sessions(
    reader: SessionReader, *, limit: int | None = PAGE, offset: int = 0
) -> list[SessionSummary]:
    """Sessions newest first, a page at a time (`limit=None` for all of them)."""
    ids = reader.session_ids(newest_first=True, limit=limit, offset=offset)
    return [summarise(records, reader) for records in _records(reader, ids)]


def _records(reader: SessionReader, ids: list[str]) -> Iterator[SessionRecords]:
    for start in range(0, len(ids), _CHUNK):
        yield from reader.records_for(ids[start : start + _CHUNK])


@dataclass(frozen=True)
class GapEntry:
    """One gap of one judged answer."""

    session_id: str
    started_at: str
    note_id: str
    note_title: str
    attempt_id: str
    challenge: str
    answer: str
    assertion: int | None  # index among the assertions sent, None when none were sent
    assertion_text: str | None
    problem: str  # unexplained | wrong
    explanation: str
    feedback: str
    by_learner: bool = False  # the learner's word on the key point, not the judge's


@dataclass(frozen=True)
class AssertionMisses:
    """How often one assertion of a note was missed among the answers judged against it."""

    note_id: str
    note_title: str
    assertion_text: str | None  # None: gaps named no assertion (assertions were not sent)
    missed: int
    judged: int  # judged answers this assertion was sent with


def session_gaps(records: SessionRecords) -> list[GapEntry]:
    """The session's gaps as they count now: the judge's, with the learner's corrections
    applied (issue 36)."""
    session = records.session
    entries: list[GapEntry] = []
    for state in attempt_states(records):
        verdict = state.verdict
        if verdict is None:
            continue
        for gap in gaps_in_force(verdict, records.corrections):
            index = gap.assertion
            known = index is not None and index < len(verdict.assertions)
            entries.append(
                GapEntry(
                    session_id=session.id,
                    started_at=session.started_at,
                    note_id=session.note_id,
                    note_title=session.note_title,
                    attempt_id=state.attempt.id,
                    challenge=state.challenge.text if state.challenge is not None else "",
                    answer=state.attempt.answer,
                    assertion=index,
                    assertion_text=verdict.assertions[index]
                    if known and index is not None
                    else None,
                    problem=gap.problem,
                    explanation=gap.explanation,
                    feedback=verdict.feedback,
                    by_learner=gap.by_learner,
                )
            )
    return entries


@dataclass(frozen=True)
class GapReport:
    gaps: list[GapEntry]
    by_assertion: list[AssertionMisses]  # most missed first

    def to_json(self) -> dict[str, Any]:
        return {
            "gaps": [asdict(g) for g in self.gaps],
            "by_assertion": [asdict(m) for m in self.by_assertion],
        }


def gap_report(reader: SessionReader, session_id: str | None = None) -> GapReport:
    """The gaps of one session, or of every session, with how often each assertion was
    missed (counted by its text within its note, since indexes shift when a note changes)."""
    ids = [session_id] if session_id is not None else reader.session_ids()
    gaps: list[GapEntry] = []
    missed: Counter[tuple[str, str | None]] = Counter()
    judged: Counter[tuple[str, str | None]] = Counter()
    titles: dict[str, str] = {}
    for records in _records(reader, ids):
        titles[records.session.note_id] = records.session.note_title
        found = session_gaps(records)
        gaps += found
        for entry in found:
            missed[(entry.note_id, entry.assertion_text)] += 1
        for state in attempt_states(records):
            if state.verdict is not None:
                sent = state.verdict.assertions if state.verdict.assertions_sent else ()
                keys: set[str | None] = set(sent) if sent else {None}
                for text in keys:
                    judged[(records.session.note_id, text)] += 1
    by_assertion = [
        AssertionMisses(note, titles[note], text, count, max(judged[(note, text)], count))
        for (note, text), count in missed.items()
    ]
    by_assertion.sort(key=lambda m: (-m.missed, m.note_title, m.assertion_text or ""))
    return GapReport(gaps, by_assertion)


@dataclass(frozen=True)
class OpenGap:
    """An open gap of one of a note's key points (ADR 0023: `domain.memory.open_gaps`),
    placed in the note as it is now."""

    note_id: str
    note_title: str
    gap_id: str
    assertion_index: int  # in the note as it is now
    assertion_text: str
    missed: int  # sessions whose judged answers missed it
    problem: str  # of the session that left it open: unexplained | wrong
    explanation: str
    attempt_id: str = ""  # the answer whose verdict left it open (`coach correct` takes it)
    key_point: int | None = None  # that verdict's number for it (from 1, as shown)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def placed_gaps(note: Note, gaps: Mapping[str, AssertionGap]) -> list[OpenGap]:
    """`gaps` (by assertion digest) among `note`'s key points as they are now (matched by
    text digest, so reordering keeps them), most missed first."""
    left = dict(gaps)
    found: list[OpenGap] = []
    for index, text in enumerate(note.core_assertions):
        gap = left.pop(assertion_digest(text), None)  # pop: a repeated text counts once
        if gap is not None:
            found.append(
                OpenGap(note.id, note.title, gap.gap_id, index, text, gap.missed, gap.problem,
                        gap.explanation, gap.attempt_id,
                        None if gap.key_point is None else gap.key_point + 1)
            )  # fmt: skip
    found.sort(key=lambda g: (-g.missed, g.assertion_index))
    return found


def note_open_gaps(note: Note, ratings: Iterable[AssertionRating]) -> list[OpenGap]:
    """The open gaps among `note`'s key points as they are now, most missed first."""
    return placed_gaps(note, open_gaps(ratings))


@dataclass(frozen=True)
class ProgressPoint:
    """One session of a note on its progress chart."""

    started_at: str
    passed: int
    judged: int  # answers judged in this session
    gaps: tuple[OpenGap, ...]  # the note's open gaps after it

    @property
    def open_gaps(self) -> int:
        return len(self.gaps)

    @property
    def pass_rate(self) -> float | None:
        return self.passed / self.judged if self.judged else None


@dataclass(frozen=True)
class NoteGaps:
    """What the gap board shows of one note."""

    note_id: str
    gaps: list[OpenGap]  # most missed first
    points: list[ProgressPoint]  # one per session, oldest first; the last one has `gaps`
    key_points: int  # the note's key points now
    judged: int  # of those, how many an answer was ever judged against (assertions sent)


def note_gaps(
    note: Note, records: Iterable[SessionRecords], undone: frozenset[str] = frozenset()
) -> NoteGaps:
    """The gap board of `note` from its sessions (others in `records` are left out); an
    `undone` session's review counts for nothing (ADR 0026), though the session is kept."""
    sessions = sorted(
        (r for r in records if r.session.note_id == note.id),
        key=lambda r: (r.session.started_at, r.session.id),
    )
    ledger = GapLedger()
    points: list[ProgressPoint] = []
    for session in sessions:
        verdicts = [s.verdict for s in attempt_states(session) if s.verdict is not None]
        ledger.add(note_ratings(note.id, [session], undone=undone))
        points.append(
            ProgressPoint(
                started_at=session.session.started_at,
                passed=sum(v.passed for v in verdicts),
                judged=len(verdicts),
                gaps=tuple(placed_gaps(note, ledger.gaps())),
            )
        )
    current = {assertion_digest(t) for t in note.core_assertions}
    return NoteGaps(
        note_id=note.id,
        gaps=placed_gaps(note, ledger.gaps()),
        points=points,
        key_points=len(current),
        judged=len(current & ledger.judged),
    )


def open_gaps_of_notes(
    notes: Sequence[Note], records: Iterable[SessionRecords], undone: frozenset[str] = frozenset()
) -> list[OpenGap]:
    """The open gaps of each of `notes`, by title, most missed first within a note (the
    `undone` sessions' reviews left out)."""
    by_note: dict[str, list[SessionRecords]] = {}
    for session in records:
        by_note.setdefault(session.session.note_id, []).append(session)
    found: list[OpenGap] = []
    for note in sorted(notes, key=lambda n: (n.title.casefold(), n.id)):
        if note.id in by_note:
            found += note_open_gaps(note, note_ratings(note.id, by_note[note.id], undone=undone))
    return found
