"""Export the knowledge base (issue 37, DESIGN §3 "Anki in and out"): every key point a
card, as an Anki package that keeps the tags and the review history, so FSRS in Anki
continues where Coach left it, or as a CSV file for everything else. For the window and
the terminal alike; no Qt. The window runs it on a worker with a progress dialog:

    result = cases.exports.anki(Path("deck.apkg"), progress=on_progress, cancelled=stop.is_set)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from coach_gui.domain.anki_cards import KeyPointCard, key_point_cards
from coach_gui.domain.memory import MemoryState, ReviewRow
from coach_gui.operations.app import HasNotes, HasScheduler
from coach_gui.services.ports.exports import Cancelled, CardFileWriter, CardProgress

ExportFormat = Literal["anki", "csv"]
_END_OF_TIME = "9999-12-31"  # every memory row is due before it


class ExportPorts(HasNotes, HasScheduler, Protocol):
    """The notes, their memory in the journal, and a writer of card files."""

    def card_files(self) -> CardFileWriter: ...


@dataclass(frozen=True)
class ExportResult:
    """What was written: where, how many notes gave cards, how many cards (one per key
    point), how many reviews went with them (0 for CSV, which holds no history), and how
    many notes were left out because they have no key points."""

    path: Path
    format: ExportFormat
    notes: int
    cards: int
    reviews: int
    notes_without_key_points: int

    def to_json(self) -> dict[str, object]:
        return {
            "path": str(self.path), "format": self.format, "notes": self.notes,
            "cards": self.cards, "reviews": self.reviews,
            "notes_without_key_points": self.notes_without_key_points,
        }  # fmt: skip


def _never() -> bool:
    return False


def _quiet(done: int, total: int) -> None:
    return None


def export_cards(ports: ExportPorts) -> tuple[list[KeyPointCard], int]:
    """Every key point of the notes folder as a card with its memory and reviews, brought
    up to date first; and how many notes have no key point."""
    scheduler = ports.scheduler()
    scheduler.refresh()
    memory = scheduler.memory
    states: dict[tuple[str, str], MemoryState] = {
        (s.note_id, s.digest): s for s in memory.due_before(_END_OF_TIME)
    }
    reviews: dict[tuple[str, str], list[ReviewRow]] = {}
    for row in memory.reviews(since=""):
        if not row.undone:
            reviews.setdefault((row.note_id, row.digest), []).append(row)
    holds = scheduler.holds()

    def suspended(note_id: str, digest: str) -> bool:
        hold = holds.holds(note_id, digest)
        return hold is not None and hold.suspended  # a bury lasts a day: not carried

    entries = sorted(ports.notes.load().notes, key=lambda e: e.file_name)
    cards = key_point_cards(entries, states, reviews, suspended)
    return cards, sum(1 for e in entries if not e.note.core_assertions)


def export(
    ports: ExportPorts,
    path: Path,
    format: ExportFormat,
    *,
    progress: CardProgress = _quiet,
    cancelled: Cancelled = _never,
) -> ExportResult:
    """Write the knowledge base's key points to `path`. `progress(done, total)` is called
    every few hundred cards; `cancelled()` is asked as often, and once it says True the
    export stops with ExportCancelled and leaves no file. ExportFailed says why a file
    could not be written."""
    cards, without = export_cards(ports)
    writer = ports.card_files()
    reviews = 0
    if format == "anki":
        reviews = writer.write_anki(path, cards, progress=progress, cancelled=cancelled)
    else:
        writer.write_csv(path, cards, progress=progress, cancelled=cancelled)
    return ExportResult(
        path=path, format=format, notes=len({c.note_id for c in cards}), cards=len(cards),
        reviews=reviews, notes_without_key_points=without,
    )  # fmt: skip


class Exports:
    """The use case of File › Export…: the knowledge base as an Anki package or CSV.
    Slow on a large knowledge base (seconds for 20,000 key points): run it on a worker."""

    def __init__(self, ports: ExportPorts) -> None:
        self._ports = ports

    def anki(
        self,
        path: Path,
        *,
        progress: Callable[[int, int], None] = _quiet,
        cancelled: Callable[[], bool] = _never,
    ) -> ExportResult:
        """An Anki package (.apkg) of every key point, with tags and review history."""
        return export(self._ports, path, "anki", progress=progress, cancelled=cancelled)

    def csv(
        self,
        path: Path,
        *,
        progress: Callable[[int, int], None] = _quiet,
        cancelled: Callable[[], bool] = _never,
    ) -> ExportResult:
        """A CSV file, one row per key point (UTF-8 with a byte order mark)."""
        return export(self._ports, path, "csv", progress=progress, cancelled=cancelled)
