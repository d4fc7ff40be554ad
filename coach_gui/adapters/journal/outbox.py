"""The judge's outbox in the journal: every request, exactly as sent, and how it ended.

A row is written (status ``sent``) before the request's bytes leave, so even a crash
mid-request leaves a record of what went out; the outcome fills it in afterwards.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, datetime

from coach_gui.adapters.journal.database import Journal
from coach_gui.domain.session_records import OutboxRecord
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class SqliteOutbox:
    """`JudgeOutbox` over the journal's ``outbox`` table; each call is one committed write."""

    def __init__(self, journal: Journal, *, now: Callable[[], str] = _utc_now) -> None:
        self._journal = journal
        self._now = now

    def record_sent(self, entry: OutboxEntry) -> str:
        outbox_id = uuid.uuid4().hex
        with self._journal.write() as conn:
            conn.execute(
                "INSERT INTO outbox (id, created_at, model, payload, request_body, status,"
                " provider) VALUES (?, ?, ?, ?, ?, 'sent', ?)",
                (
                    outbox_id,
                    self._now(),
                    entry.model,
                    entry.payload,
                    entry.request_body,
                    entry.provider,
                ),
            )
        return outbox_id

    def record_outcome(self, outbox_id: str, outcome: OutboxOutcome) -> None:
        with self._journal.write() as conn:
            conn.execute(
                "UPDATE outbox SET status = ?, response = ?, error = ?, tokens_in = ?,"
                " tokens_out = ?, latency_ms = ? WHERE id = ? AND status = 'sent'",
                (
                    outcome.status,
                    outcome.response,
                    outcome.error,
                    outcome.tokens_in,
                    outcome.tokens_out,
                    outcome.latency_ms,
                    outbox_id,
                ),
            )

    def entries(self, limit: int = 200) -> list[OutboxRecord]:
        """The most recent rows first."""
        with self._journal.read() as conn:
            rows = conn.execute(
                "SELECT id, created_at, model, payload, request_body, response, status, error,"
                " tokens_in, tokens_out, latency_ms, provider FROM outbox"
                " ORDER BY created_at DESC, rowid DESC LIMIT ?",
                (limit,),
            ).fetchall()
        return [OutboxRecord(**dict(row)) for row in rows]
