"""Where Coach keeps things: `COACH_HOME` for data, `COACH_CONFIG` for the config file,
else the platform's user folders."""

from __future__ import annotations

import os
import sys
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


CONFIG_FILE_NAME = "coach.config.json"
MAX_CONFIG_BYTES = 1_000_000  # Coach writes ~2 KB; anything near this is not its file


def config_file() -> Path:
    """`COACH_CONFIG` if set, else coach.config.json in the user's config folder."""
    override = os.environ.get("COACH_CONFIG")
    if override:
        return Path(override).expanduser()
    return config_dir() / CONFIG_FILE_NAME


def kept_listing_file(data: Path) -> Path:
    """The note listing kept in the data folder `data` to show at the next start (issue
    38): never in the notes folder."""
    return data / "cache" / "listing.json"


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


def system_trash() -> Path | None:
    """The folder the system trash keeps deleted files in, where Coach can name it: the
    freedesktop home trash (Linux, BSD; what send2trash uses there). None on macOS and
    Windows, whose Trash and Recycle Bin are no folder to name."""
    if sys.platform in ("darwin", "win32"):
        return None
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home) / "Trash" / "files"


def deleted_notes_places(kb: Path) -> list[tuple[str, Path | None]]:
    """Where a note Coach deletes goes, in the order the store tries them, as (what, folder)
    for the learner: the vault's own `.trash` when it has one (then nothing else is used);
    else the system trash; and Coach's own trash folder only once it holds something (it
    is used only where there is no system trash). A None folder: the system trash has no
    folder to show (macOS, Windows)."""
    vault_trash = kb / ".trash"
    if vault_trash.is_dir():
        return [("Deleted notes (the vault's .trash folder)", vault_trash)]
    system = "Trash" if sys.platform == "darwin" else "Recycle Bin"
    places: list[tuple[str, Path | None]] = [
        ("Deleted notes (the system trash)", system_trash())
        if sys.platform not in ("darwin", "win32")
        else (f"Deleted notes (the system {system})", None)
    ]
    own = trash_dir(kb)
    if own.is_dir():
        places.append(("Deleted notes where there was no system trash", own))
    return places
