"""Sealing practice episodes (DESIGN §6, ADR-0233): every session becomes an immutable,
content-addressed `SealedPracticeTrace` of what it was made of.

Answers judged later are tied to their session by one `AttemptBinding` each and sealed
into a *bound* trace that carries the binding ids; the session's own trace never changes.
Everything here is pure: the same records always give the same ids, whatever the key
order or Unicode normal form they arrived in (`canonical.digest`). The builders refuse
inputs that do not hang together, with a reason code (`TraceRefusalReason`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol, TypeVar

from coach_gui.domain.practice import Attempt, Disposition, JudgeRefusal, VerdictRecord
from coach_gui.domain.session_records import (
    AttemptBinding,
    ChallengeRecord,
    RejectionRecord,
    SessionRecords,
    recomputed_ids,
    row_digest,
)
from coach_gui.domain.session_records import binding_id as binding_id
from coach_gui.domain.session_records import new_binding as new_binding
from coach_gui.domain.traces import POLICY_VERSION as POLICY_VERSION
from coach_gui.domain.traces import SUPPORTED_POLICY_VERSIONS
from coach_gui.domain.traces import ChainLink as ChainLink
from coach_gui.domain.traces import PracticeTraceInput as PracticeTraceInput
from coach_gui.domain.traces import SealedPracticeTrace as SealedPracticeTrace
from coach_gui.domain.traces import TraceRefusal as TraceRefusal
from coach_gui.domain.traces import TraceRefusalReason as TraceRefusalReason
from coach_gui.domain.traces import VerifyFailure as VerifyFailure
from coach_gui.domain.traces import identity_chain as identity_chain
from coach_gui.domain.traces import parse_trace as parse_trace
from coach_gui.domain.traces import seal as seal
from coach_gui.domain.traces import verify_trace as verify_trace

__all__ = [
    "POLICY_VERSION",
    "AttemptBinding",
    "ChainLink",
    "PracticeTraceInput",
    "SealedPracticeTrace",
    "TraceRefusal",
    "TraceRefusalReason",
    "VerifyFailure",
    "binding_id",
    "build_bound_trace_input",
    "build_session_trace_input",
    "identity_chain",
    "new_binding",
    "parse_trace",
    "seal",
    "verify_trace",
]

_R = TraceRefusalReason
_CHANGED = "it was changed outside Coach; run `coach verify` to see what"


def _refuse(code: TraceRefusalReason, detail: str, record_id: str | None) -> TraceRefusal:
    return TraceRefusal(reason_code=code, detail=detail, record_id=record_id)


def _policy_refusal(version: int) -> TraceRefusal | None:
    if version in SUPPORTED_POLICY_VERSIONS:
        return None
    detail = (
        f"this Coach seals traces with policy version {POLICY_VERSION}, not {version}; "
        "update Coach to seal or read this one"
    )
    return _refuse(_R.UNSUPPORTED_POLICY_VERSION, detail, None)


def _record_problems(records: SessionRecords) -> Iterator[TraceRefusal]:
    """Rows that are not what Coach wrote, belong elsewhere, or refer to nothing."""
    for broken in records.broken:
        detail = f"a {broken.table} row cannot be read; {_CHANGED}"
        yield _refuse(_R.UNREADABLE_RECORD, detail, broken.id)
    for kind, stored, recomputed in recomputed_ids(records):
        if stored != recomputed:
            yield _refuse(
                _R.RECORD_ID_MISMATCH, f"a {kind} does not match its id; {_CHANGED}", stored
            )
    rows: list[ChallengeRecord | RejectionRecord | Attempt] = [
        *records.challenges,
        *records.rejections,
        *records.attempts,
    ]
    for row in rows:
        if row.session_id != records.session.id:
            yield _refuse(_R.RECORD_FROM_OTHER_SESSION, "a record of another session", row.id)
    ids = [row.id for row in rows]
    ids += [v.id for v in records.verdicts] + [r.id for r in records.refusals]
    for twice in sorted({i for i in ids if ids.count(i) > 1}):
        yield _refuse(_R.DUPLICATE_RECORD, "a record was given twice", twice)
    challenges = {c.id for c in records.challenges}
    for a in records.attempts:
        if a.challenge_id not in challenges:
            yield _refuse(_R.ATTEMPT_FOR_UNKNOWN_CHALLENGE, "an answer to no challenge", a.id)
    attempts = {a.id for a in records.attempts}
    outbox = {o.id for o in records.outbox}
    for v in records.verdicts:
        if v.attempt_id not in attempts:
            yield _refuse(_R.VERDICT_FOR_UNKNOWN_ATTEMPT, "a verdict on no answer of it", v.id)
        elif v.outbox_id is not None and v.outbox_id not in outbox:
            yield _refuse(_R.MISSING_OUTBOX_RECORD, "a verdict's request is missing", v.outbox_id)
    for r in records.refusals:
        if r.attempt_id not in attempts:
            yield _refuse(_R.REFUSAL_FOR_UNKNOWN_ATTEMPT, "a refusal for no answer of it", r.id)
        elif r.outbox_id is not None and r.outbox_id not in outbox:
            yield _refuse(_R.MISSING_OUTBOX_RECORD, "a refusal's request is missing", r.outbox_id)


class _Timed(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def created_at(self) -> str: ...


_T = TypeVar("_T", bound=_Timed)


def _by_time(items: Sequence[_T]) -> list[_T]:
    return sorted(items, key=lambda item: (item.created_at, item.id))


def _outbox_digests(
    records: SessionRecords,
    verdicts: Sequence[VerdictRecord],
    refusals: Sequence[JudgeRefusal],
) -> dict[str, str]:
    """The digest of every request these verdicts and refusals came from: what left the
    machine is sealed whether it was graded or failed (issue 21)."""
    used = {v.outbox_id for v in verdicts} | {r.outbox_id for r in refusals}
    return {o.id: row_digest(o) for o in records.outbox if o.id in used}


def build_session_trace_input(
    records: SessionRecords,
    *,
    disposition: Disposition,
    ended_at: str,
    note_snapshot_digest: str | None = None,
    policy_version: int = POLICY_VERSION,
) -> PracticeTraceInput | TraceRefusal:
    """The input that seals a session ending at `ended_at` with `disposition`: every
    challenge, answer, verdict and refusal it holds, and the digest of each stored row.
    `note_snapshot_digest`, when given, must be the note the session started with."""
    session = records.session
    refusal = _policy_refusal(policy_version)
    if refusal is None and session.sealed_trace_id is not None:
        refusal = _refuse(_R.ALREADY_SEALED, "the session is already sealed", session.id)
    if refusal is None and note_snapshot_digest not in (None, session.note_digest):
        refusal = _refuse(_R.NOTE_DIGEST_MISMATCH, "not the note the session practised", None)
    refusal = refusal or next(_record_problems(records), None)
    if refusal is None and records.bindings:
        detail = "answers can be bound to a session only after it is sealed"
        refusal = _refuse(_R.SESSION_NOT_SEALED, detail, records.bindings[0].binding.id)
    if refusal is not None:
        return refusal
    final = session.model_copy(update={"ended_at": ended_at, "disposition": disposition})
    challenges = sorted(records.challenges, key=lambda c: (c.position, c.id))
    attempts = sorted(records.attempts, key=lambda a: (a.submitted_at, a.id))
    verdicts = _by_time(records.verdicts)
    row_digests = {session.id: row_digest(final)}
    stored: list[ChallengeRecord | RejectionRecord | Attempt] = [
        *challenges,
        *records.rejections,
        *attempts,
    ]
    row_digests.update((row.id, row_digest(row)) for row in stored)
    row_digests.update(_outbox_digests(records, verdicts, records.refusals))
    return PracticeTraceInput(
        policy_version=policy_version,
        kind="session",
        session_id=session.id,
        note_snapshot_digest=session.note_digest,
        config_digest=session.config_digest,
        gap_ids=session.gap_ids,
        scheduler_decision_id=session.scheduler_decision_id,
        challenge_ids=tuple(c.id for c in challenges),
        attempt_ids=tuple(a.id for a in attempts),
        verdict_ids=tuple(v.id for v in verdicts),
        judge_refusal_ids=tuple(r.id for r in _by_time(records.refusals)),
        disposition=disposition,
        sealed_at=ended_at,
        row_digests=row_digests,
    )


def _binding_problems(
    records: SessionRecords, original: SealedPracticeTrace, bindings: Sequence[AttemptBinding]
) -> Iterator[TraceRefusal]:
    attempts = {a.id for a in records.attempts}
    verdicts = {v.id: v for v in records.verdicts}
    judged = {v.attempt_id for v in records.verdicts if v.id in original.input.verdict_ids}
    given = {b.id for b in bindings}
    judged |= {s.binding.attempt_id for s in records.bindings if s.bound_trace_id is not None}
    judged |= {s.binding.attempt_id for s in records.bindings if s.binding.id not in given}
    seen: set[str] = set()
    for b in bindings:
        verdict = verdicts.get(b.verdict_id)
        if binding_id(b.attempt_id, b.verdict_id, b.original_trace_id, b.created_at) != b.id:
            yield _refuse(
                _R.RECORD_ID_MISMATCH, f"a binding does not match its id; {_CHANGED}", b.id
            )
        elif b.attempt_id not in attempts:
            yield _refuse(_R.BINDING_FOR_UNKNOWN_ATTEMPT, "a binding to no answer of it", b.id)
        elif b.original_trace_id != original.trace_id:
            yield _refuse(_R.ORIGINAL_TRACE_MISMATCH, "a binding to another trace", b.id)
        elif verdict is None:
            yield _refuse(_R.BINDING_FOR_UNKNOWN_VERDICT, "a binding to no verdict", b.id)
        elif verdict.attempt_id != b.attempt_id:
            yield _refuse(_R.BINDING_VERDICT_MISMATCH, "a verdict on another answer", b.id)
        elif b.attempt_id in judged or b.attempt_id in seen:
            yield _refuse(_R.ATTEMPT_ALREADY_JUDGED, "an answer already judged", b.id)
        seen.add(b.attempt_id)


def _original_trace(records: SessionRecords) -> SealedPracticeTrace | TraceRefusal:
    trace_id = records.session.sealed_trace_id
    if trace_id is None:
        detail = "answers can be bound only to a sealed session"
        return _refuse(_R.SESSION_NOT_SEALED, detail, records.session.id)
    stored = next((t for t in records.traces if t.trace_id == trace_id), None)
    original = parse_trace(stored.body) if stored is not None else None
    if isinstance(original, SealedPracticeTrace) and original.trace_id == trace_id:
        return original
    return _refuse(_R.MISSING_ORIGINAL_TRACE, "the session's trace is missing", trace_id)


def build_bound_trace_input(
    records: SessionRecords,
    bindings: Sequence[AttemptBinding],
    *,
    config_digest: str,
    sealed_at: str,
    note_snapshot_digest: str,
    judge_refusal_ids: Sequence[str] = (),
    disposition: Disposition | None = None,
    policy_version: int = POLICY_VERSION,
) -> PracticeTraceInput | TraceRefusal:
    """The input of a bound trace: answers of a sealed session judged later, each tied to
    its verdict by a binding, and the refusals of requests that failed. With refusals and
    no bindings (every request failed), the trace seals what was sent all the same.
    `note_snapshot_digest` is the note as it was judged; it must be the one the session
    practised."""
    session = records.session
    original = _original_trace(records)
    refusal = _policy_refusal(policy_version)
    if refusal is None and isinstance(original, TraceRefusal):
        refusal = original
    if refusal is None and note_snapshot_digest != session.note_digest:
        refusal = _refuse(_R.NOTE_DIGEST_MISMATCH, "the note changed since practice", session.id)
    refusal = refusal or next(_record_problems(records), None)
    if refusal is None and isinstance(original, SealedPracticeTrace):
        refusal = next(_binding_problems(records, original, bindings), None)
    if refusal is None and not bindings and not judge_refusal_ids:
        refusal = _refuse(_R.NO_BINDINGS, "there is nothing to bind", session.id)
    known = {r.id for r in records.refusals}
    unknown = [r for r in judge_refusal_ids if r not in known]
    if refusal is None and unknown:
        refusal = _refuse(_R.REFUSAL_FOR_UNKNOWN_ATTEMPT, "not a refusal of it", unknown[0])
    if refusal is not None:
        return refusal
    assert isinstance(original, SealedPracticeTrace)
    attempts = {a.id: a for a in records.attempts}
    ordered = sorted(bindings, key=lambda b: (attempts[b.attempt_id].submitted_at, b.attempt_id))
    verdicts = {v.id: v for v in records.verdicts}
    bound = [verdicts[b.verdict_id] for b in ordered]
    position = {c.id: (c.position, c.id) for c in records.challenges}
    answered = {attempts[b.attempt_id].challenge_id for b in ordered}
    if disposition is None and not bound:  # every request failed: sealed all the same
        disposition = Disposition.JUDGE_UNAVAILABLE
    elif disposition is None:
        passed = all(v.passed for v in bound)
        disposition = Disposition.ALL_PASSED if passed else Disposition.GAPS_FOUND
    return PracticeTraceInput(
        policy_version=policy_version,
        kind="bound",
        session_id=session.id,
        note_snapshot_digest=session.note_digest,
        config_digest=config_digest,
        gap_ids=session.gap_ids,
        scheduler_decision_id=session.scheduler_decision_id,
        challenge_ids=tuple(sorted(answered, key=lambda c: position[c])),
        attempt_ids=tuple(b.attempt_id for b in ordered),
        attempt_binding_ids=tuple(b.id for b in ordered),
        verdict_ids=tuple(v.id for v in bound),
        judge_refusal_ids=tuple(sorted(set(judge_refusal_ids))),
        disposition=disposition,
        original_trace_id=original.trace_id,
        sealed_at=sealed_at,
        row_digests=_outbox_digests(
            records, bound, [r for r in records.refusals if r.id in judge_refusal_ids]
        ),
    )
