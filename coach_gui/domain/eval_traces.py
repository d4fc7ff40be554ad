"""One judge call of a paired eval, sealed as a child run (ADR 0014 shape, DESIGN §6–7), and
the HMAC signature over an eval report.

A child trace is sealed the way a session trace is (`traces.seal`): the canonical JSON of
its input is digested, and its id is the SHA-256 of its canonical form with the id blank.
It is stored in `sealed_traces` with kind ``eval_child`` and no session (so it never mixes
with a session's own records); `coach verify <eval id>` checks each one.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from enum import StrEnum
from typing import Any, Literal

from pydantic import Field, ValidationError

from coach_gui.domain.digests import canonical_text, digest
from coach_gui.domain.records import Record
from coach_gui.domain.traces import VerifyFailure
from coach_gui.domain.verdicts import Assessment, Gap

EVAL_POLICY_VERSION = 1
Arm = Literal["assertions_on", "assertions_off", "judge_local", "judge_gemini"]
ARMS: tuple[Arm, Arm] = ("assertions_on", "assertions_off")
# The two judges compared on the same answers, both with core assertions (issue 22).
JUDGE_ARMS: tuple[Arm, Arm] = ("judge_local", "judge_gemini")
CallStatus = Literal["pass", "fail", "error"]


class EvalChildInput(Record):
    """What one (arm, repeat, item) call sent and got back. `payload_digest` is the digest
    of the payload exactly as the outbox recorded it, `outbox_digest` that of its whole
    row; the verdict fields are the domain's verdict (None on an error, whose `error_code`
    and `error` say why)."""

    policy_version: int
    kind: Literal["eval_child"] = "eval_child"
    run_nonce: str  # ties the child to its run (the run's id is computed after its children)
    arm: Arm
    repeat: int
    item: int
    session_id: str
    attempt_id: str
    payload_digest: str | None
    outbox_id: str | None
    # The digest of the whole outbox row as it ended (reply, status, tokens), so no field
    # of it can change unseen (issue 21). Absent from children sealed before it existed:
    # left out of the canonical form when None, so their ids still recompute.
    outbox_digest: str | None = Field(default=None, exclude_if=lambda value: value is None)
    judge_model: str
    status: CallStatus
    verdict_id: str | None = None
    gaps: tuple[Gap, ...] = ()
    # The judge's assessment of each sent assertion (DESIGN §4). Absent from children
    # sealed before the judge assessed each, and from calls without assertions: left out
    # of the canonical form when empty, so those ids still recompute.
    assessments: tuple[Assessment, ...] = Field(default=(), exclude_if=lambda value: not value)
    feedback: str | None = None
    error_code: str | None = None
    error: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: int | None = None
    sealed_at: str


class EvalChildTrace(Record):
    input: EvalChildInput
    input_digest: str
    trace_id: str

    @property
    def body(self) -> str:
        """The canonical JSON stored in the journal."""
        return canonical_text(self.model_dump(mode="json"))


def seal_child(child: EvalChildInput) -> EvalChildTrace:
    """Deterministic: the same input always gives the same trace id."""
    unsealed = EvalChildTrace(
        input=child, input_digest=digest(child.model_dump(mode="json")), trace_id=""
    )
    return unsealed.model_copy(update={"trace_id": digest(unsealed.model_dump(mode="json"))})


def inspect_child(body: str) -> EvalChildTrace | VerifyFailure:
    """The child trace stored as `body` when its bytes, input digest and id recompute;
    else what does not."""
    try:
        raw = json.loads(body)
        version = raw["input"]["policy_version"]
    except (ValueError, TypeError, KeyError):
        return VerifyFailure.DIGEST_MISMATCH
    if version != EVAL_POLICY_VERSION:
        return VerifyFailure.UNSUPPORTED_POLICY_VERSION
    try:
        trace = EvalChildTrace.model_validate_json(body)
    except ValidationError:
        return VerifyFailure.DIGEST_MISMATCH
    if canonical_text(raw) != body or seal_child(trace.input) != trace:
        return VerifyFailure.DIGEST_MISMATCH
    return trace


# --- signing ---------------------------------------------------------------------------------


def key_id_for(key: bytes) -> str:
    """A short name for a signing key that reveals nothing usable about it."""
    return hashlib.sha256(b"coach eval signing key\x00" + key).hexdigest()[:16]


def sign(canonical: str, key: bytes) -> str:
    """HMAC-SHA256 (hex) of a report's canonical form."""
    return hmac.new(key, canonical.encode("utf-8"), hashlib.sha256).hexdigest()


def signature_matches(canonical: str, key: bytes, signature: str) -> bool:
    return hmac.compare_digest(sign(canonical, key), signature)


def child_json(trace: EvalChildTrace) -> dict[str, Any]:
    """How a child is listed in its report."""
    child = trace.input
    return {
        "arm": child.arm,
        "repeat": child.repeat,
        "item": child.item,
        "status": child.status,
        "trace_id": trace.trace_id,
    }


class EvalVerifyFailure(StrEnum):
    """What `coach verify <eval id>` reports beyond the trace failures (`VerifyFailure`)."""

    BAD_SIGNATURE = "bad signature"
    SIGNING_KEY_MISSING = "signing key missing"
    FIGURES_MISMATCH = "figures do not match the child traces"


class StoredEvalRun(Record):
    """An `eval_runs` row, as stored."""

    id: str
    created_at: str
    repeats: int
    report: str
    signature: str
    key_id: str


class StoredEvalChild(Record):
    """An `eval_children` row."""

    eval_run_id: str
    trace_id: str
    arm: str
    repeat: int
    item: int
