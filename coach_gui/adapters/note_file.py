"""Reading one file of the knowledge base without letting it hang or flood Coach.

A vault can hold anything a program or a person puts there: a named pipe (FIFO) whose
open() waits for a writer forever, a link to /dev/zero that never ends, a device. Only a
regular file is read as a note: the kind is checked before opening (so a pipe or a
device is never opened), the file is opened without blocking and checked again on the
open descriptor (it may have been swapped in between), and at most `limit` + 1 bytes are
read, so a file that grows while it is read cannot take the memory either.
"""

from __future__ import annotations

import os
import stat

from coach_gui.domain.errors import NoteError


class NotANoteFile(NoteError):
    """The path is not a regular file (a pipe, a device, a socket, a folder)."""


def _kind(mode: int) -> str | None:
    """What a file that is not a regular file is, in the learner's words."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not an ordinary file"


def _refused(kind: str) -> NotANoteFile:
    return NotANoteFile(
        f"it is {kind} (or a link to one), not a note file; Coach reads only ordinary "
        "files — move it out of the notes folder"
    )


def read_limited(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the regular file at `path` (a symlink to one is followed), at most
    `limit` + 1 of them: a caller that gets more than `limit` knows the file is too big.
    Raises NotANoteFile for anything else, OSError when it cannot be read."""
    kind = _kind(os.stat(path).st_mode)
    if kind is not None:
        raise _refused(kind)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        kind = _kind(os.fstat(fd).st_mode)  # swapped for a pipe since the check above
        if kind is not None:
            raise _refused(kind)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
