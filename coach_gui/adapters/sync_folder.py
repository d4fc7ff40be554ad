"""The learner's sync folder (issue 20, ADR 0027): one folder per device, each holding
that device's segment files. Coach writes only into this device's own folder, each
segment through a temporary name (fsynced, then renamed), and never changes or removes a
file after; it reads every device's folder.

This device's id is made once per installation and kept in the data folder, outside the
journal, so restoring a backup of the journal keeps it. The next segment's number comes
from the segments this computer wrote (its own, signed with its key, imported back after
a restore), never from a name someone else put in its folder (issue 34).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import platform
import stat
import uuid
from pathlib import Path

from coach_gui.domain.sync import DEVICE_ID, SEGMENT_LIMIT, SEGMENT_NAME, SyncError, Unreadable
from coach_gui.domain.sync_pairing import KEY_FILE, KEY_FILE_LIMIT, DeviceKey, parse_key_file
from coach_gui.files import NotARegularFile, atomic_write, atomic_write_in, read_limited

log = logging.getLogger(__name__)
DEVICE_FILE = "sync-device.json"
REFUSALS_FILE = "sync-refused.json"  # in the data folder: files read and refused before
_MAX_REFUSALS = 10_000  # remembered at most; past it the oldest are read again


def device_identity(data_dir: Path) -> tuple[str, str]:
    """(device id, device name) of this installation, made the first time it is asked."""
    path = data_dir / DEVICE_FILE
    for _ in range(2):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            device_id, name = raw["device_id"], raw["name"]
            known = isinstance(device_id, str) and DEVICE_ID.fullmatch(device_id)
            if known and isinstance(name, str):
                return device_id, name
            raise ValueError("not a device file")
        except FileNotFoundError:
            _create_identity(path)
        except (ValueError, KeyError, TypeError, OSError) as error:
            log.warning("sync identity %s not read: %s: %s", path, type(error).__name__, error)
            raise SyncError(
                f"Coach cannot read this computer's sync identity in {path}. If you moved "
                "it or changed it, put it back; if it is lost, remove the file and this "
                "computer syncs as a new computer, to be paired again on your other ones."
            ) from None
    raise SyncError(f"Coach could not make this computer's sync identity in {path}.")


def _create_identity(path: Path) -> None:
    """Write a new identity unless another Coach process wrote one first (O_EXCL)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    name = platform.node() or "this computer"
    data = json.dumps({"device_id": uuid.uuid4().hex, "name": name}) + "\n"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _size_and_time(path: Path) -> tuple[int, int] | None:
    """(size, modification time in ns) of the file itself (not a link's target); None
    when it cannot be looked at."""
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return found.st_size, found.st_mtime_ns


def _in_progress(name: str) -> bool:
    """A sync tool's or Coach's own temporary file (".x.tmp", "~syncthing~x.tmp")."""
    return name.startswith((".", "~"))


def _why_not(entry: os.DirEntry[str], limit: int) -> str | None:
    """Why the folder entry is not a file sync reads (None: it is a regular file, not a
    link, of a size a segment can have). Never opens it."""
    try:
        if entry.is_symlink():
            return "it is a link, not a file; Coach never follows one here"
        if not entry.is_file(follow_symlinks=False):
            kind = "a folder" if entry.is_dir(follow_symlinks=False) else "not an ordinary file"
            return f"it is {kind}, not a segment file; left as it is"
        if entry.stat(follow_symlinks=False).st_size > limit:
            return f"it is larger than any segment ({limit // (1024 * 1024)} MB); left as it is"
    except OSError as error:
        return f"it cannot be looked at ({error.strerror})"
    return None


_SWAPPED = (
    "this computer's folder in the sync folder became a link while Coach was syncing, so "
    "nothing was written through it; remove the link and sync again"
)


class SyncFolder:
    """The `SyncFolder` port over a folder on disk. Nothing in it is trusted: another
    program may put anything there (issue 34). Coach reads only regular files of a sane
    size under a name of the exact shape, never through a link, never blocking on a pipe;
    and writes only into this computer's own folder, never through a link."""

    def __init__(self, root: Path, device_id: str, refusals: Path | None = None) -> None:
        """`refusals`: where the files read and refused are remembered between syncs (by
        name, size and modification time), so an unchanged one is not read again; None:
        only for this object's life."""
        self.root = root
        self.device_id = device_id
        self._refusals_path = refusals
        # key -> [reason, refused, complete] (an incomplete file changes as it is copied)
        self._refusals: dict[str, list[object]] | None = None
        self._used: set[str] = set()  # keys looked up or remembered in this sync
        self._changed = False  # something remembered since it was loaded
        self._stats: dict[tuple[str, str], tuple[int, int]] = {}  # of files read, as read

    def check(self) -> str | None:
        """Raise SyncError when the folder cannot be used (not there, not writable); why
        this computer's own folder in it cannot be used (it is a link, or not a folder:
        Coach would write outside the sync folder), or None."""
        if not self.root.is_dir():
            raise SyncError(
                f"The sync folder {self.root} is not there. If your sync tool keeps it on a "
                "drive that is not connected, connect it; otherwise choose the folder again "
                "in Settings › Sync."
            )
        own = self.root / self.device_id
        problem = self._own_problem(own)
        if problem is not None:
            return problem
        try:
            own.mkdir(exist_ok=True)
        except FileExistsError:  # made meanwhile as something else
            return self._own_problem(own)
        except OSError as error:
            raise SyncError(
                f"Coach cannot write in the sync folder {self.root} ({error.strerror}). "
                "Check that it is writable, or choose another in Settings › Sync."
            ) from None
        return self._own_problem(own)

    @staticmethod
    def _own_problem(own: Path) -> str | None:
        try:
            mode = os.lstat(own).st_mode
        except FileNotFoundError:
            return None
        except OSError as error:
            return f"this computer's folder {own.name} cannot be looked at ({error.strerror})"
        if stat.S_ISLNK(mode):
            return (
                f"this computer's folder {own.name} in the sync folder is a link to somewhere "
                "else, so Coach writes nothing there; remove the link (Coach makes the folder "
                "again)"
            )
        if not stat.S_ISDIR(mode):
            return (
                f"{own.name} in the sync folder should be this computer's folder but is not a "
                "folder, so Coach writes nothing there; remove it (Coach makes the folder again)"
            )
        return None

    def devices(self) -> tuple[list[str], list[tuple[str, str]]]:
        """(the device ids with a folder in it, this one's included; (name, why) of each
        entry named like a device's folder that is not a folder, e.g. a link)."""
        try:
            entries = list(os.scandir(self.root))
        except OSError as error:
            raise SyncError(
                f"Coach cannot read the sync folder {self.root} ({error.strerror})."
            ) from None
        found: list[str] = []
        refused: list[tuple[str, str]] = []
        for entry in entries:
            if not DEVICE_ID.fullmatch(entry.name):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    found.append(entry.name)
                elif entry.is_symlink():
                    refused.append((entry.name, "it is a link, not a folder; never followed"))
                else:
                    refused.append((entry.name, "it is not a folder; left as it is"))
            except OSError:
                continue
        return sorted(found), sorted(refused)

    def files(self, device_id: str) -> tuple[list[str], list[tuple[str, str]]]:
        """(segment file names in sequence order; (name, why) of every other entry that is
        not a temporary file or the computer's key file)."""
        try:
            entries = list(os.scandir(self.root / device_id))
        except FileNotFoundError:  # removed meanwhile
            return [], []
        except OSError as error:
            return [], [(".", f"the folder cannot be read ({error.strerror})")]
        segments: list[str] = []
        others: list[tuple[str, str]] = []
        for entry in entries:
            name = entry.name
            if SEGMENT_NAME.fullmatch(name):
                why = _why_not(entry, SEGMENT_LIMIT)
                if why is None:
                    segments.append(name)
                else:
                    others.append((name, why))
            elif name != KEY_FILE and not _in_progress(name):
                others.append((name, "not a Coach sync segment; left as it is"))
        return sorted(segments), sorted(others)

    def read(self, device_id: str, name: str) -> bytes | Unreadable | None:
        """The file's bytes; why it is not read (a link, a pipe, a device, too large: it
        may have been swapped in since it was listed); None when it went away meanwhile
        (moved by the sync tool)."""
        path = self.root / device_id / name
        before = _size_and_time(path)
        try:
            data = read_limited(path, SEGMENT_LIMIT, follow=False)
        except FileNotFoundError:
            return None
        except NotARegularFile as error:
            return Unreadable(f"it is {error.kind}, not a segment file; left as it is", True)
        except OSError as error:
            return Unreadable(f"it cannot be read ({error.strerror}); tried again next sync", False)
        if len(data) > SEGMENT_LIMIT:
            return Unreadable("it is larger than any segment; left as it is", True)
        if before is not None and before[0] == len(data) and _size_and_time(path) == before:
            self._stats[(device_id, name)] = before  # what a refusal of these bytes is kept by
        return data

    def refused_before(self, device_id: str, name: str, context: str) -> Unreadable | None:
        """Why this file was refused when it was last read, if it has not changed since
        (same size and modification time) and `context` (what it was checked against:
        the key, the format) is the same; None: it is to be read."""
        now = _size_and_time(self.root / device_id / name)
        if now is None:
            return None
        key = self._key(device_id, name, now, context)
        kept = self._load().get(key)
        if kept is None:
            return None
        self._used.add(key)
        reason, refused, complete = kept
        return Unreadable(str(reason), complete=bool(complete), refused=bool(refused))

    def remember_refused(self, device_id: str, name: str, context: str, why: Unreadable) -> None:
        """Remember that the file, as last read, was refused for `why` (when it was read
        whole and did not change while it was)."""
        read_as = self._stats.get((device_id, name))
        if read_as is None:  # not read whole, or changed while it was
            return
        key = self._key(device_id, name, read_as, context)
        self._load()[key] = [why.reason, why.refused, why.complete]
        self._used.add(key)
        self._changed = True

    def keep_refusals(self, *, whole: bool) -> None:
        """Save the refusals remembered; `whole` (the sync looked at every file): those of
        files no longer there, or changed, are dropped."""
        if self._refusals_path is None or self._refusals is None:
            return
        kept = self._refusals
        if whole:
            kept = {k: v for k, v in kept.items() if k in self._used}
        if len(kept) > _MAX_REFUSALS:
            kept = dict(list(kept.items())[-_MAX_REFUSALS:])
        if not self._changed and len(kept) == len(self._refusals):
            return  # as it was on disk: not written again
        data = json.dumps({"folder": str(self.root), "refused": kept}).encode("utf-8")
        try:
            atomic_write(self._refusals_path, data)
        except OSError as error:  # only a memory: the files are read again next time
            log.warning("sync could not keep its list of refused files: %s", error.strerror)

    def _key(self, device_id: str, name: str, stat: tuple[int, int], context: str) -> str:
        return f"{device_id}/{name}/{stat[0]}/{stat[1]}/{context}"

    def _load(self) -> dict[str, list[object]]:
        if self._refusals is not None:
            return self._refusals
        self._refusals = {}
        if self._refusals_path is None:
            return self._refusals
        try:
            raw = json.loads(read_limited(self._refusals_path, 16 * 1024 * 1024))
            if raw.get("folder") == str(self.root):  # another folder: nothing applies
                self._refusals = {
                    str(k): [str(v[0]), bool(v[1]), bool(v[2])]
                    for k, v in dict(raw["refused"]).items()
                }
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError) as error:
            log.warning(
                "sync's list of refused files was not read (%s): all are read again",
                type(error).__name__,
            )
        return self._refusals

    def read_key(self, device_id: str) -> DeviceKey | str | None:
        """The public key the computer's folder announces; why it cannot be read; None
        when there is no key file (yet)."""
        try:
            data = read_limited(self.root / device_id / KEY_FILE, KEY_FILE_LIMIT, follow=False)
        except FileNotFoundError:
            return None
        except NotARegularFile as error:
            return f"its key file is {error.kind}"
        except OSError as error:
            return f"its key file cannot be read ({error.strerror})"
        return parse_key_file(data, device_id)

    def write_key(self, data: bytes) -> str | None:
        """This computer's key file in its own folder, unless it holds `data` already;
        why not, when something that is no file (a folder) is in its place: Coach never
        removes what it did not write, and sync goes on without it (issue 34 review)."""
        path = self.root / self.device_id / KEY_FILE
        with contextlib.suppress(OSError):
            if read_limited(path, KEY_FILE_LIMIT, follow=False) == data:
                return None
        try:
            atomic_write_in(path.parent, path.name, data)
        except NotARegularFile:
            return _SWAPPED
        except OSError as error:
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.lstat(path).st_mode):
                    return (
                        f"{KEY_FILE} in this computer's folder is a folder, so Coach cannot put "
                        "its key there and the other computers cannot pair this one; remove it"
                    )
            raise SyncError(
                f"Coach could not write to the sync folder {self.root} ({error.strerror}). "
                "Free some space or check the folder, then sync again."
            ) from None
        return None

    def write_own(self, name: str, data: bytes) -> None:
        """A new segment in this device's folder, whole or not at all; never over a file."""
        path = self.root / self.device_id / name
        if os.path.lexists(path):
            return  # the same name is the same content (the name carries its digest)
        try:
            atomic_write_in(path.parent, path.name, data)
        except NotARegularFile:
            raise SyncError(f"Coach did not sync: {_SWAPPED}.") from None
        except OSError as error:  # atomic_write left no file behind
            raise SyncError(
                f"Coach could not write to the sync folder {self.root} ({error.strerror}). "
                "Free some space or check the folder, then sync again."
            ) from None
