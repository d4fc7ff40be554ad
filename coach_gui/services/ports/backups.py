"""The journal's backups folder, as backing up and restoring see it (ADR 0009)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from coach_gui.domain.backups import Backup


class BackupFolder(Protocol):
    @property
    def folder(self) -> Path: ...

    def existing(self) -> list[Backup]:
        """The backups kept, newest first."""
        ...

    def take_of_file(self, reason: str) -> Path:
        """Back the journal file up now (SQLite's online backup); returns the new file."""
        ...
