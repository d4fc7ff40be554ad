"""Restoring the journal from a backup file, checked before anything is replaced.

The file is copied beside the journal and the copy is checked: it must be an SQLite
database that passes `PRAGMA integrity_check`, hold a Coach schema no newer than ours,
and pass the caller's check (every sealed trace verifies). Only then, while no other
Coach has the journal open, is the current journal kept as a backup and the copy renamed
over it: a crash at any point leaves the old journal or the restored one, whole.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

from coach_gui.adapters.journal import lock as journal_lock
from coach_gui.adapters.journal.backups import JournalBackups
from coach_gui.adapters.journal.database import Journal, integrity_problems
from coach_gui.adapters.journal.schema import LATEST_VERSION
from coach_gui.domain.backups import Restored
from coach_gui.domain.errors import JournalError
from coach_gui.files import fsync_dir, fsync_file

_SQLITE_MAGIC = b"SQLite format 3\x00"
_SIDECARS = ("-wal", "-shm", "-journal")

# Given the opened (and migrated) copy, returns why it must not be restored, or None.
RestoreCheck = Callable[[Journal], str | None]


class RestoreRefused(JournalError):
    """The file was not restored; the current journal is untouched."""


class JournalInUseByAnother(journal_lock.JournalInUse):
    """A program other than Coach holds the journal (its WAL cannot be folded in)."""

    def __init__(self, path: Path) -> None:
        super().__init__(
            f"The journal {path} is in use by another program; close it, then try again."
        )


def _sidecar(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _remove_with_sidecars(path: Path) -> None:
    for suffix in ("", *_SIDECARS, ".lock"):
        with contextlib.suppress(FileNotFoundError):
            _sidecar(path, suffix).unlink()


def _refuse(source: Path, why: str) -> RestoreRefused:
    return RestoreRefused(f"{source} was not restored: {why} Your current journal is unchanged.")


def _check_copy(source: Path, copy: Path) -> int:
    """The schema version of the staged copy, read through a read-only connection."""
    with copy.open("rb") as handle:
        if handle.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
            raise _refuse(source, "it is not an SQLite database (not a Coach backup).")
    conn = sqlite3.connect(copy.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        found = integrity_problems(conn) or ["ok"]
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_schema")}
    except sqlite3.DatabaseError as error:
        raise _refuse(source, f"the file is damaged ({error}); choose another backup.") from None
    finally:
        conn.close()
    if found != ["ok"]:
        raise _refuse(source, f"the file is damaged ({found[0]}); choose another backup.")
    if version > LATEST_VERSION:
        raise _refuse(
            source,
            f"it was written by a newer Coach (schema v{version}; this Coach knows up to "
            f"v{LATEST_VERSION}). Update Coach first.",
        )
    if version < 1 or "sessions" not in tables:
        raise _refuse(source, "it is an SQLite database but not a Coach journal.")
    return version


def _settle(path: Path) -> None:
    """Fold a WAL into the main file and drop the sidecars, so the file stands alone."""
    if not path.exists():
        return
    conn = sqlite3.connect(path, timeout=10.0)
    try:
        busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    finally:
        conn.close()
    if busy:
        raise JournalInUseByAnother(path)
    for suffix in _SIDECARS:
        with contextlib.suppress(FileNotFoundError):
            _sidecar(path, suffix).unlink()


def restore_journal(
    source: Path, backups: JournalBackups, check: RestoreCheck, *, keep_as: str = "before-restore"
) -> Restored:
    """Replace the journal with a checked copy of `source`; RestoreRefused (or
    JournalInUse) leaves the current journal exactly as it was."""
    journal_path = backups.journal_path
    if not source.is_file():
        raise _refuse(source, "there is no such file.")
    if source.resolve() == journal_path.resolve():
        raise _refuse(source, "that is the journal itself; choose a file in the backups folder.")
    wal = _sidecar(source, "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise _refuse(
            source,
            f"it has unsaved changes in {wal.name} beside it (it is open, or was not closed "
            "cleanly). Choose a file from the backups folder.",
        )
    staging = _sidecar(journal_path, ".restoring")
    with journal_lock.exclusive(journal_path):
        _remove_with_sidecars(staging)
        try:
            try:
                shutil.copyfile(source, staging)
            except OSError as error:
                raise _refuse(source, f"it could not be read ({error.strerror}).") from None
            version = _check_copy(source, staging)
            try:
                # The staging copy is disposable (the source file is untouched): migrating it
                # must not add a backup, nor prune one of the learner's real ones.
                restored = Journal.open(staging, backup_before_migration=False)
            except JournalError as error:
                raise _refuse(source, f"it could not be opened ({error}).") from None
            try:
                problems = restored.integrity_check()
                why = check(restored) if not problems else None
            finally:
                restored.close()
            if problems:
                raise _refuse(source, f"the file is damaged ({problems[0]}).")
            if why is not None:
                raise _refuse(source, why)
            _settle(staging)
            fsync_file(staging)
            previous = _keep_current(backups, keep_as)
            os.replace(staging, journal_path)
            fsync_dir(journal_path.parent)
        finally:
            _remove_with_sidecars(staging)
    return Restored(source, journal_path, version, previous)


def _keep_current(backups: JournalBackups, reason: str) -> Path | None:
    """Keep the journal about to be replaced: a backup copy, or (when SQLite cannot read
    it) the file itself moved into the backups folder."""
    path = backups.journal_path
    if not path.exists() or path.stat().st_size == 0:
        return None
    try:
        _settle(path)
        kept = backups.take_of_file(reason)
    except journal_lock.JournalInUse:
        raise
    except (JournalError, sqlite3.Error):
        return backups.keep_aside("damaged")
    for suffix in _SIDECARS:
        with contextlib.suppress(FileNotFoundError):
            _sidecar(path, suffix).unlink()
    return kept
