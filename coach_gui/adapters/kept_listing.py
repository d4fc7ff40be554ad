"""The note listing kept on disk (issue 38, ADR 0036): what the note list showed last, with
its search index's folded text, so the next start lists the notes, searchable, as soon as
the window is painted, before a note file is read. It only saves time: the files are read
again at once and the list corrected in place; a missing, damaged or other folder's listing
is not shown. It lives in Coach's data folder (`cache/listing.json`), never in the notes
folder, and is written after each listing's index is built.

Plain JSON, read with the standard library only: the window's frame reads it before
pydantic or the note parser is loaded.

    write_kept(path, location, index, broken)
    read_kept(path, location)   # a KeptListing, or None
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coach_gui.domain.note_search import (
    E,
    FoldedNotes,
    KeptBroken,
    KeptEntry,
    KeptListing,
    KeptNote,
    NoteSearchIndex,
)
from coach_gui.files import atomic_write, read_limited

log = logging.getLogger(__name__)

FORMAT = "coach-kept-listing"
VERSION = 1
# Coach writes about twice the notes' text; a file far past this is not one it wrote.
MAX_KEPT_BYTES = 512_000_000


def write_kept(
    path: Path, location: str, index: NoteSearchIndex[E], broken: Sequence[KeptBroken]
) -> None:
    """Keep the listing `index` was built from (its notes, in list order, and what it
    folded) with the files that could not be read; a failure only costs the next start
    its head start, so it is logged, not raised."""
    folded = index.folded_notes()
    rows = [
        [
            entry.note.id,
            entry.file_name,
            entry.note.title,
            list(entry.note.tags),
            list(entry.note.core_assertions),
            title,
            list(tags),
            text,
        ]
        for entry, title, tags, text in zip(
            index.entries, folded.titles, folded.tags, folded.texts, strict=True
        )
    ]
    kept = {
        "format": FORMAT,
        "version": VERSION,
        "location": location,
        "notes": rows,
        "broken": [[b.file_name, b.error] for b in broken],
    }
    data = json.dumps(kept, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    try:
        atomic_write(path, data)
    except OSError as exc:
        log.info("the note listing was not kept: %s", exc)


def read_kept(path: Path, location: str) -> KeptListing | None:
    """The listing kept for the notes folder `location`; None when there is none, it is
    another folder's, or it is not one Coach wrote whole (each row is checked)."""
    try:
        raw = read_limited(path, MAX_KEPT_BYTES)
        if len(raw) > MAX_KEPT_BYTES:
            return None
        kept = json.loads(raw)
        if not (
            isinstance(kept, dict)
            and kept.get("format") == FORMAT
            and kept.get("version") == VERSION
            and kept.get("location") == location
        ):
            return None
        entries, folded = _rows(kept["notes"])
        broken = [KeptBroken(_text(f), _text(e)) for f, e in kept["broken"]]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, RecursionError) as exc:  # damaged
        log.info("the kept note listing was not used: %s", exc)
        return None
    return KeptListing(
        location=location,
        entries=entries,
        broken=broken,
        index=NoteSearchIndex(entries, folded),
    )


def _rows(rows: Any) -> tuple[list[KeptEntry], FoldedNotes]:
    if not isinstance(rows, list):
        raise TypeError("the notes are not a list")
    entries: list[KeptEntry] = []
    titles: list[str] = []
    tags: list[tuple[str, ...]] = []
    texts: list[str] = []
    for note_id, file_name, title, note_tags, assertions, folded_title, folded_tags, text in rows:
        entries.append(
            KeptEntry(
                KeptNote(_text(note_id), _text(title), _texts(note_tags), _texts(assertions)),
                _text(file_name),
            )
        )
        titles.append(_text(folded_title))
        tags.append(_texts(folded_tags))
        texts.append(_text(text))
    return entries, FoldedNotes(titles=titles, tags=tags, texts=texts)


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _texts(values: Any) -> tuple[str, ...]:
    if not isinstance(values, list):
        raise TypeError(f"{values!r} is not a list")
    return tuple(_text(v) for v in values)
