"""What sync needs (issue 20, ADR 0027): the learner's sync folder and the journal's side.

Real adapters: `adapters.sync_folder.SyncFolder`, `adapters.journal.sync.SqliteSyncJournal`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from coach_gui.domain.session_records import SessionRecords
from coach_gui.domain.sync import (
    DeviceSeen,
    ExportBatch,
    Segment,
    SegmentOutcome,
    StoredTypes,
    Unreadable,
)
from coach_gui.domain.sync_pairing import DeviceKey, Pairing
from coach_gui.services.ports.sealing import TraceRowReader

# (records of the sessions a segment touches, their trace rows) -> (id, reason) or None
SessionCheck = Callable[[Sequence[SessionRecords], TraceRowReader], tuple[str, str] | None]


class SyncFolder(Protocol):
    @property
    def device_id(self) -> str: ...

    def check(self) -> str | None:
        """Raise SyncError when the folder cannot be used (not there, not writable); why
        this computer's own folder in it cannot be used (a link), or None."""
        ...

    def devices(self) -> tuple[list[str], list[tuple[str, str]]]:
        """(device ids with a folder in it, this one's included; (name, why) of entries
        named like a device's folder that are not one)."""
        ...

    def files(self, device_id: str) -> tuple[list[str], list[tuple[str, str]]]:
        """(segment file names in sequence order; (name, why) of every other entry that
        is not temporary or the key file)."""
        ...

    def read(self, device_id: str, name: str) -> bytes | Unreadable | None:
        """The bytes; why not read (a link, pipe, device, too large); None: gone."""
        ...

    def refused_before(self, device_id: str, name: str, context: str) -> Unreadable | None:
        """Why the file was refused when last read, if unchanged since and checked
        against the same `context`; None: read it."""
        ...

    def remember_refused(self, device_id: str, name: str, context: str, why: Unreadable) -> None:
        """Remember that the file, as last read, was refused for `why`."""
        ...

    def keep_refusals(self, *, whole: bool) -> None:
        """Save what was remembered (`whole`: every file was looked at, so refusals of
        files gone or changed are dropped)."""
        ...

    def read_key(self, device_id: str) -> DeviceKey | str | None:
        """The public key the computer's folder announces, why not, or None (none)."""
        ...

    def write_key(self, data: bytes) -> str | None:
        """Write this computer's key file; why not, when something is in its place."""
        ...

    def write_own(self, name: str, data: bytes) -> None: ...


class SyncKey(Protocol):
    """This computer's signing key pair (the private half in the keyring)."""

    def public_key(self) -> bytes: ...

    def sign(self, data: bytes) -> bytes: ...


class SyncJournal(Protocol):
    def known_segments(self) -> set[tuple[str, str]]:
        """(device id, file name) of every segment written or imported here."""
        ...

    def devices_seen(self) -> list[DeviceSeen]: ...

    def last_sequence(self) -> int:
        """The largest sequence number of a segment this computer wrote (0: none)."""
        ...

    def pairing_history(self) -> list[Pairing]:
        """Every pairing record, in the order made."""
        ...

    def record_pairing(self, pairing: Pairing) -> None:
        """Store a pairing as a sealed record."""
        ...

    def sources(self) -> list[tuple[str, str, dict[str, int]]]:
        """(device id, name, records) of each computer records were imported from."""
        ...

    def origin_of(self, record_id: str) -> tuple[str, str] | None:
        """(device id, name) of the other device a record was imported from, or None."""
        ...

    def pending_export(self) -> ExportBatch:
        """Records ready to travel that no segment holds, one group per session."""
        ...

    def record_exported(self, marks: dict[str, int]) -> None:
        """Every record of the batch with these `marks` is in a segment now."""
        ...

    def record_written(self, segment: Segment, synced_at: str) -> None: ...

    def importing(self) -> AbstractContextManager[None]:
        """Around the import of many segments (the journal may write them faster, and
        commit a few at a time)."""
        ...

    def settle(self, now: bool = False) -> None:
        """Called while waiting for the next segment (or before reading one here, `now`):
        commit the ones imported so far if `now` or if they have been held a while."""
        ...

    def stored_types(self) -> StoredTypes:
        """Per table of a session's records, the value types each column stores as given."""
        ...

    def import_segment(
        self,
        segment: Segment,
        synced_at: str,
        check: SessionCheck,
        checked: Mapping[str, tuple[str, str] | None] | None = None,
    ) -> SegmentOutcome:
        """Merge `segment` in, all or nothing; `checked`: its whole sessions, checked."""
        ...
