"""Eval runs in the journal (`eval_runs`, `eval_children`, child traces in `sealed_traces`
with kind ``eval_child`` and no session); the key that signs them is in the keyring
(`secrets.KeyringSigningKeys`).

All three tables are write-once (triggers in `journal_schema`); a run is stored with every
child trace and child row in one transaction.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.records import lenient, outbox_record, trace_row
from coach_gui.adapters.journal.trace_log import append_traces
from coach_gui.adapters.secrets import EVAL_SIGNING_KEY as EVAL_SIGNING_KEY
from coach_gui.adapters.secrets import KeyringSigningKeys as KeyringSigningKeys
from coach_gui.domain.eval_traces import (
    EvalChildTrace,
    StoredEvalChild,
    StoredEvalRun,
)
from coach_gui.domain.evals import EvalReport
from coach_gui.domain.session_records import StoredTrace, row_digest

_SELECT_RUNS = "SELECT id, created_at, repeats, report, signature, key_id FROM eval_runs"


class SqliteEvalJournal:
    """`EvalStore` and `EvalRunReader` over the SQLite journal."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal

    def store_run(
        self,
        report: EvalReport,
        signature: str,
        key_id: str,
        traces: Sequence[EvalChildTrace],
    ) -> None:
        key = self._journal.head_key()  # before the writer: the keyring may ask to unlock
        with self._journal.write() as conn:
            conn.executemany(
                "INSERT INTO sealed_traces (trace_id, session_id, kind, input_digest, body,"
                " created_at) VALUES (?, NULL, 'eval_child', ?, ?, ?)",
                [(t.trace_id, t.input_digest, t.body, t.input.sealed_at) for t in traces],
            )
            append_traces(conn, [t.trace_id for t in traces], report.created_at, key)
            conn.execute(
                "INSERT INTO eval_runs (id, created_at, repeats, report, signature, key_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    report.eval_run_id,
                    report.created_at,
                    report.repeats,
                    report.canonical(),
                    signature,
                    key_id,
                ),
            )
            conn.executemany(
                "INSERT INTO eval_children (eval_run_id, trace_id, arm, repeat, item)"
                " VALUES (?, ?, ?, ?, ?)",
                [
                    (report.eval_run_id, t.trace_id, t.input.arm, t.input.repeat, t.input.item)
                    for t in traces
                ],
            )

    def eval_run(self, eval_run_id: str) -> StoredEvalRun | None:
        with self._journal.read() as conn, lenient(conn):
            row = conn.execute(f"{_SELECT_RUNS} WHERE id = ?", (eval_run_id,)).fetchone()
        return None if row is None else _run(row)

    def eval_run_ids(self) -> list[str]:
        with self._journal.read() as conn:
            rows = conn.execute("SELECT id FROM eval_runs ORDER BY created_at, id").fetchall()
        return [str(row[0]) for row in rows]

    def recent_runs(self, limit: int = 50) -> list[StoredEvalRun]:
        """The newest runs first (the GUI's history)."""
        with self._journal.read() as conn:
            rows = conn.execute(
                f"{_SELECT_RUNS} ORDER BY created_at DESC, id DESC LIMIT ?", (limit,)
            ).fetchall()
        return [_run(row) for row in rows]

    def eval_children(self, eval_run_id: str) -> list[StoredEvalChild]:
        with self._journal.read() as conn:
            rows = conn.execute(
                "SELECT eval_run_id, trace_id, arm, repeat, item FROM eval_children"
                " WHERE eval_run_id = ? ORDER BY arm, repeat, item",
                (eval_run_id,),
            ).fetchall()
        return [StoredEvalChild(**dict(row)) for row in rows]

    def trace_row(self, trace_id: str) -> StoredTrace | None:
        with self._journal.read() as conn, lenient(conn):
            return trace_row(conn, trace_id)

    def outbox_digest(self, outbox_id: str) -> str | None:
        with self._journal.read() as conn, lenient(conn):
            record = outbox_record(conn, outbox_id)
        return None if record is None else row_digest(record)

    def outbox_payload(self, outbox_id: str) -> str | None:
        with self._journal.read() as conn, lenient(conn):
            row = conn.execute("SELECT payload FROM outbox WHERE id = ?", (outbox_id,)).fetchone()
        return None if row is None else str(row[0])


def _run(row: sqlite3.Row) -> StoredEvalRun:
    return StoredEvalRun(
        id=str(row["id"]),
        created_at=str(row["created_at"]),
        repeats=int(row["repeats"]),
        report=str(row["report"]),
        signature=str(row["signature"]),
        key_id=str(row["key_id"]),
    )
