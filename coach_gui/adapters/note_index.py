"""The note files as last read (issue 38, ADR 0036): for each file its stamp — modification
and change times in nanoseconds, size, inode — and what was read from it, kept in Coach's
data folder (never in the notes folder). A listing then reads and parses only the files
whose stamp changed since; the others are taken from here, as they were read.

A stamp is trusted only when the file had not changed for RACY_NS before it was read: a
file written again within one tick of the file system's clock (2 s on FAT) may keep its
stamp, so such a file is read again next time, as git does with a "racily clean" file. The
change time moves on every write and cannot be set back by any program, so a tool that
restores the modification time (a sync client, `rsync -t`) still shows a new stamp.

Plain JSON; what was read is checked again as it is taken back (the note's rules), and a
missing, damaged or other folder's index only costs the time of reading every file.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from coach_gui.adapters.front_matter import ParsedFile, json_safe
from coach_gui.domain.notes import Note
from coach_gui.files import atomic_write, read_limited

log = logging.getLogger(__name__)

FORMAT = "coach-note-index"
VERSION = 1
RACY_NS = 2_000_000_000
MAX_INDEX_BYTES = 1_024_000_000  # 1 MB notes at most, and they are read if it is not kept

Stamp = tuple[int, int, int, int]  # modified (ns), changed (ns), size, inode


def stamp_of(info: os.stat_result) -> Stamp:
    return (info.st_mtime_ns, info.st_ctime_ns, info.st_size, info.st_ino)


@dataclass(frozen=True)
class IndexedFile:
    """A note file as read: its stamp then, when it was read, the digests of its bytes (to
    see outside edits and moves) and what was parsed from it."""

    stamp: Stamp
    read_ns: int
    digest: str
    rename: str
    parsed: ParsedFile

    def still(self, stamp: Stamp) -> bool:
        """Whether the file is as it was read: the same stamp, which was settled then."""
        settled = max(self.stamp[0], self.stamp[1]) <= self.read_ns - RACY_NS
        return settled and stamp == self.stamp


def write_index(path: Path, location: str, files: dict[str, IndexedFile]) -> None:
    rows = [[name, *_row(f)] for name, f in files.items() if json_safe(f.parsed.extra)]
    kept = {"format": FORMAT, "version": VERSION, "location": location, "files": rows}
    try:
        atomic_write(path, json.dumps(kept, ensure_ascii=False, separators=(",", ":")).encode())
    except OSError as exc:
        log.info("the note index was not kept: %s", exc)


def read_index(path: Path, location: str) -> dict[str, IndexedFile]:
    """The files as last read in the notes folder `location`; {} when nothing usable is
    kept (a file that no longer passes the note's rules is left out: it is read again)."""
    try:
        raw = read_limited(path, MAX_INDEX_BYTES)
        kept = json.loads(raw) if len(raw) <= MAX_INDEX_BYTES else None
        if not (
            isinstance(kept, dict)
            and kept.get("format") == FORMAT
            and kept.get("version") == VERSION
            and kept.get("location") == location
            and isinstance(kept.get("files"), list)
        ):
            return {}
        files: dict[str, IndexedFile] = {}
        for row in kept["files"]:
            try:
                name, indexed = _indexed(row)
            except (ValueError, TypeError, ValidationError):
                continue
            files[name] = indexed
        return files
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, RecursionError) as exc:
        log.info("the note index was not used: %s", exc)
        return {}


def _row(f: IndexedFile) -> list[Any]:
    p, note = f.parsed, f.parsed.note
    return [
        list(f.stamp),
        f.read_ns,
        f.digest,
        f.rename,
        note.id,
        note.title,
        note.source,
        list(note.tags),
        list(note.aliases),
        list(note.core_assertions),
        p.front_matter_text,
        p.extra,
        p.newline,
        p.bom,
        p.body_text,
        p.has_id,
        p.titled,
        list(p.delimiters),
    ]


# The types of a row's items, in order (`_row`); the front matter is None when there is none.
_ROW = (str, list, int, str, str, str, str, str, list, list, list, str, dict, str, bool, str)
_ROW_END = (bool, bool, list)
_ROW_TYPES = {(*_ROW, *_ROW_END), (*_ROW[:11], type(None), *_ROW[12:], *_ROW_END)}


def _indexed(row: Any) -> tuple[str, IndexedFile]:
    if tuple(map(type, row)) not in _ROW_TYPES:  # one C-level pass: 13,000 rows at start
        raise ValueError("not a row of the note index")
    (
        name,
        stamp,
        read_ns,
        digest,
        rename,
        note_id,
        title,
        source,
        tags,
        aliases,
        assertions,
        front,
        extra,
        newline,
        bom,
        body_text,
        has_id,
        titled,
        delimiters,
    ) = row
    if not (
        len(stamp) == 4
        and set(map(type, stamp)) == {int}
        and newline in ("\n", "\r\n")
        and len(delimiters) == 2
        and set(map(type, delimiters)) == {str}
    ):
        raise ValueError("not a row of the note index")
    body = body_text.replace("\r\n", "\n") if newline == "\r\n" else body_text
    note = Note(  # the note's own rules, as when it was read
        id=note_id,
        title=title,
        source=source,
        tags=tuple(tags),
        aliases=tuple(aliases),
        core_assertions=tuple(assertions),
        body=body,
    )
    parsed = ParsedFile(
        note=note,
        front_matter_text=front,
        extra=extra,
        newline=newline,
        bom=bom,
        body_text=body_text,
        has_id=has_id,
        titled=titled,
        delimiters=(delimiters[0], delimiters[1]),
    )
    modified, changed, size, inode = stamp
    return name, IndexedFile((modified, changed, size, inode), read_ns, digest, rename, parsed)
