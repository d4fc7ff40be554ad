"""The judge's outbox in the journal: every request, exactly as sent, and how it ended.

A row is written (status ``sent``) before the request's bytes leave, so even a crash
mid-request leaves a record of what went out; the outcome fills it in afterwards.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

from coach_gui.adapters.journal.database import Journal
from coach_gui.domain.session_records import OutboxRecord, RequestOrigin, SentRequest
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome

_COLUMNS = (
    "id, created_at, model, payload, request_body, response, status, error, tokens_in,"
    " tokens_out, latency_ms, provider"
)
# The sessions behind each request of `page` (a JSON array of outbox ids): the answers
# its verdicts and refusals name (by their outbox_id indexes), and an eval's calls, which
# name their request and session in the child trace (evals have no session of their own,
# so the session_id index narrows the scan to them). One statement for the whole page.
_ORIGINS = """
WITH page(id) AS (SELECT value FROM json_each(:page)),
cited(outbox_id, attempt_id) AS (
    SELECT v.outbox_id, v.attempt_id FROM verdicts v JOIN page ON v.outbox_id = page.id
    UNION SELECT r.outbox_id, r.attempt_id FROM judge_refusals r
    JOIN page ON r.outbox_id = page.id
),
evaluated(outbox_id, session_id) AS (
    SELECT json_extract(t.body, '$.input.outbox_id'), json_extract(t.body, '$.input.session_id')
    FROM sealed_traces t WHERE t.session_id IS NULL AND t.kind = 'eval_child'
)
SELECT DISTINCT c.outbox_id, s.id, s.note_title_at_start, s.started_at, 0 AS eval
FROM cited c JOIN attempts a ON a.id = c.attempt_id JOIN sessions s ON s.id = a.session_id
UNION
SELECT e.outbox_id, s.id, s.note_title_at_start, s.started_at, 1
FROM evaluated e JOIN page ON page.id = e.outbox_id JOIN sessions s ON s.id = e.session_id
ORDER BY 1, 4, 2
"""


def _origins(conn: sqlite3.Connection, ids: Sequence[str]) -> dict[str, list[RequestOrigin]]:
    found: dict[str, list[RequestOrigin]] = {}
    for outbox_id, session_id, title, started_at, evaluated in conn.execute(
        _ORIGINS, {"page": json.dumps(list(ids))}
    ):
        found.setdefault(outbox_id, []).append(
            RequestOrigin(session_id, title, started_at, eval=bool(evaluated))
        )
    return found


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
            return self._page(conn, limit)

    def sent(self, limit: int = 200) -> list[SentRequest]:
        """The most recent rows first, each with the sessions it graded answers of (two
        statements for the whole page, in one read)."""
        with self._journal.read() as conn:
            records = self._page(conn, limit)
            origins = _origins(conn, [record.id for record in records])
        return [SentRequest(r, tuple(origins.get(r.id, ()))) for r in records]

    @staticmethod
    def _page(conn: sqlite3.Connection, limit: int) -> list[OutboxRecord]:
        rows = conn.execute(
            f"SELECT {_COLUMNS} FROM outbox ORDER BY created_at DESC, rowid DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [OutboxRecord(**dict(row)) for row in rows]
