"""Sync now (issue 20, ADR 0027): the window and `coach sync` run this one use case; and
pairing a computer, or forgetting it (issue 34, ADR 0033)."""

from __future__ import annotations

from collections.abc import Callable

from coach_gui.domain.errors import CoachError
from coach_gui.domain.sync import SyncError, SyncReport
from coach_gui.domain.sync_pairing import Pairing, fingerprint
from coach_gui.operations.app import SyncPorts
from coach_gui.services.ports.sync import SyncKey
from coach_gui.services.sync import pair, sync_now

SYNC_OFF = (
    "Sync is off: choose a folder your sync tool carries to your other computers in "
    "Settings › Sync (the settings file's Sync part), then sync again."
)


class SyncOff(SyncError):
    """No sync folder is chosen."""


def _key(app: SyncPorts) -> SyncKey:
    """This computer's signing key, made on first use; SyncError when the keyring does not
    give it (every segment must be signed, so nothing is written without it)."""
    key = app.sync_key()
    try:
        key.public_key()
    except SyncError:
        raise
    except CoachError as error:
        raise SyncError(
            f"Coach could not sync: {error} This computer's sync key is kept in the keyring, "
            "and nothing is synced without it."
        ) from None
    return key


def own_fingerprint(app: SyncPorts) -> str:
    """This computer's fingerprint, which the other computers show when pairing it."""
    return fingerprint(_key(app).public_key())


def sync(app: SyncPorts, *, stop: Callable[[], bool] = lambda: False) -> SyncReport:
    """Import this computer's and the paired computers' new records and export this one's;
    the status, with the computers waiting to be paired. `stop`: stop between two
    segments (quitting). Raises SyncOff when no folder is chosen and SyncError when it
    cannot be used."""
    root = app.config.sync.path()
    if root is None:
        raise SyncOff(SYNC_OFF)
    key = _key(app)
    _, name = app.device()
    return sync_now(
        app.sync_folder(root),
        app.sync_journal(),
        key,
        device_name=name,
        location=str(root),
        now=app.clock.now,
        stop=stop,
    )


def pair_computer(app: SyncPorts, wanted: str, *, trust: bool = True) -> Pairing:
    """Pair the computer whose fingerprint (or device id) is `wanted`, or (not `trust`)
    forget the paired one it names. Raises SyncOff / SyncError saying what to do."""
    root = app.config.sync.path()
    if root is None:
        raise SyncOff(SYNC_OFF)
    return pair(app.sync_folder(root), app.sync_journal(), wanted, at=app.clock.now(), trust=trust)
