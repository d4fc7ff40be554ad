"""Notes Coach moved to a trash, and what it takes to put one back (ADR 0024)."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import Field

from coach_gui.domain.errors import NoteError
from coach_gui.domain.notes import NoteEntry, NoteId
from coach_gui.domain.records import Record


class DeletedNote(Record):
    """One delete, as Coach recorded it: the note, where it was and where it went."""

    key: str = Field(min_length=1)  # this delete (a note deleted twice is two deletes)
    note_id: NoteId  # its history (sessions, memory) is under this id
    title: str
    file_name: str = Field(min_length=1)  # where it was, relative to the knowledge base
    deleted_at: str  # ISO 8601, UTC
    where: str  # where it went: a path, or "the system trash"
    restorable: bool  # Coach can put it back itself
    advice: str = ""  # when it cannot: how the learner gets it back


class NewId(Record):
    """A note that was listed under the id a restored note took back: its file now has an
    id of its own (`entry.note.id`), and `old_id` is another note's again."""

    old_id: NoteId
    entry: NoteEntry


class RestoredNote(Record):
    """A deleted note back on disk (`entry`), and the notes whose id changed for it."""

    entry: NoteEntry
    new_ids: tuple[NewId, ...] = ()


class RestoreBlocked(NoteError):
    """A file now sits where the deleted note was: it is never overwritten. `suggestion`
    is a free name beside it the note can come back as instead."""

    def __init__(self, file_name: str, suggestion: str, *, folder: bool = False) -> None:
        """`folder`: `file_name` is a file now where the note's folder was."""
        where = (
            f"The folder {file_name}, where the note was, is a file now"
            if folder
            else f"A file named {file_name} exists again where the note was"
        )
        super().__init__(
            f"{where}, so Coach did not put the note back there (that file is left as it "
            f"is). Restore it as {suggestion} instead."
        )
        self.file_name = file_name
        self.suggestion = suggestion
        self.folder = folder


def restored_name(file_name: str, taken: Iterable[str]) -> str:
    """A free name beside `file_name` for a note coming back while its own is taken:
    "Folder/Note (restored).md", then "(restored 2)", … (`taken`: the names in that
    folder, compared case-insensitively, as on macOS and Windows disks)."""
    folder, _, name = file_name.rpartition("/")
    stem, dot, suffix = name.rpartition(".") if "." in name else (name, "", "")
    used = {t.casefold() for t in taken}
    candidate, n = f"{stem} (restored){dot}{suffix}", 2
    while candidate.casefold() in used:
        candidate, n = f"{stem} (restored {n}){dot}{suffix}", n + 1
    return f"{folder}/{candidate}" if folder else candidate
