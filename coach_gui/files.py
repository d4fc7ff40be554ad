"""Durable file writes: a reader sees the old file or the new one, never half of either.
Bounded reads: a file that is a pipe, a device or endless never hangs or floods a reader."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
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


def atomic_write_in(folder: Path, name: str, data: bytes) -> None:
    """`atomic_write` of `folder / name` where `folder` itself must not be a link (it may
    be swapped for one by another program at any moment): the folder is opened once,
    without following a link, and the temp file written and renamed inside that open
    folder, so nothing lands elsewhere. Raises NotARegularFile("a link") when `folder` is
    a link. Where the system has no such calls (Windows), as `atomic_write`."""
    if not {os.open, os.rename} <= os.supports_dir_fd or not hasattr(os, "O_DIRECTORY"):
        atomic_write(folder / name, data)
        return
    try:
        dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise NotARegularFile("a link") from None
        raise
    try:
        tmp = f".{name}.{TEMP_MARK}{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(tmp, flags, 0o644, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)  # replaces on POSIX
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


class NotARegularFile(OSError):
    """The path is a pipe, a device, a socket or a folder (or a link to one): `kind` says
    which, in plain words."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"it is {kind}")
        self.kind = kind


def _kind(mode: int) -> str | None:
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "not an ordinary file"


# O_NONBLOCK is POSIX only (Windows has no FIFO in a folder to wait on); O_BINARY is
# Windows only, where without it os.read turns CRLF into LF and stops at a Ctrl+Z byte.
def _read_flags() -> int:
    flags = os.O_RDONLY
    for name in ("O_NONBLOCK", "O_BINARY", "O_CLOEXEC"):
        flags |= getattr(os, name, 0)
    return flags


def read_limited(path: str | os.PathLike[str], limit: int, *, follow: bool = True) -> bytes:
    """The bytes of the regular file at `path` (a symlink to one is followed unless not
    `follow`: then a link itself is refused, as "a link"), at most
    `limit` + 1 of them: a caller that gets more than `limit` knows the file is too big.
    The kind is checked before opening (a pipe or a device is never opened), the file is
    opened without blocking and checked again on the descriptor (it may have been swapped
    in between). Raises NotARegularFile for anything else, OSError when it cannot be read."""
    mode = os.stat(path).st_mode if follow else os.lstat(path).st_mode
    kind = "a link" if stat.S_ISLNK(mode) else _kind(mode)
    if kind is not None:
        raise NotARegularFile(kind)
    try:
        fd = os.open(path, _read_flags() | (0 if follow else getattr(os, "O_NOFOLLOW", 0)))
    except OSError as error:
        if not follow and error.errno == errno.ELOOP:  # swapped for a link meanwhile
            raise NotARegularFile("a link") from None
        raise
    try:
        kind = _kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise NotARegularFile(kind)
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
