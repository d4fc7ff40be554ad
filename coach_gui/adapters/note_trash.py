"""What Coach deleted, and where it went, so a delete can be undone (ADR 0024).

A note Coach deletes is moved, never erased: into the vault's own `.trash` folder, the
system trash, or Coach's trash folder beside the vault. Coach keeps a small record of each
delete in its data folder (never in the vault): the note's id and path, where the file went
and the digest of its bytes. From it a note is put back at its own path, with its id, so its
sessions and memory stay attached — and only ever into a free place: a file that took its
place is never overwritten.

Where the file can be found again:
- a folder (the vault's `.trash`, Coach's own): its path in that folder;
- the freedesktop trash (Linux, BSD; what send2trash uses there): the `.trashinfo` file
  that appeared for it, whose `Path=` names it, and the file beside it in `files/`;
- the macOS Trash and the Windows Recycle Bin: send2trash does not say where the file
  went, and Coach cannot look inside (macOS guards ~/.Trash), so the learner puts it back
  there (Put Back, Restore); Coach recognises it by its bytes at its path and gives it its
  id again.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import logging
import os
import shutil
import stat
import sys
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from pydantic import ValidationError

from coach_gui.domain.deleted_notes import DeletedNote
from coach_gui.domain.errors import NoteError
from coach_gui.files import atomic_write, fsync_dir

log = logging.getLogger(__name__)

FOLDER = "folder"  # the vault's .trash, or Coach's trash folder: a plain move
FREEDESKTOP = "freedesktop"  # $XDG_DATA_HOME/Trash or a volume's .Trash-$uid
SYSTEM = "system"  # macOS Trash, Windows Recycle Bin: Coach cannot look inside
KEPT_UNSEEN = timedelta(days=30)  # a delete Coach cannot check on is listed this long
MAX_KEPT = 500  # the record holds at most this many deletes, newest kept
PLATFORM = sys.platform  # which system trash send2trash uses


def digest(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# --- the freedesktop trash ------------------------------------------------------------


def is_freedesktop() -> bool:
    """Whether send2trash uses the freedesktop trash on this system (not macOS, Windows)."""
    return PLATFORM not in ("darwin", "win32")


def _mount_point(path: Path) -> Path:
    here = os.path.realpath(path)
    while not os.path.ismount(here):
        here = os.path.dirname(here)
    return Path(here)


def _home_trash() -> tuple[Path, Path]:
    """The home trash and the folder its `Path=` lines are relative to."""
    data_home = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return data_home / "Trash", data_home


def _trashes(source: Path) -> list[tuple[Path, Path]]:
    """Every trash send2trash may put `source` in, each with its top folder."""
    top = _mount_point(source.parent)
    uid = str(os.getuid()) if hasattr(os, "getuid") else ""
    return [_home_trash(), (top / ".Trash" / uid, top), (top / f".Trash-{uid}", top)]


def trash_infos(source: Path) -> set[Path]:
    """The `.trashinfo` files there are now (before a delete: to see which one is new)."""
    found: set[Path] = set()
    for trash, _top in _trashes(source):
        with contextlib.suppress(OSError):
            found.update(p for p in (trash / "info").iterdir() if p.suffix == ".trashinfo")
    return found


def find_trashed(source: Path, before: set[Path]) -> tuple[Path, Path] | None:
    """The file `source` became in the freedesktop trash and its `.trashinfo`: the new
    info file whose `Path=` names `source`."""
    wanted = {os.path.abspath(source), os.path.realpath(source)}
    for trash, top in _trashes(source):
        try:
            infos = sorted(p for p in (trash / "info").iterdir() if p.suffix == ".trashinfo")
        except OSError:
            continue
        for info in infos:
            if info in before:
                continue
            named = _info_path(info)
            if named is None:
                continue
            where = named if os.path.isabs(named) else os.path.join(top, named)
            if os.path.abspath(where) in wanted or os.path.realpath(where) in wanted:
                return trash / "files" / info.name[: -len(".trashinfo")], info
    return None


def _info_path(info: Path) -> str | None:
    try:
        text = info.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("Path="):
            return unquote(line[len("Path=") :], errors="surrogateescape")
    return None


def _trash_holding(stored: Path, source: Path) -> tuple[Path, Path] | None:
    """The freedesktop trash (and its top folder) whose `files/` holds `stored` directly,
    among those send2trash may have put `source` in."""
    folder = os.path.realpath(stored.parent)
    for trash, top in _trashes(source):
        if folder == os.path.realpath(trash / "files"):
            return trash, top
    return None


def _names(info: Path, source: Path, top: Path) -> bool:
    """Whether the `.trashinfo` says it is for `source` (what a file manager restores)."""
    named = _info_path(info)
    if named is None:
        return False
    where = named if os.path.isabs(named) else os.path.join(top, named)
    wanted = {os.path.abspath(source), os.path.realpath(source)}
    return os.path.abspath(where) in wanted or os.path.realpath(where) in wanted


def _within(path: Path, folder: Path) -> bool:
    """Whether `path` (its folder followed through any symlink) is inside `folder`."""
    here = os.path.join(os.path.realpath(path.parent), path.name)
    top = os.path.realpath(folder)
    return here != top and os.path.commonpath([here, top]) == top


# --- the record -------------------------------------------------------------------------


def _advice(name: str) -> str:
    if PLATFORM == "darwin":
        return (
            f"Coach cannot open the macOS Trash itself: open the Trash in Finder, select "
            f"“{name}” and choose File › Put Back. Coach then finds it again, with its history."
        )
    if PLATFORM == "win32":
        return (
            f"Coach cannot open the Recycle Bin itself: open the Recycle Bin, right-click "
            f"“{name}” and choose Restore. Coach then finds it again, with its history."
        )
    return (
        f"Coach could not find where the system trash keeps “{name}”: open the trash in "
        "your file manager, select it and choose Restore. Coach then finds it again, with "
        "its history."
    )


_KINDS = (FOLDER, FREEDESKTOP, SYSTEM)
_TEXT = ("key", "note_id", "title", "file_name", "deleted_at", "kind", "where", "stored", "info")


def _relative_note_path(name: str) -> bool:
    parts = name.split("/")
    return (
        "\\" not in name
        and ":" not in parts[0]
        and all(p and p not in (".", "..") and not p.startswith(".") for p in parts)
        and parts[-1].lower().endswith(".md")
    )


class DeletedNotes:
    """The deletes of the knowledge base `vault`, kept in `file` (None: in memory only).
    `trash` is Coach's own trash folder beside it. A note is only ever put back from, and
    a file only ever removed in, the trash folders a delete uses."""

    def __init__(self, file: Path | None, *, vault: Path, trash: Path) -> None:
        self._file = file
        self._vault = vault
        self._trash = trash
        self._unread: list[Any] = []  # entries this Coach cannot use: kept in the file as they are
        self._read_entries: list[dict[str, Any]] | None = None

    @property
    def _entries(self) -> list[dict[str, Any]]:
        """Read (and checked) when first needed: on a worker, never while a window opens."""
        if self._read_entries is None:
            self._read_entries = self._read()
        return self._read_entries

    @_entries.setter
    def _entries(self, entries: list[dict[str, Any]]) -> None:
        self._read_entries = entries

    def _read(self) -> list[dict[str, Any]]:
        if self._file is None:
            return []
        try:
            data = json.loads(self._file.read_bytes())
        except FileNotFoundError:
            return []
        except OSError as exc:  # there, but not readable: never written over either
            log.warning("record of deleted notes not read (%s); deletes kept in memory", exc)
            self._file = None
            return []
        except ValueError as exc:
            self._set_aside(f"not JSON ({exc})")
            return []
        listed = data.get("deleted") if isinstance(data, dict) else None
        if not isinstance(listed, list):
            self._set_aside("no list of deletes in it")
            return []
        entries: list[dict[str, Any]] = []
        for item in listed:
            problem = self._problem(item)
            if problem is None:
                entries.append(item)
            else:
                log.warning("a deleted note's record is not used: %s", problem)
                self._unread.append(item)
        return entries

    def _set_aside(self, why: str) -> None:
        """The record cannot be read: keep it beside, as it is, and start a new one."""
        record = self._file
        if record is None:
            return
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        for n in itertools.count(1):
            label = f"{stamp}-{n}" if n > 1 else stamp
            aside = record.with_name(f"{record.stem}.unreadable-{label}{record.suffix}")
            if os.path.lexists(aside):
                continue  # never over an earlier one
            try:
                os.rename(record, aside)
            except OSError as exc:
                log.warning("record of deleted notes unreadable and not set aside: %s", exc)
                self._file = None  # in memory only: the old record stays untouched
                return
            log.warning("record of deleted notes unreadable (%s); kept as %s", why, aside.name)
            return

    def _problem(self, entry: object) -> str | None:
        """Why `entry` cannot be used (None: it can): every field of the right kind, and
        the file it names inside the trash its delete used."""
        if not isinstance(entry, dict):
            return "not a record"
        for name in _TEXT:
            if not isinstance(entry.get(name), str):
                return f"no {name}"
        if not isinstance(entry.get("own_id"), bool) or not isinstance(entry.get("digest"), str):
            return "no own_id or digest"
        if entry["kind"] not in _KINDS:
            return f"unknown kind {entry['kind']!r}"
        if not _relative_note_path(entry["file_name"]):
            return f"{entry['file_name']!r} is not a note's place in the notes folder"
        try:
            when = datetime.fromisoformat(entry["deleted_at"])
        except ValueError:
            return f"no date in {entry['deleted_at']!r}"
        if when.tzinfo is None:
            return f"{entry['deleted_at']!r} has no time zone"
        try:
            self._record(entry)
        except ValidationError as exc:
            return f"not a deleted note ({exc.errors()[0]['msg']})"
        if entry["kind"] == SYSTEM:
            return None
        stored, source = Path(entry["stored"]), self._source(entry)
        if not stored.is_absolute():
            return "no place in a trash"
        if entry["kind"] == FOLDER:
            if not (_within(stored, self._vault / ".trash") or _within(stored, self._trash)):
                return f"{stored} is not in the vault's .trash nor in Coach's trash folder"
            return None if not entry["info"] else "a folder trash has no trash info"
        held = _trash_holding(stored, source)
        if held is None:
            return f"{stored} is not in the system trash"
        info = Path(entry["info"])
        if info.name != f"{stored.name}.trashinfo" or os.path.realpath(
            info.parent
        ) != os.path.realpath(held[0] / "info"):
            return f"{info} is not the trash info of {stored.name}"
        return None

    def _source(self, entry: Mapping[str, Any]) -> Path:
        """Where the note was, in the vault."""
        return self._vault.joinpath(*entry["file_name"].split("/"))

    def _write(self) -> None:
        if self._file is None:
            return
        listed = [*self._unread, *self._entries]
        text = json.dumps({"deleted": listed}, ensure_ascii=False, indent=1)
        try:
            atomic_write(self._file, text.encode("utf-8"))
        except OSError as exc:
            log.warning("record of deleted notes not written: %s", exc)

    def add(
        self,
        *,
        note_id: str,
        own_id: bool,
        title: str,
        file_name: str,
        kind: str,
        where: str,
        stored: Path | None = None,
        info: Path | None = None,
        raw_digest: str = "",
    ) -> DeletedNote:
        entry = {
            "key": uuid.uuid4().hex,
            "note_id": note_id,
            "own_id": own_id,
            "title": title,
            "file_name": file_name,
            "deleted_at": _now(),
            "kind": kind,
            "where": where,
            "stored": str(stored) if stored is not None else "",
            "info": str(info) if info is not None else "",
            "digest": raw_digest,
        }
        self._entries = [*self._entries, entry][-MAX_KEPT:]
        self._write()
        return self._record(entry)

    @staticmethod
    def _record(entry: Mapping[str, Any]) -> DeletedNote:
        restorable = entry["kind"] != SYSTEM
        name = entry["file_name"].rsplit("/", 1)[-1]
        return DeletedNote(
            key=entry["key"],
            note_id=entry["note_id"],
            title=entry["title"],
            file_name=entry["file_name"],
            deleted_at=entry["deleted_at"],
            where=entry["where"],
            restorable=restorable,
            advice="" if restorable else _advice(name),
        )

    def listed(self) -> tuple[DeletedNote, ...]:
        """Newest first; a delete whose file has left the trash (emptied, restored there)
        is forgotten, and one Coach cannot look for after `KEPT_UNSEEN`."""
        kept = [e for e in self._entries if self._still_there(e)]
        if len(kept) != len(self._entries):
            self._entries = kept
            self._write()
        return tuple(self._record(e) for e in reversed(kept))

    @staticmethod
    def _still_there(entry: Mapping[str, Any]) -> bool:
        if entry["kind"] == SYSTEM:
            when = datetime.fromisoformat(entry["deleted_at"])  # checked when read
            return datetime.now(UTC) - when < KEPT_UNSEEN
        return os.path.lexists(entry["stored"])

    def get(self, key: str) -> dict[str, Any] | None:
        return next((e for e in self._entries if e["key"] == key), None)

    def forget(self, key: str) -> None:
        self._entries = [e for e in self._entries if e["key"] != key]
        self._write()

    def returned(self, present: Mapping[str, str]) -> list[dict[str, Any]]:
        """Deletes whose note is back at its own path with its own bytes (`present`: path
        → digest), put back outside Coach (Finder's Put Back, a file manager): forgotten
        here, and returned so the note gets its id again."""
        back = [
            e
            for e in self._entries
            if e.get("digest") and present.get(e["file_name"]) == e["digest"]
        ]
        if back:
            keys = {e["key"] for e in back}
            self._entries = [e for e in self._entries if e["key"] not in keys]
            self._write()
        return back

    def put_back(self, entry: Mapping[str, Any], target: Path) -> bytes:
        """Move the deleted file to `target`, which must be free: FileExistsError when a
        file is there (it is left as it is). Returns the note's bytes. Once the note is at
        `target` it is back: a trash name that cannot be removed is only logged."""
        if entry["kind"] == SYSTEM:
            raise NoteError(self._record(entry).advice)
        problem = self._problem(entry)
        stored = Path(entry["stored"])
        gone = NoteError(
            f"“{entry['title']}” is no longer in {entry['where']}: the trash was emptied, or "
            "the file was restored or removed there, so Coach cannot put it back."
        )
        if problem is not None:
            log.warning("not restored from the record: %s", problem)
            raise NoteError(
                f"Coach's record of where “{entry['title']}” went is damaged, so Coach left "
                "the trash as it is; restore the note from the trash with your file manager."
            )
        try:
            if not stat.S_ISREG(os.lstat(stored).st_mode):
                raise NoteError(
                    f"What is in {entry['where']} is not a note file any more, so Coach left "
                    "it as it is."
                )
            raw = stored.read_bytes()
        except FileNotFoundError:
            raise gone from None
        except OSError as exc:
            raise NoteError(
                f"Coach could not read “{entry['title']}” in {entry['where']} "
                f"({exc.strerror}); it is left there."
            ) from None
        if entry.get("digest") and digest(raw) != entry["digest"]:
            raise NoteError(
                f"The file in {entry['where']} is no longer the note Coach deleted (it was "
                "changed there), so Coach left it as it is."
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        _place(stored, target, raw)
        try:
            stored.unlink()
        except OSError as exc:  # the note is back; a second name in the trash is harmless
            log.warning("%s restored, but its copy in the trash stays (%s)", target.name, exc)
        info = Path(entry["info"]) if entry["info"] else None
        held = _trash_holding(stored, self._source(entry)) if info is not None else None
        if info is not None and held is not None and _names(info, self._source(entry), held[1]):
            try:
                info.unlink()  # as a file manager does once a file is back
            except OSError as exc:
                log.info("trash info of %s not removed: %s", target.name, exc)
        return raw


def _place(stored: Path, target: Path, raw: bytes) -> None:
    """`stored`'s file at `target` too, never over a file there (FileExistsError): a hard
    link, or where links are impossible (another disk, FAT), its bytes written to a new
    file that must not exist yet."""
    try:
        os.link(stored, target, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
        fd = os.open(target, flags, 0o644)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(raw)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                target.unlink()
            raise
        with contextlib.suppress(OSError):
            shutil.copystat(stored, target)  # its times, as a move keeps them
    fsync_dir(target.parent)


def move_out(source: Path, target: Path, raw: bytes) -> None:
    """Move a note from the vault to `target` in a trash folder, never over a file there
    (FileExistsError). If the note cannot be removed from the vault, the copy is removed
    again and the error raised: nothing was deleted."""
    _place(source, target, raw)
    try:
        source.unlink()
    except OSError:
        with contextlib.suppress(OSError):
            target.unlink()
        raise
