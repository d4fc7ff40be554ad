"""Sync (issue 20, docs/adr/0027-two-devices-one-history.md): merge every device's new
segments into this journal, then write this device's new records as a segment of its own.

Import comes first, this device's own folder included: a device that restored a backup of
its journal gets its own later records back from there before it writes anything, so it
never writes a record twice. A segment is checked whole before any of it is stored: as a
file (complete, its digest, its device), record by record (as a local write would be),
and each session it touches as `coach verify` checks it; one that refers to records of a
segment not here yet waits for it, and is tried again once others are in.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass

from coach_gui.domain.session_records import SessionRecords
from coach_gui.domain.sync import (
    FORMAT,
    MAX_SEQUENCE,
    NOT_SIGNED,
    VERSION,
    Ignored,
    SegmentHeader,
    StoredTypes,
    SyncError,
    SyncRecord,
    SyncReport,
    Unreadable,
    device_label,
    segment_bytes,
    shown,
)
from coach_gui.domain.sync_pairing import (
    KEY_FILE,
    DeviceKey,
    Pairing,
    Waiting,
    fingerprint,
    key_file_bytes,
    matching,
    normalised_fingerprint,
    paired,
)
from coach_gui.services.ports.sealing import TraceRowReader
from coach_gui.services.ports.sync import SyncFolder, SyncJournal, SyncKey
from coach_gui.services.sync_prepare import Prepared, prepare
from coach_gui.services.verify import check_session

log = logging.getLogger(__name__)
MAX_SEGMENT_RECORDS = 5000  # a segment holds whole sessions, about this many records
_NOT_SEGMENT = "not a Coach sync segment; left as it is"
NOT_OURS = "it is in this computer's folder but not signed with this computer's key; not imported"
KEY_CHANGED = (
    "its key file now shows another key than the one it was paired with; only what is "
    "signed with the paired key is imported. If Coach was set up again there, forget it "
    "(`coach sync --forget`) and pair it again, comparing the fingerprints"
)
NO_KEY = (
    "its folder has no key file: Coach there is older than this one, or the folder is not "
    "Coach's; update Coach on that computer and sync there, then pair it here"
)
MAX_UNKNOWN_COMPUTERS = 64  # folders of computers not paired here looked at in one sync
TOO_MANY_UNKNOWN = (
    f"more than {MAX_UNKNOWN_COMPUTERS} computers not paired here have a folder in the sync "
    "folder, so this one was not looked at; remove the folders that are not your computers'. "
    "A computer of yours among them can still be paired by its fingerprint"
)
_STOPPED = "sync was stopped"
_AHEAD = 3  # segments the helper process reads ahead of the one being stored
_HELPER_SECONDS = 120.0  # a segment takes the helper about half a second
_POLL_SECONDS = 0.25  # how often a wait for the helper looks whether sync is stopping


def checked_against(key: bytes) -> str:
    """What a segment's refusal depends on besides its bytes: the key it must be signed
    with and the segment format this Coach reads (a refusal is remembered under it)."""
    return f"{VERSION}:{key.hex()}"


def check_sessions(
    records: Sequence[SessionRecords], rows: TraceRowReader
) -> tuple[str, str] | None:
    """The first record of these sessions that does not check out, as `coach verify`
    would report it: (id, reason), or None."""
    for session in records:
        failure = check_session(session, rows)
        if failure is not None:
            return failure.id, failure.reason
    return None


@dataclass
class _Ahead:
    """A file read, on its way to being prepared: by the helper (`future`) or here."""

    device: str
    name: str
    data: bytes
    future: Future[Prepared | Unreadable] | None = None
    ready: Prepared | Unreadable | None = None


class _Preparing:
    """The segments of `files` read and checked (`sync_prepare.prepare`), in order. With
    a helper, a second process does it for the next few while the caller stores one:
    the first is done here (while the helper starts) and any the helper could not do
    (it did not start, broke, or took too long) are done here too."""

    def __init__(
        self,
        folder: SyncFolder,
        types: StoredTypes,
        files: list[tuple[str, str]],
        keys: dict[str, bytes],
        helper: bool | None,
        before_waiting: Callable[[bool], None],
        stop: Callable[[], bool],
    ) -> None:
        self._before_waiting = before_waiting
        self._stop = stop
        self._finished = False
        self._folder = folder
        self._types = types
        self._files = files
        self._keys = keys  # device id -> the public key it was paired with
        if helper is None:  # worth it with a second core and more than one to read
            helper = _cores() >= 2
        self._pool = _helper_pool() if helper and len(files) >= 2 else None
        self._helped = 0  # segments the helper read

    def __enter__(self) -> Iterator[tuple[str, str, Prepared | Unreadable]]:
        return self._ready()

    def __exit__(self, *exc_info: object) -> None:
        self._close(broken=not self._finished)  # stopped early: the helper goes too

    def _close(self, *, broken: bool = False) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            if broken:  # a process that hangs or misbehaves does not stay behind
                for process in list((getattr(pool, "_processes", None) or {}).values()):
                    process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)
        if self._helped:
            log.info("a helper process read %d of %d segments", self._helped, len(self._files))
            self._helped = 0

    def _ready(self) -> Iterator[tuple[str, str, Prepared | Unreadable]]:
        files = iter(self._files)
        first: _Ahead | None = None
        for device, name in files:  # the first one is done here, while the helper starts
            first = self._read(device, name)
            if first is not None:
                break
        ahead: deque[_Ahead] = deque()
        self._fill(ahead, files)
        if first is not None:
            yield first.device, first.name, self._here(first)
        while True:
            self._fill(ahead, files)
            if not ahead:
                item = next(files, None)
                if item is None:
                    self._finished = True
                    return
                entry = self._read(*item)
                if entry is not None:
                    ahead.append(entry)
                continue
            entry = ahead.popleft()
            yield entry.device, entry.name, self._result(entry, ahead)

    def _fill(self, ahead: deque[_Ahead], files: Iterator[tuple[str, str]]) -> None:
        """Give the helper the next few files to read and check."""
        while self._pool is not None and len(ahead) < _AHEAD:
            item = next(files, None)
            if item is None:
                return
            entry = self._read(*item)
            if entry is not None:
                if entry.ready is None:
                    entry.future = self._submit(entry)
                ahead.append(entry)

    def _read(self, device: str, name: str) -> _Ahead | None:
        """The file read (None: it went away), or why it was not (a link, a pipe..., or
        it was refused before and has not changed since: not read again)."""
        before = self._folder.refused_before(device, name, checked_against(self._keys[device]))
        if before is not None:
            return _Ahead(device, name, b"", ready=before)
        data = self._folder.read(device, name)
        if data is None:
            return None
        if isinstance(data, Unreadable):
            return _Ahead(device, name, b"", ready=data)
        return _Ahead(device, name, data)

    def _submit(self, entry: _Ahead) -> Future[Prepared | Unreadable] | None:
        if self._pool is None:
            return None
        try:
            return self._pool.submit(
                prepare, entry.data, entry.device, entry.name, self._types, self._keys[entry.device]
            )
        except (RuntimeError, OSError) as error:  # the helper is gone: go on here
            log.warning("sync goes on without its helper process: %r", error)
            self._close(broken=True)
            return None

    def _here(self, entry: _Ahead) -> Prepared | Unreadable:
        if entry.ready is not None:
            return entry.ready
        self._before_waiting(True)  # reading one here takes as long as storing one
        return prepare(entry.data, entry.device, entry.name, self._types, self._keys[entry.device])

    def _result(self, entry: _Ahead, ahead: deque[_Ahead]) -> Prepared | Unreadable:
        if entry.ready is not None:
            return entry.ready
        future = entry.future
        if future is not None and self._pool is not None:
            if not future.done():
                self._take_back(ahead)
            try:
                prepared = self._wait(future)
            except _HelperFailed as failed:
                log.warning("sync goes on without its helper process: %r", failed.__cause__)
                self._close(broken=True)
            else:
                if prepared is None:  # stopping: the caller sees it next
                    return Unreadable(_STOPPED, complete=False)
                self._helped += 1
                return prepared
        return self._here(entry)

    def _take_back(self, ahead: deque[_Ahead]) -> None:
        """Rather than wait idle for the helper, read here the furthest file not yet
        handed to its process (the pool hands over one more than it is working on; the
        order they are stored in stays the same)."""
        for entry in reversed(ahead):
            if entry.ready is None and entry.future is not None and entry.future.cancel():
                entry.future = None
                entry.ready = self._here(entry)
                return

    def _wait(self, future: Future[Prepared | Unreadable]) -> Prepared | Unreadable | None:
        """The helper's result (None: sync is stopping); `_HelperFailed` when it did not
        start, died, hung two minutes, or anything else went wrong there (a value that
        did not travel between the processes, say): the segment is then read here, where
        a fault of its own shows as it would without a helper. An error of this process
        (committing what went in, say) is not the helper's and goes on up."""
        deadline = time.monotonic() + _HELPER_SECONDS
        while True:
            try:
                return future.result(timeout=_POLL_SECONDS)
            except FutureTimeout:
                pass
            except Exception as error:
                raise _HelperFailed from error
            self._before_waiting(False)  # a batch open a second by now is committed
            if self._stop():
                return None
            if time.monotonic() > deadline:
                raise _HelperFailed from FutureTimeout()


class _HelperFailed(Exception):
    """The helper process gave no result for a segment (`__cause__` says why)."""


@contextlib.contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """A long import makes millions of short-lived objects, none in a cycle (refcounts
    free them): the cyclic collector's full passes over them cost a tenth of the import.
    Paused meanwhile, for the whole process (the window's own cycles wait till after),
    and in the helper process (`_helper_pool`); resumed as it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _cores() -> int:
    """The cores this process may run on (fewer than the machine's under `taskset` or a
    container's CPU set)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on macOS or Windows
        return os.cpu_count() or 1


def _helper_pool() -> Executor | None:
    try:
        return ProcessPoolExecutor(
            max_workers=1, mp_context=multiprocessing.get_context("spawn"), initializer=gc.disable
        )
    except (OSError, ValueError, NotImplementedError) as error:
        log.warning("sync reads segments without a helper process: %s", error)
        return None


class _Run:
    def __init__(
        self,
        folder: SyncFolder,
        journal: SyncJournal,
        key: SyncKey,
        report: SyncReport,
        now: Callable[[], str],
        stop: Callable[[], bool],
    ) -> None:
        self.stop = stop
        self.folder = folder
        self.journal = journal
        self.key = key
        self.report = report
        self.now = now
        self.names = {d.device_id: d.name for d in journal.devices_seen()}
        self.names[report.device_id] = report.device_name
        self.keys: dict[str, bytes] = {}  # device id -> the key its segments must be signed with
        self.forgotten: set[str] = set()  # computers paired here once, then forgotten

    def label(self, device_id: str) -> str:
        return device_label(self.names.get(device_id, "a device"), device_id)

    def refuse(self, device_id: str, file: str, reason: str) -> None:
        self.report.refused.append(Ignored(self.label(device_id), shown(file), reason))

    def new_files(self, own_usable: bool) -> list[tuple[str, str]]:
        """(device id, file name) of every segment file not imported or written here yet,
        each device's in sequence order, from this computer's own folder and the folders
        of the computers paired here; each other computer's folder is listed as waiting
        to be paired."""
        known = self.journal.known_segments()
        seen_before = set(self.names)
        history = self.journal.pairing_history()
        pairings = paired(history)
        self.forgotten = {p.device_id for p in history} - set(pairings)
        own = self.report.device_id
        self.keys[own] = self.key.public_key()
        self.report.paired = [
            {"device_id": p.device_id, "name": shown(p.name), "fingerprint": p.fingerprint}
            for p in pairings.values()
        ]
        devices, odd = self.folder.devices()
        for name, why in odd:
            self.report.refused.append(Ignored("the sync folder", shown(name), why))
        found: list[tuple[str, str]] = []
        # At most so many folders of computers not paired here are looked at: those that
        # synced here before first (an upgrade's), so planted ones cannot push them out.
        unknown = sorted(
            (d for d in devices if d != own and d not in pairings),
            key=lambda d: (d not in seen_before, d),
        )
        skipped = set(unknown[MAX_UNKNOWN_COMPUTERS:])
        for device in devices:
            if device in skipped:
                self.report.ignored.append(
                    Ignored("the sync folder", shown(device), TOO_MANY_UNKNOWN)
                )
                continue
            if device == own:
                if not own_usable:
                    continue
            elif not self._paired(device, pairings, seen_before):
                continue
            segments, others = self.folder.files(device)
            for name, why in others:
                if why == _NOT_SEGMENT:
                    self.report.ignored.append(Ignored(self.label(device), shown(name), why))
                else:
                    self.refuse(device, name, why)
            found += [(device, name) for name in segments if (device, name) not in known]
        return found

    def _paired(self, device: str, pairings: dict[str, Pairing], seen_before: set[str]) -> bool:
        """Whether `device`'s segments are read: it is paired here (its key noted). If not,
        it waits for the learner to pair it, or is refused when it announces no key."""
        announced = self.folder.read_key(device)
        pairing = pairings.get(device)
        if isinstance(announced, DeviceKey):
            self.names.setdefault(device, announced.name)
        if pairing is not None:
            self.names[device] = self.names.get(device, pairing.name)
            self.keys[device] = bytes.fromhex(pairing.public_key)
            if isinstance(announced, DeviceKey) and announced.public_key != self.keys[device]:
                self.refuse(device, KEY_FILE, KEY_CHANGED)
            return True
        if isinstance(announced, DeviceKey):
            self.report.waiting.append(
                Waiting(
                    device_id=device,
                    name=shown(announced.name),
                    fingerprint=announced.fingerprint,
                    synced_before=device in seen_before,
                    forgotten=device in self.forgotten,
                )
            )
        elif announced is None:
            self.refuse(device, KEY_FILE, NO_KEY)
        else:
            self.refuse(device, KEY_FILE, f"{announced}; nothing from it is imported")
        return False

    def merge(self, files: list[tuple[str, str]], helper: bool | None) -> None:
        """Import until nothing more goes in: one that waits is tried after the others."""
        pending: list[tuple[Prepared, str]] = []
        types = self.journal.stored_types()
        many = len(files) >= 2
        bulk = self.journal.importing() if many else contextlib.nullcontext()
        paused = _cyclic_gc_paused() if many else contextlib.nullcontext()
        preparing = _Preparing(
            self.folder, types, files, self.keys, helper, self.journal.settle, self.stop
        )
        with paused, bulk, preparing as ready:
            for device, name, prepared in ready:
                if self.stop():  # quitting: what went in stays in, the rest next time
                    return
                if isinstance(prepared, Unreadable):
                    if prepared.detail:
                        log.info("sync: %s/%s: %s", device, shown(name), prepared.detail)
                    if prepared.reason != _STOPPED:  # the same bytes fail again: not re-read
                        self.folder.remember_refused(
                            device, name, checked_against(self.keys[device]), prepared
                        )
                    if prepared.reason == NOT_SIGNED and device == self.report.device_id:
                        self.refuse(device, name, NOT_OURS)
                    elif prepared.refused:
                        self.refuse(device, name, prepared.reason)
                    else:
                        self.report.ignored.append(
                            Ignored(self.label(device), name, prepared.reason)
                        )
                    continue
                self.names.setdefault(device, prepared.segment.header.device_name)
                waits = self._import(prepared)
                if waits is not None:
                    pending.append((prepared, waits))
        while pending:
            waiting: list[tuple[Prepared, str]] = []
            for prepared, _ in pending:
                if self.stop():
                    return
                waits = self._import(prepared)
                if waits is not None:
                    waiting.append((prepared, waits))
            if len(waiting) == len(pending):  # nothing went in: the rest waits for next time
                for prepared, reason in waiting:
                    segment = prepared.segment
                    self.report.ignored.append(
                        Ignored(self.label(segment.header.device_id), segment.name, reason)
                    )
                return
            pending = waiting

    def _import(self, prepared: Prepared) -> str | None:
        """Import one segment; why not yet, when it waits for records not here yet."""
        segment = prepared.segment
        outcome = self.journal.import_segment(segment, self.now(), check_sessions, prepared.checked)
        where = self.label(segment.header.device_id)
        if outcome.status == "waiting":
            return outcome.reason or "it refers to records not here yet"
        if outcome.status == "rejected":
            reason = outcome.reason or "it does not check out"
            self.report.rejected.append(Ignored(where, segment.name, reason))
            return None
        self.report.segments_imported.append(segment.name)
        self.report.records_in += outcome.added
        self.report.duplicates += outcome.duplicates
        self.report.conflicts += [
            {"device": where, "file": segment.name, "kind": kind, "id": record_id}
            for kind, record_id in outcome.conflicts
        ]
        return None

    def export(self) -> None:
        batch = self.journal.pending_export()
        chunk: list[SyncRecord] = []
        for group in batch.groups:
            if chunk and len(chunk) + len(group) > MAX_SEGMENT_RECORDS:
                self._write(chunk)
                chunk = []
            chunk += group
        if chunk:
            self._write(chunk)
        self.journal.record_exported(batch.marks)

    def _write(self, records: list[SyncRecord]) -> None:
        sequence = self.journal.last_sequence() + 1
        if sequence > MAX_SEQUENCE:
            raise SyncError(
                "This computer has written as many sync files as their names can number; "
                "Coach cannot write more into this sync folder. Choose a new, empty sync "
                "folder in Settings › Sync on every computer."
            )
        header = SegmentHeader(
            format=FORMAT,
            version=VERSION,
            device_id=self.report.device_id,
            device_name=self.report.device_name,
            sequence=sequence,
            created_at=self.now(),
        )
        data, segment = segment_bytes(header, records, self.key.sign)
        self.folder.write_own(segment.name, data)
        self.journal.record_written(segment, self.now())
        self.report.segments_written.append(segment.name)
        self.report.records_out += len(records)


def sync_now(
    folder: SyncFolder,
    journal: SyncJournal,
    key: SyncKey,
    *,
    device_name: str,
    location: str,
    now: Callable[[], str],
    stop: Callable[[], bool] = lambda: False,
    helper: bool | None = None,
) -> SyncReport:
    """Import every new segment of this computer's own folder and of the computers paired
    here, then export this device's new records, signed with `key`; the status, with the
    computers waiting to be paired. `stop` says to stop between two segments (the window
    is closing). `helper`: read and check the next segments in a second process while one
    is stored (None: when there are several to import and a second core). Raises
    SyncError when the folder cannot be used; anything in it that is not what it should
    be is listed and skipped, never fatal (issue 34)."""
    own_problem = folder.check()
    report = SyncReport(device_id=folder.device_id, device_name=device_name, folder=location)
    public = key.public_key()
    report.fingerprint = fingerprint(public)
    run = _Run(folder, journal, key, report, now, stop)
    if own_problem is not None:
        report.rejected.append(Ignored(run.label(folder.device_id), folder.device_id, own_problem))
    else:
        problem = folder.write_key(key_file_bytes(folder.device_id, device_name, public))
        if problem is not None:
            run.refuse(folder.device_id, KEY_FILE, problem)
    try:
        run.merge(run.new_files(own_usable=own_problem is None), helper)
    finally:
        folder.keep_refusals(whole=not stop())
    if not stop() and own_problem is None:
        run.export()
    report.devices = journal.devices_seen()
    return report


def pair(folder: SyncFolder, journal: SyncJournal, wanted: str, *, at: str, trust: bool) -> Pairing:
    """Pair (`trust`) the computer whose folder announces the fingerprint `wanted` (every
    folder announcing that one key), or forget the paired ones it (or a device id) names;
    the first sealed record stored. Raises SyncError when none matches, saying what to do."""
    folder.check()
    current = paired(journal.pairing_history())
    if not trust:
        keys = [
            DeviceKey(p.device_id, p.name, bytes.fromhex(p.public_key)) for p in current.values()
        ]
        found = matching(keys, wanted)
        if not found:
            raise SyncError(
                f"No paired computer has the fingerprint or id {shown(wanted)[:80]}; "
                '`coach sync --json` lists the paired ones under "paired".'
            )
        forgotten = [
            Pairing(p.device_id, p.name, p.public_key, "forget", at)
            for p in (current[k.device_id] for k in found)
        ]  # every computer paired with that key (see below), as a fingerprint names them all
        for record in forgotten:
            journal.record_pairing(record)
        return forgotten[0].sealed()
    else:
        devices, _ = folder.devices()
        announced = [
            k
            for d in devices
            if d != folder.device_id and isinstance(k := folder.read_key(d), DeviceKey)
        ]
        # By fingerprint only: a device id names a folder, and whoever can write there
        # can put any key in it; only the fingerprint the learner compared names a key.
        form = normalised_fingerprint(wanted)
        found = [k for k in announced if k.fingerprint == form]
        if any(k.device_id == wanted.strip().lower() for k in announced):
            raise SyncError(
                "Pair a computer by the fingerprint it shows (Help › Where my data lives, or "
                "`coach sync` there), not by its id: anyone who can write into the sync "
                "folder can put another key under that id."
            )
        if len({k.public_key for k in found}) != 1:
            why = "no computer" if not found else "more than one computer"
            raise SyncError(
                f"In the sync folder {why} shows the fingerprint {shown(wanted)[:80]}. Check "
                "it on the other computer (Help › Where my data lives, or `coach sync` there) "
                "and that its files have arrived, then try again."
            )
        # Several folders announcing one key (two installations sharing a keyring, or a
        # copy of a key file anyone can make) are each paired with it: a segment must be
        # signed with that key over its folder's device id, which only its holder can do,
        # so pairing a copy lets nothing in, and refusing would let a copy block pairing.
        records = [
            Pairing(k.device_id, k.name, k.public_key.hex(), "trust", at)
            for k in found
            if k.device_id not in current or current[k.device_id].public_key != k.public_key.hex()
        ]
        if not records:
            return current[found[0].device_id]
        for record in records:
            journal.record_pairing(record)
        return records[0].sealed()
