"""Reading one file of the knowledge base without letting it hang or flood Coach.

A vault can hold anything a program or a person puts there: a named pipe (FIFO) whose
open() waits for a writer forever, a link to /dev/zero that never ends, a device. Only a
regular file is read as a note (`files.read_limited`: checked before and after opening,
opened without blocking, at most `limit` + 1 bytes read); anything else is a NoteError
that says what it is, so the note is listed as unreadable with its reason.
"""

from __future__ import annotations

import os

from coach_gui.domain.errors import NoteError
from coach_gui.files import NotARegularFile
from coach_gui.files import read_limited as _read_limited


class NotANoteFile(NoteError):
    """The path is not a regular file (a pipe, a device, a socket, a folder)."""


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes:
    """`files.read_limited`, with anything but a regular file refused as NotANoteFile."""
    try:
        return _read_limited(path, limit)
    except NotARegularFile as exc:
        raise NotANoteFile(
            f"it is {exc.kind}, not an ordinary file; Coach skips it — move it out of the "
            "notes folder"
        ) from None
