"""What the assertion scheduler needs from the journal (ADR 0008).

One real adapter (`adapters.journal.memory.SqliteMemoryJournal`) and one in-RAM fake
(tests/fakes/in_ram_schedule.py) implement it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from coach_gui.domain.memory import MemoryState, SelfRating

# Given note ids, their assertions' memory replayed from history.
Replay = Callable[[Sequence[str]], list[MemoryState]]


class MemoryJournal(Protocol):
    """Self-ratings (history) and the derived cache of each assertion's memory state."""

    def record_self_ratings(self, ratings: Sequence[SelfRating]) -> None:
        """Store the learner's ratings; a new rating of the same attempt and assertion
        replaces the old one."""
        ...

    def self_ratings(self, note_ids: Sequence[str]) -> list[SelfRating]: ...

    def session_ids_for_notes(self, note_ids: Sequence[str]) -> list[str]:
        """Every session practised on these notes, oldest first."""
        ...

    def refresh(self, fingerprint: str, replay: Replay) -> int:
        """Bring the cache up to date: replay each note marked stale (every note, when the
        scheduler's `fingerprint` changed) and store the result. Each batch is replayed
        and stored while no other write can land, so nothing is missed. Returns how many
        notes were replayed."""
        ...

    def mark_all_stale(self) -> None:
        """Make the next `refresh` rebuild the whole cache from history."""
        ...

    def due_before(self, until: str) -> list[MemoryState]:
        """Cached states whose due time is before `until` (ISO-8601 UTC, microseconds)."""
        ...

    def open_gaps_due_from(self, start: str) -> list[MemoryState]:
        """Cached states with an open gap whose due time is `start` or later, in no
        particular order. An open gap is always due (ADR 0023): Today lists these with
        `due_before(start)`."""
        ...

    def due_between(self, start: str, end: str) -> list[tuple[str, str, str, str]]:
        """(note id, assertion digest, assertion text, due) of the cached states without
        an open gap due in [start, end): enough for the forecast (an open gap is due now,
        so it is counted today, never again on its FSRS day)."""
        ...

    def memory_for(self, note_id: str) -> list[MemoryState]: ...
