"""The trace log (issue 21, docs/adr/0015-trace-log.md): every sealed trace, in the order it
was sealed, as an append-only hash chain whose head is signed with the keyring key.

Each entry names its predecessor: its `link` is the digest of its position, the previous
entry's link and its trace id. The head (the last position and its link) carries an HMAC
made with the key in the OS keyring, the key that signs eval reports. So a trace that is
deleted, replaced or re-sealed by someone without the key breaks the chain or the
signature, and `coach verify` reports the head, how many entries it checked and the first
that does not check out, as a transparency log does. Pure: no I/O.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from coach_gui.domain.digests import canonical_text
from coach_gui.domain.eval_traces import sign, signature_matches

GENESIS = "0" * 64  # the `previous` of the first entry
LOG = "trace_log"  # the id reported for a fault of the log as a whole


class LogEntry(NamedTuple):
    position: int  # 1, 2, 3, ... with no gaps
    trace_id: str
    previous: str  # the link of the entry before (GENESIS for the first)
    link: str


@dataclass(frozen=True)
class LogHead:
    """The signed head: the log had `position` entries, the last with `link`. Unsigned
    (`signature` None) when the keyring could not be reached at the time."""

    position: int
    link: str
    signed_at: str
    signature: str | None
    key_id: str | None

    def message(self) -> str:
        """What the signature covers."""
        return head_message(self.position, self.link, self.signed_at)


@dataclass(frozen=True)
class StoredLog:
    """The log as the journal holds it, with the id of every stored trace."""

    entries: list[LogEntry]  # by position
    head: LogHead | None
    trace_ids: list[str]
    # The learner's schedule records (holds, undos, parameter sets) stored here: logged
    # when made on this computer, so a deleted one shows; one from before the log held
    # them, or from another computer, need not be in it (issue 34).
    record_ids: list[str] = field(default_factory=list)


class LogFailure(StrEnum):
    """Why the log does not check out (beyond `VerifyFailure`'s broken chain and missing
    record)."""

    BAD_SIGNATURE = "bad signature"
    SIGNING_KEY_MISSING = "signing key missing"
    UNSIGNED = "not signed"
    KEYRING_SILENT = "keyring unavailable"  # locked or not answering: nothing vouches


def link_for(position: int, previous: str, trace_id: str) -> str:
    return hashlib.sha256(
        f"coach trace log\x00{position}\x00{previous}\x00{trace_id}".encode()
    ).hexdigest()


def head_message(position: int, link: str, signed_at: str) -> str:
    return canonical_text(
        {"kind": "trace_log_head", "position": position, "link": link, "signed_at": signed_at}
    )


def extended(last: LogEntry | None, trace_ids: Iterable[str]) -> list[LogEntry]:
    """The entries that append `trace_ids`, in order, after `last` (None: an empty log)."""
    position, previous = (0, GENESIS) if last is None else (last.position, last.link)
    entries: list[LogEntry] = []
    for trace_id in trace_ids:
        position += 1
        link = link_for(position, previous, trace_id)
        entries.append(LogEntry(position, trace_id, previous, link))
        previous = link
    return entries


def signed_head(last: LogEntry, signed_at: str, key: tuple[str, bytes] | None) -> LogHead:
    """The head over `last`, signed with `key` (key id, key) when there is one."""
    message = head_message(last.position, last.link, signed_at)
    if key is None:
        return LogHead(last.position, last.link, signed_at, None, None)
    key_id, secret = key
    return LogHead(last.position, last.link, signed_at, sign(message, secret), key_id)


def head_is_genuine(head: LogHead | None, key_for: Callable[[str], bytes | None]) -> bool:
    """The head carries a signature the keyring's key made (before a new head is signed:
    Coach never signs over a head that was forged)."""
    if head is None or head.signature is None or head.key_id is None:
        return False
    key = key_for(head.key_id)
    return key is not None and signature_matches(head.message(), key, head.signature)


@dataclass(frozen=True)
class LogCheck:
    """What checking the log found: its size, how many entries were checked, the head,
    and the first fault (id, reason) or None."""

    size: int
    checked: int
    head: LogHead | None
    failure: tuple[str, str] | None

    @property
    def ok(self) -> bool:
        return self.failure is None


class _Fault(Exception):
    def __init__(self, record_id: str, reason: str) -> None:
        self.found = (record_id, reason)


def _walk(entries: Sequence[LogEntry], traces: set[str], records: set[str]) -> int:
    """Every entry follows from the one before and names a stored trace (or schedule
    record); every stored trace is in the log. Returns how many were checked."""
    previous, seen = GENESIS, set[str]()
    for expected, entry in enumerate(entries, start=1):
        if entry.position != expected or entry.previous != previous:
            raise _Fault(entry.trace_id, "broken chain")
        if entry.link != link_for(entry.position, entry.previous, entry.trace_id):
            raise _Fault(entry.trace_id, "broken chain")
        if entry.trace_id not in traces and entry.trace_id not in records:  # deleted, or
            # replaced by a re-sealed one
            raise _Fault(entry.trace_id, "missing record")
        seen.add(entry.trace_id)
        previous = entry.link
    outside = sorted(traces - seen)
    if outside:  # sealed by someone who could not extend the signed log
        raise _Fault(outside[0], "broken chain")
    return len(entries)


def _head(
    entries: Sequence[LogEntry],
    head: LogHead | None,
    key_for: Callable[[str], bytes | None] | None,
    key_exists: bool,
) -> None:
    if head is None or head.signature is None or head.key_id is None:
        # Without a key nothing can be signed (no keyring); with one, Coach signs every
        # head, so an unsigned head is one someone rewrote.
        if key_exists and entries:
            raise _Fault(LOG, LogFailure.UNSIGNED.value)
        if head is not None and not 0 < head.position <= len(entries):
            raise _Fault(LOG, "broken chain")
        return
    if not 0 < head.position <= len(entries) or entries[head.position - 1].link != head.link:
        raise _Fault(LOG, "broken chain")
    if key_for is None:
        return  # the links are checked; the signature needs the keyring
    key = key_for(head.key_id)
    if key is None:
        raise _Fault(LOG, f"{LogFailure.SIGNING_KEY_MISSING.value} (key {head.key_id})")
    if not signature_matches(head.message(), key, head.signature):
        raise _Fault(LOG, LogFailure.BAD_SIGNATURE.value)
    if head.position < len(entries):  # sealed while the keyring could not be reached
        raise _Fault(entries[head.position].trace_id, LogFailure.UNSIGNED.value)


def check_log(
    entries: Sequence[LogEntry],
    trace_ids: Iterable[str],
    head: LogHead | None,
    *,
    key_for: Callable[[str], bytes | None] | None,
    key_exists: bool = False,
    record_ids: Iterable[str] = (),
) -> LogCheck:
    """Check the log `entries` (by position) against the stored `trace_ids` and the
    `head`. `key_for` looks a key up by its id (None: links only, no signature check);
    `key_exists` says the keyring holds a signing key at all."""
    checked = 0
    try:
        checked = _walk(entries, set(trace_ids), set(record_ids))
        _head(entries, head, key_for, key_exists)
    except _Fault as fault:
        return LogCheck(len(entries), checked, head, fault.found)
    return LogCheck(len(entries), checked + 1, head, None)
