"""What to practise today (issue 7, ADR 0008): each core assertion's memory, replayed from
the journal's history with the `fsrs` package, and the notes whose assertions are due.

Pure over ports: the time comes from the Clock, nothing sleeps, and every FSRS step is the
package's own `Scheduler.review_card` (never the formulas re-typed here).
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from importlib.metadata import version

from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS

from coach_gui.domain.changes import REVIEW_TAKEN_BACK, Changes
from coach_gui.domain.corrections import (
    AnswerWords,
    Corrected,
    CorrectionRefused,
    KeyPointStatus,
    answer_words,
    correctable,
    judge_status,
    learner_correction,
)
from coach_gui.domain.digests import digest
from coach_gui.domain.imported_reviews import ImportedReview
from coach_gui.domain.memory import (
    AGAIN,
    RATING_NAMES,
    AssertionGap,
    AssertionRating,
    MemoryState,
    ReviewRow,
    SelfRating,
    assertion_digest,
    note_ratings,
    open_gaps,
    plan_due_practice,
    plan_new_practice,
    review_source,
    self_ratings_for,
    session_reviews,
)
from coach_gui.domain.notes import Note, NoteEntry
from coach_gui.domain.practice import Attempt, GapPlan, VerdictRecord
from coach_gui.domain.schedule_control import (
    AppliedParameters,
    FitSummary,
    Hold,
    HoldAction,
    Holds,
    NewCandidate,
    NewOrder,
    ScheduleHold,
    applied_parameters,
    new_allowance,
    order_new,
    review_change,
    schedule_hold,
    undone_sessions,
)
from coach_gui.domain.session_records import SessionRecords
from coach_gui.domain.session_state import attempt_states
from coach_gui.services.imported_memory import imported_ratings
from coach_gui.services.ports.notes import NoteLookup
from coach_gui.services.ports.practice import Clock
from coach_gui.services.ports.schedule import MemoryJournal
from coach_gui.services.ports.sealing import SessionReader

FORECAST_DAYS = 14
# Bump when the rating rules change: the cache is rebuilt. /2: open gaps by ADR 0023;
# /3: a fail naming no key point is coarse; /4: a follow-up rates only what it explained
# or got wrong; /5: a follow-up is not self-rated.
# /6: undone reviews count for nothing; the review rows, lapses and first review are kept;
# /7: "was due" on the learner's day; a lapse is a miss on a later day than the last review;
# /8: one row per note with a memory is kept beside it (new notes, notes begun today).
# /9: review histories imported from Anki, continued from the card as Anki left it.
_RULES = "assertion-memory/9"


def fsrs_scheduler(
    desired_retention: float = 0.9, parameters: Sequence[float] | None = None
) -> Scheduler:
    """FSRS as Coach uses it: one review per session, so no minute-long learning steps
    (every review schedules whole days), and no random fuzz (replays are reproducible).
    `parameters`: fitted to the learner's history (None: the package's defaults)."""
    return Scheduler(
        parameters=DEFAULT_PARAMETERS if parameters is None else tuple(parameters),
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


def later_than(now: str, latest: str | None) -> str:
    """`now`, or just after `latest` when that is not earlier: a decision is always later
    than the one it overrides, even when that one came from a computer whose clock runs
    ahead (the latest record decides, ADR 0026; sync brings both, ADR 0027)."""
    if latest is None:
        return now
    try:
        before, moment = utc(latest), utc(now)
    except ValueError:
        return now
    return now if moment > before else stamp(before + timedelta(microseconds=1))


def stamp(moment: datetime) -> str:
    """One text form for every stored time, so text order is time order."""
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def replay(
    note_id: str,
    reviews: Sequence[AssertionRating],
    scheduler: Scheduler,
    gap: AssertionGap | None = None,
    day_offset: timedelta = timedelta(0),
    anchors: Mapping[str, Card] | None = None,
) -> tuple[MemoryState, list[ReviewRow]]:
    """An assertion's memory after its reviews, in time order (at least one), with its
    open gap (`domain.memory.open_gaps`), if any; and each review as a row, saying
    whether the assertion was due when it was reviewed: on or after the learner's day
    (UTC shifted by `day_offset`) FSRS had it due, as Today lists it; the first review
    never is. A lapse is a miss (Again) on a later day than the review before it: missed
    again and again over days, not four times in one evening of practising a gap."""
    first = utc(reviews[0].at)
    card = Card(card_id=1, due=first)  # an explicit id: the default one sleeps a millisecond
    rows: list[ReviewRow] = []
    lapses = 0
    for n, review in enumerate(reviews):
        at = utc(review.at)
        was_due = n > 0 and (card.due + day_offset).date() <= (at + day_offset).date()
        lapses += (
            n > 0
            and review.rating == AGAIN
            and (at + day_offset).date() > (utc(reviews[n - 1].at) + day_offset).date()
        )
        rows.append(
            ReviewRow(note_id, review.digest, review.session_id, stamp(at), review.rating,
                      review_source(review), was_due)
        )  # fmt: skip
        card, _ = scheduler.review_card(card, Rating(review.rating), at)
        if anchors and review.session_id in anchors:  # imported: as Anki left it (ADR 0038)
            card = anchors[review.session_id]
    latest = reviews[-1]
    assert card.stability is not None and card.difficulty is not None
    state = MemoryState(
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
        lapses=lapses,
        first_review=stamp(first),
    )
    return state, rows


def note_memory(
    note_id: str,
    records: Sequence[SessionRecords],
    self_ratings: Sequence[SelfRating],
    scheduler: Scheduler,
    undone: frozenset[str] = frozenset(),
    day_offset: timedelta = timedelta(0),
    imported: Sequence[ImportedReview] = (),
) -> tuple[list[MemoryState], list[ReviewRow]]:
    """Every assertion of one note that was ever rated, replayed from its sessions, and
    every review as a row. An answer's verdict rates it; until there is one, the
    learner's own rating does. An `undone` session's reviews are rows marked undone and
    count for nothing else (ADR 0026). Review histories `imported` from Anki come first
    in time, and the replay continues from the card as Anki left it (ADR 0038)."""
    every_rating = note_ratings(note_id, records, self_ratings)  # read once, split by session
    ratings = [r for r in every_rating if r.session_id not in undone]
    gaps = open_gaps(ratings)
    from_anki, anchors = imported_ratings(note_id, imported)
    states: list[MemoryState] = []
    rows: list[ReviewRow] = []
    for digest_, found in session_reviews([*from_anki, *ratings]).items():
        state, replayed = replay(note_id, found, scheduler, gaps.get(digest_), day_offset, anchors)
        states.append(state)
        rows += replayed
    if undone:
        taken_back = (r for r in every_rating if r.session_id in undone)
        for reviews in session_reviews(taken_back).values():
            rows += [
                ReviewRow(note_id, r.digest, r.session_id, stamp(utc(r.at)), r.rating,
                          review_source(r), was_due=False, undone=True)
                for r in reviews
            ]  # fmt: skip
    return states, rows


@dataclass(frozen=True)
class DueAssertion:
    index: int  # in the note as it is now
    memory: MemoryState
    overdue: bool  # due before today began
    ahead: bool = False  # listed before its FSRS due time, because its gap is open
    leech: bool = False  # forgotten again and again: worth rewording (issue 19)

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
            "ahead_of_schedule": self.ahead, "lapses": m.lapses, "leech": self.leech,
        }  # fmt: skip


_GAP_RANK = {"wrong": 0, "unexplained": 1, None: 2}  # misconceptions, omissions, the rest


def _priority(item: DueAssertion) -> tuple[int, str]:
    memory = item.memory
    return (_GAP_RANK[memory.gap], memory.due)


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
class NewNote:
    """A note never practised, offered under the daily limit of new notes."""

    note: Note
    rank: int  # its place in the learner's order, from 1

    def to_json(self) -> dict[str, object]:
        return {
            "note_id": self.note.id, "title": self.note.title, "rank": self.rank,
            "assertions": len(self.note.core_assertions),
        }  # fmt: skip


@dataclass(frozen=True)
class NewNotes:
    """Today's new notes and the rule that chose them."""

    notes: list[NewNote]
    limit: int  # per day (a setting)
    order: NewOrder
    begun_today: int  # new notes already begun today (they count against the limit)
    waiting: int  # never-practised notes with key points, in all

    def to_json(self) -> dict[str, object]:
        return {
            "limit": self.limit, "order": self.order, "begun_today": self.begun_today,
            "waiting": self.waiting, "notes": [n.to_json() for n in self.notes],
        }  # fmt: skip


@dataclass(frozen=True)
class Today:
    now: str
    notes: list[DueNote]  # open gaps first, then the most overdue
    forecast: list[tuple[str, int]]  # (local date, assertions due); day 0 has the overdue
    new: NewNotes | None = None  # None: the notes folder was not listed
    held: tuple[Hold, ...] = ()  # suspended and buried notes and assertions, now

    @property
    def due(self) -> int:
        return sum(len(n.assertions) for n in self.notes)

    @property
    def leeches(self) -> list[tuple[DueNote, DueAssertion]]:
        return [(n, a) for n in self.notes for a in n.assertions if a.leech]

    def to_json(self) -> dict[str, object]:
        return {
            "now": self.now,
            "due": self.due,
            "notes": [n.to_json() for n in self.notes],
            "forecast": [{"date": day, "due": count} for day, count in self.forecast],
            "new": None if self.new is None else self.new.to_json(),
            "held": [hold_json(h) for h in self.held],
        }


def hold_json(hold: Hold) -> dict[str, object]:
    return {
        "note_id": hold.note_id, "digest": hold.digest, "assertion": hold.text,
        "kind": "suspended" if hold.suspended else "buried", "until": hold.until,
        "since": hold.since,
    }  # fmt: skip


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


@dataclass(frozen=True)
class _Day:
    """The learner's day: when it began, the next 14 midnights, and their dates."""

    start: str
    bounds: list[str]
    dates: list[str]


@dataclass(frozen=True)
class DueSummary:
    """Today's counts: due (overdue and open gaps among them), the forecast, new notes,
    and what is held back."""

    now: str
    due: int
    overdue: int
    open_gaps: int
    forecast: list[tuple[str, int]]
    new: NewNotes | None
    held: tuple[Hold, ...]


@dataclass(frozen=True)
class ScheduleSettings:
    """How the learner asked Today to schedule (Settings › Practice)."""

    desired_retention: float = 0.9
    new_per_day: int = 5
    new_order: NewOrder = "oldest"
    leech_lapses: int = 4  # forgotten this many times: a leech
    # The learner's UTC offset when the cache was replayed: a review "was due" on the
    # learner's day, not UTC's (a change, as at daylight saving time, replays the cache).
    day_offset: timedelta = timedelta(0)


@dataclass(frozen=True)
class UndoneReview:
    """A session's review that was undone (or redone): which note, which session."""

    note_id: str
    session_id: str
    at: str  # the review's time
    action: str  # "undo" | "redo"

    @property
    def changes(self) -> Changes:
        return REVIEW_TAKEN_BACK


class AssertionScheduler:
    """The use cases of issues 7 and 19 over the journal's ports."""

    def __init__(
        self,
        reader: SessionReader,
        memory: MemoryJournal,
        clock: Clock,
        *,
        desired_retention: float = 0.9,
        settings: ScheduleSettings | None = None,
    ) -> None:
        self._reader = reader
        self._memory = memory
        self._clock = clock
        self.settings = settings or ScheduleSettings(desired_retention=desired_retention)
        self.applied = memory.parameters()
        parameters = self.applied.parameters if self.applied is not None else None
        self.fsrs = fsrs_scheduler(self.settings.desired_retention, parameters)

    @property
    def memory(self) -> MemoryJournal:
        """The journal's memory port (statistics read its review rows)."""
        return self._memory

    @functools.cached_property
    def fingerprint(self) -> str:
        """What the cache was computed with; a change rebuilds it."""
        return digest({
            "rules": _RULES, "fsrs": _fsrs_version(), "scheduler": self.fsrs.to_dict(),
            "day_offset_minutes": round(self.settings.day_offset.total_seconds() / 60),
        })  # fmt: skip

    @functools.cached_property
    def _schedule_fields(self) -> dict[str, object]:
        return {
            "fsrs": _fsrs_version(),
            "desired_retention": self.settings.desired_retention,
            "parameters": [round(p, 6) for p in self.fsrs.parameters],
            "parameters_id": self.applied.id if self.applied is not None else None,
        }

    def schedule_fields(self) -> dict[str, object]:
        """What every decision is made with, sealed in it (issue 19): the FSRS parameters
        in force (and which applied record they come from), the desired retention."""
        return dict(self._schedule_fields)

    def refresh(self) -> int:
        """Replay the notes whose history changed; returns how many."""
        return self._memory.refresh(self.fingerprint, self._replay)

    def forget(self) -> None:
        """Recompute every assertion's memory from history at the next refresh."""
        self._memory.mark_all_stale()

    def history(self, note_ids: Sequence[str]) -> list[SessionRecords]:
        """The sessions practised on these notes, and only those, each with the learner's
        corrections of its verdicts (issue 36)."""
        return self._reader.records_for(self._memory.session_ids_for_notes(note_ids))

    def judged_history(self) -> list[SessionRecords]:
        """Every session, each with the learner's corrections of its verdicts: what the
        judge–learner agreement is counted over (issue 36)."""
        return self._reader.records_for(self._reader.session_ids())

    def correct(
        self, attempt_id: str, key_point: int, status: KeyPointStatus, note: str = ""
    ) -> Corrected:
        """The learner's word on key point `key_point` (0-based) of the verdict that counts
        for answer `attempt_id`: recorded, bound to that verdict; the note is replayed with
        it. Giving the judge's own word back takes an earlier correction back."""
        records, verdict = self._correctable(attempt_id)
        count = len(verdict.assertions)
        if not 0 <= key_point < count:
            raise CorrectionRefused(
                f"This answer was judged on {count} key point{'s' if count != 1 else ''};"
                f" give a number from 1 to {count}."
            )
        note_id = records.session.note_id
        earlier = [
            c.created_at
            for c in records.corrections
            if c.verdict_id == verdict.id and c.assertion == key_point
        ]
        at = later_than(self._clock.now(), max(earlier, key=utc, default=None))
        correction = learner_correction(
            note_id=note_id,
            session_id=records.session.id,
            attempt_id=attempt_id,
            verdict_id=verdict.id,
            assertion=key_point,
            status=status,
            note=" ".join(note.split()),
            at=at,
        )
        self._memory.record_correction(correction)
        return Corrected(
            correction, verdict.assertions[key_point], judge_status(verdict, key_point)
        )

    def answer_words(self, attempt_id: str) -> AnswerWords:
        """A judged answer's key points with the judge's word and the learner's on each:
        what correcting one shows (CorrectionRefused says why it cannot be corrected)."""
        records, verdict = self._correctable(attempt_id)
        return answer_words(attempt_id, verdict, records.corrections)

    def _correctable(self, attempt_id: str) -> tuple[SessionRecords, VerdictRecord]:
        """The session and the verdict that counts for answer `attempt_id`, if it judged
        each key point."""
        session_id = self._memory.session_of_attempt(attempt_id)
        found = self._reader.records_for([session_id]) if session_id is not None else []
        if not found:
            raise CorrectionRefused(
                f"No answer has the id {attempt_id!r}. Copy it from `coach practice --json`"
                " or `coach gaps --json`."
            )
        records = found[0]
        state = next(s for s in attempt_states(records) if s.attempt.id == attempt_id)
        verdict = state.verdict
        if verdict is None:
            raise CorrectionRefused(
                "This answer has not been judged yet, so there is no verdict to correct."
                " Judge it first (`coach judge-pending`), or rate it yourself in the window."
            )
        if not correctable(verdict):
            raise CorrectionRefused(
                "The judge did not judge this answer key point by key point (your key points"
                " were not sent with it), so there is no word on one to correct."
            )
        return records, verdict

    def undone(self, note_ids: Sequence[str]) -> frozenset[str]:
        """The sessions of these notes whose review the learner undid (ADR 0026)."""
        return undone_sessions(self._memory.review_changes(note_ids))

    def _replay(self, note_ids: Sequence[str]) -> tuple[list[MemoryState], list[ReviewRow]]:
        records = self.history(note_ids)
        self_ratings = self._memory.self_ratings(note_ids)
        undone = self.undone(note_ids)
        imported = self._memory.imported_reviews(note_ids)
        states: list[MemoryState] = []
        rows: list[ReviewRow] = []
        for note_id in note_ids:
            found, reviewed = note_memory(
                note_id,
                records,
                self_ratings,
                self.fsrs,
                undone,
                self.settings.day_offset,
                imported,
            )
            states += found
            rows += reviewed
        return states, rows

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

    # --- the learner's controls (ADR 0026) ----------------------------------------------------
    def last_review(self) -> UndoneReview | None:
        """The latest session review that counts (what Undo would take back)."""
        self.refresh()
        counted = [r for r in self._memory.reviews(since="") if not r.undone]
        if not counted:
            return None
        last = max(counted, key=lambda r: (r.at, r.session_id))
        return UndoneReview(last.note_id, last.session_id, last.at, "undo")

    def undo_last_review(self, expected_session: str | None = None) -> UndoneReview | None:
        """Take back the latest review: its session's ratings stop counting (the records
        stay); the note is replayed. None when there is nothing to undo, or when the latest
        review is no longer `expected_session`'s (what the learner was shown)."""
        last = self.last_review()
        if last is None or expected_session not in (None, last.session_id):
            return None
        at = later_than(self._clock.now(), self._latest_change(last.note_id, last.session_id))
        change = review_change(last.note_id, last.session_id, "undo", at)
        self._memory.record_review_change(change)
        return last

    def _latest_change(self, note_id: str, session_id: str) -> str | None:
        times = [
            c.created_at
            for c in self._memory.review_changes([note_id])
            if c.session_id == session_id
        ]
        return max(times, key=utc, default=None)

    def last_undone(self) -> UndoneReview | None:
        """What Redo would count again: the review undone most recently and not redone
        since (`at`: when that review was made)."""
        changes = self._memory.review_changes()
        undone = undone_sessions(changes)
        latest = [c for c in changes if c.action == "undo" and c.session_id in undone]
        if not latest:
            return None
        change = latest[-1]
        made = [
            r.at
            for r in self._memory.reviews(note_id=change.note_id)
            if r.session_id == change.session_id
        ]
        return UndoneReview(
            change.note_id, change.session_id, max(made, default=change.created_at), "redo"
        )

    def redo_last_undo(self, expected_session: str | None = None) -> UndoneReview | None:
        """Count again the review undone most recently (and not redone since); None when
        there is none, or it is no longer `expected_session`'s."""
        self.refresh()
        found = self.last_undone()
        if found is None or expected_session not in (None, found.session_id):
            return None
        at = later_than(self._clock.now(), self._latest_change(found.note_id, found.session_id))
        redo = review_change(found.note_id, found.session_id, "redo", at)
        self._memory.record_review_change(redo)
        return found

    def hold(
        self,
        note: Note,
        action: HoldAction,
        *,
        assertion: str | None = None,
        utc_offset: timedelta = timedelta(0),
    ) -> ScheduleHold:
        """Suspend (until resumed), bury (until the learner's next day) or resume a note
        or one of its assertions."""  # fmt: skip
        now = self._clock.now()
        digest_ = assertion_digest(assertion) if assertion is not None else None
        same = [
            h.created_at
            for h in self._memory.holds()
            if (h.note_id, h.digest) == (note.id, digest_)
        ]
        at = later_than(now, max(same, key=utc, default=None))
        until = None
        if action == "bury":
            local = utc(now) + utc_offset
            midnight = local.replace(hour=0, minute=0, second=0, microsecond=0)
            until = stamp(midnight + timedelta(days=1) - utc_offset)
        record = schedule_hold(note.id, action, at, until=until, text=assertion, digest=digest_)
        self._memory.record_hold(record)
        return record

    def holds(self) -> Holds:
        return Holds(self._memory.holds(), self._clock.now())

    def apply_parameters(
        self, parameters: Sequence[float] | None, fit: FitSummary | None
    ) -> AppliedParameters:
        """The learner said yes: schedule with these parameters from now on (None: the
        package's defaults again). Every memory is replayed with them at the next read."""
        latest = self._memory.parameters()
        at = later_than(self._clock.now(), latest.applied_at if latest is not None else None)
        applied = applied_parameters(parameters, fit, at)
        self._memory.record_parameters(applied)
        self.applied = applied
        self.fsrs = fsrs_scheduler(self.settings.desired_retention, parameters)
        self.__dict__.pop("fingerprint", None)
        self.__dict__.pop("_schedule_fields", None)
        return applied

    def review_histories(self) -> list[list[ReviewRow]]:
        """Each assertion's counted reviews in time order (the optimizer's input)."""
        self.refresh()
        by_assertion: dict[tuple[str, str], list[ReviewRow]] = {}
        for row in self._memory.reviews(since=""):
            if not row.undone:
                by_assertion.setdefault((row.note_id, row.digest), []).append(row)
        return list(by_assertion.values())

    # --- today --------------------------------------------------------------------------------
    def _learners_day(self, now: str, utc_offset: timedelta) -> _Day:
        local = utc(now) + utc_offset
        day0 = local.replace(hour=0, minute=0, second=0, microsecond=0) - utc_offset
        return _Day(
            start=stamp(day0),
            bounds=[stamp(day0 + timedelta(days=n)) for n in range(1, FORECAST_DAYS + 1)],
            dates=[
                ((day0 + utc_offset) + timedelta(days=n)).date().isoformat()
                for n in range(FORECAST_DAYS)
            ],
        )

    def _forecast(
        self, day: _Day, current: _CurrentIndex, holds: Holds, today: int
    ) -> list[tuple[str, int]]:
        counts = [0] * FORECAST_DAYS
        counts[0] = today
        for note_id, digest_, text, when in self._memory.due_between(day.bounds[0], day.bounds[-1]):
            if holds and holds.holds(note_id, digest_):
                continue
            if current(note_id, text, digest_) is not None:
                counts[bisect.bisect_right(day.bounds, when)] += 1
        return list(zip(day.dates, counts, strict=True))

    def today(
        self,
        notes: NoteLookup,
        *,
        utc_offset: timedelta = timedelta(0),
        refresh: bool = True,
        catalogue: Sequence[NoteEntry] | None = None,
    ) -> Today:
        """The notes with assertions due by the end of the learner's day, and every open
        gap (open gaps first, then the most overdue), less what the learner held back;
        how many fall due on each of the next 14 days (an open gap counts today only);
        and, given the `catalogue` of notes, the new notes under today's limit."""
        if refresh:
            self.refresh()
        now_text = self._clock.now()
        day = self._learners_day(now_text, utc_offset)
        tomorrow = day.bounds[0]
        current = _CurrentIndex(notes)
        holds = Holds(self._memory.holds(), now_text)
        leech_at = self.settings.leech_lapses
        due: dict[str, list[DueAssertion]] = {}
        # Due by FSRS before tomorrow, and every open gap whenever FSRS would have it
        # (ADR 0023): the two queries never return the same row.
        gaps_later = self._memory.open_gaps_due_from(tomorrow)
        for state in [*self._memory.due_before(tomorrow), *gaps_later]:
            if holds and holds.holds(state.note_id, state.digest):
                continue
            index = current(state.note_id, state.text, state.digest)
            if index is not None:
                due.setdefault(state.note_id, []).append(
                    DueAssertion(index, state, state.due < day.start, state.due >= tomorrow,
                                 leech=state.lapses >= leech_at)
                )  # fmt: skip
        forecast = self._forecast(day, current, holds, sum(len(f) for f in due.values()))
        due_notes = []
        for note_id, found in due.items():
            note = current.note(note_id)
            assert note is not None
            found.sort(key=_priority)
            due_notes.append(DueNote(note, tuple(found)))
        due_notes.sort(key=DueNote.sort_key)
        new = None
        if catalogue is not None:
            new = self._new_notes(catalogue, holds, now_text, day.start, day.dates[0])
        held = tuple(h for h in holds if current.note(h.note_id) is not None)
        return Today(now_text, due_notes, forecast, new, held)

    def due_summary(
        self,
        notes: NoteLookup,
        *,
        utc_offset: timedelta = timedelta(0),
        catalogue: Sequence[NoteEntry] | None = None,
    ) -> DueSummary:
        """Today's figures without Today's lists (the statistics view's counts): the same
        rules over plain rows, so a backlog of thousands is counted, not built."""
        self.refresh()
        now_text = self._clock.now()
        day = self._learners_day(now_text, utc_offset)
        current = _CurrentIndex(notes)
        holds = Holds(self._memory.holds(), now_text)
        held_notes = {h.note_id for h in holds}
        due = overdue = gaps = 0
        for note_id, joined, count, early, open_ in self._memory.due_by_note(
            day.bounds[0], day.start
        ):
            note = current.note(note_id)
            if note is None or note_id in holds.notes:
                continue
            texts = joined.split("\x1f")
            if (
                note_id not in held_notes
                and len(texts) == count
                and all(text in note.core_assertions for text in texts)
            ):  # the common case: every row is a key point of the note as it is now
                due, overdue, gaps = due + count, overdue + early, gaps + open_
                continue
            for _, digest_, text, when, gap in self._memory.due_rows(day.bounds[0], note_id):
                if holds.holds(note_id, digest_) or current(note_id, text, digest_) is None:
                    continue
                due += 1
                overdue += when < day.start
                gaps += gap is not None
        new = None
        if catalogue is not None:
            new = self._new_notes(catalogue, holds, now_text, day.start, day.dates[0])
        held = tuple(h for h in holds if current.note(h.note_id) is not None)
        forecast = self._forecast(day, current, holds, due)
        return DueSummary(now_text, due, overdue, gaps, forecast, new, held)

    def _new_notes(
        self, catalogue: Sequence[NoteEntry], holds: Holds, now: str, start: str, day: str
    ) -> NewNotes:
        reviewed = self._memory.reviewed_notes()
        fresh = [
            e for e in catalogue
            if e.note.core_assertions and e.note.id not in reviewed
            and not holds.holds(e.note.id)
        ]  # fmt: skip
        seen = self._memory.first_seen([e.note.id for e in fresh], now)
        begun = self._memory.notes_begun_since(start)
        allowance = new_allowance(self.settings.new_per_day, begun)
        candidates = [NewCandidate(e.note.id, e.file_name, seen[e.note.id]) for e in fresh]
        ranked = order_new(candidates, self.settings.new_order, day)
        by_id = {e.note.id: e.note for e in fresh}
        offered = [NewNote(by_id[note_id], n + 1) for n, note_id in enumerate(ranked[:allowance])]
        return NewNotes(offered, self.settings.new_per_day, self.settings.new_order, begun,
                        len(fresh))  # fmt: skip

    def plan(self, due_note: DueNote) -> GapPlan:
        """The decision to practise a due note: challenges target its due assertions, and
        the decision (with the schedule's settings) and the open gap ids are sealed with
        the session (DESIGN §6)."""
        return plan_due_practice(
            due_note.note,
            [a.index for a in due_note.assertions],
            [a.memory for a in due_note.assertions],
            self._clock.now(),
            self.schedule_fields(),
        )

    def plan_new(self, new: NewNote, rule: NewNotes) -> GapPlan:
        """The decision to begin a new note, with the limit and order that chose it."""
        schedule = {
            **self.schedule_fields(),
            "new_limit": rule.limit,
            "new_order": rule.order,
            "new_begun_today": rule.begun_today,
        }
        return plan_new_practice(new.note, self._clock.now(), schedule, rank=new.rank)

    def plans(self, today: Today) -> list[tuple[Note, GapPlan]]:
        """Every due note in the order to practise it, then today's new notes, with plans."""
        return [(note, decide()) for note, decide in self.deciders(today)]

    def deciders(self, today: Today) -> list[tuple[Note, Callable[[], GapPlan]]]:
        """`plans`, each decision made only when called (at the moment the learner starts
        that note, which is then its `decided_at`)."""
        found: list[tuple[Note, Callable[[], GapPlan]]] = [
            (n.note, functools.partial(self.plan, n)) for n in today.notes
        ]
        if today.new is not None:
            rule = today.new
            found += [(n.note, functools.partial(self.plan_new, n, rule)) for n in rule.notes]
        return found
