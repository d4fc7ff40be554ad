"""The knowledge base: a folder of Markdown notes, such as an Obsidian vault (the
`NoteStore` port).

Rules (DESIGN §3, ADR 0016): reading never writes to the folder; writes are atomic and
surgical (only what the learner changed, `front_matter.render`), through a symlink into
its target; an unchanged note is never rewritten; a file that does not parse is listed
with its reason and never overwritten; hidden folders and other files are ignored; a
symlinked file or folder is followed once (no cycles, no note listed twice); only Coach's
own leftover temp files are ever removed. A note's id is its front matter's `id`, else one
Coach keeps for it outside the folder (`note_ids`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path, PureWindowsPath
from typing import Any

from send2trash import send2trash
from send2trash.exceptions import TrashPermissionError

from coach_gui.adapters import front_matter, note_trash
from coach_gui.adapters.note_file import NotANoteFile, read_limited
from coach_gui.adapters.note_ids import NoteIdentities, vault_identity, vault_key
from coach_gui.adapters.note_index import IndexedFile, Stamp, read_index, stamp_of, write_index
from coach_gui.adapters.note_trash import digest as _digest
from coach_gui.domain.deleted_notes import (
    DeletedNote,
    NewId,
    RestoreBlocked,
    RestoredNote,
    restored_name,
)
from coach_gui.domain.errors import NoteConflict as NoteConflict
from coach_gui.domain.errors import NoteError, NoteNotFound
from coach_gui.domain.notes import (
    BrokenNote,
    KnowledgeBaseSnapshot,
    Note,
    NoteEntry,
    note_file_stem,
    ordered,
)
from coach_gui.files import atomic_write, is_own_temp_file

log = logging.getLogger(__name__)

_SKIP_DIRS = {".obsidian", ".trash", ".git", "node_modules"}
# The front-matter cache only saves time: past this size, the rest is parsed each time.
MAX_CACHE_BYTES = 64_000_000
_MIN_RENAME_BYTES = 32  # a rename is recognised by the bytes; an empty file says nothing


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


# A save killed mid-write leaves its temp file (see atomic_write). One older than this
# cannot belong to a save still in progress, so it is only clutter.
STALE_TEMP_SECONDS = 3600


def _remove_stale_temp_files(root: str, files: list[str]) -> None:
    cutoff = time.time() - STALE_TEMP_SECONDS
    for name in files:
        if not is_own_temp_file(name):  # only Coach's own: another program's is not ours
            continue
        path = Path(root, name)
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except OSError:  # gone already, or not ours to remove: it is only clutter
            continue


@dataclass(frozen=True)
class _Found:
    path: str  # as reached from the folder (through any symlink)
    name: str  # relative to the folder, '/'-separated


class MarkdownNoteStore:
    """A folder of ``.md`` notes (subfolders included, hidden folders skipped). `ids_file`
    keeps the ids of notes without one of their own, `deleted_file` the record of what
    Coach deleted, to put it back (None: kept in memory only)."""

    def __init__(
        self,
        folder: Path,
        trash: Path,
        *,
        cache_file: Path | None = None,
        ids_file: Path | None = None,
        deleted_file: Path | None = None,
        index_file: Path | None = None,
    ) -> None:
        self._folder = folder
        self._trash = trash
        self._cache_file = cache_file
        self._index_file = index_file  # the files as last read (note_index)
        self._ids = NoteIdentities(ids_file, vault_identity(folder), legacy_key=vault_key(folder))
        self._deleted = note_trash.DeletedNotes(deleted_file, vault=folder, trash=trash)
        self._lock = threading.RLock()
        self._by_id: dict[str, _Loaded] = {}
        self._attachments: tuple[str, ...] = ()
        self._deleted_by_us: set[str] = set()  # so the watcher's report of it is no news
        self._write_seq = 0  # Coach's own writes, in order, for a load running meanwhile
        self._recent: dict[str, tuple[int, _Loaded | None]] = {}
        # Files whose bytes were seen to differ from what was read with an unchanged stamp
        # possible (Windows' st_ctime is the creation time): read at the next load.
        self._distrusted: set[str] = set()

    @property
    def location(self) -> str:
        return str(self._folder)

    def _folders(self) -> Iterator[tuple[str, str, str, list[os.DirEntry[str]]]]:
        """(folder, its real path, its '/'-separated prefix, its files) for the knowledge
        base and every folder in it: real folders first, then those reached through
        symlinks, each real folder once (a link back to an ancestor is no cycle)."""
        trash = os.path.realpath(self._trash) if self._trash.exists() else None
        seen: set[tuple[int, int]] = set()
        top = str(self._folder)
        pending: list[tuple[str, str, str]] = [(top, os.path.realpath(top), "")]
        linked: list[tuple[str, str]] = []
        while pending or linked:
            if pending:
                folder, real, prefix = pending.pop()
            else:
                folder, prefix = linked.pop(0)
                real = os.path.realpath(folder)
            try:
                info = os.stat(folder)
                with os.scandir(folder) as scan:
                    found = sorted(scan, key=lambda e: e.name)
            except OSError:
                continue
            if (info.st_dev, info.st_ino) in seen:
                continue
            seen.add((info.st_dev, info.st_ino))
            files: list[os.DirEntry[str]] = []
            subfolders: list[tuple[str, str, str]] = []
            for item in found:
                try:
                    is_dir = item.is_dir()  # through a symlink too
                except OSError:
                    continue
                if not is_dir:
                    if item.is_symlink() and not os.path.exists(item.path):
                        continue  # a link to nothing: Obsidian does not show it either
                    files.append(item)
                elif _skipped(item.name):
                    continue
                elif item.is_symlink():  # walked after every real folder
                    linked.append((item.path, f"{prefix}{item.name}/"))
                elif trash is None or os.path.join(real, item.name) != trash:
                    subfolders.append(
                        (item.path, os.path.join(real, item.name), f"{prefix}{item.name}/")
                    )
            pending.extend(reversed(subfolders))
            yield folder, real, prefix, files

    def _files(self) -> tuple[list[_Found], int]:
        """Every note file, each real file once, and how many other paths led to one.
        The other files (pictures, PDFs: what notes embed) are in `self._attachments`."""
        by_real: dict[str, list[_Found]] = {}
        real_top = os.path.realpath(self._folder)
        attachments: list[str] = []
        for folder, real, prefix, files in self._folders():
            for item in files:
                name = item.name
                if name.startswith(".") or is_own_temp_file(name):
                    continue
                if not name.lower().endswith(".md"):
                    attachments.append(prefix + name)
                    continue
                # A file that is no link, in a folder whose real path is known, needs no
                # realpath() (an lstat per path component: most of a cold listing's time).
                where = os.path.realpath(item.path) if item.is_symlink() else f"{real}/{name}"
                by_real.setdefault(where, []).append(_Found(item.path, prefix + name))
            _remove_stale_temp_files(folder, [item.name for item in files])
        found: list[_Found] = []
        for where, paths in by_real.items():
            if len(paths) == 1:
                found.append(paths[0])
                continue
            # One real file reached by several paths: listed once, under its own path when
            # one of them is (not through a link), else under the first by name.
            own = [f for f in paths if where == os.path.join(real_top, *f.name.split("/"))]
            found.append((own or sorted(paths, key=lambda f: f.name))[0])
        found.sort(key=lambda f: f.name)
        self._attachments = tuple(sorted(attachments))
        return found, sum(len(paths) - 1 for paths in by_real.values())

    def load(self, *, fresh: bool = False) -> KnowledgeBaseSnapshot:
        """Read every note; writes nothing to the folder (ADR 0016). A file whose stamp is
        as when it was last read is taken from the note index, not read again (ADR 0036),
        unless `fresh` (F5) or its bytes were seen to differ from what was read."""
        if not self._folder.is_dir():
            raise NoteError(
                f"The notes folder {self._folder} does not exist. Create it, or choose "
                "another notes folder in Settings (or File › Open notes folder…)."
            )
        broken: list[BrokenNote] = []
        by_id: dict[str, _Loaded] = {}
        cached = self._read_cache()
        used: dict[str, Any] = {}
        indexed = {} if fresh else self._read_index()
        with self._lock:
            started = self._write_seq  # Coach's writes from here on win over what is read
            distrusted, self._distrusted = self._distrusted, set()
        files, _ = self._files()
        read_ns = time.time_ns()  # before any stamp is taken: a stamp is trusted later
        raws: dict[str, bytes] = {}
        stamps: dict[str, Stamp] = {}
        unchanged: dict[str, IndexedFile] = {}
        for item in files:
            try:
                stamp: Stamp | None = stamp_of(os.stat(item.path))
            except OSError:
                stamp = None
            known = indexed.get(item.name) if item.name not in distrusted else None
            if known is not None and stamp is not None and known.still(stamp):
                unchanged[item.name] = known
                continue
            try:  # never a pipe or a device: they would hang or flood every command
                raws[item.name] = read_limited(item.path, front_matter.MAX_NOTE_BYTES)
            except NotANoteFile as exc:
                broken.append(BrokenNote(file_name=item.name, error=str(exc)))
                continue
            except OSError as exc:
                broken.append(BrokenNote(file_name=item.name, error=_unreadable(exc)))
                continue
            if stamp is not None:
                stamps[item.name] = stamp
        digests = {name: _digest(raw) for name, raw in raws.items()}  # each file hashed once
        renames = {name: _rename_digest(raw, digests[name]) for name, raw in raws.items()}
        digests.update((name, known.digest) for name, known in unchanged.items())
        renames.update((name, known.rename) for name, known in unchanged.items())
        with self._lock:
            self._take_back_ids(digests, renames)
            ids = self._ids.resolve(renames)
        parsed: list[_Loaded] = []
        now_indexed: dict[str, IndexedFile] = {}
        for item in files:
            name = item.name
            known = unchanged.get(name)
            if known is not None:
                parsed.append(_taken_back(name, known, ids[name], cached, used))
                now_indexed[name] = known
                continue
            raw = raws.get(name)
            if raw is None:
                continue  # could not be read: listed as broken
            try:
                view = _CacheView(cached, used)
                loaded = self._parse(raw, name, ids[name], view, digest=digests[name])
            except NoteError as exc:
                error = str(exc)
                if len(raw) > front_matter.MAX_NOTE_BYTES:  # read in part: its size on disk
                    with contextlib.suppress(OSError):
                        error = str(front_matter.too_big(os.stat(self._folder / name).st_size))
                broken.append(BrokenNote(file_name=name, error=error))
                continue
            parsed.append(loaded)
            if name in stamps:
                now_indexed[name] = IndexedFile(
                    stamps[name], read_ns, loaded.digest, renames[name], loaded.parsed
                )
        with self._lock:  # the id map is shared with saves on the writer thread
            for loaded in self._one_file_per_id(parsed, raws, ids):
                by_id[loaded.parsed.note.id] = loaded
        with self._lock:
            self._merge_writes_since(started, by_id)  # a save while this load ran wins
            self._by_id = by_id
            self._ids.flush()
        entries = [NoteEntry(note=v.parsed.note, file_name=v.file_name) for v in by_id.values()]
        if used.keys() != cached.keys():
            self._write_cache(used)
        if raws or now_indexed.keys() != indexed.keys():
            self._write_index(now_indexed)
        broken.sort(key=lambda b: b.file_name)
        return KnowledgeBaseSnapshot(
            location=str(self._folder),
            notes=tuple(ordered(entries)),
            broken=tuple(broken),
            attachments=self._attachments,
        )

    def _one_file_per_id(
        self, parsed: list[_Loaded], raws: dict[str, bytes], ids: dict[str, str]
    ) -> list[_Loaded]:
        """Files whose front matter holds the same `id:` (a copy, a sync conflict): the one
        that held it before keeps it — else the oldest file, then the first by name — and
        each other is a note of its own, with the id Coach keeps for its path."""
        by_own: dict[str, list[_Loaded]] = {}
        for loaded in parsed:
            by_own.setdefault(loaded.parsed.note.id, []).append(loaded)
        kept: list[_Loaded] = []
        for note_id, same in by_own.items():
            if len(same) == 1:
                kept.append(same[0])
                if same[0].parsed.has_id:
                    self._ids.claim(note_id, same[0].file_name)
                continue
            holder = self._ids.claimed(note_id)
            same.sort(key=lambda f: (f.file_name != holder, self._mtime(f.file_name), f.file_name))
            kept.append(same[0])
            self._ids.claim(note_id, same[0].file_name)
            for other in same[1:]:
                log.info("%s has the id of %s; using its own", other.file_name, same[0].file_name)
                raw = raws.get(other.file_name)
                try:  # taken from the note index: read now
                    if raw is None:
                        path = self._folder / other.file_name
                        raw = read_limited(path, front_matter.MAX_NOTE_BYTES)
                    kept.append(
                        self._parse(raw, other.file_name, ids[other.file_name], None,
                                    ignore_id=True)
                    )  # fmt: skip
                except (OSError, NoteError) as exc:  # changed since it was listed: next time
                    log.info("%s could not be read again: %s", other.file_name, exc)
        return kept

    def _mtime(self, name: str) -> float:
        try:
            return (self._folder / name).stat().st_mtime
        except OSError:
            return float("inf")

    def _merge_writes_since(self, started: int, by_id: dict[str, _Loaded]) -> None:
        """Saves, new notes and deletes made while a load was reading the files: the load
        may have read a file before Coach wrote it, so Coach's own record wins."""
        for note_id, (seq, loaded) in list(self._recent.items()):
            if seq <= started:
                del self._recent[note_id]  # older than this load: it read them from disk
                continue
            for other, was in list(by_id.items()):
                if loaded is not None and was.file_name == loaded.file_name and other != note_id:
                    del by_id[other]  # the same file, read under another id
            if loaded is None:
                by_id.pop(note_id, None)
            else:
                by_id[note_id] = loaded

    def _record_write(self, note_id: str, loaded: _Loaded | None) -> None:
        self._write_seq += 1
        self._recent[note_id] = (self._write_seq, loaded)

    def _read_index(self) -> dict[str, IndexedFile]:
        if self._index_file is None:
            return {}
        return read_index(self._index_file, str(self._folder))

    def _write_index(self, files: dict[str, IndexedFile]) -> None:
        if self._index_file is not None:
            write_index(self._index_file, str(self._folder), files)

    def _read_cache(self) -> dict[str, Any]:
        if self._cache_file is None:
            return {}
        try:
            raw = read_limited(self._cache_file, MAX_CACHE_BYTES)
            if len(raw) > MAX_CACHE_BYTES:
                return {}  # not one Coach wrote (it writes at most that much)
            data = json.loads(raw)
        except (OSError, ValueError, NotANoteFile):
            return {}  # a missing or damaged cache only costs time
        return data if isinstance(data, dict) else {}

    def _write_cache(self, entries: dict[str, Any]) -> None:
        if self._cache_file is None:
            return
        kept: list[str] = []
        size = 2
        for key, value in entries.items():  # what fits under the bound; the rest is parsed
            item = json.dumps({key: value}, ensure_ascii=False, separators=(",", ":"))[1:-1]
            length = len(item.encode("utf-8")) + 1
            if size + length > MAX_CACHE_BYTES:
                continue  # too big to keep: the entries after it may still fit
            size += length
            kept.append(item)
        try:
            atomic_write(self._cache_file, ("{" + ",".join(kept) + "}").encode("utf-8"))
        except OSError as exc:
            log.info("front-matter cache not written: %s", exc)

    def _parse(
        self,
        raw: bytes,
        name: str,
        kept_id: str,
        cache: dict[str, Any] | None,
        *,
        ignore_id: bool = False,
        digest: str | None = None,
    ) -> _Loaded:
        stem = _stem(name.rsplit("/", 1)[-1])
        if ignore_id:  # read it as a note whose front matter holds no id
            parsed = front_matter.parse(raw, fallback_id=kept_id, file_stem=stem)
            parsed = _without_own_id(parsed, kept_id)
        else:
            parsed = front_matter.parse(raw, fallback_id=kept_id, file_stem=stem, yaml_cache=cache)
        return _Loaded(file_name=name, parsed=parsed, digest=digest or _digest(raw))

    def save(self, note: Note, *, folder: str = "", file_name: str | None = None) -> NoteEntry:
        """`file_name`: the file the note was opened from. When Coach now lists the note's
        id for another file (a restored note took the id back), nothing is written."""
        with self._lock:
            previous = self._by_id.get(note.id)
            if previous is None:
                return self._create(note, folder)
            if file_name is not None and previous.file_name != file_name:
                raise NoteError(
                    f"“{note.title}” was not saved, so that no other note is overwritten: "
                    f"{previous.file_name}, a note put back meanwhile, is listed in its place. "
                    f"Nothing was written. Copy your changes, reload the notes (F5), open "
                    f"{file_name} again and paste them."
                )
            path = self._folder / previous.file_name
            if previous.parsed.note == note:
                return NoteEntry(note=note, file_name=previous.file_name)
            self._check_unchanged_on_disk(path, previous)
            raw = front_matter.render(note, previous.parsed)
            self._write(Path(os.path.realpath(path)), raw)  # through a symlink: its target
            parsed = front_matter.parse(raw, fallback_id=note.id, file_stem=_stem(path.name))
            if not previous.parsed.has_id:
                parsed = _without_own_id(parsed, note.id)
                self._ids.remember(previous.file_name, note.id, _rename_digest(raw))
                self._ids.flush()
            self._by_id[note.id] = _Loaded(previous.file_name, parsed, _digest(raw))
            self._record_write(note.id, self._by_id[note.id])
            return NoteEntry(note=parsed.note, file_name=previous.file_name)

    def changed_elsewhere(self, paths: Iterable[str]) -> bool:
        """Whether any of these paths (relative, '/'-separated) changed in a way Coach did
        not make itself: the watcher asks, so Coach's own saves and deletes are no news."""
        with self._lock:
            by_name = {loaded.file_name: loaded for loaded in self._by_id.values()}
            gone = self._deleted_by_us
            for path in paths:
                if path in gone:
                    if not os.path.lexists(self._folder / path):
                        continue  # the file Coach moved to the trash: no news
                    gone.discard(path)  # a file is there again: another program's
                    return True
                loaded = by_name.get(path)
                if loaded is None:
                    return True  # a file Coach does not know, or an attachment
                try:
                    raw = read_limited(self._folder / path, front_matter.MAX_NOTE_BYTES)
                except (OSError, NotANoteFile):
                    return True  # gone (moved or deleted by someone else), or no file now
                if _digest(raw) != loaded.digest:
                    self._distrusted.add(path)
                    return True
            return False

    def save_copy(self, note: Note, *, file_name: str | None = None) -> NoteEntry:
        """The learner's version as a file beside theirs: the same front matter (every
        key the learner keeps) with this edit, no `id:` line (it is a note of its own, with
        the id Coach keeps for its path), named "<title> (my edit <when>)". `file_name`:
        the file the note was opened from (another note's file lends it nothing)."""
        with self._lock:
            previous = self._by_id.get(note.id)
            if previous is not None and file_name is not None and previous.file_name != file_name:
                previous = None  # the id is another file's now: a new note beside the old file
            name = previous.file_name if previous is not None else (file_name or "")
            folder = name.rsplit("/", 1)[0] if "/" in name else ""
            stamp = datetime.now().strftime("%Y-%m-%d %H.%M")
            where = self._folder / folder if folder else self._folder
            taken = [p.stem for p in where.glob("*") if p.suffix.lower() == ".md"]
            stem = note_file_stem(f"{note.title} (my edit {stamp})", taken=taken)
            rel = f"{folder}/{stem}.md" if folder else f"{stem}.md"
            copy_id = self._ids.first_id(rel)  # as if first seen there
            if previous is None:
                return self._create(note.model_copy(update={"id": copy_id}), folder, stem=stem)
            raw = front_matter.without_id(front_matter.render(note, previous.parsed))
            self._write(where / f"{stem}.md", raw)
            parsed = front_matter.parse(raw, fallback_id=copy_id, file_stem=stem)
            loaded = _Loaded(rel, parsed, _digest(raw))
            self._by_id[copy_id] = loaded
            self._record_write(copy_id, loaded)
            self._ids.remember(rel, copy_id, _rename_digest(raw))
            self._ids.flush()
            return NoteEntry(note=parsed.note, file_name=rel)

    def _create(self, note: Note, folder: str, *, stem: str | None = None) -> NoteEntry:
        """A new file named after the title in `folder` (inside the knowledge base)."""
        parts = [p for p in folder.replace("\\", "/").split("/") if p not in ("", ".")]
        if ".." in parts or any(p.startswith(".") for p in parts):
            parts = []  # never outside the vault, nor into a hidden folder
        where = self._folder.joinpath(*parts)
        taken = (
            [p.stem for p in where.iterdir() if p.suffix.lower() == ".md"] if where.is_dir() else []
        )
        stem = note_file_stem(stem or note.title, taken=taken)
        name = "/".join([*parts, f"{stem}.md"])
        raw = front_matter.render(note)
        self._write(where / f"{stem}.md", raw)
        parsed = front_matter.parse(raw)
        self._by_id[note.id] = _Loaded(name, parsed, _digest(raw))
        self._record_write(note.id, self._by_id[note.id])
        return NoteEntry(note=parsed.note, file_name=name)

    def _check_unchanged_on_disk(self, path: Path, previous: _Loaded) -> None:
        try:
            current = _digest(read_limited(path, front_matter.MAX_NOTE_BYTES))
        except FileNotFoundError:
            raise NoteConflict(
                f"{previous.file_name} was moved or deleted outside Coach. Copy your changes, "
                "then reload the notes (F5)."
            ) from None
        except OSError as exc:
            raise NoteError(f"{previous.file_name} cannot be read ({exc.strerror}).") from None
        if current != previous.digest:
            self._distrusted.add(previous.file_name)  # read it again, whatever its stamp
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

    def delete(self, note_id: str) -> DeletedNote:
        """Move the note's file where the learner can get it back, and record where (to
        undo it): the vault's own `.trash` folder when it has one (Obsidian's setting),
        else the system trash (`send2trash`), else Coach's trash folder beside the vault."""
        with self._lock:
            previous = self._by_id.get(note_id)
            if previous is None:
                raise NoteNotFound(f"No note with id {note_id}; reload the notes (F5).")
            source = self._folder / previous.file_name
            vault_trash = self._folder / ".trash"
            raw: bytes | None
            try:
                raw = read_limited(source, front_matter.MAX_NOTE_BYTES)
                raw_digest = _digest(raw)  # what is trashed, to know it again
            except (OSError, NotANoteFile):
                raw, raw_digest = None, previous.digest
            if raw is not None and len(raw) > front_matter.MAX_NOTE_BYTES:
                raise _grown(previous.file_name)  # only its first 1 MB was read
            kind, info = note_trash.FOLDER, None
            stored: Path | None
            try:
                if vault_trash.is_dir():
                    stored = self._move_into(source, vault_trash, source.name, raw)
                elif (trashed := self._to_system_trash(source)) is not None:
                    kind, stored, info = trashed
                else:
                    stored = self._move_into(source, self._trash, previous.file_name, raw)
            except OSError as exc:
                raise NoteError(
                    f"Could not move {previous.file_name} to the trash ({exc.strerror}); "
                    "nothing was deleted."
                ) from None
            del self._by_id[note_id]
            self._record_write(note_id, None)
            self._deleted_by_us.add(previous.file_name)
            self._ids.forget(previous.file_name)
            self._ids.flush()
            return self._deleted.add(
                note_id=note_id,
                own_id=previous.parsed.has_id,
                title=previous.parsed.note.title,
                file_name=previous.file_name,
                kind=kind,
                where="the system trash" if kind != note_trash.FOLDER else str(stored),
                stored=stored,
                info=info,
                raw_digest=raw_digest,
            )

    def deleted(self) -> tuple[DeletedNote, ...]:
        """The notes Coach deleted from this folder that are still in a trash, newest first."""
        with self._lock:
            return self._deleted.listed()

    def restore(self, key: str, *, file_name: str | None = None) -> RestoredNote:
        """Put the deleted note back, at its own path (or `file_name`), with its id; and
        say which listed notes had that id and have one of their own now. RestoreBlocked
        when a file is there now: it is never overwritten."""
        with self._lock:
            entry = self._deleted.get(key)
            if entry is None:
                raise NoteNotFound(
                    "That note is no longer in the list of deleted notes; it may have been "
                    "restored already. Reload the notes (F5) to see it."
                )
            name = _inside(file_name or entry["file_name"])
            target = self._folder.joinpath(*name.split("/"))
            in_the_way = self._file_in_the_way(name)
            if in_the_way is not None:
                raise RestoreBlocked(in_the_way, self._free_name(name, in_the_way), folder=True)
            try:
                if os.path.lexists(target):
                    raise FileExistsError(name)
                raw = self._deleted.put_back(entry, target)
            except FileExistsError:
                raise RestoreBlocked(name, self._free_name(name)) from None
            except OSError as exc:
                raise NoteError(
                    f"Could not put {name} back ({exc.strerror}); it is still in {entry['where']}."
                ) from None
            # The note is back on disk: from here on this delete is done, whatever follows.
            self._deleted.forget(key)
            self._deleted_by_us.discard(entry["file_name"])
            own = entry["own_id"] is True  # a copy's `id:` is the original's, never its own
            loaded = self._parse(raw, name, entry["note_id"], None, ignore_id=not own)
            note_id = loaded.parsed.note.id
            took_from: list[str] = []  # files listed under its id meanwhile
            if loaded.parsed.has_id:
                self._ids.claim(note_id, name)  # the file that holds its id, as before
            else:
                took_from = self._ids.adopt(
                    name, note_id, _rename_digest(raw), vacated=entry["file_name"]
                )
            holder = self._by_id.get(note_id)
            if holder is not None and holder.file_name not in (name, *took_from):
                took_from.append(holder.file_name)  # a copy holding the same `id:`
            new_ids = tuple(
                NewId(old_id=note_id, entry=moved)
                for other in took_from
                if (moved := self._rekey(other, note_id)) is not None
            )
            self._by_id[note_id] = loaded
            self._record_write(note_id, loaded)
            self._ids.flush()
            return RestoredNote(
                entry=NoteEntry(note=loaded.parsed.note, file_name=name), new_ids=new_ids
            )

    def _file_in_the_way(self, name: str) -> str | None:
        """The folder on the way to `name` that is a file now, if one is."""
        parts = name.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            here = self._folder.joinpath(*parts[:depth])
            if os.path.lexists(here) and not here.is_dir():
                return "/".join(parts[:depth])
        return None

    def _free_name(self, name: str, in_the_way: str | None = None) -> str:
        """A free name beside `name`; beside `in_the_way` when a file stands where its
        folder was."""
        if in_the_way is not None:
            folder = in_the_way.rpartition("/")[0]
            name = f"{folder}/{name.rsplit('/', 1)[-1]}" if folder else name.rsplit("/", 1)[-1]
            if not os.path.lexists(self._folder / name):
                return name
        where = (self._folder / name).parent
        try:
            taken = [p.name for p in where.iterdir()]
        except OSError:
            taken = []
        return restored_name(name, taken)

    def _rekey(self, file_name: str, taken_id: str) -> NoteEntry | None:
        """Another file was listed under the id a restored note takes back: it gets an id
        of its own (the one Coach keeps for its path from now on)."""
        loaded = self._by_id.get(taken_id)
        if loaded is None or loaded.file_name != file_name:
            self._ids.own_id(file_name, taken_id)  # not listed yet: its id is set for later
            return None
        del self._by_id[taken_id]
        new_id = self._ids.own_id(file_name, taken_id)
        parsed = _without_own_id(loaded.parsed, new_id)
        self._by_id[new_id] = replace(loaded, parsed=parsed)
        self._record_write(new_id, self._by_id[new_id])
        return NoteEntry(note=parsed.note, file_name=file_name)

    def _take_back_ids(self, digests: dict[str, str], renames: dict[str, str]) -> None:
        """Notes Coach deleted that are back at their path with their bytes (put back
        outside Coach: Finder's Put Back, the Recycle Bin's Restore) keep their id."""
        for entry in self._deleted.returned(digests):
            name = entry["file_name"]
            if entry.get("own_id"):
                self._ids.claim(entry["note_id"], name)
            else:
                self._ids.adopt(name, entry["note_id"], renames.get(name, ""))
            self._deleted_by_us.discard(name)

    @property
    def trash_location(self) -> str:
        """Where a deleted note goes, in the learner's words."""
        if (self._folder / ".trash").is_dir():
            return f"the vault's .trash folder ({self._folder / '.trash'})"
        return "the system trash"

    @staticmethod
    def _to_system_trash(source: Path) -> tuple[str, Path | None, Path | None] | None:
        """The system trash: how to find the file there again (its kind, the file and its
        `.trashinfo` in the freedesktop trash), or None when there is no trash here."""
        before = note_trash.trash_infos(source) if note_trash.is_freedesktop() else set()
        try:
            send2trash(str(source))
        except (OSError, TrashPermissionError) as exc:  # no trash here: Coach's own, below
            log.info("system trash refused %s: %s", source.name, exc)
            return None
        if not note_trash.is_freedesktop():
            return note_trash.SYSTEM, None, None
        found = note_trash.find_trashed(source, before)
        if found is None:  # trashed, but not where the specification says
            log.info("%s went to the trash, but its trash info was not found", source.name)
            return note_trash.SYSTEM, None, None
        return note_trash.FREEDESKTOP, found[0], found[1]

    @staticmethod
    def _move_into(source: Path, folder: Path, name: str, raw: bytes | None) -> Path:
        """Move `source` to `folder/name`, or to a free name beside it ("<name> <when>",
        then "<name> <when> 2", …): never over a file in that trash."""
        first = folder / name
        first.parent.mkdir(parents=True, exist_ok=True)
        if raw is None:
            # for a copy where a move cannot link (another disk); never a pipe's endless read
            raw = read_limited(source, front_matter.MAX_NOTE_BYTES)
            if len(raw) > front_matter.MAX_NOTE_BYTES:  # a copy of it would be cut short
                raise _grown(name)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        n = 0
        while True:
            label = "" if n == 0 else f" {stamp}" if n == 1 else f" {stamp} {n}"
            target = first.with_name(f"{first.stem}{label}{first.suffix}")
            try:
                note_trash.move_out(source, target, raw)
                return target
            except FileExistsError:
                n += 1  # taken, in this second too: the next name


def _inside(name: str) -> str:
    """`name` as a path inside the knowledge base, '/'-separated; NoteError otherwise."""
    text = name.replace("\\", "/")
    parts = [p for p in text.split("/") if p not in ("", ".")]
    outside = text.startswith("/") or PureWindowsPath(name).drive != "" or ".." in parts
    if not parts or outside or any(p.startswith(".") for p in parts):
        raise NoteError(f"{name} is not a place inside your notes folder; choose another name.")
    if not parts[-1].lower().endswith(".md"):
        raise NoteError(f"{name} is not a Markdown file name; it must end in .md.")
    return "/".join(parts)


def _skipped(folder_name: str) -> bool:
    """Hidden folders (.obsidian, .trash, .git, ...) and node_modules hold no notes."""
    return folder_name in _SKIP_DIRS or folder_name.startswith(".")


def _stem(name: str) -> str:
    return name[:-3] if name.lower().endswith(".md") else name


def _grown(file_name: str) -> NoteError:
    return NoteError(
        f"{file_name} grew past 1 MB outside Coach since it was read, so Coach did not "
        "delete it. Reload the notes (F5) to see it as it is now."
    )


def _unreadable(exc: OSError) -> str:
    return f"cannot be read ({exc.strerror or exc})"


def _rename_digest(raw: bytes, digest: str | None = None) -> str:
    """What recognises a note moved outside Coach: its exact bytes ("" when too few);
    `digest` is `_digest(raw)` when it was taken already."""
    if len(raw) < _MIN_RENAME_BYTES:
        return ""
    return digest or _digest(raw)


def _taken_back(
    name: str, known: IndexedFile, kept_id: str, cached: dict[str, Any], used: dict[str, Any]
) -> _Loaded:
    """A file as the note index has it (unchanged since it was read), with the id Coach
    keeps for its path now when it has none of its own; its parsed front matter stays in
    the front-matter cache."""
    parsed = known.parsed
    if not parsed.has_id and parsed.note.id != kept_id:
        parsed = _without_own_id(parsed, kept_id)
    if parsed.front_matter_text is not None:
        key = front_matter.yaml_cache_key(parsed.front_matter_text)
        if key in cached:
            used[key] = cached[key]
    return _Loaded(file_name=name, parsed=parsed, digest=known.digest)


def _without_own_id(parsed: front_matter.ParsedFile, kept_id: str) -> front_matter.ParsedFile:
    """`parsed` with the id Coach keeps for it (its own `id:` stays in the file)."""
    note = parsed.note.model_copy(update={"id": kept_id})
    return replace(parsed, note=note, has_id=False)


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
