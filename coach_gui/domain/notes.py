"""Concept notes: the learner's own distillation of a source, with its core assertions."""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field

from coach_gui.domain import text_segments
from coach_gui.domain.errors import NoteNotFound
from coach_gui.domain.note_search import NoteSearchIndex as NoteSearchIndex
from coach_gui.domain.note_search import in_list_order
from coach_gui.domain.records import Record

ID_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def _check_id(value: str) -> str:
    if not ID_PATTERN.match(value):
        raise ValueError(
            "an id is 1–128 letters, digits, '.', '_' or '-', starting with a letter or digit"
        )
    return value


def _check_no_nul(value: str) -> str:
    if "\x00" in value:
        raise ValueError("a note cannot contain NUL characters; remove them")
    return value


def _check_title(value: str) -> str:
    _check_no_nul(value)
    if not value.strip():
        raise ValueError("a note needs a title")
    if "\n" in value or "\r" in value:
        raise ValueError("a title is one line")
    return value


def _check_tag(value: str) -> str:
    _check_no_nul(value)
    if not value.strip():
        raise ValueError("a tag cannot be empty")
    return value


def _check_assertion(value: str) -> str:
    _check_no_nul(value)
    if not value.strip():
        raise ValueError("a core assertion cannot be empty")
    return value


NoteId = Annotated[str, AfterValidator(_check_id)]
Title = Annotated[str, AfterValidator(_check_title)]
Tag = Annotated[str, AfterValidator(_check_tag)]
Assertion = Annotated[str, AfterValidator(_check_assertion)]
NoteText = Annotated[str, AfterValidator(_check_no_nul)]


# Obsidian's inline tag: '#' after the start or a space, then letters, digits, '_', '-' or
# '/', with at least one that is not a digit ("#1984" is not a tag). Code is left out.
_INLINE_TAG = re.compile(r"(?:(?<=\s)|^)#([\w/-]*[^\W\d][\w/-]*)", re.UNICODE)
_FENCE = re.compile(r"^(```|~~~)")
_CODE_SPAN = re.compile(r"(`+).*?\1")


def inline_tags(body: str) -> tuple[str, ...]:
    """The `#tags` written in a body, in order, each once: none from fenced code blocks,
    code spans or headings (`# Title` has a space after the '#')."""
    found: dict[str, None] = {}
    fenced = False
    for line in body.splitlines():
        if _FENCE.match(line.lstrip()):
            fenced = not fenced
            continue
        if fenced or "#" not in line:
            continue
        for match in _INLINE_TAG.finditer(_CODE_SPAN.sub(" ", line)):
            found.setdefault(match.group(1).rstrip("/"), None)
    return tuple(t for t in found if t)


def new_note_id() -> str:
    """A fresh, stable note id; generated once, then kept in the note's front matter."""
    return uuid.uuid4().hex


class Note(Record):
    """One concept note as the learner wrote it (no file details)."""

    id: NoteId
    title: Title
    source: NoteText = ""
    tags: tuple[Tag, ...] = ()  # the front matter's (inline #tags: `inline_tags(body)`)
    aliases: tuple[Title, ...] = ()  # other names the note goes by (read, never written)
    core_assertions: tuple[Assertion, ...] = ()
    body: NoteText = ""

    @property
    def all_tags(self) -> tuple[str, ...]:
        """Front matter tags, then the body's inline #tags, each once."""
        found = list(self.tags)
        found += [t for t in inline_tags(self.body) if t not in found]
        return tuple(dict.fromkeys(found))


class NoteEntry(Record):
    """A note together with where it lives, relative to the knowledge base folder."""

    note: Note
    file_name: str = Field(min_length=1)

    @property
    def stem(self) -> str:
        """The file name without ``.md``: what ``coach practice NOTE`` accepts."""
        name = self.file_name.rsplit("/", 1)[-1]
        return name[:-3] if name.lower().endswith(".md") else name


class BrokenNote(Record):
    """A file in the knowledge base that could not be read; it is never overwritten."""

    file_name: str
    error: str


class KnowledgeBaseSnapshot(Record):
    """Everything found in the knowledge base folder at one moment."""

    location: str
    notes: tuple[NoteEntry, ...] = ()
    broken: tuple[BrokenNote, ...] = ()
    attachments: tuple[str, ...] = ()  # other files (pictures, PDFs), relative, '/'-separated

    def find(self, key: str) -> NoteEntry | None:
        """The note whose id, file name (with or without ``.md``, with or without its
        folder) or title is `key`, in that order of preference. AmbiguousNote when more
        than one note answers to the same name: never one picked at random."""
        for entry in self.notes:
            if entry.note.id == key:
                return entry
        folded = fold(key.strip())
        if folded.endswith(".md"):
            folded = folded[:-3]
        for matches in (
            [e for e in self.notes if fold(e.file_name[:-3]) == folded],  # the folder too
            [e for e in self.notes if fold(e.stem) == folded],
            [e for e in self.notes if fold(e.note.title) == folded],
        ):
            if len(matches) == 1:
                return matches[0]
            if matches:
                raise AmbiguousNote(key, tuple(e.file_name for e in matches))
        return None


class AmbiguousNote(NoteNotFound):
    """More than one note answers to the name asked for (so none is taken)."""

    def __init__(self, key: str, file_names: tuple[str, ...]) -> None:
        listed = ", ".join(file_names[:10]) + (" …" if len(file_names) > 10 else "")
        super().__init__(
            f"{len(file_names)} notes answer to {key!r}: {listed}. Give the file name with "
            "its folder (e.g. 'folder/note') or the note's id (`coach notes --json`)."
        )
        self.file_names = file_names


def ordered(entries: Iterable[NoteEntry]) -> list[NoteEntry]:
    """In list order: by title, case- and accent-insensitively, then by file name."""
    return in_list_order(entries)


def fold(text: str) -> str:
    """Case- and accent-insensitive form used for ordering and search; marks that are
    letters of their script (Thai vowels, the kana voicing marks) are kept, so "กิน" does
    not find "กัน" (`text_segments.fold`, ADR 0032)."""
    return text_segments.fold(text)


def slug(title: str, *, taken: Sequence[str] = ()) -> str:
    """A file-system-safe file name stem for a new note's title, unique among `taken`."""
    base = re.sub(r"[^a-z0-9]+", "-", fold(title)).strip("-")[:60].strip("-") or "note"
    taken_folded = {t.casefold() for t in taken}
    candidate, n = base, 2
    while candidate.casefold() in taken_folded:
        candidate, n = f"{base}-{n}", n + 1
    return candidate


# Characters no file name may hold on Windows, macOS or Linux (and '#^[]|' that break an
# Obsidian link to the note), and names Windows keeps for devices.
_UNSAFE_IN_NAMES = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]]')
_RESERVED_NAMES = {"con", "prn", "aux", "nul", *(f"com{n}" for n in range(1, 10))} | {
    f"lpt{n}" for n in range(1, 10)
}
_MAX_NAME_BYTES = 200  # well under the 255 bytes file systems allow, with " 12.md" to spare


def note_file_stem(title: str, *, taken: Iterable[str] = ()) -> str:
    """The file name (without `.md`) of a new note: its title as the learner wrote it,
    Unicode kept, only what a file system or an Obsidian link cannot hold replaced; unique
    among `taken` (compared case-insensitively, as macOS and Windows do)."""
    base = " ".join(_UNSAFE_IN_NAMES.sub(" ", unicodedata.normalize("NFC", title)).split())
    base = base.strip(". ")
    while len(base.encode("utf-8")) > _MAX_NAME_BYTES:
        base = base[:-1].rstrip(". ")
    if not base:
        base = "Untitled"
    if base.split(".")[0].casefold() in _RESERVED_NAMES:
        base = f"{base} (note)"
    folded = {t.casefold() for t in taken}
    candidate, n = base, 2
    while candidate.casefold() in folded:
        candidate, n = f"{base} {n}", n + 1
    return candidate


class LinkTargets:
    """What a `[[link]]` or `![[embed]]` in a note names, resolved as Obsidian does: a path
    in the vault (with or without `.md`), else a file name anywhere in it, else a title or
    an alias; case-insensitive. Built from one snapshot; every lookup is a dict access."""

    def __init__(self, snapshot: KnowledgeBaseSnapshot) -> None:
        self.root = Path(snapshot.location)
        self._notes: dict[str, NoteEntry] = {}
        for entry in snapshot.notes:  # a path wins over a file name, which wins over a title
            self._notes.setdefault(fold(entry.file_name[:-3]), entry)
        for entry in snapshot.notes:
            self._notes.setdefault(fold(entry.stem), entry)
        for entry in snapshot.notes:
            self._notes.setdefault(fold(entry.note.title), entry)
        for entry in snapshot.notes:
            for alias in entry.note.aliases:
                self._notes.setdefault(fold(alias), entry)
        self._files: dict[str, str] = {}
        for path in snapshot.attachments:
            self._files.setdefault(fold(path), path)
        for path in snapshot.attachments:
            self._files.setdefault(fold(path.rsplit("/", 1)[-1]), path)

    def note(self, name: str) -> NoteEntry | None:
        key = fold(name.strip())
        if key.endswith(".md"):
            key = key[:-3]
        return self._notes.get(key)

    def file(self, name: str) -> str | None:
        """The vault-relative path of an attachment `name` names, or None."""
        return self._files.get(fold(name.strip().lstrip("/")))

    # What the preview asks (ADR 0017): the id of the note a link opens, the file a
    # picture shows, the body an embed shows.
    def note_id(self, name: str) -> str | None:
        entry = self.note(name)
        return entry.note.id if entry is not None else None

    def attachment_path(self, name: str) -> Path | None:
        found = self.file(name)
        return self.root / found if found is not None else None

    def embedded_body(self, name: str) -> str | None:
        entry = self.note(name)
        return entry.note.body if entry is not None else None
