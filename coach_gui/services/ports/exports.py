"""What an export needs from the outside world: a writer of card files (issue 37, ADR
0039). One real adapter (`adapters.anki_writer.AnkiCardFiles`) implements it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from coach_gui.domain.anki_cards import KeyPointCard

# (cards written, cards in all): called every few hundred cards, and once at the end.
CardProgress = Callable[[int, int], None]
# True once the learner asked to stop: the writer stops soon after and leaves no file.
Cancelled = Callable[[], bool]


class CardFileWriter(Protocol):
    def write_anki(
        self,
        path: Path,
        cards: Sequence[KeyPointCard],
        *,
        progress: CardProgress,
        cancelled: Cancelled,
    ) -> int:
        """Write `cards` as an Anki package at `path`, whole or not at all (an existing
        file is replaced only by a complete one). Returns how many reviews it holds.
        Raises ExportFailed when the file cannot be written, ExportCancelled when
        `cancelled` said so (nothing is left behind either way)."""
        ...

    def write_csv(
        self,
        path: Path,
        cards: Sequence[KeyPointCard],
        *,
        progress: CardProgress,
        cancelled: Cancelled,
    ) -> None:
        """Write one row per card at `path`, whole or not at all, as `write_anki`."""
        ...
