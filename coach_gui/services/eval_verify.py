"""`coach verify <eval id>`: a recorded eval report is the report Coach signed, and every
child trace it covers is intact and belongs to it (docs/adr/0007-eval-signing.md).

In order: the report reads back as a report, in the exact bytes Coach wrote, under the id
its content gives; the key that signed it is in the keyring and the HMAC matches; the
children listed in the report are exactly the stored `eval_children` rows; each child
trace is stored, recomputes, and is the call the report lists; the payload each child
says was sent is the one the outbox holds; and the report's figures are those the child
traces give.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import ValidationError

from coach_gui.domain.digests import digest
from coach_gui.domain.errors import CoachError
from coach_gui.domain.eval_traces import (
    EvalChildTrace,
    EvalVerifyFailure,
    StoredEvalRun,
    inspect_child,
    signature_matches,
)
from coach_gui.domain.evals import (
    CallResult,
    EvalReport,
    arms_of,
    computed_figures,
    delta,
    report_id,
)
from coach_gui.domain.session_records import StoredTrace
from coach_gui.domain.traces import VerifyFailure
from coach_gui.services.ports.evals import EvalRunReader, SigningKeyLookup


class EvalCheckFailed(Exception):
    """The first thing about an eval run that does not check out."""

    def __init__(self, record_id: str, reason: str) -> None:
        super().__init__(f"{record_id}: {reason}")
        self.record_id = record_id
        self.reason = reason


def _report(row: StoredEvalRun) -> EvalReport:
    try:
        report = EvalReport.model_validate_json(row.report)
    except ValidationError:
        raise EvalCheckFailed(row.id, VerifyFailure.DIGEST_MISMATCH.value) from None
    if report.canonical() != row.report or report_id(report) != row.id:
        raise EvalCheckFailed(row.id, VerifyFailure.DIGEST_MISMATCH.value)
    if (report.eval_run_id, report.created_at, report.repeats) != (
        row.id,
        row.created_at,
        row.repeats,
    ):
        raise EvalCheckFailed(row.id, VerifyFailure.DIGEST_MISMATCH.value)
    return report


def _signature(row: StoredEvalRun, keys: SigningKeyLookup) -> None:
    try:
        key = keys.key_for(row.key_id)
    except CoachError as error:  # no keyring: say why, as the failure's reason
        raise EvalCheckFailed(
            row.id, f"{EvalVerifyFailure.SIGNING_KEY_MISSING.value} ({error})"
        ) from None
    if key is None:
        raise EvalCheckFailed(
            row.id,
            f"{EvalVerifyFailure.SIGNING_KEY_MISSING.value} (key {row.key_id} is not in this "
            "keyring, so the signature cannot be checked)",
        )
    if not signature_matches(row.report, key, row.signature):
        raise EvalCheckFailed(row.id, EvalVerifyFailure.BAD_SIGNATURE.value)


def _child(
    report: EvalReport, ref_key: tuple[str, int, int, str], row: StoredTrace | None
) -> EvalChildTrace:
    arm, repeat, item, trace_id = ref_key
    if row is None:
        raise EvalCheckFailed(trace_id, VerifyFailure.MISSING_RECORD.value)
    trace = inspect_child(row.body)
    if isinstance(trace, VerifyFailure):
        raise EvalCheckFailed(trace_id, trace.value)
    child = trace.input
    if (row.trace_id, row.input_digest, row.created_at) != (
        trace.trace_id,
        trace.input_digest,
        child.sealed_at,
    ):
        raise EvalCheckFailed(trace_id, VerifyFailure.DIGEST_MISMATCH.value)
    if (
        row.kind != "eval_child"
        or row.session_id is not None
        or (child.arm, child.repeat, child.item) != (arm, repeat, item)
        or child.run_nonce != report.run_nonce
    ):
        raise EvalCheckFailed(trace_id, VerifyFailure.BROKEN_CHAIN.value)
    return trace


def _sent_as_recorded(reader: EvalRunReader, trace: EvalChildTrace) -> None:
    """The outbox row of a child's request is still the row the child sealed."""
    child = trace.input
    if child.outbox_id is None:
        return  # refused before sending (e.g. the payload was rejected): nothing left
    stored = reader.outbox_payload(child.outbox_id)
    if stored is None:
        raise EvalCheckFailed(child.outbox_id, VerifyFailure.MISSING_RECORD.value)
    try:
        recorded = digest(json.loads(stored))
    except ValueError:
        recorded = None
    if recorded != child.payload_digest:
        raise EvalCheckFailed(child.outbox_id, VerifyFailure.DIGEST_MISMATCH.value)
    # The whole row as it ended: reply, status, error and tokens (children sealed before
    # issue 21 carry no row digest, and are checked by their payload alone).
    if child.outbox_digest is not None and (
        reader.outbox_digest(child.outbox_id) != child.outbox_digest
    ):
        raise EvalCheckFailed(child.outbox_id, VerifyFailure.DIGEST_MISMATCH.value)


def check_eval_run(reader: EvalRunReader, keys: SigningKeyLookup, eval_run_id: str) -> int:
    """How many entries were checked; raises EvalCheckFailed at the first failure (its
    `record_id` names the report or the child trace at fault)."""
    row = reader.eval_run(eval_run_id)
    if row is None:
        raise EvalCheckFailed(eval_run_id, VerifyFailure.MISSING_RECORD.value)
    _signature(row, keys)  # first: a changed report reads as what it is, a bad signature
    report = _report(row)
    checked = 1
    listed = {(c.arm, c.repeat, c.item, c.trace_id): c for c in report.children}
    stored = {(c.arm, c.repeat, c.item, c.trace_id) for c in reader.eval_children(row.id)}
    extra, missing = sorted(stored - set(listed)), sorted(set(listed) - stored)
    if extra:  # a child row the signed report does not list
        raise EvalCheckFailed(extra[0][3], VerifyFailure.BROKEN_CHAIN.value)
    if missing:
        raise EvalCheckFailed(missing[0][3], VerifyFailure.MISSING_RECORD.value)
    traces: list[EvalChildTrace] = []
    for key, ref in sorted(listed.items()):
        trace = _child(report, key, reader.trace_row(ref.trace_id))
        if trace.input.status != ref.status:
            raise EvalCheckFailed(ref.trace_id, VerifyFailure.BROKEN_CHAIN.value)
        _sent_as_recorded(reader, trace)
        traces.append(trace)
        checked += 1
    results = [CallResult.from_child(t) for t in traces]
    arms = arms_of(report.kind)
    if tuple(f.arm for f in report.arms) != arms or any(r.arm not in arms for r in results):
        raise EvalCheckFailed(row.id, EvalVerifyFailure.FIGURES_MISMATCH.value)
    figures, agreement, verdict = computed_figures(
        results, report.kind, report.repeats, report.items
    )
    if (figures, agreement, verdict, delta(*figures)) != (
        report.arms,
        report.judge_agreement,
        report.verdict,
        report.delta,
    ):
        raise EvalCheckFailed(row.id, EvalVerifyFailure.FIGURES_MISMATCH.value)
    return checked


def check_eval_runs(
    reader: EvalRunReader, keys: SigningKeyLookup, ids: Sequence[str] | None = None
) -> int:
    """Check every recorded run (or those in `ids`); raises at the first failure."""
    return sum(
        check_eval_run(reader, keys, i) for i in (reader.eval_run_ids() if ids is None else ids)
    )
