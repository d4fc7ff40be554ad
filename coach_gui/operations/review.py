"""Looking back: sessions, their gaps, and what was sent to the judge — for the Sessions,
Gaps and Sent-to-judge views and `coach sessions`/`coach gaps` alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from coach_gui.domain.agreement import strictness_of
from coach_gui.domain.corrections import correctable, learners_words
from coach_gui.domain.notes import Note
from coach_gui.domain.session_records import OutboxRecord, SentRequest
from coach_gui.domain.session_state import attempt_states
from coach_gui.domain.verdicts import Assessment, gap_subject
from coach_gui.files import atomic_write
from coach_gui.operations.app import ReviewPorts
from coach_gui.operations.vocabulary import PROBLEM_LABELS
from coach_gui.services.ports.sealing import SessionReader
from coach_gui.services.review import (
    PAGE,
    GapEntry,
    GapReport,
    NoteGaps,
    OpenGap,
    ProgressPoint,
    SessionSummary,
    gap_report,
    list_sessions,
    note_gaps,
    open_gaps_of_notes,
    session_gaps,
)
from coach_gui.services.verify import check_session

# The records the faces show, given with the operations that return them.
__all__ = [
    "PAGE",
    "AnswerDetail",
    "GapEntry",
    "GapReport",
    "NoteGaps",
    "OpenGap",
    "ProgressPoint",
    "SessionDetailData",
    "SessionRow",
    "SessionSummary",
    "export_text",
    "find_session",
    "gap_board",
    "gaps",
    "load_page",
    "load_session_detail",
    "note_of_session",
    "open_gaps",
    "sent_to_judge",
    "sessions",
]

SENT_SHOWN = 1000  # rows of the outbox the Sent-to-judge view lists
_NOTES_READ = 200  # notes whose sessions are read at once for `open_gaps`


def sessions(app: ReviewPorts, *, limit: int | None, offset: int = 0) -> list[SessionSummary]:
    """Sessions newest first, a page at a time (`limit=None`: all of them)."""
    return list_sessions(app.traces(), limit=limit, offset=offset)


def find_session(app: ReviewPorts, record_id: str) -> str | None:
    """The session a session id or trace id names, or None."""
    found = app.traces().find(record_id)
    return found[0] if found is not None else None


def gaps(app: ReviewPorts, session_id: str | None = None) -> GapReport:
    """The gaps of one session, or of every session."""
    return gap_report(app.traces(), session_id)


def note_of_session(app: ReviewPorts, session_id: str) -> str | None:
    """The id of the note a session practised."""
    found = app.traces().records_for([session_id])
    return found[0].session.note_id if found else None


def gap_board(app: ReviewPorts, note: Note) -> NoteGaps:
    """The gap board of `note`: its open gaps and its progress, from its own sessions."""
    scheduler = app.scheduler()
    return note_gaps(note, scheduler.history([note.id]), scheduler.undone([note.id]))


def open_gaps(app: ReviewPorts, note_ids: Sequence[str] | None = None) -> list[OpenGap]:
    """The open gaps of the notes in the folder now (of `note_ids` among them, if given),
    by the rule Today and the gap board read (ADR 0023)."""
    scheduler = app.scheduler()
    # Only the notes the memory cache says have one are replayed (the rest have none).
    wanted = scheduler.notes_with_open_gaps()
    if note_ids is not None:
        wanted &= set(note_ids)
    notes = [entry.note for entry in app.notes.load().notes if entry.note.id in wanted]
    found: list[OpenGap] = []
    for start in range(0, len(notes), _NOTES_READ):
        chunk = notes[start : start + _NOTES_READ]
        ids = [n.id for n in chunk]
        found += open_gaps_of_notes(chunk, scheduler.history(ids), scheduler.undone(ids))
    found.sort(key=lambda g: (g.note_title.casefold(), g.note_id, -g.missed, g.assertion_index))
    return found


def sent_to_judge(app: ReviewPorts, limit: int = SENT_SHOWN) -> list[SentRequest]:
    """Every request sent to the judge, the most recent first, exactly as it left, with
    the note and session whose answers it carried."""
    return app.outbox().sent(limit=limit)


def export_text(path: Path, text: str) -> None:
    """Write an export the learner asked for (gaps as Markdown), atomically."""
    atomic_write(path, text.encode("utf-8"))


@dataclass(frozen=True)
class SessionRow:
    summary: SessionSummary
    failure: str | None  # why the ✓ is a ✗, for its tooltip


def load_page(reader: SessionReader, offset: int, limit: int = PAGE) -> list[SessionRow]:
    """Runs on a worker: one page of sessions, with the reason of any ✗."""
    rows = []
    for summary in list_sessions(reader, limit=limit, offset=offset):
        failure = None
        if summary.verified is False:
            records = reader.records_for([summary.session_id])
            found = check_session(records[0], reader) if records else None
            failure = f"{found.reason} ({found.id[:12]}…)" if found else "the records changed"
        rows.append(SessionRow(summary, failure))
    return rows


@dataclass(frozen=True)
class AnswerDetail:
    challenge: str
    answer: str
    verdict: str | None  # "pass" | "fail"; None while unjudged
    gaps: tuple[tuple[str, str, str], ...]  # (problem, what was missed, explanation)
    feedback: str
    pending_reason: str | None
    # Each key point's assessment with its evidence (DESIGN §4), and the assertions as they
    # were when judged; empty for a verdict without assertions or from before schema v5.
    assessments: tuple[Assessment, ...] = ()
    assertions: tuple[str, ...] = ()
    follow_up: bool = False  # a follow-up on the answer before it (shown nested under it)
    attempt_id: str = ""
    # The learner's word where they corrected the judge's (key point -> (status, note)),
    # and whether the verdict judged each key point so that one can be (issue 36).
    learners: Mapping[int, tuple[str, str]] = field(default_factory=dict)
    correctable: bool = False
    # Who judged it and how strictly (read from the request as it was sent; issue 36).
    judged_by: str = ""
    strictness: str = ""


@dataclass(frozen=True)
class SessionDetailData:
    answers: tuple[AnswerDetail, ...]
    gaps: tuple[GapEntry, ...]


def _strictness(request: OutboxRecord | None) -> str:
    """How strictly the judge was asked to grade, from the request's own instructions."""
    return strictness_of(request.request_body) if request is not None else ""


def load_session_detail(reader: SessionReader, session_id: str) -> SessionDetailData:
    """Runs on a worker: the session's answers as the detail shows them."""
    found = reader.records_for([session_id])
    if not found:
        return SessionDetailData((), ())
    records = found[0]
    sent = {o.id: o for o in records.outbox}
    answers = []
    for state in attempt_states(records):
        verdict = state.verdict
        challenge = state.challenge
        gaps: list[tuple[str, str, str]] = []
        if verdict is not None:
            for gap in verdict.gaps:
                what = gap_subject(gap.assertion, verdict.assertions)
                gaps.append((PROBLEM_LABELS.get(gap.problem, gap.problem), what, gap.explanation))
        answers.append(
            AnswerDetail(
                challenge=state.challenge.text if state.challenge is not None else "",
                answer=state.attempt.answer,
                verdict=None if verdict is None else ("pass" if verdict.passed else "fail"),
                gaps=tuple(gaps),
                feedback=verdict.feedback if verdict is not None else "",
                pending_reason=state.pending_reason or ("not judged yet" if not verdict else None),
                assessments=verdict.assessments if verdict is not None else (),
                assertions=verdict.assertions if verdict is not None else (),
                follow_up=challenge is not None and challenge.parent_challenge_id is not None,
                attempt_id=state.attempt.id,
                learners=learners_words(verdict, records.corrections) if verdict else {},
                correctable=verdict is not None and correctable(verdict),
                judged_by=verdict.judge_model if verdict is not None else "",
                strictness=_strictness(sent.get(verdict.outbox_id or "")) if verdict else "",
            )
        )
    return SessionDetailData(tuple(answers), tuple(session_gaps(records)))
