"""Judging later (DESIGN §6, ADR-0233): answers of sealed sessions that were never judged
are sent through the same judging service as practice, with the privacy switch as it is
*now*. Each verdict is tied to its session by an `AttemptBinding`, and one bound trace per
session is sealed; the session's own trace is never changed."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field

from coach_gui.domain.changes import ANSWERS_JUDGED, Changes
from coach_gui.domain.digests import content_id, digest
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import JudgeRefusal, VerdictRecord, note_digest
from coach_gui.domain.sealing import (
    AttemptBinding,
    TraceRefusal,
    TraceRefusalReason,
    build_bound_trace_input,
    new_binding,
    seal,
)
from coach_gui.domain.session_records import SessionRecords
from coach_gui.domain.session_state import AttemptState, attempt_states
from coach_gui.domain.verdicts import Gap
from coach_gui.services.judging import JudgeRequestItem, judge_items
from coach_gui.services.ports.judge import Judge, VerdictJournal
from coach_gui.services.ports.notes import NoteLookup
from coach_gui.services.ports.practice import Clock
from coach_gui.services.ports.sealing import TraceJournal

log = logging.getLogger(__name__)

JUDGE_BATCH = 8  # answers per judge request: one prompt stays small and a failure costs little
NOTE_DIGEST_MISMATCH = TraceRefusalReason.NOTE_DIGEST_MISMATCH.value


def _refused_message(session_id: str, refusal: TraceRefusal) -> str:
    return (
        f"Session {session_id} could not be sealed ({refusal.reason_code.value}: "
        f"{refusal.detail}). Its answers are kept; run `coach verify` to check the journal."
    )


@dataclass(frozen=True)
class JudgedLater:
    session_id: str
    attempt_id: str
    challenge: str
    answer: str
    passed: bool
    gaps: tuple[Gap, ...]
    feedback: str
    assertions: tuple[str, ...]  # the assertions the gap indexes refer to


@dataclass(frozen=True)
class StillPending:
    session_id: str
    attempt_id: str
    challenge: str
    answer: str
    reason_code: str
    reason: str


@dataclass
class JudgePendingReport:
    """What `judge_pending` did. `assertions_sent` is the privacy switch as it is now."""

    assertions_sent: bool
    judged: list[JudgedLater] = field(default_factory=list)
    pending: list[StillPending] = field(default_factory=list)
    bound_trace_ids: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    sent: int = 0  # answers sent to the judge (whatever came back)

    @property
    def changes(self) -> Changes:
        return ANSWERS_JUDGED

    @property
    def privacy_note(self) -> str:
        if not self.sent:
            return "Nothing was sent to the judge."
        if self.assertions_sent:
            return (
                "Your core assertions were sent with each answer, because "
                "Send core assertions is on now."
            )
        return (
            "Only the challenges and your answers were sent, not your core assertions, "
            "because Send core assertions is off now."
        )


def _refuse(state: AttemptState, code: str, detail: str, now: str) -> JudgeRefusal:
    fields = {"attempt_id": state.attempt.id, "reason_code": code, "detail": detail}
    fields["created_at"] = now
    return JudgeRefusal(id=content_id("judge_refusal", fields), **fields)


@dataclass
class _SessionWork:
    records: SessionRecords
    bindings: list[AttemptBinding] = field(default_factory=list)  # to insert
    carried: list[AttemptBinding] = field(default_factory=list)  # stored, not bound yet
    refusal_ids: list[str] = field(default_factory=list)


def _items_to_judge(
    work: _SessionWork,
    note: Note | None,
    verdict_journal: VerdictJournal,
    now: str,
) -> list[JudgeRequestItem]:
    """The session's answers to send, after binding what was judged before a crash and
    refusing answers whose note is gone or has changed since it was practised."""
    session = work.records.session
    assert session.sealed_trace_id is not None
    items: list[JudgeRequestItem] = []
    for state in attempt_states(work.records):
        if state.unbound is not None:
            work.carried.append(state.unbound)
        elif state.dangling is not None:
            work.bindings.append(
                new_binding(state.attempt.id, state.dangling.id, session.sealed_trace_id, now)
            )
        elif not state.judged:
            refusal: JudgeRefusal | None = None
            title = f"the note “{session.note_title}”"
            if note is None:
                detail = f"{title} no longer exists, so this answer cannot be judged"
                refusal = _refuse(state, "note_not_found", detail, now)
            elif note_digest(note) != session.note_digest:
                detail = (
                    f"{title} has changed since this answer was written, so it cannot be "
                    "judged against what you practised"
                )
                refusal = _refuse(state, NOTE_DIGEST_MISMATCH, detail, now)
            if refusal is not None:
                verdict_journal.record_refusal(refusal)
                work.refusal_ids.append(refusal.id)
            elif state.challenge is not None and note is not None:
                items.append(
                    JudgeRequestItem(
                        attempt_id=state.attempt.id,
                        challenge=state.challenge.text,
                        answer=state.attempt.answer,
                        assertions=note.core_assertions,
                    )
                )
    return items


def _bound_config_digest(
    include_assertions: bool,
    verdicts: list[VerdictRecord],
    sampling: Mapping[str, object] | None,
) -> str:
    fields: dict[str, object] = {
        "judge_enabled": True,
        "include_assertions": include_assertions,
        "judge_models": sorted({v.judge_model for v in verdicts}),
    }
    return digest({**fields, **(sampling or {})})


def judge_pending(
    journal: TraceJournal,
    judge: Judge,
    verdict_journal: VerdictJournal,
    clock: Clock,
    *,
    include_assertions: bool,
    note_lookup: NoteLookup,
    batch_size: int = JUDGE_BATCH,
    sampling: Mapping[str, object] | None = None,
) -> JudgePendingReport:
    """Judge every answer of a sealed session that is still unjudged, through the same
    judging service as practice, with the privacy switch as it is *now*; then bind each
    verdict to its session and seal one bound trace per session. `sampling` (the judge's
    temperature, seed and thinking budget) is sealed in each bound trace's config digest."""
    report = JudgePendingReport(assertions_sent=include_assertions)
    work: dict[str, _SessionWork] = {}
    items: list[JudgeRequestItem] = []
    owner: dict[str, str] = {}
    for records in journal.records_for(journal.sessions_with_pending()):
        if records.session.sealed_trace_id is None:
            continue
        session_work = work[records.session.id] = _SessionWork(records)
        found = _items_to_judge(
            session_work, note_lookup(records.session.note_id), verdict_journal, clock.now()
        )
        items += found
        owner.update((item.attempt_id, records.session.id) for item in found)
    report.sent = len(items)
    for start in range(0, len(items), batch_size):
        outcomes = judge_items(
            items[start : start + batch_size],
            judge=judge,
            journal=verdict_journal,
            clock=clock,
            include_assertions=include_assertions,
        )
        for outcome in outcomes:
            session_work = work[owner[outcome.attempt_id]]
            if outcome.verdict is not None:
                trace_id = session_work.records.session.sealed_trace_id
                assert trace_id is not None
                session_work.bindings.append(
                    new_binding(outcome.attempt_id, outcome.verdict.id, trace_id, clock.now())
                )
            elif outcome.refusal is not None:
                session_work.refusal_ids.append(outcome.refusal.id)
    for session_id, session_work in work.items():
        _seal_bound(session_id, session_work, journal, clock, report, sampling)
    return report


def _seal_bound(
    session_id: str,
    work: _SessionWork,
    journal: TraceJournal,
    clock: Clock,
    report: JudgePendingReport,
    sampling: Mapping[str, object] | None,
) -> None:
    records = journal.session_records(session_id)
    if records is None:
        return
    bindings = [*work.carried, *work.bindings]
    verdicts = {v.id: v for v in records.verdicts}
    # A request that left and failed is sealed too (issue 21); a refusal that sent
    # nothing (the note changed, say) is recorded but seals no trace of its own.
    sent = {r.id for r in records.refusals if r.outbox_id is not None}
    if bindings or sent.intersection(work.refusal_ids):
        bound = [verdicts[b.verdict_id] for b in bindings if b.verdict_id in verdicts]
        built = build_bound_trace_input(
            records,
            bindings,
            config_digest=_bound_config_digest(report.assertions_sent, bound, sampling),
            sealed_at=clock.now(),
            note_snapshot_digest=records.session.note_digest,
            judge_refusal_ids=work.refusal_ids,
        )
        if isinstance(built, TraceRefusal):
            report.problems.append(_refused_message(session_id, built))
            log.warning("bound trace of session %s refused: %s", session_id, built)
        else:
            trace = seal(built)
            journal.store_bound_trace(work.bindings, trace)
            report.bound_trace_ids.append(trace.trace_id)
            records = journal.session_records(session_id) or records
    bound_now = {b.attempt_id for b in bindings}
    for state in attempt_states(records):
        text = state.challenge.text if state.challenge is not None else ""
        if state.verdict is not None and state.attempt.id in bound_now:
            verdict = state.verdict
            report.judged.append(
                JudgedLater(
                    session_id=session_id,
                    attempt_id=state.attempt.id,
                    challenge=text,
                    answer=state.attempt.answer,
                    passed=verdict.passed,
                    gaps=verdict.gaps,
                    feedback=verdict.feedback,
                    assertions=verdict.assertions,
                )
            )
        elif state.verdict is None:
            report.pending.append(
                StillPending(
                    session_id=session_id,
                    attempt_id=state.attempt.id,
                    challenge=text,
                    answer=state.attempt.answer,
                    reason_code=state.pending_code or "unjudged",
                    reason=state.pending_reason or "not judged yet",
                )
            )
