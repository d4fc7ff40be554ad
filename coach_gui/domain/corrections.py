"""The learner has the last word (issue 36, DESIGN §4): a learner's correction of the
judge's word on one key point of a judged answer.

A correction is a record of its own, bound to the verdict it corrects and sealed like the
learner's other decisions (its id is its content's, it is logged as it is made, it travels
with sync); the verdict itself is never changed. The latest correction of a key point
decides; one that gives the judge's own word back (an undo) leaves the judge's word in
force, and so counts as no disagreement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from coach_gui.domain.changes import KEY_POINT_CORRECTED, Changes
from coach_gui.domain.digests import content_id
from coach_gui.domain.errors import CoachError
from coach_gui.domain.practice import VerdictRecord
from coach_gui.domain.records import Record

KeyPointStatus = Literal["explained", "unexplained", "wrong"]
KEY_POINT_STATUSES: tuple[KeyPointStatus, ...] = ("explained", "unexplained", "wrong")
MAX_NOTE_CHARS = 2_000  # the learner's words on why: a few sentences


class LearnerCorrection(Record):
    """The learner's word on key point `assertion` (0-based, as the verdict lists them;
    the screen numbers them from 1) of the verdict `verdict_id` on answer `attempt_id`."""

    id: str
    note_id: str = Field(min_length=1)
    session_id: str = Field(min_length=1)
    attempt_id: str = Field(min_length=1)
    verdict_id: str = Field(min_length=1)
    assertion: int = Field(ge=0)
    status: KeyPointStatus
    note: str = Field(default="", max_length=MAX_NOTE_CHARS)
    created_at: str


def learner_correction(
    *,
    note_id: str,
    session_id: str,
    attempt_id: str,
    verdict_id: str,
    assertion: int,
    status: KeyPointStatus,
    note: str,
    at: str,
) -> LearnerCorrection:
    fields = {
        "note_id": note_id,
        "session_id": session_id,
        "attempt_id": attempt_id,
        "verdict_id": verdict_id,
        "assertion": assertion,
        "status": status,
        "note": note,
        "created_at": at,
    }
    return LearnerCorrection(
        id=content_id("learner_correction", fields),
        note_id=note_id,
        session_id=session_id,
        attempt_id=attempt_id,
        verdict_id=verdict_id,
        assertion=assertion,
        status=status,
        note=note,
        created_at=at,
    )


def correction_fields(correction: LearnerCorrection) -> dict[str, object]:
    """The fields its id is the content id of."""
    return correction.model_dump(exclude={"id"})


def correctable(verdict: VerdictRecord) -> bool:
    """Whether the verdict judged each key point (they were sent, and a failed verdict
    names one): only then is there a judge's word per key point to correct. A coarse
    verdict rates them all alike."""
    count = len(verdict.assertions)
    names_one = any(g.assertion is not None and 0 <= g.assertion < count for g in verdict.gaps)
    return verdict.assertions_sent and count > 0 and (verdict.passed or names_one)


def judge_status(verdict: VerdictRecord, assertion: int) -> KeyPointStatus:
    """What the judge said of one key point: its gap's problem (a misconception outranks
    an omission), else explained."""
    problems = {g.problem for g in verdict.gaps if g.assertion == assertion}
    if "wrong" in problems:
        return "wrong"
    return "unexplained" if problems else "explained"


def in_force(
    corrections: Iterable[LearnerCorrection], verdict: VerdictRecord
) -> Mapping[int, LearnerCorrection]:
    """Per key point of `verdict`, the learner's correction in force: the latest of those
    bound to this verdict (another verdict's say nothing of it), unless it gives the
    judge's own word back."""
    latest: dict[int, LearnerCorrection] = {}
    for c in sorted(corrections, key=lambda c: (c.created_at, c.id)):
        if c.verdict_id == verdict.id and 0 <= c.assertion < len(verdict.assertions):
            latest[c.assertion] = c
    return {n: c for n, c in latest.items() if c.status != judge_status(verdict, n)}


def correction_gap_id(correction: LearnerCorrection) -> str:
    """The id of a gap the learner opened where the judge saw none."""
    return content_id("learner_gap", {"correction_id": correction.id})


class CorrectionRefused(CoachError):
    """A correction that cannot be made: no such answer, no verdict, no such key point."""


@dataclass(frozen=True)
class Corrected:
    """A correction made: the record, the key point's text and what the judge had said."""

    correction: LearnerCorrection
    text: str
    judge: KeyPointStatus

    @property
    def changes(self) -> Changes:
        return KEY_POINT_CORRECTED
