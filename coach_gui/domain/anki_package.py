"""An Anki package as read (issue 37, ADR 0038): the notes, cards, review log, note types,
decks and media names of an `.apkg`/`.colpkg` (or a CSV read as one), in plain frozen
records the import plans from. Nothing here reads a file: `adapters/anki_package.py`
does, and says in a sentence what is wrong with a damaged one (`PackageUnreadable`).

Plain dataclasses, not Records: a large deck has hundreds of thousands of reviews, and
they are made only by our reader from checked columns (as `MemoryState` is).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from coach_gui.domain.errors import CoachError


class PackageUnreadable(CoachError):
    """The file is not an Anki package or CSV Coach can read; the message says why."""


@dataclass(frozen=True, slots=True)
class NoteType:
    id: int
    name: str
    cloze: bool
    fields: tuple[str, ...]
    question_fields: tuple[str, ...]  # named on the first card's question side
    answer_fields: tuple[str, ...]  # named on its answer side only
    image_occlusion: bool = False


@dataclass(frozen=True, slots=True)
class PackageNote:
    id: int
    guid: str
    notetype_id: int
    fields: tuple[str, ...]  # HTML, in the note type's field order
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Memory:
    """FSRS's memory of a card as Anki kept it (cards.data `s` and `d`)."""

    stability: float
    difficulty: float


@dataclass(frozen=True, slots=True)
class PackageCard:
    id: int
    note_id: int
    deck_id: int
    ord: int  # which card of the note: a cloze card's number less one
    type: int  # 0 new, 1 learning, 2 review, 3 relearning
    queue: int  # -1 suspended, -2/-3 buried, else as type
    due: int  # review: a day number from the collection's creation; learning: seconds
    interval: int  # days (negative: seconds, while learning)
    factor: int  # SM-2 ease in permille
    memory: Memory | None = None


@dataclass(frozen=True, slots=True)
class PackageReview:
    """One row of Anki's review log."""

    at_ms: int  # when (milliseconds since the epoch, the row's id)
    card_id: int
    ease: int  # the button: 1 again … 4 easy; 0 a manual change
    interval: int
    kind: int  # 0 learn, 1 review, 2 relearn, 3 filtered, 4 manual, 5 rescheduled


@dataclass(frozen=True)
class Package:
    """What was read from one file."""

    kind: str  # "apkg (current)", "apkg (legacy)", "colpkg", "csv"
    created: int  # the collection's creation (seconds), where day numbers start
    notetypes: dict[int, NoteType]
    decks: dict[int, str]  # id -> "Parent::Child"
    notes: tuple[PackageNote, ...]
    cards: tuple[PackageCard, ...]
    reviews: dict[int, tuple[PackageReview, ...]] = field(default_factory=dict)  # by card
    media: dict[str, str] = field(default_factory=dict)  # name in notes -> member in zip
