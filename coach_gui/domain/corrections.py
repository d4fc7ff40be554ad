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
from coach_gui.domain.verdicts import Gap

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


def judges_gap(verdict: VerdictRecord, assertion: int) -> tuple[int, Gap] | None:
    """The judge's gap on one key point, with its place among the verdict's gaps: a
    misconception outranks an omission when both are listed; None when it saw none."""
    listed = [(n, g) for n, g in enumerate(verdict.gaps) if g.assertion == assertion]
    listed.sort(key=lambda pair: pair[1].problem != "wrong")
    return listed[0] if listed else None


def judge_status(verdict: VerdictRecord, assertion: int) -> KeyPointStatus:
    """What the judge said of one key point: its gap's problem, else explained."""
    found = judges_gap(verdict, assertion)
    return "explained" if found is None else found[1].problem


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


LEARNER_SAID: dict[KeyPointStatus, str] = {
    "unexplained": "You marked this key point as not explained in your answer.",
    "wrong": "You marked this key point as wrong in your answer.",
}


@dataclass(frozen=True)
class GapInForce:
    """A gap of a judged answer as it counts now: the judge's, or the learner's word where
    they corrected it (`by_learner`)."""

    assertion: int | None  # among the verdict's key points; None: the challenge as a whole
    problem: str  # unexplained | wrong
    explanation: str
    by_learner: bool = False


def gaps_in_force(
    verdict: VerdictRecord, corrections: Iterable[LearnerCorrection]
) -> list[GapInForce]:
    """The verdict's gaps with the learner's corrections applied, in the verdict's order: a
    key point corrected to explained has none, one corrected to a problem has that one
    (after the judge's, where the judge saw none). The verdict is not changed."""
    mine = in_force(corrections, verdict)
    found: list[GapInForce] = []
    placed: set[int] = set()
    for gap in verdict.gaps:
        n = gap.assertion
        if n is None or n not in mine:
            found.append(GapInForce(n, gap.problem, gap.explanation))
        elif n not in placed:
            placed.add(n)
            found += _learners_gap(verdict, mine[n])
    for n, correction in sorted(mine.items()):
        if n not in placed:
            found += _learners_gap(verdict, correction)
    return found


def learners_explanation(verdict: VerdictRecord, correction: LearnerCorrection) -> str:
    """Why a key point the learner corrected to a problem is a gap: their note, else the
    judge's explanation of its gap, else what they marked."""
    judges = judges_gap(verdict, correction.assertion)
    said = correction.note or (judges[1].explanation if judges else "")
    return said or LEARNER_SAID.get(correction.status, "")


def _learners_gap(verdict: VerdictRecord, correction: LearnerCorrection) -> list[GapInForce]:
    if correction.status == "explained":
        return []
    said = learners_explanation(verdict, correction)
    return [GapInForce(correction.assertion, correction.status, said, by_learner=True)]


@dataclass(frozen=True)
class AnswerWords:
    """A judged answer's key points, the judge's word on each and the learner's where it
    is in force (index -> (status, note)): what the correct dialog shows."""

    attempt_id: str
    assertions: tuple[str, ...]
    judged: tuple[KeyPointStatus, ...]
    learners: Mapping[int, tuple[KeyPointStatus, str]]


def learners_words(
    verdict: VerdictRecord, corrections: Iterable[LearnerCorrection]
) -> dict[int, tuple[KeyPointStatus, str]]:
    """Per key point of `verdict`, the learner's word (status, note) where it is in force."""
    return {n: (c.status, c.note) for n, c in in_force(corrections, verdict).items()}


def answer_words(
    attempt_id: str, verdict: VerdictRecord, corrections: Iterable[LearnerCorrection]
) -> AnswerWords:
    return AnswerWords(
        attempt_id,
        tuple(verdict.assertions),
        tuple(judge_status(verdict, n) for n in range(len(verdict.assertions))),
        learners_words(verdict, corrections),
    )


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
