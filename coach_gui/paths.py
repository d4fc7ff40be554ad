"""Where Coach keeps things: `COACH_HOME` for data, `COACH_CONFIG` for the config file,
else the platform's user folders."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

_APP = "coach"


def data_dir() -> Path:
    override = os.environ.get("COACH_HOME")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_data_dir(_APP, appauthor=False))


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(_APP, appauthor=False))


def log_dir() -> Path:
    return data_dir() / "logs"


def journal_path() -> Path:
    return data_dir() / "journal.sqlite3"


def default_kb_dir() -> Path:
    return data_dir() / "kb"


def kb_dir(configured: str | None) -> Path:
    """The knowledge base folder: `kb.path` from the config (``~`` expanded, relative to
    the data folder when relative), else ``<data>/kb``."""
    if not configured:
        return default_kb_dir()
    path = Path(configured).expanduser()
    return path if path.is_absolute() else data_dir() / path


def trash_dir(kb: Path) -> Path:
    """Deleted notes go here, never erased; it sits beside the knowledge base so a
    move is a rename on the same file system."""
    return kb.parent / f"{kb.name}-trash"
