"""A practice session over one note: its challenges, the learner's answers, how it ended."""

from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator

from coach_gui.domain.challenges import Challenge
from coach_gui.domain.digests import canonical_text, content_id, digest
from coach_gui.domain.notes import Note
from coach_gui.domain.records import Record
from coach_gui.domain.verdicts import Assessment, Gap


class SessionMode(StrEnum):
    """What the judge was allowed to do when the session started."""

    JUDGED_WITH_ASSERTIONS = "judged_with_assertions"
    JUDGED_WITHOUT = "judged_without"
    OFFLINE = "offline"


class Disposition(StrEnum):
    """How a session ended, as sealed in its trace."""

    ALL_PASSED = "all_passed"
    GAPS_FOUND = "gaps_found"
    UNJUDGED_OFFLINE = "unjudged_offline"
    JUDGE_UNAVAILABLE = "judge_unavailable"
    NO_ANSWERS = "no_answers"
    INTERRUPTED = "interrupted"


def new_id() -> str:
    return uuid.uuid4().hex


def note_digest(note: Note) -> str:
    """Digest of what the learner practised: the note's content, not where its file is."""
    return digest(note.model_dump(mode="json"))


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("an answer cannot be empty; write something or skip the challenge")
    return value


Answer = Annotated[str, AfterValidator(_not_blank)]


class PracticeSession(Record):
    id: str
    note_id: str
    note_title: str
    note_digest: str
    config_digest: str
    mode: SessionMode
    started_at: str  # ISO-8601 UTC
    # Why this session was chosen (DESIGN §6): the gaps that gated it and the decision.
    gap_ids: tuple[str, ...] = ()
    scheduler_decision_id: str | None = None


class Attempt(Record):
    """One submitted answer. Stored the moment it is submitted, before any judging."""

    id: str
    session_id: str
    challenge_id: str
    answer: Answer
    submitted_at: str
    status: Literal["unjudged", "judged"] = "unjudged"
    unjudged_reason: str | None = None


def attempt_id(session_id: str, challenge_id: str, answer: str, submitted_at: str) -> str:
    return content_id(
        "attempt",
        {
            "session_id": session_id,
            "challenge_id": challenge_id,
            "answer": answer,
            "submitted_at": submitted_at,
        },
    )


def challenge_id(session_id: str, position: int, challenge: Challenge) -> str:
    return content_id(
        "challenge",
        {
            "session_id": session_id,
            "position": position,
            "kind": challenge.kind.value,
            "text": challenge.text,
            "origin": challenge.origin,
            "target_assertions": list(challenge.target_assertions),
            "model": challenge.model,
        },
    )


class VerdictRecord(Record):
    """The judge's verdict on one attempt, as the domain decided it."""

    id: str
    attempt_id: str
    outbox_id: str | None
    passed: bool
    gaps: tuple[Gap, ...]
    feedback: str
    assertions_sent: bool
    assertions: tuple[str, ...]  # the learner's assertions the gap indexes refer to
    judge_model: str
    created_at: str
    # One per sent assertion, with the evidence cited (DESIGN §4); empty for a verdict
    # without assertions, or one recorded before the judge assessed each (schema < v5).
    assessments: tuple[Assessment, ...] = ()


class JudgeRefusal(Record):
    """Why an attempt could not be judged this time; it stays unjudged and can be retried."""

    id: str
    attempt_id: str
    reason_code: str
    detail: str
    created_at: str
    outbox_id: str | None = None  # the request that failed, when one left the machine


def gap_id(verdict_id: str, index: int) -> str:
    """The id of the `index`-th gap of a verdict."""
    return content_id("gap", {"verdict_id": verdict_id, "index": index})


class GapPlan(Record):
    """A decision to practise a note's open gaps: which assertions (indexes in the note as
    it is now) the challenges target, the gaps that gated it, and the decision's id."""

    targets: tuple[int, ...]
    gap_ids: tuple[str, ...]
    decision_id: str
    # The decision's fields in canonical JSON (its id is their content id): stored with
    # the session, so what was decided and with which schedule settings can be read and
    # checked (issue 19). None for decisions made before it was kept.
    decision: str | None = None


def decided(
    fields: dict[str, object], targets: tuple[int, ...], gap_ids: tuple[str, ...]
) -> GapPlan:
    """The plan for a decision with these fields (content-addressed, kept whole)."""
    return GapPlan(
        targets=targets,
        gap_ids=gap_ids,
        decision_id=content_id("scheduler_decision", fields),
        decision=canonical_text(fields),
    )


def plan_gap_practice(
    note: Note, targets: tuple[int, ...], gap_ids: tuple[str, ...], decided_at: str
) -> GapPlan:
    """Record the choice to practise `targets` because of `gap_ids` (content-addressed)."""
    fields: dict[str, object] = {
        "reason": "practise_open_gaps",
        "note_id": note.id,
        "note_digest": note_digest(note),
        "targets": sorted(set(targets)),
        "gap_ids": sorted(set(gap_ids)),
        "decided_at": decided_at,
    }
    return decided(fields, tuple(sorted(set(targets))), tuple(sorted(set(gap_ids))))
