"""The ports services need from the outside world. Each has one real adapter and one
in-memory fake (tests/fakes), and the type checker holds both to this shape."""

from __future__ import annotations

from typing import Protocol

from coach_gui.domain.notes import KnowledgeBaseSnapshot, Note, NoteEntry


class NoteStore(Protocol):
    """The knowledge base: a folder of Markdown concept notes."""

    @property
    def location(self) -> str:
        """Where the notes live, for the learner (a folder path)."""
        ...

    def load(self) -> KnowledgeBaseSnapshot:
        """Read every note; files that do not parse are listed in `broken`."""
        ...

    def save(self, note: Note) -> NoteEntry:
        """Create or update `note` atomically. Saving an unchanged note leaves its file
        byte-identical. Raises NoteError when the file cannot be written, or when the
        note's file is broken on disk (it is never overwritten)."""
        ...

    def delete(self, note_id: str) -> str:
        """Move the note's file to the trash folder; returns where it went."""
        ...


class JournalHealth(Protocol):
    """What `coach doctor` asks of the journal."""

    @property
    def schema_version(self) -> int: ...

    def integrity_check(self) -> list[str]:
        """Problems found (empty when the database is sound)."""
        ...

    def counts(self) -> dict[str, int]:
        """Rows per table."""
        ...
