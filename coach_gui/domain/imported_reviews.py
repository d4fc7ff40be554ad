"""An Anki card's review history, imported as its key point's (issue 37, ADR 0038).

Each card becomes one `ImportedReview` per key point it covers: the review log (Anki's
buttons are FSRS's ratings, 1 again … 4 easy) and the card's state as Anki left it — when
it is due, and FSRS's memory (stability, difficulty) from the card, or an estimate from
SM-2's interval and ease when Anki did not use FSRS. Replaying the log with Coach's FSRS
alone would not give Anki's due date (Anki may have used SM-2, other parameters, fuzz),
so the replay takes the log for the review rows and then starts from this anchor: a key
point reviewed last week with a 40-day interval is not due tomorrow.

The record is sealed like the learner's schedule decisions: its id is its content's, it is
logged as it is stored, `coach verify` recomputes it and sync carries it. It says it was
imported (`source`) and from which card.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from coach_gui.domain.anki_package import PackageCard, PackageReview
from coach_gui.domain.digests import content_id
from coach_gui.domain.records import Record

ImportSource = Literal["anki", "csv"]
NEW, LEARNING, REVIEW, RELEARNING = 0, 1, 2, 3
MANUAL, RESCHEDULED, FILTERED = 4, 5, 3


def _moment(value: str) -> str:
    """An ISO-8601 time with its offset (what the replay reads): anything else, from a
    forged synced record say, is refused before it is stored."""
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError("not an ISO-8601 time") from None
    if when.tzinfo is None:
        raise ValueError("an ISO-8601 time without its offset")
    return value


Moment = Annotated[str, AfterValidator(_moment)]
Rating = Annotated[int, Field(ge=1, le=4)]


class ImportedReview(Record):
    """One key point's history from one Anki card."""

    id: str
    note_id: str = Field(min_length=1)
    digest: str = Field(min_length=64, max_length=64)
    text: str = Field(min_length=1)
    source: ImportSource
    card: str = Field(min_length=1)  # the card's id in the package
    reviews: tuple[tuple[Moment, Rating], ...] = Field(min_length=1)  # (when, 1 again…4 easy)
    due: Moment  # ISO-8601 UTC, as Anki had it
    stability: float = Field(gt=0, allow_inf_nan=False)
    difficulty: float = Field(ge=1, le=10, allow_inf_nan=False)
    imported_at: Moment


def imported_review_fields(record: ImportedReview) -> dict[str, object]:
    """The fields its id is the content id of."""
    fields = record.model_dump(exclude={"id"})
    fields["reviews"] = [list(r) for r in record.reviews]
    return fields


def imported_review(
    *,
    note_id: str,
    digest: str,
    text: str,
    source: ImportSource,
    card: str,
    reviews: Sequence[tuple[str, int]],
    due: str,
    stability: float,
    difficulty: float,
    imported_at: str,
) -> ImportedReview:
    draft = ImportedReview(
        id="",
        note_id=note_id,
        digest=digest,
        text=text,
        source=source,
        card=card,
        reviews=tuple(reviews),
        due=due,
        stability=stability,
        difficulty=difficulty,
        imported_at=imported_at,
    )
    return draft.model_copy(
        update={"id": content_id("imported_review", imported_review_fields(draft))}
    )


def stamp_ms(at_ms: int) -> str:
    return datetime.fromtimestamp(at_ms / 1000, UTC).isoformat(timespec="microseconds")


class CardHistory:
    """What one card brings: its counted reviews, its anchor, and what was left out."""

    __slots__ = ("card", "difficulty", "due", "left_out", "reviews", "stability")

    def __init__(self, card: PackageCard, log: Sequence[PackageReview], created: int) -> None:
        self.card = card
        counted = [r for r in log if r.kind not in (MANUAL, RESCHEDULED, FILTERED)]
        counted = [r for r in counted if 1 <= r.ease <= 4]
        self.left_out = len(log) - len(counted)
        counted.sort(key=lambda r: r.at_ms)
        self.reviews = tuple((stamp_ms(r.at_ms), r.ease) for r in counted)
        self.due = _due(card, created, counted)
        stability, difficulty = _memory(card)
        self.stability = stability
        self.difficulty = difficulty

    @property
    def usable(self) -> bool:
        """A card Anki has scheduled, with at least one counted review."""
        return bool(self.reviews) and self.card.type != NEW and self.due is not None

    @property
    def last_review_ms(self) -> str:
        return self.reviews[-1][0] if self.reviews else ""


def _due(card: PackageCard, created: int, counted: Sequence[PackageReview]) -> str | None:
    """When Anki had the card due, as a UTC time: a review card's day number counts from
    the collection's creation (its day start, at Anki's rollover hour); a learning card's
    due is a time in seconds."""
    if card.type == NEW:
        return None
    if card.queue in (1, 4) or card.due > 1_000_000_000:  # (re)learning: seconds
        moment = datetime.fromtimestamp(card.due, UTC)
    else:
        moment = datetime.fromtimestamp(created, UTC) + timedelta(days=card.due)
    return moment.isoformat(timespec="microseconds")


def _memory(card: PackageCard) -> tuple[float, float]:
    """FSRS's stability and difficulty as Anki kept them, or estimated from SM-2: at 90%
    retention FSRS's interval is its stability, and SM-2's ease (130%–350%) runs the other
    way from FSRS's difficulty (1–10)."""
    if card.memory is not None:
        return max(card.memory.stability, 0.01), min(10.0, max(1.0, card.memory.difficulty))
    stability = float(card.interval) if card.interval > 0 else 1.0
    if card.factor <= 0:
        return stability, 5.0
    difficulty = 9.0 - (card.factor - 1300) * 6.0 / 2200.0
    return stability, min(10.0, max(1.0, difficulty))
