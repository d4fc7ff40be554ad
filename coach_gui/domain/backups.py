"""Backups of the journal and restores from them, as plain records (ADR 0009)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True)
class Backup:
    path: Path
    taken_at: datetime
    reason: str  # daily | manual | pre-v<N> | before-restore | damaged


@dataclass(frozen=True)
class Restored:
    source: Path
    journal: Path
    schema_version: int  # of the file as it was (it is migrated when restored)
    previous: Path | None  # where the journal it replaced was kept
