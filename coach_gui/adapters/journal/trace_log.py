"""The trace log's rows (`trace_log`, `trace_log_head`; domain in `domain/trace_log.py`).

Every statement here runs inside the caller's write transaction, the one that stores the
traces, so a trace is never stored without its log entry nor the other way round.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass

from coach_gui.domain.trace_log import (
    LogEntry,
    LogHead,
    StoredLog,
    extended,
    head_is_genuine,
    signed_head,
)

log = logging.getLogger(__name__)

HeadKey = tuple[str, bytes]  # (key id, key)


@dataclass(frozen=True)
class HeadSigner:
    """The keyring's key, and whether this process created it just now (so no head can
    have been signed with it before)."""

    key_id: str
    key: bytes
    fresh: bool = False


def _last(conn: sqlite3.Connection) -> LogEntry | None:
    row = conn.execute(
        "SELECT position, trace_id, previous, link FROM trace_log ORDER BY position DESC LIMIT 1"
    ).fetchone()
    return None if row is None else LogEntry(*row)


def _head(conn: sqlite3.Connection) -> LogHead | None:
    row = conn.execute(
        "SELECT position, link, signed_at, signature, key_id FROM trace_log_head WHERE id = 1"
    ).fetchone()
    return None if row is None else LogHead(*row)


def _write_head(conn: sqlite3.Connection, head: LogHead) -> None:
    conn.execute(
        "INSERT INTO trace_log_head (id, position, link, signed_at, signature, key_id)"
        " VALUES (1, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET position = excluded.position,"
        " link = excluded.link, signed_at = excluded.signed_at,"
        " signature = excluded.signature, key_id = excluded.key_id",
        (head.position, head.link, head.signed_at, head.signature, head.key_id),
    )


def _may_sign(
    conn: sqlite3.Connection, head: LogHead | None, signer: HeadSigner, first: int
) -> bool:
    """Whether Coach may sign a new head over the log as it now stands. Never over a head
    it cannot vouch for (ADR 0015): one made with another key, one whose link is not the
    log's at its position, or none at all while the log already held entries (`first`:
    the position of the first entry appended now) — unless the key was created just now,
    so nothing could have been signed with it."""
    if head is None or head.signature is None:
        return first == 1 or signer.fresh
    if head.key_id != signer.key_id:
        return False
    if not head_is_genuine(head, lambda _: signer.key):
        return False
    row = conn.execute("SELECT link FROM trace_log WHERE position = ?", (head.position,)).fetchone()
    return row is not None and row[0] == head.link


def append_traces(
    conn: sqlite3.Connection, trace_ids: Sequence[str], signed_at: str, signer: HeadSigner | None
) -> None:
    """Log `trace_ids` (just stored, in this order) and sign the new head with `signer`.
    With no key (the keyring did not answer) the head stays where it was signed last, and
    `coach verify` reports the entries after it as not signed until the next seal."""
    entries = extended(_last(conn), trace_ids)
    conn.executemany(
        "INSERT INTO trace_log (position, trace_id, previous, link) VALUES (?, ?, ?, ?)",
        entries,
    )
    if not entries or signer is None:
        return
    if not _may_sign(conn, _head(conn), signer, entries[0].position):
        log.warning("the trace log's head does not check out; it is left as it is")
        return
    _write_head(conn, signed_head(entries[-1], signed_at, (signer.key_id, signer.key)))


def adopt_sealed_traces(conn: sqlite3.Connection) -> None:
    """Schema v4: log the traces sealed before there was a log, oldest first. The head is
    signed when the journal is next opened with the keyring, or at the next seal."""
    rows = conn.execute(
        "SELECT trace_id FROM sealed_traces"
        " WHERE trace_id NOT IN (SELECT trace_id FROM trace_log) ORDER BY created_at, rowid"
    ).fetchall()
    conn.executemany(
        "INSERT INTO trace_log (position, trace_id, previous, link) VALUES (?, ?, ?, ?)",
        extended(_last(conn), [str(row[0]) for row in rows]),
    )


def sign_adopted(conn: sqlite3.Connection, signed_at: str, signer: HeadSigner) -> None:
    """Sign the head of a log that was just adopted and never signed."""
    last = _last(conn)
    if last is not None and _head(conn) is None:
        _write_head(conn, signed_head(last, signed_at, (signer.key_id, signer.key)))


def read_log(conn: sqlite3.Connection) -> StoredLog:
    entries = [
        LogEntry(*row)
        for row in conn.execute(
            "SELECT position, trace_id, previous, link FROM trace_log ORDER BY position"
        )
    ]
    # What must each be in the log: every sealed trace, and every pairing of a computer
    # (issue 34: always made here, and logged as it is made, so one slipped in shows).
    traces = [str(row[0]) for row in conn.execute(_MUST_BE_LOGGED)]
    records = [str(row[0]) for row in conn.execute(_SCHEDULE_RECORD_IDS)]
    return StoredLog(entries, _head(conn), traces, records)


_MUST_BE_LOGGED = "SELECT trace_id FROM sealed_traces UNION ALL SELECT id FROM sync_pairings"

# The schedule records a computer logs when the learner makes them (`log_record`).
_SCHEDULE_RECORD_IDS = (
    "SELECT id FROM schedule_holds UNION ALL SELECT id FROM review_changes"
    " UNION ALL SELECT id FROM fsrs_parameters UNION ALL SELECT id FROM learner_corrections"
    " UNION ALL SELECT id FROM imported_reviews"
)


def log_record(
    conn: sqlite3.Connection, inserted: bool, record_id: str, at: str, signer: HeadSigner | None
) -> None:
    """Log a schedule record just stored in this transaction (`inserted`: it was new), so
    deleting it later breaks the log like a deleted trace (issue 34)."""
    if inserted:
        append_traces(conn, [record_id], at, signer)
