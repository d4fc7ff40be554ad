"""What to practise today (issue 7, ADR 0008): each core assertion's memory, replayed from
the journal's history with the `fsrs` package, and the notes whose assertions are due.

Pure over ports: the time comes from the Clock, nothing sleeps, and every FSRS step is the
package's own `Scheduler.review_card` (never the formulas re-typed here).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib.metadata import version

from fsrs import Card, Rating, Scheduler

from coach_gui.domain.digests import digest
from coach_gui.domain.memory import (
    RATING_NAMES,
    AssertionGap,
    AssertionRating,
    MemoryState,
    SelfRating,
    assertion_digest,
    note_ratings,
    open_gaps,
    plan_due_practice,
    self_ratings_for,
    session_reviews,
)
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import Attempt, GapPlan
from coach_gui.domain.session_records import SessionRecords
from coach_gui.services.ports.notes import NoteLookup
from coach_gui.services.ports.practice import Clock
from coach_gui.services.ports.schedule import MemoryJournal
from coach_gui.services.ports.sealing import SessionReader

FORECAST_DAYS = 14
# Bump when the rating rules change: the cache is rebuilt. /2: open gaps by ADR 0023;
# /3: a fail naming no key point is coarse; /4: a follow-up rates only what it explained
# or got wrong; /5: a follow-up is not self-rated.
_RULES = "assertion-memory/5"


def fsrs_scheduler(desired_retention: float = 0.9) -> Scheduler:
    """FSRS as Coach uses it: one review per session, so no minute-long learning steps
    (every review schedules whole days), and no random fuzz (replays are reproducible)."""
    return Scheduler(
        desired_retention=desired_retention,
        learning_steps=(),
        relearning_steps=(),
        enable_fuzzing=False,
    )


@functools.cache
def _fsrs_version() -> str:
    return version("fsrs")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def stamp(moment: datetime) -> str:
    """One text form for every stored time, so text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def replay(
    note_id: str,
    reviews: Sequence[AssertionRating],
    scheduler: Scheduler,
    gap: AssertionGap | None = None,
) -> MemoryState:
    """An assertion's memory after its reviews, in time order (at least one), with its
    open gap (`domain.memory.open_gaps`), if any."""
    first = utc(reviews[0].at)
    card = Card(card_id=1, due=first)  # an explicit id: the default one sleeps a millisecond
    for review in reviews:
        card, _ = scheduler.review_card(card, Rating(review.rating), utc(review.at))
    latest = reviews[-1]
    assert card.stability is not None and card.difficulty is not None
    return MemoryState(
        note_id=note_id,
        digest=latest.digest,
        text=latest.text,
        state=int(card.state),
        stability=card.stability,
        difficulty=card.difficulty,
        due=stamp(card.due),
        last_review=stamp(utc(latest.at)),
        last_rating=latest.rating,
        reviews=len(reviews),
        gap=gap.problem if gap is not None else None,
        gap_id=gap.gap_id if gap is not None else None,
    )


def note_memory(
    note_id: str,
    records: Sequence[SessionRecords],
    self_ratings: Sequence[SelfRating],
    scheduler: Scheduler,
) -> list[MemoryState]:
    """Every assertion of one note that was ever rated, replayed from its sessions. An
    answer's verdict rates it; until there is one, the learner's own rating does."""
    ratings = note_ratings(note_id, records, self_ratings)
    gaps = open_gaps(ratings)
    return [
        replay(note_id, found, scheduler, gaps.get(digest_))
        for digest_, found in session_reviews(ratings).items()
    ]


@dataclass(frozen=True)
class DueAssertion:
    index: int  # in the note as it is now
    memory: MemoryState
    overdue: bool  # due before today began
    ahead: bool = False  # listed before its FSRS due time, because its gap is open

    @property
    def interval_days(self) -> float:
        delta = utc(self.memory.due) - utc(self.memory.last_review)
        return round(delta.total_seconds() / 86_400, 2)

    def to_json(self) -> dict[str, object]:
        m = self.memory
        return {
            "index": self.index, "text": m.text, "digest": m.digest, "due": m.due,
            "overdue": self.overdue, "interval_days": self.interval_days,
            "stability": round(m.stability, 4), "difficulty": round(m.difficulty, 4),
            "last_review": m.last_review, "last_rating": RATING_NAMES[m.last_rating],
            "reviews": m.reviews, "gap": m.gap, "gap_id": m.gap_id,
            "ahead_of_schedule": self.ahead,
        }  # fmt: skip


def _priority(item: DueAssertion) -> tuple[int, str]:
    rank = {"wrong": 0, "unexplained": 1}.get(item.memory.gap or "", 2)
    return (rank, item.memory.due)


@dataclass(frozen=True)
class DueNote:
    note: Note
    assertions: tuple[DueAssertion, ...]  # misconceptions, then omissions, then most overdue

    @property
    def open_gap(self) -> str | None:
        gaps = {a.memory.gap for a in self.assertions}
        return "wrong" if "wrong" in gaps else "unexplained" if "unexplained" in gaps else None

    @property
    def overdue(self) -> int:
        return sum(a.overdue for a in self.assertions)

    def sort_key(self) -> tuple[int, str, str]:
        return (*_priority(self.assertions[0]), self.note.title.casefold())

    def to_json(self) -> dict[str, object]:
        return {
            "note_id": self.note.id, "title": self.note.title, "due": len(self.assertions),
            "overdue": self.overdue, "open_gap": self.open_gap,
            "assertions": [a.to_json() for a in self.assertions],
        }  # fmt: skip


@dataclass(frozen=True)
class Today:
    now: str
    notes: list[DueNote]  # open gaps first, then the most overdue
    forecast: list[tuple[str, int]]  # (local date, assertions due); day 0 has the overdue

    @property
    def due(self) -> int:
        return sum(len(n.assertions) for n in self.notes)

    def to_json(self) -> dict[str, object]:
        return {
            "now": self.now,
            "due": self.due,
            "notes": [n.to_json() for n in self.notes],
            "forecast": [{"date": day, "due": count} for day, count in self.forecast],
        }


class _CurrentIndex:
    """Where an assertion sits in its note now; None when the note or the text is gone."""

    def __init__(self, notes: NoteLookup) -> None:
        self._notes = notes
        self._seen: dict[str, Note | None] = {}
        self._digests: dict[str, dict[str, int]] = {}

    def note(self, note_id: str) -> Note | None:
        if note_id not in self._seen:
            self._seen[note_id] = self._notes(note_id)
        return self._seen[note_id]

    def __call__(self, note_id: str, text: str, digest_: str) -> int | None:
        note = self.note(note_id)
        if note is None:
            return None
        assertions = note.core_assertions
        if text in assertions:  # the common case: the same text has the same digest
            return assertions.index(text)
        if note_id not in self._digests:
            self._digests[note_id] = {assertion_digest(t): n for n, t in enumerate(assertions)}
        return self._digests[note_id].get(digest_)


class AssertionScheduler:
    """The use cases of issue 7 over the journal's ports."""

    def __init__(
        self,
        reader: SessionReader,
        memory: MemoryJournal,
        clock: Clock,
        *,
        desired_retention: float = 0.9,
    ) -> None:
        self._reader = reader
        self._memory = memory
        self._clock = clock
        self.fsrs = fsrs_scheduler(desired_retention)

    @functools.cached_property
    def fingerprint(self) -> str:
        """What the cache was computed with; a change rebuilds it."""
        return digest({"rules": _RULES, "fsrs": _fsrs_version(), "scheduler": self.fsrs.to_dict()})

    def refresh(self) -> int:
        """Replay the notes whose history changed; returns how many."""
        return self._memory.refresh(self.fingerprint, self._replay)

    def forget(self) -> None:
        """Recompute every assertion's memory from history at the next refresh."""
        self._memory.mark_all_stale()

    def history(self, note_ids: Sequence[str]) -> list[SessionRecords]:
        """The sessions practised on these notes, and only those."""
        return self._reader.records_for(self._memory.session_ids_for_notes(note_ids))

    def _replay(self, note_ids: Sequence[str]) -> list[MemoryState]:
        records = self.history(note_ids)
        self_ratings = self._memory.self_ratings(note_ids)
        found: list[MemoryState] = []
        for note_id in note_ids:
            found += note_memory(note_id, records, self_ratings, self.fsrs)
        return found

    def notes_with_open_gaps(self) -> set[str]:
        """The notes that have an open gap now, read from the cache once it is up to date
        (its `gap` column is the rule of ADR 0023, replayed): who needs a closer look."""
        self.refresh()
        return {state.note_id for state in self._memory.open_gaps_due_from("")}

    def rate_unjudged(self, attempt: Attempt, note: Note, rating: int) -> None:
        """The learner's own rating of an unjudged answer, after seeing their assertions;
        it counts until a verdict on the answer arrives."""
        ratings = self_ratings_for(attempt, note, rating, self._clock.now())
        self._memory.record_self_ratings(ratings)

    def today(
        self,
        notes: NoteLookup,
        *,
        utc_offset: timedelta = timedelta(0),
        refresh: bool = True,
    ) -> Today:
        """The notes with assertions due by the end of the learner's day, and every open
        gap (open gaps first, then the most overdue), and how many fall due on each of
        the next 14 days (an open gap counts today only)."""
        if refresh:
            self.refresh()
        now_text = self._clock.now()
        local = utc(now_text) + utc_offset
        day0 = local.replace(hour=0, minute=0, second=0, microsecond=0) - utc_offset
        bounds = [stamp(day0 + timedelta(days=n)) for n in range(1, FORECAST_DAYS + 1)]
        start = stamp(day0)
        current = _CurrentIndex(notes)
        counts = [0] * FORECAST_DAYS
        due: dict[str, list[DueAssertion]] = {}
        # Due by FSRS before tomorrow, and every open gap whenever FSRS would have it
        # (ADR 0023): the two queries never return the same row.
        gaps_later = self._memory.open_gaps_due_from(bounds[0])
        for state in [*self._memory.due_before(bounds[0]), *gaps_later]:
            index = current(state.note_id, state.text, state.digest)
            if index is not None:
                due.setdefault(state.note_id, []).append(
                    DueAssertion(index, state, state.due < start, state.due >= bounds[0])
                )
        counts[0] = sum(len(found) for found in due.values())
        for note_id, digest_, text, when in self._memory.due_between(bounds[0], bounds[-1]):
            if current(note_id, text, digest_) is not None:
                counts[bisect.bisect_right(bounds, when)] += 1
        due_notes = []
        for note_id, found in due.items():
            note = current.note(note_id)
            assert note is not None
            found.sort(key=_priority)
            due_notes.append(DueNote(note, tuple(found)))
        due_notes.sort(key=DueNote.sort_key)
        days = [
            ((day0 + utc_offset) + timedelta(days=n)).date().isoformat()
            for n in range(FORECAST_DAYS)
        ]
        return Today(now_text, due_notes, list(zip(days, counts, strict=True)))

    def plan(self, due_note: DueNote) -> GapPlan:
        """The decision to practise a due note: challenges target its due assertions, and
        the decision id and the open gap ids are sealed with the session (DESIGN §6)."""
        return plan_due_practice(
            due_note.note,
            [a.index for a in due_note.assertions],
            [a.memory for a in due_note.assertions],
            self._clock.now(),
        )

    def plans(self, today: Today) -> list[tuple[Note, GapPlan]]:
        """Every due note in the order to practise it, with its plan."""
        return [(n.note, self.plan(n)) for n in today.notes]
