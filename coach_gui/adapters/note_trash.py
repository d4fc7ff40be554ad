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
import json
import logging
import os
import shutil
import sys
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote

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


# --- the record -------------------------------------------------------------------------


def _advice(name: str) -> str:
    if PLATFORM == "darwin":
        return (
            f"Coach cannot open the macOS Trash itself: open the Trash in Finder, select "
            f"“{name}” and choose File › Put Back. Coach then finds it again, with its history."
        )
    return (
        f"Coach cannot open the Recycle Bin itself: open the Recycle Bin, right-click "
        f"“{name}” and choose Restore. Coach then finds it again, with its history."
    )


class DeletedNotes:
    """The deletes of one knowledge base, kept in `file` (None: in memory only)."""

    def __init__(self, file: Path | None) -> None:
        self._file = file
        self._entries: list[dict[str, Any]] = self._read()

    def _read(self) -> list[dict[str, Any]]:
        if self._file is None:
            return []
        try:
            data = json.loads(self._file.read_bytes())
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            log.warning("record of deleted notes not read (%s)", exc)
            return []
        listed = data.get("deleted") if isinstance(data, dict) else None
        if not isinstance(listed, list):
            return []
        keys = ("key", "note_id", "title", "file_name", "deleted_at", "kind", "where")
        return [
            e
            for e in listed
            if isinstance(e, dict) and all(isinstance(e.get(k), str) for k in keys)
        ]

    def _write(self) -> None:
        if self._file is None:
            return
        text = json.dumps({"deleted": self._entries}, ensure_ascii=False, indent=1)
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
            try:
                when = datetime.fromisoformat(entry["deleted_at"])
            except ValueError:
                return False
            return datetime.now(UTC) - when < KEPT_UNSEEN
        return bool(entry.get("stored")) and os.path.lexists(entry["stored"])

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
        stored = Path(entry["stored"])
        gone = NoteError(
            f"“{entry['title']}” is no longer in {entry['where']}: the trash was emptied, or "
            "the file was restored or removed there, so Coach cannot put it back."
        )
        try:
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
        if entry.get("info"):
            with contextlib.suppress(OSError):
                Path(entry["info"]).unlink()  # as a file manager does once a file is back
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
