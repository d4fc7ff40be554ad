"""Durable file writes: a reader sees the old file or the new one, never half of either."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from pathlib import Path


def fsync_dir(folder: Path) -> None:
    """Persist a rename or create in `folder` (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def fsync_file(path: Path) -> None:
    """Persist a file's contents written by someone else (e.g. SQLite's backup API)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# In the name of every temp file Coach writes (".note.md.coach-k3j9x2ab.tmp"): no other
# program uses it, so Coach removes only its own leftovers (Syncthing's partial downloads
# are ".syncthing.note.md.tmp" and "~syncthing~note.md.tmp").
TEMP_MARK = "coach-"
_OWN_TEMP = re.compile(r"^\..+\." + TEMP_MARK + r"[A-Za-z0-9_]{6,}\.tmp$")


def is_own_temp_file(name: str) -> bool:
    return _OWN_TEMP.match(name) is not None


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temp file in the same folder: write, fsync,
    replace, fsync the folder. On any failure the old file is left as it was."""
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.{TEMP_MARK}", suffix=".tmp", dir=folder)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(OSError):
            # mkstemp makes 0600 files; keep the old file's mode, or the usual 0644.
            mode = path.stat().st_mode & 0o7777 if path.exists() else 0o644
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(folder)
