"""Assertion memory (issue 7, ADR 0008): which core assertion an answer speaks about, and
how well the learner recalled it.

An assertion is known by the digest of its text (NFC, whitespace collapsed) within its
note, never by its position: reordering the assertions or editing the note body keeps its
memory, and a changed assertion is a new one that starts fresh.

Ratings follow FSRS's four grades. From a verdict: explained -> Good, a gap `unexplained`
or `wrong` -> Again. A verdict given without the assertions cannot say which one was
missed, so a pass rates all of them Good and a fail all of them Hard. Several answers in
one session are one review per assertion: the worst rating counts.

An open gap (ADR 0023) is the judge's finding about one key point, so only a verdict given
with the assertions sent (a *named* rating) opens or closes one; self-ratings and verdicts
given without the assertions move the schedule only. `GapLedger` (`open_gaps`) is the one
rule Today, the gap board, the progress chart and `coach gaps`/`coach today` all read.
"""

from __future__ import annotations

import functools
import hashlib
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from coach_gui.domain.corrections import (
    LearnerCorrection,
    correctable,
    correction_gap_id,
    in_force,
    judges_gap,
    learners_explanation,
)
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import (
    Attempt,
    GapPlan,
    VerdictRecord,
    decided,
    gap_id,
    note_digest,
)
from coach_gui.domain.records import Record
from coach_gui.domain.session_records import SessionRecords
from coach_gui.domain.session_state import attempt_states

AGAIN, HARD, GOOD, EASY = 1, 2, 3, 4
RATING_NAMES = {AGAIN: "again", HARD: "hard", GOOD: "good", EASY: "easy"}
Rating = Annotated[int, Field(ge=AGAIN, le=EASY)]
GapProblem = Literal["unexplained", "wrong"]
Source = Literal["verdict", "self", "imported"]


def normalised_assertion(text: str) -> str:
    return " ".join(unicodedata.normalize("NFC", text).split())


@functools.lru_cache(maxsize=65_536)  # the Today view asks for the same texts again and again
def assertion_digest(text: str) -> str:
    """The identity of an assertion's text: equal after NFC and collapsing whitespace."""
    return hashlib.sha256(normalised_assertion(text).encode("utf-8")).hexdigest()


class AssertionRating(Record):
    """One answer's rating of one assertion, from its verdict or from the learner."""

    session_id: str
    attempt_id: str
    digest: str
    text: str
    rating: Rating
    at: str  # when the answer was submitted (ISO-8601 UTC): the time of the review
    source: Source
    # Judged with the assertions sent: the judge said which key points were missed, so
    # this rating opens (a gap) or closes (explained) the assertion's open gap.
    named: bool = False
    gap: GapProblem | None = None
    gap_id: str | None = None
    explanation: str | None = None  # the judge's, for a gap
    later: bool = False  # the verdict came after the session (judged later)
    key_point: int | None = None  # named: its index among the verdict's key points


class SelfRating(Record):
    """The learner's own rating of an unjudged answer for one of the note's assertions."""

    attempt_id: str
    note_id: str
    digest: str
    text: str
    rating: Rating
    created_at: str


def self_ratings_for(
    attempt: Attempt, note: Note, rating: int, created_at: str
) -> tuple[SelfRating, ...]:
    """The learner saw `note`'s assertions after answering and rated their recall."""
    return tuple(
        SelfRating(
            attempt_id=attempt.id,
            note_id=note.id,
            digest=assertion_digest(text),
            text=text,
            rating=rating,
            created_at=created_at,
        )
        for text in dict.fromkeys(note.core_assertions)
    )


def ratings_from_verdict(
    attempt: Attempt,
    verdict: VerdictRecord,
    *,
    follow_up: bool = False,
    later: bool = False,
    corrected: Mapping[int, LearnerCorrection] | None = None,
) -> list[AssertionRating]:
    """What a verdict says about each assertion it was judged against. A failed verdict
    that names none of them (one recorded before the judge assessed each key point, or
    with a gap index out of range) cannot say which was missed: it rates them as one
    judged without the assertions does, and neither opens nor closes a gap.

    A `follow_up` asks about one part of the answer before it, so a key point its answer
    does not explain is no evidence of a gap: only what it explains and what it gets
    wrong are rated (ADR 0023). A coarse verdict on a follow-up rates nothing.

    Where the learner corrected the judge's word on a key point (`corrected`, from
    `corrections.in_force`), theirs counts instead: explained rates Good and closes the
    gap; not explained or wrong rates Again and keeps (or opens) one (issue 36)."""
    count = len(verdict.assertions)
    if not correctable(verdict):
        if follow_up:
            return []
        rating = GOOD if verdict.passed else HARD
        return [
            AssertionRating(
                session_id=attempt.session_id,
                attempt_id=attempt.id,
                digest=assertion_digest(text),
                text=text,
                rating=rating,
                at=attempt.submitted_at,
                source="verdict",
                later=later,
            )
            for text in dict.fromkeys(verdict.assertions)
        ]
    corrected = corrected or {}
    found: list[AssertionRating] = []
    for index in range(count):
        text = verdict.assertions[index]
        problem, gap_ref, explanation = _judged(verdict, index, corrected.get(index))
        if follow_up and problem == "unexplained":
            continue  # not explained in an answer to a narrower question: no evidence
        found.append(
            AssertionRating(
                session_id=attempt.session_id,
                attempt_id=attempt.id,
                digest=assertion_digest(text),
                text=text,
                rating=AGAIN if problem else GOOD,
                at=attempt.submitted_at,
                source="verdict",
                named=True,
                gap=problem,
                gap_id=gap_ref,
                explanation=explanation,
                later=later,
                key_point=index,
            )
        )
    return found


def _judged(
    verdict: VerdictRecord, index: int, correction: LearnerCorrection | None
) -> tuple[GapProblem | None, str | None, str | None]:
    """(problem, gap id, explanation) of one key point: the judge's word, or the learner's
    where they corrected it."""
    judges = judges_gap(verdict, index)
    if correction is None:
        if judges is None:
            return None, None, None
        return judges[1].problem, gap_id(verdict.id, judges[0]), judges[1].explanation
    if correction.status == "explained":
        return None, None, None
    ref = gap_id(verdict.id, judges[0]) if judges else correction_gap_id(correction)
    return correction.status, ref, learners_explanation(verdict, correction)


def ratings_from_self(attempt: Attempt, ratings: Iterable[SelfRating]) -> list[AssertionRating]:
    return [
        AssertionRating(
            session_id=attempt.session_id,
            attempt_id=attempt.id,
            digest=r.digest,
            text=r.text,
            rating=r.rating,
            at=attempt.submitted_at,
            source="self",
        )
        for r in ratings
        if r.attempt_id == attempt.id
    ]


def note_ratings(
    note_id: str,
    records: Iterable[SessionRecords],
    self_ratings: Iterable[SelfRating] = (),
    *,
    undone: frozenset[str] = frozenset(),
) -> list[AssertionRating]:
    """Every rating of one note's assertions in its sessions, in answer order. An answer's
    verdict rates it; until there is one, the learner's own rating does. (Self-ratings
    never name a gap: `open_gaps` gives the same without them.) The sessions whose review
    the learner undid (`domain.schedule_control.undone_sessions`) give none."""
    by_attempt: dict[str, list[SelfRating]] = {}
    for rating in self_ratings:
        by_attempt.setdefault(rating.attempt_id, []).append(rating)
    ratings: list[AssertionRating] = []
    for session in records:
        if session.session.note_id != note_id or session.session.id in undone:
            continue
        for state in attempt_states(session):
            follow_up = state.challenge is not None and state.challenge.origin == "follow_up"
            if state.verdict is not None:
                later = state.attempt.status == "unjudged"  # bound to a verdict afterwards
                corrected = in_force(session.corrections, state.verdict)
                ratings += ratings_from_verdict(
                    state.attempt,
                    state.verdict,
                    follow_up=follow_up,
                    later=later,
                    corrected=corrected,
                )
            elif not follow_up:  # a follow-up is one part: rating every key point won't fit
                ratings += ratings_from_self(state.attempt, by_attempt.get(state.attempt.id, ()))
    return ratings


def _severity(rating: AssertionRating) -> tuple[int, int]:
    return (rating.rating, 0 if rating.gap == "wrong" else 1)


def session_reviews(ratings: Iterable[AssertionRating]) -> dict[str, list[AssertionRating]]:
    """Per assertion digest, one review per session (the worst rating, the first answer's
    among equals, at the session's last answer on it), in time order."""
    by_session: dict[tuple[str, str], list[AssertionRating]] = {}
    for rating in ratings:
        by_session.setdefault((rating.digest, rating.session_id), []).append(rating)
    reviews: dict[str, list[AssertionRating]] = {}
    for (digest, _), group in by_session.items():
        worst = min(group, key=_severity)
        last = max(r.at for r in group)
        review = worst if worst.at == last else worst.model_copy(update={"at": last})
        reviews.setdefault(digest, []).append(review)
    for found in reviews.values():
        found.sort(key=lambda r: (r.at, r.session_id))
    return reviews


@dataclass(frozen=True, slots=True)
class AssertionGap:
    """An assertion's open gap: its latest named session review missed it."""

    digest: str
    text: str  # as it was judged
    problem: GapProblem  # of that review: `wrong` outranks `unexplained`
    explanation: str
    gap_id: str
    session_id: str  # the session that left it open
    at: str  # that session's last answer on it
    missed: int  # sessions whose named review missed it, over the whole history
    attempt_id: str = ""  # the answer whose verdict left it open (what `coach correct` takes)
    key_point: int | None = None  # its index among that verdict's key points


def _when(review: AssertionRating) -> tuple[str, str]:
    return (review.at, review.session_id)  # the order of `session_reviews`


class GapLedger:
    """The open gaps of one note's assertions, whole sessions added at a time (ADR 0023).
    Only named ratings count; per session the worst of them is the review (a miss stays a
    miss even if a later answer in the same session explains it); the latest session
    review decides: a gap is open until a later session's judged answer explains it.
    The progress chart reads it after each session; `open_gaps` after all of them."""

    def __init__(self) -> None:
        self._latest: dict[str, AssertionRating] = {}  # digest -> latest named review
        self._missed: dict[str, int] = {}  # digest -> sessions that missed it

    def add(self, ratings: Iterable[AssertionRating]) -> GapLedger:
        """Add the ratings of whole sessions (never part of one: it would count twice)."""
        for digest, reviews in session_reviews(r for r in ratings if r.named).items():
            for review in reviews:
                latest = self._latest.get(digest)
                if latest is None or _when(review) >= _when(latest):
                    self._latest[digest] = review
                if review.gap is not None:
                    self._missed[digest] = self._missed.get(digest, 0) + 1
        return self

    @property
    def judged(self) -> frozenset[str]:
        """The digests some named review has judged."""
        return frozenset(self._latest)

    def gaps(self) -> dict[str, AssertionGap]:
        """Per assertion digest, its open gap, if it has one."""
        return {
            digest: AssertionGap(
                digest=digest,
                text=latest.text,
                problem=latest.gap,
                explanation=latest.explanation or "",
                gap_id=latest.gap_id,
                session_id=latest.session_id,
                at=latest.at,
                missed=self._missed.get(digest, 0),
                attempt_id=latest.attempt_id,
                key_point=latest.key_point,
            )
            for digest, latest in self._latest.items()
            if latest.gap is not None and latest.gap_id is not None
        }


def open_gaps(ratings: Iterable[AssertionRating]) -> dict[str, AssertionGap]:
    """Per assertion digest, its open gap, if it has one: the one rule (`GapLedger`)."""
    return GapLedger().add(ratings).gaps()


@dataclass(frozen=True, slots=True)
class MemoryState:
    """One assertion's memory after replaying its reviews: a row of the derived cache.
    A plain dataclass, not a Record: Today reads thousands of these from the cache (which
    only Coach writes, from validated reviews), and pydantic would triple that time."""

    note_id: str
    digest: str
    text: str
    state: int  # FSRS: 1 learning, 2 review, 3 relearning
    stability: float
    difficulty: float
    due: str  # ISO-8601 UTC, microseconds, so text order is time order
    last_review: str
    last_rating: int
    reviews: int
    gap: GapProblem | None = None  # its open gap (`open_gaps`), always due
    gap_id: str | None = None
    lapses: int = 0  # misses on a later day than the review before: times it was forgotten
    first_review: str = ""  # when it was first reviewed: a new note is begun that day


ReviewSource = Literal["judge", "self", "later", "imported"]
SOURCE_WORDS: dict[ReviewSource, str] = {
    "judge": "judge", "self": "self-rating", "later": "judged later",
    "imported": "imported from Anki",
}  # fmt: skip


def review_source(rating: AssertionRating) -> ReviewSource:
    """Where a review came from: the judge during the session, the judge afterwards, or
    the learner's own rating."""
    if rating.source == "self":
        return "self"
    if rating.source == "imported":
        return "imported"
    return "later" if rating.later else "judge"


@dataclass(frozen=True, slots=True)
class ReviewRow:
    """One session's review of one assertion, as replayed: a row of the derived review
    cache that statistics, the per-assertion timeline and the optimizer read."""

    note_id: str
    digest: str
    session_id: str
    at: str  # ISO-8601 UTC, microseconds
    rating: int
    source: ReviewSource
    was_due: bool  # reviewed on or after its due time (FSRS's, before this review)
    undone: bool = False  # the learner undid it: kept, never counted


def plan_due_practice(
    note: Note,
    targets: Sequence[int],
    due: Sequence[MemoryState],
    decided_at: str,
    schedule: Mapping[str, object] | None = None,
) -> GapPlan:
    """The decision to practise `note` because these assertions are due: challenges target
    them (indexes in the note as it is now); the open gaps among them are sealed with the
    session. The id is content-addressed from what was decided and why; `schedule` is
    what the scheduler decided with (FSRS parameters, desired retention, new-note limit)."""
    gap_ids = sorted({m.gap_id for m in due if m.gap_id})
    fields: dict[str, object] = {
        "reason": "assertions_due",
        "note_id": note.id,
        "note_digest": note_digest(note),
        "targets": list(targets),
        "due": sorted([m.digest, m.due] for m in due),
        "gap_ids": gap_ids,
        "decided_at": decided_at,
    }
    if schedule is not None:
        fields["schedule"] = dict(schedule)
    return decided(fields, tuple(targets), tuple(gap_ids))


def plan_new_practice(
    note: Note, decided_at: str, schedule: Mapping[str, object], *, rank: int
) -> GapPlan:
    """The decision to begin a note never practised: every assertion is a target; the
    daily limit, the order and the note's place in it (`rank`, from 1) are in `schedule`."""
    targets = tuple(range(len(note.core_assertions)))
    fields: dict[str, object] = {
        "reason": "new_note",
        "note_id": note.id,
        "note_digest": note_digest(note),
        "targets": list(targets),
        "gap_ids": [],
        "decided_at": decided_at,
        "schedule": {**schedule, "rank": rank},
    }
    return decided(fields, targets, ())
