"""Who has the journal open. Every open journal holds a shared lock on a small file beside
it (`<journal>.lock`); a restore takes it exclusively, so it never replaces the file under
a running Coach, and a Coach starting meanwhile waits for the restore to finish.

The operating system drops the lock when its process ends, even when killed. Where
`fcntl` is missing (Windows) there is no lock, and a restore cannot tell.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from coach_gui.domain.errors import JournalError

try:
    import fcntl
except ImportError:  # not POSIX: no lock
    fcntl = None  # type: ignore[assignment]

_POLL_SECONDS = 0.02


class JournalInUse(JournalError):
    """Another Coach (the app or a command) has the journal open."""


def lock_path(journal_path: Path) -> Path:
    return journal_path.with_name(journal_path.name + ".lock")


def _open_lock_file(journal_path: Path) -> int:
    path = lock_path(journal_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)


def hold_shared(journal_path: Path, *, wait_seconds: float) -> int | None:
    """Mark the journal as open by this process; returns the descriptor to pass to
    `release` (None where there is no locking). Waits up to `wait_seconds` for a restore."""
    if fcntl is None:
        return None
    try:
        fd = _open_lock_file(journal_path)
    except OSError:
        return None  # a read-only folder: opening the journal itself will say what is wrong
    deadline = time.monotonic() + wait_seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return fd
        except OSError:
            if time.monotonic() > deadline:
                os.close(fd)
                raise JournalError(
                    f"The journal {journal_path} is being restored from a backup by another "
                    "Coach command; wait for it to finish, then try again."
                ) from None
            time.sleep(_POLL_SECONDS)


def release(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing drops the lock


@contextlib.contextmanager
def exclusive(journal_path: Path) -> Iterator[None]:
    """Hold the journal for this process alone, or raise JournalInUse at once."""
    if fcntl is None:
        yield
        return
    try:
        fd = _open_lock_file(journal_path)
    except OSError as error:
        raise JournalError(
            f"Coach cannot use the folder of {journal_path} ({error.strerror}); check that "
            "it exists and is writable."
        ) from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise JournalInUse(
                f"The journal {journal_path} is open in another Coach window or command. "
                "Close Coach (every window and command), then run this again."
            ) from None
        yield
    finally:
        os.close(fd)
