"""Judging answers (DESIGN §4): build the one payload that may leave the machine, send it,
apply the verdict rule, and record the outcome. A failure never loses an answer: the
attempt stays unjudged with the reason, and can be judged again later."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from coach_gui.domain.judge_errors import JudgeError
from coach_gui.domain.practice import JudgeRefusal, VerdictRecord
from coach_gui.domain.session_records import refusal_id, verdict_id
from coach_gui.domain.tier2 import CORE_ASSERTIONS, PayloadRejected, tier2_payload
from coach_gui.domain.verdicts import parse_verdicts
from coach_gui.services.ports.judge import Judge, VerdictJournal
from coach_gui.services.ports.practice import Clock

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class JudgeRequestItem:
    """One attempt to judge: what the learner was asked, what they wrote, and the
    assertions of the note it covers (sent only when the privacy switch allows)."""

    attempt_id: str
    challenge: str
    answer: str
    assertions: tuple[str, ...]


@dataclass(frozen=True)
class JudgeOutcome:
    attempt_id: str
    verdict: VerdictRecord | None = None
    refusal: JudgeRefusal | None = None

    @property
    def judged(self) -> bool:
        return self.verdict is not None

    @property
    def reason(self) -> str | None:
        """Why the attempt is still unjudged (None once judged)."""
        return self.refusal.detail if self.refusal is not None else None


def _payload_items(
    items: Sequence[JudgeRequestItem], include_assertions: bool
) -> list[dict[str, object]]:
    payload: list[dict[str, object]] = []
    for item in items:
        entry: dict[str, object] = {"challenge": item.challenge, "answer": item.answer}
        if include_assertions and item.assertions:
            entry["core_assertions"] = list(item.assertions)
        payload.append(entry)
    return payload


def refuse_all(
    items: Sequence[JudgeRequestItem],
    error: JudgeError | PayloadRejected,
    journal: VerdictJournal,
    clock: Clock,
    *,
    outbox_id: str | None = None,
) -> list[JudgeOutcome]:
    """Record that these attempts could not be judged, and why; `outbox_id` names the
    request that left and failed (so it is sealed with the session), if one did."""
    outcomes: list[JudgeOutcome] = []
    now = clock.now()
    for item in items:
        draft = JudgeRefusal(
            id="",
            attempt_id=item.attempt_id,
            reason_code=error.reason_code,
            detail=str(error),
            created_at=now,
            outbox_id=outbox_id,
        )
        refusal = draft.model_copy(update={"id": refusal_id(draft)})
        journal.record_refusal(refusal)
        outcomes.append(JudgeOutcome(item.attempt_id, refusal=refusal))
    return outcomes


def judge_items(
    items: Sequence[JudgeRequestItem],
    *,
    judge: Judge,
    journal: VerdictJournal,
    clock: Clock,
    include_assertions: bool,
    assertions_now: Callable[[], bool] | None = None,
) -> list[JudgeOutcome]:
    """Judge `items` in one request. Only challenge, answer and (switch on) the assertions
    are sent; the domain, not the model, decides each verdict. `assertions_now` reads the
    switch again should the judge refuse assertions switched off after the payload was
    built (say, while it waited for review): the payload is then sent without them."""
    if not items:
        return []
    payload = tier2_payload(
        _payload_items(items, include_assertions), include_assertions=include_assertions
    )
    response = None
    try:
        response = judge.judge(payload)
        verdicts = parse_verdicts(response.raw_text, payload)
    except PayloadRejected as error:
        switched_off = include_assertions and error.field == CORE_ASSERTIONS
        if switched_off and assertions_now is not None and not assertions_now():
            log.info("assertions were switched off before sending; sending without them")
            return judge_items(
                items, judge=judge, journal=journal, clock=clock, include_assertions=False
            )
        log.info("judging %d item(s) failed: %s", len(items), error.reason_code)
        return refuse_all(items, error, journal, clock)  # refused before anything left
    except JudgeError as error:
        log.info("judging %d item(s) failed: %s", len(items), error.reason_code)
        # A reply that came back but does not read as verdicts, or a request that failed
        # after it left: either way the refusal names the outbox row (issue 21).
        left = response.outbox_id if response is not None else error.outbox_id
        return refuse_all(items, error, journal, clock, outbox_id=left)
    outcomes: list[JudgeOutcome] = []
    now = clock.now()
    for item, sent, verdict in zip(items, payload.items, verdicts, strict=True):
        draft = VerdictRecord(
            id="",
            attempt_id=item.attempt_id,
            outbox_id=response.outbox_id,
            passed=verdict.passed,
            gaps=verdict.gaps,
            feedback=verdict.feedback,
            assertions_sent=sent.core_assertions is not None,
            assertions=item.assertions,
            judge_model=response.model,
            created_at=now,
            assessments=verdict.assessments,
        )
        # The id `coach verify` recomputes from the stored row: one definition for both.
        record = draft.model_copy(update={"id": verdict_id(draft)})
        journal.record_verdict(record)
        outcomes.append(JudgeOutcome(item.attempt_id, verdict=record))
    return outcomes
