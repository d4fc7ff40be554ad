"""Sealing sessions when they end, and those a crash left open (DESIGN §6, ADR-0233).
Judging answers later (`judge_pending`) lives in `judge_later` and is re-exported here."""

from __future__ import annotations

import logging

from coach_gui.domain.errors import CoachError
from coach_gui.domain.practice import Disposition
from coach_gui.domain.sealing import TraceRefusal, build_session_trace_input, seal
from coach_gui.domain.session_state import attempt_states, derive_disposition
from coach_gui.services.judge_later import JudgePendingReport, judge_pending
from coach_gui.services.ports.practice import Clock
from coach_gui.services.ports.sealing import TraceJournal

log = logging.getLogger(__name__)

__all__ = [
    "JudgePendingReport",
    "SealingRefused",
    "SessionNotFound",
    "judge_pending",
    "recover_open_sessions",
    "seal_session",
]

_RETRIES = 3


class SessionNotFound(CoachError):
    """No session has the id asked for."""


class SealingRefused(CoachError):
    """A session's records cannot be sealed; `reason_code` says which rule they broke."""

    def __init__(self, session_id: str, refusal: TraceRefusal) -> None:
        self.reason_code = refusal.reason_code.value
        self.refusal = refusal
        super().__init__(
            f"Session {session_id} could not be sealed ({self.reason_code}: {refusal.detail}). "
            "Its answers are kept; run `coach verify` to check the journal."
        )


def seal_session(
    session_id: str,
    journal: TraceJournal,
    clock: Clock,
    *,
    disposition: Disposition | None = None,
) -> str:
    """Seal the session with every record it holds now, and return its trace id (the
    existing one if it is sealed already). Without `disposition`, the one recorded when
    it ended is kept, or derived from its answers."""
    for _ in range(_RETRIES):
        records = journal.session_records(session_id)
        if records is None:
            raise SessionNotFound(f"There is no session {session_id}; `coach sessions` lists them.")
        if records.session.sealed_trace_id is not None:
            return records.session.sealed_trace_id
        chosen = (
            disposition
            or records.session.disposition
            or derive_disposition(records, attempt_states(records))
        )
        built = build_session_trace_input(
            records, disposition=chosen, ended_at=records.session.ended_at or clock.now()
        )
        if isinstance(built, TraceRefusal):
            raise SealingRefused(session_id, built)
        stored = journal.store_session_trace(seal(built), expected=records)
        if stored is not None:
            return stored
    raise CoachError(f"Session {session_id} kept changing while it was sealed; try again.")


def recover_open_sessions(journal: TraceJournal, clock: Clock) -> list[str]:
    """Seal every session a crash left open, with every answer it holds: as *interrupted*
    when it never ended, else with the disposition it ended with. Returns the trace ids.
    A session that cannot be sealed is logged and left for `coach verify` to report."""
    sealed: list[str] = []
    for session_id in journal.open_session_ids():
        records = journal.session_records(session_id)
        if records is None or records.session.sealed_trace_id is not None:
            continue
        interrupted = records.session.ended_at is None
        try:
            sealed.append(
                seal_session(
                    session_id,
                    journal,
                    clock,
                    disposition=Disposition.INTERRUPTED if interrupted else None,
                )
            )
        except SealingRefused as error:
            log.warning("session %s left open: %s", session_id, error)
    return sealed
