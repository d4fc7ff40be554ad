"""Where an import writes in the knowledge base (issue 37): new files only. A note file or
a media file is written beside a temp file and linked into place, which fails when the
name is taken, so no existing byte is ever changed, even by a file another program makes
meanwhile. The notes a former import wrote are found by their `anki_guid:` line."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import secrets
from collections.abc import Mapping
from pathlib import Path

from coach_gui.adapters import front_matter
from coach_gui.domain.errors import NoteError
from coach_gui.domain.notes import Note, note_file_stem
from coach_gui.files import TEMP_MARK, fsync_dir, read_limited

ATTACHMENTS = "attachments"
_GUID_LINE = re.compile(rb"^anki_guid:[ \t]*(.+?)[ \t]*$", re.MULTILINE)
_UNSAFE_MEDIA = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]')
_HEAD = 16_384  # the front matter of any note Coach wrote


class ImportFolder:
    def __init__(self, root: Path) -> None:
        self._root = root
        self._taken: dict[Path, set[str]] = {}  # per folder, the note names seen or made

    @property
    def location(self) -> str:
        return str(self._root)

    def imported_guids(self) -> set[str]:
        """The Anki ids of the notes in the knowledge base (hidden folders left out)."""
        found: set[str] = set()
        for folder, dirs, files in os.walk(self._root):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                if not name.lower().endswith(".md"):
                    continue
                with contextlib.suppress(OSError, NoteError, ValueError):
                    head = read_limited(Path(folder) / name, _HEAD)[:_HEAD]
                    if not head.startswith(b"---"):
                        continue
                    for match in _GUID_LINE.finditer(head):
                        found.add(_scalar(match.group(1).decode("utf-8")))
        return found

    def _where(self, folder: str) -> Path:
        parts = [p for p in folder.split("/") if p not in ("", ".", "..") and not p.startswith(".")]
        return self._root.joinpath(*parts)

    def write_note(self, folder: str, note: Note, extra: Mapping[str, str]) -> str:
        """A new note file named after its title in `folder`; its path, '/'-separated."""
        where = self._where(folder)
        _make(where)
        raw = f"---\n{front_matter.render_front_matter(note, dict(extra))}---\n{note.body}"
        if where not in self._taken:  # listed once per folder: a deck has thousands of notes
            self._taken[where] = {
                p.stem.casefold() for p in where.iterdir() if p.suffix.lower() == ".md"
            }
        taken = self._taken[where]
        for _ in range(100):
            stem = note_file_stem(note.title)
            if stem.casefold() in taken:  # only the names it could clash with
                base = stem.casefold()
                stem = note_file_stem(note.title, taken=[t for t in taken if t.startswith(base)])
            taken.add(stem.casefold())  # made now, or by another program meanwhile
            if _write_new(where / f"{stem}.md", raw.encode("utf-8")):
                return (where / f"{stem}.md").relative_to(self._root).as_posix()
        raise NoteError(f"No free file name for “{note.title}” in {folder}.")

    def copy_media(self, folder: str, name: str, data: bytes) -> str:
        """`data` as `attachments/<name>` beside the notes of `folder` (the same bytes
        there already: that file); the link target, relative to the note."""
        where = self._where(folder) / ATTACHMENTS
        _make(where)
        safe = " ".join(_UNSAFE_MEDIA.sub("-", name).split()).lstrip(".") or "media"
        stem, dot, ext = safe.rpartition(".")
        if not dot:
            stem, ext = safe, ""
        wanted = hashlib.sha256(data).digest()
        for n in range(1, 1000):
            candidate = safe if n == 1 else f"{stem} ({n}){dot}{ext}"
            path = where / candidate
            if _write_new(path, data):
                return f"{ATTACHMENTS}/{candidate}"
            with contextlib.suppress(OSError, ValueError):
                if hashlib.sha256(read_limited(path, len(data))).digest() == wanted:
                    return f"{ATTACHMENTS}/{candidate}"
        raise NoteError(f"No free file name for the media file {name}.")


def _make(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise NoteError(
            f"Could not make the folder {folder}: {exc.strerror or exc}. Check that the notes "
            "folder is writable, then import again."
        ) from None


def _scalar(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        with contextlib.suppress(Exception):
            loaded = front_matter.load_yaml(text)
            if isinstance(loaded, str):
                return loaded
    return text


def _write_new(path: Path, data: bytes) -> bool:
    """Write `data` at `path` unless something is there: False then, nothing changed.
    NoteError says what went wrong in the learner's words."""
    try:
        return _link_new(path, data)
    except OSError as exc:
        raise NoteError(
            f"Could not write {path}: {exc.strerror or exc}. Check that the notes folder is "
            "writable and has free space, then import again (what was written is kept, and "
            "is not written twice)."
        ) from None


def _link_new(path: Path, data: bytes) -> bool:
    if os.path.lexists(path):
        return False
    tmp = path.with_name(f".{path.name}.{TEMP_MARK}{secrets.token_hex(4)}.tmp")
    with open(tmp, "xb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    try:
        os.link(tmp, path)  # fails when the name is taken: never replaces a file
    except FileExistsError:
        return False
    finally:
        tmp.unlink()
    fsync_dir(path.parent)
    return True
