"""Sync now (issue 20, ADR 0027): the window and `coach sync` run this one use case."""

from __future__ import annotations

from collections.abc import Callable

from coach_gui.domain.sync import SyncError, SyncReport
from coach_gui.operations.app import App
from coach_gui.services.sync import sync_now

SYNC_OFF = (
    "Sync is off: choose a folder your sync tool carries to your other computers in "
    "Settings › Sync (the settings file's Sync part), then sync again."
)


class SyncOff(SyncError):
    """No sync folder is chosen."""


def sync(app: App, *, stop: Callable[[], bool] = lambda: False) -> SyncReport:
    """Import every other device's new records and export this one's; the status. `stop`:
    stop between two segments (quitting). Raises SyncOff when no folder is chosen and
    SyncError when it cannot be used."""
    root = app.config.sync.path()
    if root is None:
        raise SyncOff(SYNC_OFF)
    _, name = app.device()
    return sync_now(
        app.sync_folder(root),
        app.sync_journal(),
        device_name=name,
        location=str(root),
        now=app.clock.now,
        stop=stop,
    )
