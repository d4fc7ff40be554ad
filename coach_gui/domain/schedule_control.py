"""What the learner decides about their schedule (issue 19, ADR 0026): undoing a review,
holding a note or one assertion back (suspend, bury), and bringing new notes in.

Every decision is a record appended to the history, never an edit of one: an undone
review stays in the journal (its session, verdict and rating are sealed) and only stops
counting; a resumed note keeps the record that it was suspended. The latest record about
a thing decides, so replaying the history always gives the same schedule.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import Field

from coach_gui.domain.changes import SCHEDULE_CHANGED, Changes
from coach_gui.domain.digests import content_id
from coach_gui.domain.records import Record

ReviewAction = Literal["undo", "redo"]
HoldAction = Literal["suspend", "bury", "resume"]
NewOrder = Literal["oldest", "newest", "file", "random"]
NEW_ORDERS: tuple[NewOrder, ...] = ("oldest", "newest", "file", "random")
NEW_ORDER_WORDS: dict[NewOrder, str] = {
    "oldest": "Oldest first (in the order Coach first found them)",
    "newest": "Newest first",
    "file": "By folder and file name (a book's chapters in order)",
    "random": "Shuffled (a new order each day)",
}


class ReviewChange(Record):
    """The learner undid (or redid) the review a session made of its note's assertions."""

    id: str
    note_id: str = Field(min_length=1)
    session_id: str = Field(min_length=1)
    action: ReviewAction
    created_at: str


def review_change(note_id: str, session_id: str, action: ReviewAction, at: str) -> ReviewChange:
    fields = {"note_id": note_id, "session_id": session_id, "action": action, "created_at": at}
    return ReviewChange(
        id=content_id("review_change", fields), note_id=note_id, session_id=session_id,
        action=action, created_at=at,
    )  # fmt: skip


def undone_sessions(changes: Iterable[ReviewChange]) -> frozenset[str]:
    """The sessions whose review does not count now: the latest change of each says."""
    latest: dict[str, ReviewChange] = {}
    for change in sorted(changes, key=lambda c: (c.created_at, c.id)):
        latest[change.session_id] = change
    return frozenset(s for s, c in latest.items() if c.action == "undo")


class ScheduleHold(Record):
    """The learner held a note (`digest` None) or one of its assertions back from Today:
    suspended until resumed, or buried until `until` (the start of their next day)."""

    id: str
    note_id: str = Field(min_length=1)
    digest: str | None = None
    text: str | None = None  # the assertion as it read when held, for the learner
    action: HoldAction
    until: str | None = None
    created_at: str

    @property
    def changes(self) -> Changes:
        return SCHEDULE_CHANGED  # what Today and Statistics count


def schedule_hold(
    note_id: str,
    action: HoldAction,
    at: str,
    *,
    digest: str | None = None,
    text: str | None = None,
    until: str | None = None,
) -> ScheduleHold:
    fields = {
        "note_id": note_id, "digest": digest, "text": text, "action": action,
        "until": until, "created_at": at,
    }  # fmt: skip
    return ScheduleHold(
        id=content_id("schedule_hold", fields), note_id=note_id, digest=digest, text=text,
        action=action, until=until, created_at=at,
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Hold:
    """A hold in force now."""

    note_id: str
    digest: str | None  # None: the whole note
    text: str | None
    suspended: bool  # else buried
    until: str | None  # a burial's end
    since: str


class Holds:
    """The holds in force at one moment: the latest record per note and per assertion."""

    def __init__(self, records: Iterable[ScheduleHold], now: str) -> None:
        latest: dict[tuple[str, str | None], ScheduleHold] = {}
        for record in sorted(records, key=lambda r: (r.created_at, r.id)):
            latest[(record.note_id, record.digest)] = record
        self._held: dict[tuple[str, str | None], Hold] = {}
        moment = datetime.fromisoformat(now)  # times compared as times, not as texts
        for key, record in latest.items():
            if record.action == "resume":
                continue
            if record.action == "bury" and (
                record.until is None or datetime.fromisoformat(record.until) <= moment
            ):
                continue
            self._held[key] = Hold(
                note_id=record.note_id,
                digest=record.digest,
                text=record.text,
                suspended=record.action == "suspend",
                until=record.until if record.action == "bury" else None,
                since=record.created_at,
            )
        self.notes = frozenset(n for n, d in self._held if d is None)

    def holds(self, note_id: str, digest: str | None = None) -> Hold | None:
        """The hold on the note itself, else (given a digest) on that assertion."""
        return self._held.get((note_id, None)) or (
            self._held.get((note_id, digest)) if digest is not None else None
        )

    def __iter__(self) -> Iterator[Hold]:
        return iter(self._held.values())

    def __len__(self) -> int:
        return len(self._held)

    def __bool__(self) -> bool:
        return bool(self._held)


@dataclass(frozen=True, slots=True)
class NewCandidate:
    """A note with core assertions that was never practised."""

    note_id: str
    path: str  # its file in the knowledge base: the "file" order
    first_seen: str  # when Coach first listed it: the "oldest"/"newest" order


def order_new(candidates: Sequence[NewCandidate], order: NewOrder, day: str) -> list[str]:
    """The new notes' ids in the order the learner picked. "random" shuffles with the
    learner's date as the seed: the same order all day, another tomorrow."""
    by_file = sorted(candidates, key=lambda c: (c.path.casefold(), c.path, c.note_id))
    if order == "file":
        ranked = by_file
    elif order == "random":
        ranked = list(by_file)
        random.Random(f"coach new notes {day}").shuffle(ranked)
    else:  # oldest/newest: ties (all found together) keep the file order
        ranked = sorted(by_file, key=lambda c: c.first_seen, reverse=order == "newest")
    return [c.note_id for c in ranked]


def new_allowance(limit: int, introduced_today: int) -> int:
    """How many more new notes Today offers: the daily limit less those begun today."""
    return max(limit - introduced_today, 0)


class FitSummary(Record):
    """How well a set of FSRS parameters predicts the learner's own reviews: log-loss and
    RMSE (binned) of the predicted recall, before (the parameters in use) and after (the
    fitted ones), over `reviews` reviews of `assertions` assertions."""

    reviews: int = Field(ge=0)
    assertions: int = Field(ge=0)
    log_loss_before: float
    log_loss_after: float
    rmse_before: float
    rmse_after: float


class AppliedParameters(Record):
    """FSRS parameters the learner applied (after seeing their fit), or set back to the
    defaults (`fit` None). The latest applied are in force; the scheduler decision of
    every session says which."""

    id: str
    parameters: tuple[float, ...] | None  # None: the `fsrs` package's defaults
    fit: FitSummary | None = None
    applied_at: str

    @property
    def changes(self) -> Changes:
        return SCHEDULE_CHANGED  # every key point's next review is worked out again


def applied_parameters(
    parameters: Sequence[float] | None, fit: FitSummary | None, at: str
) -> AppliedParameters:
    values = None if parameters is None else tuple(float(p) for p in parameters)
    fields = {
        "parameters": None if values is None else list(values),
        "fit": None if fit is None else fit.model_dump(),
        "applied_at": at,
    }
    return AppliedParameters(id=content_id("fsrs_parameters", fields), parameters=values,
                             fit=fit, applied_at=at)  # fmt: skip
