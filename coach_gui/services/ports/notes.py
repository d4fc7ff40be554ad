"""The notes folder, as services see it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol

from coach_gui.domain.deleted_notes import DeletedNote, RestoredNote
from coach_gui.domain.notes import KnowledgeBaseSnapshot, Note, NoteEntry


class NoteStore(Protocol):
    """The knowledge base: a folder of Markdown concept notes."""

    @property
    def location(self) -> str:
        """Where the notes live, for the learner (a folder path)."""
        ...

    def load(self, *, fresh: bool = False) -> KnowledgeBaseSnapshot:
        """Read every note; files that do not parse are listed in `broken`. A store may
        take a file unchanged since it last read it from what it kept then; `fresh`: read
        every file again (F5)."""
        ...

    def save(self, note: Note, *, folder: str = "", file_name: str | None = None) -> NoteEntry:
        """Create or update `note` atomically. A new note is named after its title, in
        `folder` (relative to the knowledge base; "" is its top). Saving an unchanged note
        leaves its file byte-identical. Raises NoteError when the file cannot be written,
        when the note's file is broken on disk (it is never overwritten), or when
        `file_name` (the file the note was opened from) is no longer the file of its id."""
        ...

    def changed_elsewhere(self, paths: Iterable[str]) -> bool:
        """Whether any of these paths changed other than by this store's own writes."""
        ...

    def save_copy(self, note: Note, *, file_name: str | None = None) -> NoteEntry:
        """Save `note` as a new note beside its file, leaving the file as another program
        left it: what keeps both versions when both changed (it gets an id of its own)."""
        ...

    def delete(self, note_id: str) -> DeletedNote:
        """Move the note's file to a trash (never erased) and record where it went, so
        `restore` can put it back."""
        ...

    def deleted(self) -> tuple[DeletedNote, ...]:
        """The notes deleted from this folder that are still in a trash, newest first."""
        ...

    def restore(self, key: str, *, file_name: str | None = None) -> RestoredNote:
        """Put a deleted note back at its own path (or at `file_name`, relative to the
        folder) with its id, so its history stays attached; the notes listed under that id
        meanwhile get ids of their own (`new_ids`). RestoreBlocked when a file is there now
        (it is never overwritten); NoteError when it cannot be put back."""
        ...


# The note with this id as it is now, or None when it no longer exists.
NoteLookup = Callable[[str], Note | None]


class VaultWatch(Protocol):
    """Watches the notes folder for changes made outside Coach (started when built)."""

    def stop(self, timeout: float = 1.0) -> None: ...

    @property
    def running(self) -> bool: ...
