"""The knowledge base: a folder of Markdown concept notes (the `NoteStore` port).

Rules (DESIGN §3): writes are atomic; an unchanged note is never rewritten; a file that
does not parse is listed with its error and never overwritten; deleted notes go to a
trash folder; a note without an id gets one, written into its front matter once.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Any

from coach_gui.adapters import front_matter
from coach_gui.adapters.files import atomic_write
from coach_gui.domain.errors import NoteError, NoteNotFound
from coach_gui.domain.notes import (
    BrokenNote,
    KnowledgeBaseSnapshot,
    Note,
    NoteEntry,
    new_note_id,
    ordered,
    slug,
)

log = logging.getLogger(__name__)

_SKIP_DIRS = {".obsidian", ".trash", ".git", "node_modules"}


class NoteConflict(NoteError):
    """The file changed on disk after Coach read it; saving would overwrite that change."""


@dataclass(frozen=True)
class _Loaded:
    file_name: str
    parsed: front_matter.ParsedFile
    digest: str  # of the bytes on disk when read or written, to detect outside edits


class _CacheView(dict[str, Any]):
    """Parsed front matter by content digest: looks up in what was cached last time, and
    records every digest used now, so the cache written back holds no dead entries."""

    def __init__(self, cached: dict[str, Any], used: dict[str, Any]) -> None:
        super().__init__()
        self._cached, self._used = cached, used

    def __contains__(self, key: object) -> bool:
        return key in self._cached or key in self._used

    def __getitem__(self, key: str) -> Any:
        value = self._used[key] if key in self._used else self._cached[key]
        self._used[key] = value
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        self._used[key] = value


def _digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


# A save killed mid-write leaves its temp file (".name.md.XXXX.tmp", see atomic_write). One
# older than this cannot belong to a save still in progress, so it is only clutter.
STALE_TEMP_SECONDS = 3600


def _remove_stale_temp_files(root: str, files: list[str]) -> None:
    cutoff = time.time() - STALE_TEMP_SECONDS
    for name in files:
        if not (name.startswith(".") and name.endswith(".tmp") and ".md." in name.lower()):
            continue
        path = Path(root, name)
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except OSError:  # gone already, or not ours to remove: it is only clutter
            continue


class MarkdownNoteStore:
    """A folder of ``.md`` notes (subfolders included, hidden folders skipped)."""

    def __init__(self, folder: Path, trash: Path, *, cache_file: Path | None = None) -> None:
        self._folder = folder
        self._trash = trash
        self._cache_file = cache_file
        self._lock = threading.RLock()
        self._by_id: dict[str, _Loaded] = {}

    @property
    def location(self) -> str:
        return str(self._folder)

    @property
    def trash_location(self) -> str:
        return str(self._trash)

    def _files(self) -> list[tuple[Path, str]]:
        """Every note file with its name relative to the folder ('/'-separated)."""
        found: list[tuple[Path, str]] = []
        trash = self._trash.resolve() if self._trash.exists() else None
        top = str(self._folder)
        for root, dirs, files in os.walk(top):
            dirs[:] = sorted(
                d
                for d in dirs
                if d not in _SKIP_DIRS
                and not d.startswith(".")
                and (trash is None or Path(root, d).resolve() != trash)
            )
            prefix = root[len(top) :].strip(os.sep).replace(os.sep, "/")
            prefix = f"{prefix}/" if prefix else ""
            found.extend(
                (Path(root, f), prefix + f) for f in sorted(files) if f.lower().endswith(".md")
            )
            _remove_stale_temp_files(root, files)
        return found

    def load(self) -> KnowledgeBaseSnapshot:
        if not self._folder.is_dir():
            raise NoteError(
                f"The knowledge base folder {self._folder} does not exist. Create it, or "
                "choose another folder in Settings (kb.path)."
            )
        entries: list[NoteEntry] = []
        broken: list[BrokenNote] = []
        by_id: dict[str, _Loaded] = {}
        cached = self._read_cache()
        used: dict[str, Any] = {}
        for path, name in self._files():
            try:
                loaded = self._read(path, name, _CacheView(cached, used))
            except NoteError as exc:
                broken.append(BrokenNote(file_name=name, error=str(exc)))
                continue
            note_id = loaded.parsed.note.id
            if note_id in by_id:
                broken.append(
                    BrokenNote(
                        file_name=name,
                        error=f"it has the same id as {by_id[note_id].file_name}; delete its "
                        "'id:' line and Coach will give it a new one",
                    )
                )
                continue
            by_id[note_id] = loaded
            entries.append(NoteEntry(note=loaded.parsed.note, file_name=name))
        with self._lock:
            self._by_id = by_id
        if used.keys() != cached.keys():
            self._write_cache(used)
        return KnowledgeBaseSnapshot(
            location=str(self._folder), notes=tuple(ordered(entries)), broken=tuple(broken)
        )

    def _read_cache(self) -> dict[str, Any]:
        if self._cache_file is None:
            return {}
        try:
            data = json.loads(self._cache_file.read_bytes())
        except (OSError, ValueError):
            return {}  # a missing or damaged cache only costs time
        return data if isinstance(data, dict) else {}

    def _write_cache(self, entries: dict[str, Any]) -> None:
        if self._cache_file is None:
            return
        try:
            text = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
            atomic_write(self._cache_file, text.encode("utf-8"))
        except OSError as exc:
            log.info("front-matter cache not written: %s", exc)

    def _read(self, path: Path, name: str, cache: dict[str, Any] | None = None) -> _Loaded:
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise NoteError(f"cannot be read ({exc.strerror})") from None
        generated: list[str] = []

        def fresh_id() -> str:
            generated.append(new_note_id())
            return generated[0]

        parsed = front_matter.parse(raw, fallback_id=fresh_id, yaml_cache=cache)
        if generated:
            # Generated once, then kept in the file, so history keeps pointing at the note.
            raw = front_matter.stamp_id(raw, generated[0])
            try:
                atomic_write(path, raw)
            except OSError as exc:
                log.warning("could not write a new id into %s: %s", name, exc)
            parsed = front_matter.parse(raw)
        return _Loaded(file_name=name, parsed=parsed, digest=_digest(raw))

    def save(self, note: Note) -> NoteEntry:
        with self._lock:
            previous = self._by_id.get(note.id)
            if previous is None:
                return self._create(note)
            path = self._folder / previous.file_name
            if previous.parsed.note == note:
                return NoteEntry(note=note, file_name=previous.file_name)
            self._check_unchanged_on_disk(path, previous)
            raw = front_matter.render(note, previous.parsed)
            self._write(path, raw)
            parsed = front_matter.parse(raw)
            self._by_id[note.id] = _Loaded(previous.file_name, parsed, _digest(raw))
            return NoteEntry(note=parsed.note, file_name=previous.file_name)

    def _create(self, note: Note) -> NoteEntry:
        taken = [p.stem for p in self._folder.glob("*.md")] if self._folder.is_dir() else []
        name = f"{slug(note.title, taken=taken)}.md"
        path = self._folder / name
        raw = front_matter.render(note)
        self._write(path, raw)
        parsed = front_matter.parse(raw)
        self._by_id[note.id] = _Loaded(name, parsed, _digest(raw))
        return NoteEntry(note=parsed.note, file_name=name)

    def _check_unchanged_on_disk(self, path: Path, previous: _Loaded) -> None:
        try:
            current = _digest(path.read_bytes())
        except FileNotFoundError:
            raise NoteConflict(
                f"{previous.file_name} was moved or deleted outside Coach. Copy your changes, "
                "then reload the notes (F5)."
            ) from None
        except OSError as exc:
            raise NoteError(f"{previous.file_name} cannot be read ({exc.strerror}).") from None
        if current != previous.digest:
            raise NoteConflict(
                f"{previous.file_name} was changed by another program since Coach opened it. "
                "Copy your changes, then reload the notes (F5) so nothing is overwritten."
            )

    def _write(self, path: Path, raw: bytes) -> None:
        try:
            atomic_write(path, raw)
        except OSError as exc:
            raise NoteError(
                f"Could not save {path.name}: {exc.strerror}. Your edit is still open; "
                "check that the folder is writable and has free space, then save again."
            ) from None

    def delete(self, note_id: str) -> str:
        with self._lock:
            previous = self._by_id.get(note_id)
            if previous is None:
                raise NoteNotFound(f"No note with id {note_id}; reload the notes (F5).")
            source = self._folder / previous.file_name
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
            target = self._trash / previous.file_name
            if target.exists():
                target = target.with_name(f"{target.stem}.{stamp}{target.suffix}")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(source, target)
            except OSError as exc:
                raise NoteError(
                    f"Could not move {previous.file_name} to the trash ({exc.strerror}); "
                    "nothing was deleted."
                ) from None
            del self._by_id[note_id]
            return str(target)


def seed_sample_notes(folder: Path) -> int:
    """On first run (no folder yet), fill `folder` with the bundled sample notes."""
    if folder.exists():
        return 0
    samples = resources.files("coach_gui") / "resources" / "sample_kb"
    staging = folder.with_name(f".{folder.name}.seeding")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    count = 0
    for item in sorted(samples.iterdir(), key=lambda i: i.name):
        if item.name.endswith(".md"):
            (staging / item.name).write_bytes(item.read_bytes())
            count += 1
    os.replace(staging, folder)  # all notes appear at once, or none
    return count
