"""The trace log's rows (`trace_log`, `trace_log_head`; domain in `domain/trace_log.py`).

Every statement here runs inside the caller's write transaction, the one that stores the
traces, so a trace is never stored without its log entry nor the other way round.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Sequence

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


def _sign(conn: sqlite3.Connection, last: LogEntry, signed_at: str, key: HeadKey) -> None:
    """Sign a head over `last`, unless the head there now was not made with this key: Coach
    never signs over a head someone forged (verify keeps reporting it)."""
    head = _head(conn)
    key_id, secret = key
    ours = head_is_genuine(head, lambda wanted: secret if wanted == key_id else None)
    if head is not None and head.signature is not None and not ours:
        log.warning("the trace log's head does not check out; it is left as it is")
        return
    _write_head(conn, signed_head(last, signed_at, key))


def append_traces(
    conn: sqlite3.Connection, trace_ids: Sequence[str], signed_at: str, key: HeadKey | None
) -> None:
    """Log `trace_ids` (just stored, in this order) and sign the new head with `key`. With
    no key (the keyring did not answer) the head stays where it was signed last, and
    `coach verify` reports the entries after it as not signed until the next seal."""
    entries = extended(_last(conn), trace_ids)
    conn.executemany(
        "INSERT INTO trace_log (position, trace_id, previous, link) VALUES (?, ?, ?, ?)",
        entries,
    )
    if entries and key is not None:
        _sign(conn, entries[-1], signed_at, key)


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


def sign_adopted(conn: sqlite3.Connection, signed_at: str, key: HeadKey) -> None:
    """Sign the head of a log that was just adopted and never signed."""
    last = _last(conn)
    if last is not None and _head(conn) is None:
        _write_head(conn, signed_head(last, signed_at, key))


def read_log(conn: sqlite3.Connection) -> StoredLog:
    entries = [
        LogEntry(*row)
        for row in conn.execute(
            "SELECT position, trace_id, previous, link FROM trace_log ORDER BY position"
        )
    ]
    traces = [str(row[0]) for row in conn.execute("SELECT trace_id FROM sealed_traces")]
    return StoredLog(entries, _head(conn), traces)
