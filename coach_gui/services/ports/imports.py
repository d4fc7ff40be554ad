"""What an import from Anki asks of the outside world (issue 37): the file read as a
package, and the knowledge base written with new files only."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from coach_gui.domain.anki_package import Package
from coach_gui.domain.notes import Note


class PackageSource(Protocol):
    def read(self, path: Path) -> Package:
        """The package (or CSV) at `path`; PackageUnreadable says in a sentence why not."""
        ...

    def media(self, path: Path, member: str) -> bytes:
        """One media file of the package at `path` (PackageUnreadable when damaged)."""
        ...


class ImportFolder(Protocol):
    @property
    def location(self) -> str: ...

    def imported_guids(self) -> set[str]:
        """The Anki ids of the notes a former import wrote (wherever they are now)."""
        ...

    def write_note(self, folder: str, note: Note, extra: Mapping[str, str]) -> str:
        """A new file for `note` in `folder`, never over another; its path."""
        ...

    def copy_media(self, folder: str, name: str, data: bytes) -> str:
        """A media file beside the notes of `folder`; the link target from the note."""
        ...
