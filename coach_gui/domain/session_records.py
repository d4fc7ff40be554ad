"""Everything the journal holds about one practice session, read back as domain records.

Sealing records the digest of each stored row in the trace (`row_digest`), so a later
change to any field of a row, even one outside the record's content id (a challenge's
`created_at`, an attempt's `status`), is caught by `coach verify`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Literal

from pydantic import Field

from coach_gui.domain.challenges import Challenge, ChallengeKind, ChallengeOrigin
from coach_gui.domain.corrections import LearnerCorrection
from coach_gui.domain.digests import content_id, digest
from coach_gui.domain.practice import (
    Attempt,
    Disposition,
    JudgeRefusal,
    SessionMode,
    VerdictRecord,
)
from coach_gui.domain.records import Record


class SessionRecord(Record):
    """A `sessions` row. `sealed_trace_id` is set once, when the session is sealed."""

    id: str
    note_id: str
    note_title: str
    note_digest: str
    config_digest: str
    mode: SessionMode
    started_at: str
    ended_at: str | None
    disposition: Disposition | None
    scheduler_decision_id: str | None
    gap_ids: tuple[str, ...]
    sealed_trace_id: str | None


class ChallengeRecord(Record):
    """A `challenges` row: the challenge, where it sits in its session, and when."""

    id: str
    session_id: str
    position: int
    kind: ChallengeKind
    text: str
    origin: ChallengeOrigin
    parent_challenge_id: str | None
    model: str | None
    target_assertions: tuple[int, ...]
    created_at: str

    def challenge(self) -> Challenge:
        return Challenge(
            id=self.id,
            kind=self.kind,
            text=self.text,
            origin=self.origin,
            target_assertions=self.target_assertions,
            model=self.model,
        )


class RejectionRecord(Record):
    """A `challenge_rejections` row: only a digest of the text that quoted the note."""

    id: str
    session_id: str
    kind: str
    text_digest: str
    reason: str
    created_at: str


class OutboxRecord(Record):
    """An `outbox` row: one judge request exactly as sent, and how it ended."""

    id: str
    created_at: str
    model: str
    payload: str
    request_body: str
    response: str | None
    status: str
    error: str | None
    tokens_in: int | None
    tokens_out: int | None
    latency_ms: int | None
    # Which judge the request went to: "gemini", or "local" (the model on this computer,
    # issue 22). Rows of Gemini requests hash without it, as they did before it existed.
    provider: str = Field(default="gemini", exclude_if=lambda value: value == "gemini")


@dataclass(frozen=True)
class RequestOrigin:
    """A practice session whose answers a judge request graded: in the session itself, by
    *Judge pending answers*, or (`eval`) again in a Judge consistency eval."""

    session_id: str
    note_title: str  # the note's title when the session started
    started_at: str
    eval: bool = False


@dataclass(frozen=True)
class SentRequest:
    """An outbox row with the sessions it came from (none known: a request under way, or
    one that failed before any answer was recorded against it)."""

    record: OutboxRecord
    origins: tuple[RequestOrigin, ...] = ()


class AttemptBinding(Record):
    """Membership evidence (ADR-0233): this verdict, given later, judges this attempt of the
    session sealed as `original_trace_id`. The sealed trace itself is never changed."""

    id: str
    attempt_id: str
    verdict_id: str
    original_trace_id: str
    created_at: str


def binding_id(attempt_id: str, verdict_id: str, original_trace_id: str, created_at: str) -> str:
    return content_id(
        "attempt_binding",
        {
            "attempt_id": attempt_id,
            "verdict_id": verdict_id,
            "original_trace_id": original_trace_id,
            "created_at": created_at,
        },
    )


def new_binding(
    attempt_id: str, verdict_id: str, original_trace_id: str, created_at: str
) -> AttemptBinding:
    return AttemptBinding(
        id=binding_id(attempt_id, verdict_id, original_trace_id, created_at),
        attempt_id=attempt_id,
        verdict_id=verdict_id,
        original_trace_id=original_trace_id,
        created_at=created_at,
    )


class StoredBinding(Record):
    """An `attempt_bindings` row: the binding, and the bound trace that carries it (None
    until that trace is sealed)."""

    binding: AttemptBinding
    bound_trace_id: str | None


class StoredTrace(Record):
    """A `sealed_traces` row, as stored (the body is parsed by `sealing.verify_trace`)."""

    trace_id: str
    session_id: str | None
    kind: str
    input_digest: str
    body: str
    created_at: str


class BrokenRow(Record):
    """A row that no longer reads as its record (changed outside Coach)."""

    table: str
    id: str
    problem: str


class SessionRecords(Record):
    """One session and every row that belongs to it, each in a stable order."""

    session: SessionRecord
    challenges: tuple[ChallengeRecord, ...] = ()
    rejections: tuple[RejectionRecord, ...] = ()
    attempts: tuple[Attempt, ...] = ()
    verdicts: tuple[VerdictRecord, ...] = ()
    refusals: tuple[JudgeRefusal, ...] = ()
    bindings: tuple[StoredBinding, ...] = ()
    outbox: tuple[OutboxRecord, ...] = ()  # the rows the verdicts and refusals refer to
    traces: tuple[StoredTrace, ...] = ()
    broken: tuple[BrokenRow, ...] = ()
    # The learner's corrections of its verdicts (issue 36): records of their own, joined
    # here by what reads the schedule (`AssertionScheduler.history`), not part of the seal.
    corrections: tuple[LearnerCorrection, ...] = ()


RowRecord = SessionRecord | ChallengeRecord | RejectionRecord | Attempt | OutboxRecord

_ROW_KIND: Mapping[type[Record], str] = {
    SessionRecord: "session",
    ChallengeRecord: "challenge",
    RejectionRecord: "challenge_rejection",
    Attempt: "attempt",
    OutboxRecord: "outbox",
}


# The enum fields of each row record (tests/unit/test_row_digest.py keeps this complete).
_ENUM_FIELDS: Mapping[type[Record], tuple[str, ...]] = {
    SessionRecord: ("mode", "disposition"),
    ChallengeRecord: ("kind",),
}


def row_digest(record: RowRecord) -> str:
    """Digest of a stored row, every field included (a session's `sealed_trace_id` is set
    after its trace is made, so it is checked against the trace instead)."""
    # The fields as `model_dump(mode="json")` gives them, without its cost: these records
    # hold only strings, numbers, None, enums (dumped as their values) and tuples of those
    # (encoded as the lists the dump would give).
    fields = dict(record.__dict__)
    for name in _ENUM_FIELDS.get(type(record), ()):
        value = fields[name]
        if isinstance(value, Enum):
            fields[name] = value.value
    if isinstance(record, SessionRecord):
        del fields["sealed_trace_id"]
    if isinstance(record, OutboxRecord) and fields["provider"] == "gemini":
        del fields["provider"]
    fields["row"] = _ROW_KIND[type(record)]
    return digest(fields)


def verdict_id(verdict: VerdictRecord) -> str:
    """The content id a verdict was stored under (as `services.judging` computes it). A
    verdict without assessments (judged without assertions, or recorded before schema v5)
    hashes exactly as it always did."""
    fields: dict[str, object] = {
        "attempt_id": verdict.attempt_id,
        "outbox_id": verdict.outbox_id,
        "passed": verdict.passed,
        "gaps": [gap.model_dump(mode="json") for gap in verdict.gaps],
        "feedback": verdict.feedback,
        "assertions_sent": verdict.assertions_sent,
        "assertions": list(verdict.assertions),
        "judge_model": verdict.judge_model,
        "created_at": verdict.created_at,
    }
    if verdict.assessments:
        fields["assessments"] = [a.model_dump(mode="json") for a in verdict.assessments]
    return content_id("verdict", fields)


def refusal_id(refusal: JudgeRefusal) -> str:
    fields: dict[str, object] = {
        "attempt_id": refusal.attempt_id,
        "reason_code": refusal.reason_code,
        "detail": refusal.detail,
        "created_at": refusal.created_at,
    }
    if refusal.outbox_id is not None:  # a refusal stored before schema v4 names none
        fields["outbox_id"] = refusal.outbox_id
    return content_id("judge_refusal", fields)


def challenge_content_id(c: ChallengeRecord) -> str:
    """The id `practice.challenge_id` gave the challenge, from its stored fields."""
    return content_id(
        "challenge",
        {
            "session_id": c.session_id,
            "position": c.position,
            "kind": c.kind.value,
            "text": c.text,
            "origin": c.origin,
            "target_assertions": list(c.target_assertions),
            "model": c.model,
        },
    )


def attempt_content_id(a: Attempt) -> str:
    """The id `practice.attempt_id` gave the answer, from its stored fields."""
    return content_id(
        "attempt",
        {
            "session_id": a.session_id,
            "challenge_id": a.challenge_id,
            "answer": a.answer,
            "submitted_at": a.submitted_at,
        },
    )


IdKind = Literal["challenge", "attempt", "verdict", "judge_refusal", "attempt_binding"]


def recomputed_ids(
    records: SessionRecords, skip: Collection[str] = ()
) -> list[tuple[IdKind, str, str]]:
    """(kind, stored id, id recomputed from the stored fields) for every content-addressed
    record of the session but those in `skip`, in a fixed order."""
    found: list[tuple[IdKind, str, str]] = []
    for c in records.challenges:
        if c.id not in skip:
            found.append(("challenge", c.id, challenge_content_id(c)))
    for a in records.attempts:
        if a.id not in skip:
            found.append(("attempt", a.id, attempt_content_id(a)))
    found.extend(("verdict", v.id, verdict_id(v)) for v in records.verdicts if v.id not in skip)
    for r in records.refusals:
        if r.id not in skip:
            found.append(("judge_refusal", r.id, refusal_id(r)))
    for stored in records.bindings:
        b = stored.binding
        if b.id not in skip:
            recomputed = binding_id(b.attempt_id, b.verdict_id, b.original_trace_id, b.created_at)
            found.append(("attempt_binding", b.id, recomputed))
    return found
