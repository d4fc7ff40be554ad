"""The knowledge base as flash cards (issue 37, ADR 0039): one card per key point, for an
Anki package or a CSV file.

A card's front names the note and which key point — never the key point's words, which
are its back. Each card is known to Anki by a GUID made from the note's id and the key
point's digest, so a second export imported into the same collection updates its cards
instead of adding them again. Its deck is Coach's, with a subdeck per folder of the
knowledge base; its tags are the note's, written as Anki can keep them. Pure: the caller
reads the notes and the journal, and writes the file.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from coach_gui.domain.errors import CoachError
from coach_gui.domain.memory import MemoryState, ReviewRow, assertion_digest
from coach_gui.domain.notes import NoteEntry

ROOT_DECK = "Coach"
_SPACES = re.compile(r"\s+")


class ExportFailed(CoachError):
    """The export file could not be written; the message says where and what to do."""


class ExportCancelled(CoachError):
    """The learner stopped the export; nothing was written."""

    def __init__(self) -> None:
        super().__init__("The export was stopped; no file was written.")


@dataclass(frozen=True, slots=True)
class CardReview:
    """One counted review of a key point: when, and how well it was recalled (1..4)."""

    at: str  # ISO-8601 UTC
    rating: int


@dataclass(frozen=True, slots=True)
class KeyPointCard:
    """One key point of one note, ready to be written as a card. A plain dataclass: an
    export of 20,000 cards builds these by the thousand."""

    guid: str
    note_id: str
    title: str
    file_name: str  # relative to the knowledge base, '/'-separated
    number: int  # 1-based place among the note's key points
    count: int  # how many key points the note has
    text: str
    source: str
    tags: tuple[str, ...]  # as Anki keeps them (`anki_tag`)
    deck: str
    memory: MemoryState | None  # None: never reviewed (a new card)
    reviews: tuple[CardReview, ...] = ()
    suspended: bool = False  # the learner suspended it (or its note) in Coach

    @property
    def front(self) -> str:
        return card_front(self.title, self.number, self.count)


def which_key_point(number: int, count: int) -> str:
    return f"Key point {number} of {count}"


def card_front(title: str, number: int, count: int) -> str:
    """What the card asks: the note's title and which of its key points, as plain text.
    Never the key point itself: that would give the answer away."""
    return f"{title} — {which_key_point(number, count)}"


def card_guid(note_id: str, digest: str) -> str:
    """Anki's identity of a key point's card: stable across exports while the note keeps
    its id and the key point its words (a changed key point is a new card, as it starts a
    new memory in Coach)."""
    return "coach-" + hashlib.sha256(f"{note_id}\x1f{digest}".encode()).hexdigest()[:24]


def anki_tag(tag: str) -> str:
    """A note's tag as Anki can keep it: no spaces (they separate Anki's tags), Obsidian's
    nested `a/b` as Anki's `a::b`, no leading '#'. Empty when nothing is left."""
    text = _SPACES.sub("_", tag.strip().lstrip("#"))
    parts = [p for p in text.replace("::", "/").split("/") if p]
    return "::".join(parts)


def anki_tags(tags: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t for t in map(anki_tag, tags) if t))


def deck_for(file_name: str) -> str:
    """`Coach`, with a subdeck per folder the note is in: `Coach::Biology::Evolution`."""
    folders = [part.strip() for part in file_name.split("/")[:-1]]
    return "::".join([ROOT_DECK, *(f for f in folders if f)])


def key_point_cards(
    entries: Sequence[NoteEntry],
    memory: Mapping[tuple[str, str], MemoryState],
    reviews: Mapping[tuple[str, str], Sequence[ReviewRow]],
    suspended: Callable[[str, str], bool] = lambda note_id, digest: False,
) -> list[KeyPointCard]:
    """Every key point of every note, in the notes' order: with its memory and counted
    reviews (keyed by note id and assertion digest) where it has them, and whether the
    learner suspended it. A note without key points gives no card; a key point written
    twice in a note is one card."""
    cards: list[KeyPointCard] = []
    for entry in entries:
        note = entry.note
        texts = list(dict.fromkeys(note.core_assertions))
        tags = anki_tags(note.all_tags)
        deck = deck_for(entry.file_name)
        for number, text in enumerate(texts, start=1):
            digest = assertion_digest(text)
            key = (note.id, digest)
            counted = tuple(
                CardReview(r.at, r.rating) for r in reviews.get(key, ()) if not r.undone
            )
            cards.append(
                KeyPointCard(
                    guid=card_guid(note.id, digest), note_id=note.id, title=note.title,
                    file_name=entry.file_name, number=number, count=len(texts), text=text,
                    source=note.source, tags=tags, deck=deck, memory=memory.get(key),
                    reviews=counted, suspended=suspended(note.id, digest),
                )
            )  # fmt: skip
    return cards
