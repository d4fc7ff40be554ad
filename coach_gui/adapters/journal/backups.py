"""Backups of the journal, all in one folder (`<data>/backups`): at most one a day when
Coach opens the journal, one before each migration, one before a restore, and one when
asked (`coach backup`). Only the newest `keep` are kept (ADR 0009).

Each is a single self-contained SQLite file made with SQLite's online backup API (a
consistent copy while Coach runs), written to a temp file, fsynced, then renamed into
place: a crash leaves the old set of backups, never half a backup.
"""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from coach_gui.domain.backups import Backup
from coach_gui.domain.errors import JournalError
from coach_gui.files import fsync_dir, fsync_file

log = logging.getLogger(__name__)

BACKUPS_FOLDER = "backups"
DEFAULT_KEEP = 7
DAILY = timedelta(days=1)
_STAMP = "%Y%m%dT%H%M%S%fZ"
_NAME = re.compile(r"^journal-(\d{8}T\d{12}Z)-([a-z0-9-]+)\.sqlite3$")
_STALE_PARTIAL_SECONDS = 3600  # a temp file this old was left by a crash, not in progress


def backups_dir(journal_path: Path) -> Path:
    return journal_path.parent / BACKUPS_FOLDER


def _utc_now() -> datetime:
    return datetime.now(UTC)


class JournalBackups:
    """The backups folder of one journal. `now` is injectable (tests)."""

    def __init__(
        self,
        journal_path: Path,
        *,
        keep: int = DEFAULT_KEEP,
        now: Callable[[], datetime] = _utc_now,
    ) -> None:
        if keep < 1:
            raise ValueError("keep at least one backup")
        self.journal_path = journal_path
        self.folder = backups_dir(journal_path)
        self.keep = keep
        self._now = now

    def existing(self) -> list[Backup]:
        """The backups in the folder, newest first (other files there are ignored)."""
        found = []
        with contextlib.suppress(FileNotFoundError):
            for entry in self.folder.iterdir():
                match = _NAME.match(entry.name)
                if match and entry.is_file():
                    taken = datetime.strptime(match[1], _STAMP).replace(tzinfo=UTC)
                    found.append(Backup(entry, taken, match[2]))
        return sorted(found, key=lambda b: (b.taken_at, b.path.name), reverse=True)

    def daily_due(self) -> bool:
        """No backup was taken in the last day (one dated in the future does not count:
        the clock was set back)."""
        now = self._now()
        return not any(timedelta(0) <= now - b.taken_at < DAILY for b in self.existing())

    def _target(self, reason: str) -> Path:
        stamp = self._now().astimezone(UTC)
        while True:
            target = self.folder / f"journal-{stamp.strftime(_STAMP)}-{reason}.sqlite3"
            if not target.exists():
                return target
            stamp += timedelta(microseconds=1)

    def take(self, source: sqlite3.Connection, reason: str) -> Path:
        """Copy the database behind `source` into a new backup; returns its path.
        Raises OSError or sqlite3.Error (the callers decide what a failure means)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self._remove_stale_partials()
        target = self._target(reason)
        partial = target.with_name(f".{target.name}.tmp")
        try:
            copy = sqlite3.connect(partial)
            try:
                source.backup(copy)
                # One self-contained file: reading it later leaves no -wal/-shm beside it.
                copy.execute("PRAGMA journal_mode = DELETE")
            finally:
                copy.close()
            fsync_file(partial)
            os.replace(partial, target)
        except BaseException:
            with contextlib.suppress(OSError):
                partial.unlink()
            raise
        fsync_dir(self.folder)
        self.prune(protect=target)
        return target

    def take_of_file(self, reason: str) -> Path:
        """Back up the journal file (read through its WAL) with a connection of its own.
        Raises JournalError when it cannot."""
        try:
            source = sqlite3.connect(self.journal_path, timeout=10.0)
            try:
                return self.take(source, reason)
            finally:
                source.close()
        except (OSError, sqlite3.Error) as error:
            raise JournalError(
                f"Coach could not back up the journal {self.journal_path} to {self.folder} "
                f"({error}). Check that the folder is writable and the disk has free space."
            ) from error

    def take_daily(self) -> Path | None:
        """The daily backup, when none was taken in the last day; never raises (a failed
        daily backup is logged, and Coach carries on with the journal)."""
        if not self.daily_due():
            return None
        try:
            return self.take_of_file("daily")
        except JournalError as error:
            log.warning("daily journal backup skipped: %s", error)
            return None

    def keep_aside(self, reason: str) -> Path:
        """Move the journal file itself (and its -wal, -shm) into the folder, for a file
        too damaged to copy through SQLite; nothing of it is lost."""
        self.folder.mkdir(parents=True, exist_ok=True)
        target = self._target(reason)
        for suffix in ("-wal", "-shm", ""):
            source = self.journal_path.with_name(self.journal_path.name + suffix)
            if source.exists():
                os.replace(source, target.with_name(target.name + suffix))
        fsync_dir(self.folder)
        fsync_dir(self.journal_path.parent)
        return target

    def prune(self, protect: Path | None = None) -> list[Path]:
        """Delete all but the newest `keep` backups; returns what was deleted. `protect`
        (the backup just taken) always stays and counts as one of them: after the clock
        was set back it would sort oldest, and a restore relies on its before-restore copy."""
        removed = []
        others = [b for b in self.existing() if b.path != protect]
        keep_others = self.keep - 1 if protect is not None and protect.exists() else self.keep
        for old in others[keep_others:]:
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError):
                    old.path.with_name(old.path.name + suffix).unlink()
            removed.append(old.path)
        return removed

    def _remove_stale_partials(self) -> None:
        cutoff = time.time() - _STALE_PARTIAL_SECONDS
        for entry in self.folder.glob(".journal-*.tmp"):
            with contextlib.suppress(OSError):
                if entry.stat().st_mtime < cutoff:
                    entry.unlink()
