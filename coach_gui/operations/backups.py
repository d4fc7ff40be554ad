"""Backing the journal up and restoring it from a backup (ADR 0009), checked first."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coach_gui.domain.backups import Restored
from coach_gui.domain.errors import JournalError
from coach_gui.operations.app import BackupPorts
from coach_gui.services.ports.sealing import SessionReader
from coach_gui.services.verify import verify


@dataclass(frozen=True)
class BackedUp:
    path: Path
    folder: Path
    kept: list[Path]  # every backup in the folder now, newest first


def back_up(app: BackupPorts) -> BackedUp:
    """Copy the journal into the backups folder now (SQLite's online backup, safe while
    Coach runs); only the newest `journal.keepBackups` are kept."""
    if not app.journal_path.is_file():
        raise JournalError(f"There is no journal at {app.journal_path} yet: nothing to back up.")
    backups = app.backups()
    with app.journal_held():  # no restore meanwhile
        made = backups.take_of_file("manual")
    return BackedUp(made, backups.folder, [b.path for b in backups.existing()])


def why_not_restore(traces: SessionReader) -> str | None:
    """Why a journal must not be restored (a sealed trace does not verify), or None."""
    failure = verify(traces).first_failure
    if failure is None:
        return None
    return (
        f"what it holds does not verify ({failure.id}: {failure.reason}); it was changed "
        "outside Coach or is damaged. Choose another backup."
    )


def restore(app: BackupPorts, source: Path) -> Restored:
    """Replace the journal with `source` once it checks out (an SQLite file that passes
    its integrity check, a schema no newer than this Coach's, every sealed trace
    verifying); the journal it replaces is kept in the backups folder."""
    return app.restore_journal(source, why_not_restore)
