"""What a session's records say about each answer, derived rather than stored.

A sealed session's rows never change, so an answer judged later keeps its `unjudged`
status in the `attempts` row; it counts as judged because a binding ties it to a verdict.
These rules are the one place that says so, for sealing, judging later and review alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coach_gui.domain.judge_errors import JudgeDisabled
from coach_gui.domain.practice import Attempt, Disposition, SessionMode, VerdictRecord
from coach_gui.domain.session_records import (
    AttemptBinding,
    ChallengeRecord,
    SessionRecords,
    StoredBinding,
)
from coach_gui.domain.traces import SealedPracticeTrace, parse_trace


@dataclass(frozen=True)
class AttemptState:
    """One answer and where it stands. `verdict` is the one that counts: sealed with the
    session, or bound to it later; None while the answer waits to be judged."""

    attempt: Attempt
    challenge: ChallengeRecord | None
    verdict: VerdictRecord | None
    pending_code: str | None = None  # the last refusal's reason code, if any
    pending_reason: str | None = None  # why it is still unjudged, for the learner
    unbound: AttemptBinding | None = None  # bound, but the bound trace was never sealed
    dangling: VerdictRecord | None = None  # judged, but never bound (a crash in between)

    @property
    def judged(self) -> bool:
        return self.verdict is not None


def session_trace(records: SessionRecords) -> SealedPracticeTrace | None:
    """The session's own sealed trace, when it is stored and readable."""
    trace_id = records.session.sealed_trace_id
    for stored in records.traces:
        if stored.trace_id == trace_id:
            trace = parse_trace(stored.body)
            return trace if isinstance(trace, SealedPracticeTrace) else None
    return None


def _latest_binding(bindings: list[StoredBinding]) -> StoredBinding | None:
    ordered = sorted(bindings, key=lambda s: (s.bound_trace_id is not None, s.binding.created_at))
    return ordered[-1] if ordered else None


def attempt_states(records: SessionRecords) -> list[AttemptState]:
    """Every answer of the session, in the order it was submitted."""
    challenges = {c.id: c for c in records.challenges}
    verdicts = {v.id: v for v in records.verdicts}
    sealed = records.session.sealed_trace_id is not None
    trace = session_trace(records)
    in_trace = set(trace.input.verdict_ids) if trace is not None else set()
    states: list[AttemptState] = []
    for attempt in sorted(records.attempts, key=lambda a: (a.submitted_at, a.id)):
        own = sorted(
            (v for v in records.verdicts if v.attempt_id == attempt.id),
            key=lambda v: (v.created_at, v.id),
        )
        bindings = [s for s in records.bindings if s.binding.attempt_id == attempt.id]
        binding = _latest_binding(bindings)
        verdict: VerdictRecord | None = None
        unbound: AttemptBinding | None = None
        if not sealed:
            verdict = own[-1] if own else None
        elif sealed_verdicts := [v for v in own if v.id in in_trace]:
            verdict = sealed_verdicts[-1]
        elif binding is not None:
            verdict = verdicts.get(binding.binding.verdict_id)
            unbound = binding.binding if binding.bound_trace_id is None else None
        refusals = sorted(
            (r for r in records.refusals if r.attempt_id == attempt.id),
            key=lambda r: (r.created_at, r.id),
        )
        last = refusals[-1] if refusals and verdict is None else None
        reason = last.detail if last is not None else attempt.unjudged_reason
        states.append(
            AttemptState(
                attempt=attempt,
                challenge=challenges.get(attempt.challenge_id),
                verdict=verdict,
                pending_code=last.reason_code if last is not None else None,
                pending_reason=None if verdict is not None else reason,
                unbound=unbound,
                dangling=own[-1] if verdict is None and own else None,
            )
        )
    return states


JUDGE_OFF = "the judge is switched off"  # why an answer given with the judge off is kept


def disposition_for(
    *, answers: int, passed: Sequence[bool], switched_off: int, offline: bool
) -> Disposition:
    """The one rule for how a session ended, for a finished practice run and for sealing
    from the journal alike. `passed` has one entry per verdict; `switched_off` counts the
    answers kept unjudged because the judge was off for them (it can be switched mid-
    session); `offline` is whether the session started with the judge off."""
    if answers == 0:
        return Disposition.NO_ANSWERS
    unjudged = answers - len(passed)
    if unjudged > switched_off and not offline:
        return Disposition.JUDGE_UNAVAILABLE  # the judge failed some answers
    if offline and not passed:
        return Disposition.UNJUDGED_OFFLINE
    if not all(passed):
        return Disposition.GAPS_FOUND
    return Disposition.UNJUDGED_OFFLINE if unjudged else Disposition.ALL_PASSED


def derive_disposition(
    records: SessionRecords, states: list[AttemptState], *, interrupted: bool = False
) -> Disposition:
    """How a session ended, by the same rule as a finished practice run."""
    if interrupted:
        return Disposition.INTERRUPTED
    off = [
        s
        for s in states
        if not s.judged
        and (s.attempt.unjudged_reason == JUDGE_OFF or s.pending_code == JudgeDisabled.reason_code)
    ]
    return disposition_for(
        answers=len(states),
        passed=[s.verdict.passed for s in states if s.verdict is not None],
        switched_off=len(off),
        offline=records.session.mode is SessionMode.OFFLINE,
    )


NO_ANSWERS = "no_answers"  # the review mode of a session without answers


def review_mode(states: list[AttemptState]) -> str:
    """How the session's answers were judged: `pending` while any waits, else
    `judged_with_assertions` / `judged_without`; `no_answers` for a session without
    answers (nothing was judged, whatever mode it started in)."""
    if not states:
        return NO_ANSWERS
    if any(not s.judged for s in states):
        return "pending"
    verdicts = [s.verdict for s in states if s.verdict is not None]
    if any(v.assertions_sent for v in verdicts):
        return SessionMode.JUDGED_WITH_ASSERTIONS.value
    return SessionMode.JUDGED_WITHOUT.value
