"""What the assertion scheduler needs from the journal (ADR 0008).

One real adapter (`adapters.journal.memory.SqliteMemoryJournal`) and one in-RAM fake
(tests/fakes/in_ram_schedule.py) implement it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from coach_gui.domain.corrections import LearnerCorrection
from coach_gui.domain.imported_reviews import ImportedReview
from coach_gui.domain.memory import MemoryState, ReviewRow, SelfRating
from coach_gui.domain.schedule_control import AppliedParameters, ReviewChange, ScheduleHold

# Given note ids, their assertions' memory replayed from history, and every review.
Replay = Callable[[Sequence[str]], tuple[list[MemoryState], list[ReviewRow]]]


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

    # --- the learner's decisions (history, ADR 0026) -----------------------------------------
    def record_review_change(self, change: ReviewChange) -> None:
        """Store an undo or redo of a session's review (its note goes stale)."""
        ...

    def review_changes(self, note_ids: Sequence[str] | None = None) -> list[ReviewChange]:
        """Every undo and redo (of these notes' sessions), oldest first."""
        ...

    def record_correction(self, correction: LearnerCorrection) -> None:
        """Store the learner's correction of a verdict's key point (its note goes stale)."""
        ...

    def record_imported_reviews(self, records: Sequence[ImportedReview]) -> int:
        """Store review histories imported from Anki (their notes go stale); how many
        were new."""
        ...

    def imported_reviews(self, note_ids: Sequence[str] | None = None) -> list[ImportedReview]:
        """Every imported review history (of these notes)."""
        ...

    def session_of_attempt(self, attempt_id: str) -> str | None:
        """The session an answer was given in, or None when there is no such answer."""
        ...

    def record_hold(self, hold: ScheduleHold) -> None: ...

    def holds(self) -> list[ScheduleHold]:
        """Every hold record ever made, oldest first (`Holds` says which are in force)."""
        ...

    def record_parameters(self, applied: AppliedParameters) -> None: ...

    def parameters(self) -> AppliedParameters | None:
        """The FSRS parameters applied last (None: never; the package's defaults)."""
        ...

    def first_seen(self, note_ids: Sequence[str], now: str) -> dict[str, str]:
        """When Coach first listed each of these notes; the unseen are recorded at `now`."""
        ...

    # --- the derived review rows --------------------------------------------------------------
    def notes_begun_since(self, start: str) -> int:
        """How many notes were first reviewed at `start` or later (new notes begun)."""
        ...

    def reviewed_notes(self) -> set[str]:
        """The notes with at least one assertion in the cache: never new."""
        ...

    def reviews(
        self, *, note_id: str | None = None, digest: str | None = None, since: str = ""
    ) -> list[ReviewRow]:
        """Review rows (undone ones too) in time order, all or of one note or assertion."""
        ...

    def review_minutes(self, since: str) -> list[tuple[str, int, int, int]]:
        """Counted reviews from `since` on, by UTC minute ('YYYY-MM-DDTHH:MM'): how many,
        how many were made when due, and how many of those were recalled (rated above
        Again). Minutes, so any UTC offset bins them into the learner's own days."""
        ...

    def due_rows(
        self, until: str, note_id: str | None = None
    ) -> list[tuple[str, str, str, str, str | None]]:
        """(note id, digest, text, due, gap) of every cached state (of one note) due
        before `until` and of every open gap (always due): what Today lists."""
        ...

    def due_by_note(self, until: str, start: str) -> list[tuple[str, str, int, int, int]]:
        """Per note, what `due_rows` holds of it counted: (note id, the texts joined by
        U+001F, how many, how many due before `start`, how many with an open gap)."""
        ...

    def review_count(self) -> int:
        """Counted reviews in all (not undone)."""
        ...

    def assertion_count(self) -> int:
        """Assertions with a memory."""
        ...

    def leeches(self, lapses: int) -> list[MemoryState]:
        """Cached states forgotten at least `lapses` times."""
        ...
