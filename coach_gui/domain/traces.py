"""The records of a sealed practice trace (DESIGN §6, ADR-0233), how one is sealed, and
how a stored one is checked. `sealing` builds the inputs from the journal's records."""

from __future__ import annotations

import hashlib
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, ValidationError

from coach_gui.domain.digests import canonical_text, digest
from coach_gui.domain.practice import Disposition
from coach_gui.domain.records import Record

POLICY_VERSION = 1
SUPPORTED_POLICY_VERSIONS = frozenset({POLICY_VERSION})

TraceKind = Literal["session", "bound"]


class TraceRefusalReason(StrEnum):
    """Why inputs could not be sealed; each code names the rule that was broken."""

    UNSUPPORTED_POLICY_VERSION = "unsupported_policy_version"
    ALREADY_SEALED = "already_sealed"
    SESSION_NOT_SEALED = "session_not_sealed"
    MISSING_ORIGINAL_TRACE = "missing_original_trace"
    UNREADABLE_RECORD = "unreadable_record"
    RECORD_ID_MISMATCH = "record_id_mismatch"
    RECORD_FROM_OTHER_SESSION = "record_from_other_session"
    DUPLICATE_RECORD = "duplicate_record"
    ATTEMPT_FOR_UNKNOWN_CHALLENGE = "attempt_for_unknown_challenge"
    VERDICT_FOR_UNKNOWN_ATTEMPT = "verdict_for_unknown_attempt"
    REFUSAL_FOR_UNKNOWN_ATTEMPT = "refusal_for_unknown_attempt"
    MISSING_OUTBOX_RECORD = "missing_outbox_record"
    NOTE_DIGEST_MISMATCH = "note_digest_mismatch"
    NO_BINDINGS = "no_bindings"
    BINDING_FOR_UNKNOWN_ATTEMPT = "binding_for_unknown_attempt"
    BINDING_FOR_UNKNOWN_VERDICT = "binding_for_unknown_verdict"
    BINDING_VERDICT_MISMATCH = "binding_verdict_mismatch"
    ORIGINAL_TRACE_MISMATCH = "original_trace_mismatch"
    ATTEMPT_ALREADY_JUDGED = "attempt_already_judged"


class TraceRefusal(Record):
    """Inputs that cannot be sealed, and why (a message the learner can act on)."""

    reason_code: TraceRefusalReason
    detail: str
    record_id: str | None = None


class VerifyFailure(StrEnum):
    """What `coach verify` reports for the first entry that does not check out."""

    DIGEST_MISMATCH = "digest mismatch"
    BROKEN_CHAIN = "broken chain"
    MISSING_RECORD = "missing record"
    UNSUPPORTED_POLICY_VERSION = "unsupported policy version"
    DAMAGED_FILE = "damaged file"


class PracticeTraceInput(Record):
    """What a trace seals. Ids are in a fixed order; `row_digests` holds the digest of
    every stored row the trace covers that its content id does not (by row id)."""

    policy_version: int
    kind: TraceKind
    session_id: str
    note_snapshot_digest: str
    config_digest: str
    gap_ids: tuple[str, ...] = ()
    scheduler_decision_id: str | None = None
    challenge_ids: tuple[str, ...] = ()
    attempt_ids: tuple[str, ...] = ()
    attempt_binding_ids: tuple[str, ...] = ()
    verdict_ids: tuple[str, ...] = ()
    judge_refusal_ids: tuple[str, ...] = ()
    disposition: Disposition
    original_trace_id: str | None = None  # the session's own trace, for a bound trace
    sealed_at: str
    row_digests: dict[str, str] = Field(default_factory=dict)


ChainKind = Literal[
    "note_snapshot",
    "config",
    "gap",
    "scheduler_decision",
    "session",
    "challenge",
    "attempt",
    "attempt_binding",
    "verdict",
    "judge_refusal",
]


class ChainLink(Record):
    kind: ChainKind
    id: str


def identity_chain(trace_input: PracticeTraceInput) -> tuple[ChainLink, ...]:
    """The upstream identities, in the DESIGN §6 order: note snapshot digest, config
    digest, gap ids, scheduler decision id, session id, challenge ids, attempt ids,
    attempt binding ids, verdict ids, judge refusal ids."""
    return tuple(ChainLink(kind=kind, id=link_id) for kind, link_id in _chain(trace_input))


def _chain(trace_input: PracticeTraceInput) -> list[tuple[ChainKind, str]]:
    links: list[tuple[ChainKind, str]] = [
        ("note_snapshot", trace_input.note_snapshot_digest),
        ("config", trace_input.config_digest),
    ]
    links += [("gap", gap) for gap in trace_input.gap_ids]
    if trace_input.scheduler_decision_id is not None:
        links.append(("scheduler_decision", trace_input.scheduler_decision_id))
    links.append(("session", trace_input.session_id))
    links += [("challenge", i) for i in trace_input.challenge_ids]
    links += [("attempt", i) for i in trace_input.attempt_ids]
    links += [("attempt_binding", i) for i in trace_input.attempt_binding_ids]
    links += [("verdict", i) for i in trace_input.verdict_ids]
    links += [("judge_refusal", i) for i in trace_input.judge_refusal_ids]
    return links


class SealedPracticeTrace(Record):
    input: PracticeTraceInput
    input_digest: str
    upstream_identity_chain: tuple[ChainLink, ...]
    trace_id: str

    @property
    def body(self) -> str:
        """The canonical JSON stored in the journal: what `trace_id` is the digest of,
        with the id filled in."""
        return canonical_text(self.model_dump(mode="json"))


def _trace_id(fields: dict[str, Any]) -> str:
    return digest({**fields, "trace_id": ""})


def seal(trace_input: PracticeTraceInput) -> SealedPracticeTrace:
    """Seal `trace_input`: deterministic, so the same input always gives the same trace."""
    input_digest = digest(trace_input.model_dump(mode="json"))
    chain = identity_chain(trace_input)
    unsealed = SealedPracticeTrace(
        input=trace_input, input_digest=input_digest, upstream_identity_chain=chain, trace_id=""
    )
    return unsealed.model_copy(update={"trace_id": _trace_id(unsealed.model_dump(mode="json"))})


def _parsed(body: str) -> tuple[dict[str, Any], SealedPracticeTrace] | VerifyFailure:
    try:
        raw = json.loads(body)
        version = raw["input"]["policy_version"]
    except (ValueError, TypeError, KeyError, RecursionError):  # (nested too deep)
        return VerifyFailure.DIGEST_MISMATCH
    if version not in SUPPORTED_POLICY_VERSIONS:
        return VerifyFailure.UNSUPPORTED_POLICY_VERSION
    try:
        return raw, SealedPracticeTrace.model_validate_json(body)
    except ValidationError:
        return VerifyFailure.DIGEST_MISMATCH


def parse_trace(body: str) -> SealedPracticeTrace | VerifyFailure:
    """The trace stored as `body` (intact or not), or why it cannot be read as one."""
    parsed = _parsed(body)
    return parsed if isinstance(parsed, VerifyFailure) else parsed[1]


def inspect_trace(body: str) -> SealedPracticeTrace | VerifyFailure:
    """The trace stored as `body` when its bytes, input digest, identity chain and id all
    recompute; else the first of them that does not."""
    parsed = _parsed(body)
    if isinstance(parsed, VerifyFailure):
        return parsed
    raw, trace = parsed
    if canonical_text(raw) != body:
        return VerifyFailure.DIGEST_MISMATCH  # not the bytes Coach wrote
    if _sha256(_input_text(body) or canonical_text(raw["input"])) != trace.input_digest:
        return VerifyFailure.DIGEST_MISMATCH
    if _chain(trace.input) != [(link.kind, link.id) for link in trace.upstream_identity_chain]:
        return VerifyFailure.BROKEN_CHAIN
    blank = _blank_id_text(body, trace.trace_id) or canonical_text({**raw, "trace_id": ""})
    if _sha256(blank) != trace.trace_id:
        return VerifyFailure.DIGEST_MISMATCH
    return trace


# A canonical body is `{"input":<input>,"input_digest":"…","trace_id":"…",…}` (keys
# sorted), so the canonical texts the two digests cover can be cut out of it instead of
# encoding the trace twice more; anything unexpected falls back to encoding.
_INPUT_START = '{"input":'
_INPUT_END = ',"input_digest":"'


def _input_text(body: str) -> str | None:
    end = body.rfind(_INPUT_END)
    return body[len(_INPUT_START) : end] if body.startswith(_INPUT_START) and end > 0 else None


def _blank_id_text(body: str, trace_id: str) -> str | None:
    field = f'"trace_id":"{trace_id}"'
    return body.replace(field, '"trace_id":""') if body.count(field) == 1 else None


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def verify_trace(body: str) -> VerifyFailure | None:
    """None when the stored trace is intact, else the first thing that does not match."""
    checked = inspect_trace(body)
    return checked if isinstance(checked, VerifyFailure) else None
