"""The practice side of the journal: sessions, challenges, rejections and answers."""

from __future__ import annotations

import hashlib
import json

from coach_gui.adapters.journal.database import Journal
from coach_gui.domain.challenges import Challenge
from coach_gui.domain.practice import (
    Attempt,
    Disposition,
    JudgeRefusal,
    PracticeSession,
    VerdictRecord,
    new_id,
)

# The attempt's session is not sealed yet (only then may its row change).
_SESSION_OPEN = (
    "NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = attempts.session_id"
    " AND s.sealed_trace_id IS NOT NULL)"
)


class SqlitePracticeJournal:
    """`PracticeJournal` over the SQLite journal; each call is its own committed write."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal

    def start_session(self, session: PracticeSession, decision: str | None = None) -> None:
        with self._journal.write() as conn:
            if decision is not None and session.scheduler_decision_id is not None:
                conn.execute(
                    "INSERT OR IGNORE INTO scheduler_decisions (id, fields, decided_at)"
                    " VALUES (?, ?, ?)",
                    (session.scheduler_decision_id, decision, session.started_at),
                )
            conn.execute(
                "INSERT INTO sessions (id, note_id, note_title_at_start, note_digest,"
                " config_digest, mode, started_at, gap_ids, scheduler_decision_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    session.id,
                    session.note_id,
                    session.note_title,
                    session.note_digest,
                    session.config_digest,
                    session.mode.value,
                    session.started_at,
                    json.dumps(list(session.gap_ids)),
                    session.scheduler_decision_id,
                ),
            )

    def add_challenge(
        self,
        session_id: str,
        position: int,
        challenge: Challenge,
        created_at: str,
        *,
        parent_challenge_id: str | None = None,
    ) -> None:
        with self._journal.write() as conn:
            conn.execute(
                "INSERT INTO challenges (id, session_id, position, kind, text, origin,"
                " parent_challenge_id, model, target_assertions, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    challenge.id,
                    session_id,
                    position,
                    challenge.kind.value,
                    challenge.text,
                    challenge.origin,
                    parent_challenge_id,
                    challenge.model,
                    json.dumps(list(challenge.target_assertions)),
                    created_at,
                ),
            )

    def add_rejection(
        self, session_id: str, kind: str, text: str, reason: str, created_at: str
    ) -> None:
        text_digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        with self._journal.write() as conn:
            conn.execute(
                "INSERT INTO challenge_rejections (id, session_id, kind, text_digest, reason,"
                " created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (new_id(), session_id, kind, text_digest, reason, created_at),
            )

    def add_attempt(self, attempt: Attempt) -> None:
        with self._journal.write() as conn:
            conn.execute(
                "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at,"
                " status, unjudged_reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    attempt.id,
                    attempt.session_id,
                    attempt.challenge_id,
                    attempt.answer,
                    attempt.submitted_at,
                    attempt.status,
                    attempt.unjudged_reason,
                ),
            )

    def end_session(self, session_id: str, ended_at: str, disposition: Disposition) -> None:
        with self._journal.write() as conn:
            conn.execute(
                "UPDATE sessions SET ended_at = ?, disposition = ?"
                " WHERE id = ? AND ended_at IS NULL",
                (ended_at, disposition.value, session_id),
            )

    def open_session_ids(self) -> list[str]:
        with self._journal.read() as conn:
            rows = conn.execute(
                "SELECT id FROM sessions WHERE ended_at IS NULL ORDER BY started_at"
            ).fetchall()
        return [row["id"] for row in rows]

    def record_verdict(self, verdict: VerdictRecord) -> None:
        with self._journal.write() as conn:
            conn.execute(
                "INSERT INTO verdicts (id, attempt_id, outbox_id, verdict, gaps, feedback,"
                " assertions_sent, assertions, judge_model, created_at, assessments)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    verdict.id,
                    verdict.attempt_id,
                    verdict.outbox_id,
                    "pass" if verdict.passed else "fail",
                    json.dumps([g.model_dump(mode="json") for g in verdict.gaps]),
                    verdict.feedback,
                    int(verdict.assertions_sent),
                    json.dumps(list(verdict.assertions), ensure_ascii=False),
                    verdict.judge_model,
                    verdict.created_at,
                    json.dumps(
                        [a.model_dump(mode="json") for a in verdict.assessments],
                        ensure_ascii=False,
                    ),
                ),
            )
            # A sealed session's rows never change: an answer judged later counts as judged
            # through its binding, not through this row (sealed rows refuse the update).
            conn.execute(
                "UPDATE attempts SET status = 'judged', unjudged_reason = NULL"
                f" WHERE id = ? AND {_SESSION_OPEN}",
                (verdict.attempt_id,),
            )

    def record_refusal(self, refusal: JudgeRefusal) -> None:
        with self._journal.write() as conn:
            conn.execute(
                "INSERT INTO judge_refusals (id, attempt_id, reason_code, detail, created_at,"
                " outbox_id) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    refusal.id,
                    refusal.attempt_id,
                    refusal.reason_code,
                    refusal.detail,
                    refusal.created_at,
                    refusal.outbox_id,
                ),
            )
            conn.execute(
                "UPDATE attempts SET unjudged_reason = ?"
                f" WHERE id = ? AND status = 'unjudged' AND {_SESSION_OPEN}",
                (refusal.detail, refusal.attempt_id),
            )
