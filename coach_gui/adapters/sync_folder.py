"""The learner's sync folder (issue 20, ADR 0027): one folder per device, each holding
that device's segment files. Coach writes only into this device's own folder, each
segment through a temporary name (fsynced, then renamed), and never changes or removes a
file after; it reads every device's folder.

This device's id is made once per installation and kept in the data folder, outside the
journal, so restoring a backup of the journal keeps it; the next segment's number comes
from the folder itself, so a restored device never reuses one.
"""

from __future__ import annotations

import json
import os
import platform
import uuid
from pathlib import Path

from coach_gui.domain.sync import DEVICE_ID, SEGMENT_NAME, SyncError
from coach_gui.files import atomic_write

DEVICE_FILE = "sync-device.json"


def device_identity(data_dir: Path) -> tuple[str, str]:
    """(device id, device name) of this installation, made the first time it is asked."""
    path = data_dir / DEVICE_FILE
    for _ in range(2):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            device_id, name = raw["device_id"], raw["name"]
            if isinstance(device_id, str) and DEVICE_ID.match(device_id) and isinstance(name, str):
                return device_id, name
            raise ValueError("not a device file")
        except FileNotFoundError:
            _create_identity(path)
        except (ValueError, KeyError, TypeError, OSError) as error:
            raise SyncError(
                f"Coach cannot read this computer's sync identity in {path} ({error}). "
                "If you moved it or changed it, put it back; if it is lost, remove the "
                "file and this computer syncs as a new device."
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


def _in_progress(name: str) -> bool:
    """A sync tool's or Coach's own temporary file (".x.tmp", "~syncthing~x.tmp")."""
    return name.startswith((".", "~"))


class SyncFolder:
    """The `SyncFolder` port over a folder on disk."""

    def __init__(self, root: Path, device_id: str) -> None:
        self.root = root
        self.device_id = device_id

    def check(self) -> None:
        """The folder is there and this device can write its own folder inside it."""
        if not self.root.is_dir():
            raise SyncError(
                f"The sync folder {self.root} is not there. If your sync tool keeps it on a "
                "drive that is not connected, connect it; otherwise choose the folder again "
                "in Settings › Sync."
            )
        own = self.root / self.device_id
        try:
            own.mkdir(exist_ok=True)
        except OSError as error:
            raise SyncError(
                f"Coach cannot write in the sync folder {self.root} ({error.strerror}). "
                "Check that it is writable, or choose another in Settings › Sync."
            ) from None

    def devices(self) -> list[str]:
        try:
            entries = list(os.scandir(self.root))
        except OSError as error:
            raise SyncError(
                f"Coach cannot read the sync folder {self.root} ({error.strerror})."
            ) from None
        return sorted(e.name for e in entries if DEVICE_ID.match(e.name) and e.is_dir())

    def files(self, device_id: str) -> tuple[list[str], list[str]]:
        """(segment file names in sequence order, other files that are not temporary)."""
        try:
            names = os.listdir(self.root / device_id)
        except FileNotFoundError:  # removed meanwhile
            return [], []
        except OSError as error:
            raise SyncError(
                f"Coach cannot read {self.root / device_id} ({error.strerror})."
            ) from None
        segments = sorted(n for n in names if SEGMENT_NAME.match(n))
        others = sorted(n for n in names if not SEGMENT_NAME.match(n) and not _in_progress(n))
        return segments, others

    def read(self, device_id: str, name: str) -> bytes | None:
        """The file's bytes, or None when it went away (moved by the sync tool) meanwhile."""
        try:
            return (self.root / device_id / name).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as error:
            raise SyncError(
                f"Coach cannot read {self.root / device_id / name} ({error})."
            ) from None

    def next_sequence(self) -> int:
        segments, _ = self.files(self.device_id)
        numbers = [int(SEGMENT_NAME.match(n)["sequence"]) for n in segments]  # type: ignore[index]
        return max(numbers, default=0) + 1

    def write_own(self, name: str, data: bytes) -> None:
        """A new segment in this device's folder, whole or not at all; never over a file."""
        path = self.root / self.device_id / name
        if path.exists():
            return  # the same name is the same content (the name carries its digest)
        try:
            atomic_write(path, data)
        except OSError as error:  # atomic_write left no file behind
            raise SyncError(
                f"Coach could not write to the sync folder {self.root} ({error.strerror}). "
                "Free some space or check the folder, then sync again."
            ) from None
