"""The judge's verdicts, and the verdict rule (DESIGN §4): the domain decides, not the model.

With core assertions sent, the judge assesses each one (explained, unexplained or wrong),
citing spans of the learner's answer. An `explained` or `wrong` assessment that cites
nothing found in the answer counts as `unexplained` ("the judge cited nothing from your
answer"), and says so; the item's gaps are its unexplained and wrong assertions; it passes
only when every assertion is explained. Without assertions, an item passes only when the
judge says "pass" AND lists no gap.

A reply that is not the JSON asked for, that misses, repeats or invents an item index or an
assessment, or that names an assertion that was not sent, is a malformed verdict: the
attempts stay unjudged and can be judged again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field, ValidationError

from coach_gui.domain.evidence import FoldedAnswer
from coach_gui.domain.judge_errors import MalformedVerdict
from coach_gui.domain.records import Record
from coach_gui.domain.reply_json import json_object_text
from coach_gui.domain.tier2 import Tier2Item, Tier2Payload

Problem = Literal["unexplained", "wrong"]
Status = Literal["explained", "unexplained", "wrong"]
_Index = Annotated[int, Field(ge=0)]
CITED_NOTHING = "the judge cited nothing from your answer"
CITED_NOTHING_WRONG = "the judge called this wrong but cited nothing from your answer"


class Gap(Record):
    """An assertion the answer does not explain or gets wrong. `assertion` is its 0-based
    index among the assertions sent for the item, or None when none were sent."""

    assertion: _Index | None
    problem: Problem
    explanation: str


def gap_subject(assertion: int | None, assertions: Sequence[str]) -> str:
    """What a gap is about, in the learner's own words: "key point N: <their assertion>",
    or "the challenge" when no assertion was sent (or the index names none of them)."""
    if assertion is not None and 0 <= assertion < len(assertions):
        return f"key point {assertion + 1}: {assertions[assertion]}"
    return "the challenge"


class Assessment(Record):
    """The domain's reading of the judge's assessment of one sent assertion: `evidence`
    holds the cited spans found in the answer, `unfound` those that are not in it. When
    the domain overruled the judge (an `explained` or `wrong` citing nothing found),
    `claimed` keeps what the judge said and `reason` says why it does not count."""

    assertion: _Index
    status: Status
    evidence: tuple[str, ...]
    reason: str
    claimed: Status | None = None
    unfound: tuple[str, ...] = ()

    @property
    def downgraded(self) -> bool:
        return self.claimed is not None


class ItemVerdict(Record):
    """The domain's verdict on one item of the payload; `assessments` is empty when the
    item was judged without assertions."""

    index: _Index
    passed: bool
    gaps: tuple[Gap, ...]
    feedback: str
    assessments: tuple[Assessment, ...] = ()


class JudgeResponse(Record):
    """What one judge request brought back, before the verdict rule is applied."""

    raw_text: str  # the model's reply text, unparsed
    model: str
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: int
    request_body: str  # the HTTP body exactly as sent (no key)
    outbox_id: str | None = None  # the outbox row recording this request


class _ReplyGap(Record):
    assertion: _Index | None
    problem: Problem
    explanation: str


class _ReplyAssessment(Record):
    assertion: _Index
    status: Status
    evidence: tuple[str, ...]
    reason: str


class _ReplyItem(Record):
    index: _Index
    # Both default to empty: a reply for items sent without assertions may leave them out.
    assessments: tuple[_ReplyAssessment, ...] = ()
    gaps: tuple[_ReplyGap, ...] = ()
    verdict: Literal["pass", "fail"]
    feedback: str


class _Reply(Record):
    items: tuple[_ReplyItem, ...]


def _first_problem(error: ValidationError) -> str:
    detail = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in detail["loc"]) or "the reply"
    if detail["type"] == "json_invalid":
        return "it is not valid JSON"
    return f"it does not match the verdict shape ({where}: {detail['msg']})"


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _check_gaps(item: _ReplyItem, sent: tuple[str, ...] | None) -> None:
    """Gaps name no assertion when none were sent. With assertions the gaps are derived
    from the assessments and the judge's own are not used; one naming an assertion that
    was not sent still makes the reply malformed (DESIGN §4)."""
    for gap in item.gaps:
        if sent is None and gap.assertion is not None:
            raise MalformedVerdict(
                f"item {item.index} has a gap naming assertion {gap.assertion}, but no "
                "assertions were sent for it"
            )
        if sent is not None and gap.assertion is not None and gap.assertion >= len(sent):
            raise MalformedVerdict(
                f"item {item.index} has a gap naming assertion {gap.assertion}, but "
                f"{_plural(len(sent), 'assertion was', 'assertions were')} sent for it "
                f"(0 to {len(sent) - 1})"
            )


def _check_assessments(item: _ReplyItem, sent: tuple[str, ...] | None) -> None:
    """Exactly one assessment per sent assertion (any order); none without assertions.
    The reasons name key points and answers as the learner counts them, from 1."""
    answer = f"answer {item.index + 1}"
    if sent is None:
        if item.assessments:
            raise MalformedVerdict(
                f"it graded key points of {answer}, which was sent without key points"
            )
        return
    seen: set[int] = set()
    for assessment in item.assessments:
        point = f"key point {assessment.assertion + 1}"
        if assessment.assertion >= len(sent):
            raise MalformedVerdict(
                f"it graded {point} of {answer}, which was sent with "
                f"{_plural(len(sent), 'key point', 'key points')}"
            )
        if assessment.assertion in seen:
            raise MalformedVerdict(f"it graded {point} of {answer} twice")
        seen.add(assessment.assertion)
    missing = sorted(set(range(len(sent))) - seen)
    if missing:
        listed = ", ".join(str(n + 1) for n in missing)
        raise MalformedVerdict(
            f"it skipped key point{'s' if len(missing) > 1 else ''} {listed} of {answer}"
        )


def checked_assessment(reply: _ReplyAssessment, answer: FoldedAnswer) -> Assessment:
    """The domain's reading of one assessment: evidence must be in the answer."""
    found = tuple(span for span in reply.evidence if answer.holds(span))
    unfound = tuple(span for span in reply.evidence if span not in found)
    if reply.status != "unexplained" and not found:
        return Assessment(
            assertion=reply.assertion,
            status="unexplained",
            evidence=(),
            reason=CITED_NOTHING if reply.status == "explained" else CITED_NOTHING_WRONG,
            claimed=reply.status,
            unfound=unfound,
        )
    return Assessment(
        assertion=reply.assertion,
        status=reply.status,
        evidence=found,
        reason=reply.reason,
        unfound=unfound,
    )


def gaps_from(assessments: Sequence[Assessment]) -> tuple[Gap, ...]:
    """The gaps an item's assessments amount to: its unexplained and wrong assertions."""
    return tuple(
        Gap(assertion=a.assertion, problem=a.status, explanation=a.reason)
        for a in assessments
        if a.status != "explained"
    )


def _verdict(item: _ReplyItem, sent: Tier2Item) -> ItemVerdict:
    if sent.core_assertions is None:
        return ItemVerdict(
            index=item.index,
            # The verdict rule without assertions: "pass" with any gap listed is a fail.
            passed=item.verdict == "pass" and not item.gaps,
            gaps=tuple(Gap(**gap.model_dump()) for gap in item.gaps),
            feedback=item.feedback,
        )
    answer = FoldedAnswer(sent.answer)
    assessments = tuple(
        checked_assessment(reply, answer)
        for reply in sorted(item.assessments, key=lambda reply: reply.assertion)
    )
    return ItemVerdict(
        index=item.index,
        # The verdict rule with assertions: every one explained, none wrong; the model's
        # own verdict word does not override its assessments.
        passed=all(a.status == "explained" for a in assessments),
        gaps=gaps_from(assessments),
        feedback=item.feedback,
        assessments=assessments,
    )


def parse_verdicts(raw_text: str, payload: Tier2Payload) -> list[ItemVerdict]:
    """The verdict on every item of `payload`, in index order, from the judge's raw reply.

    Raises MalformedVerdict, with a reason a person can read, when the reply cannot be
    trusted as a verdict on exactly these items.
    """
    try:
        reply = _Reply.model_validate_json(json_object_text(raw_text))
    except ValidationError as error:
        raise MalformedVerdict(_first_problem(error)) from None
    count = len(payload.items)
    seen: set[int] = set()
    for item in reply.items:
        if item.index >= count:
            raise MalformedVerdict(
                f"it grades item {item.index}, but only "
                f"{_plural(count, 'item was', 'items were')} sent (0 to {count - 1})"
            )
        if item.index in seen:
            raise MalformedVerdict(f"it grades item {item.index} more than once")
        seen.add(item.index)
        sent = payload.items[item.index].core_assertions
        _check_gaps(item, sent)
        _check_assessments(item, sent)
    missing = sorted(set(range(count)) - seen)
    if missing:
        listed = ", ".join(str(index) for index in missing)
        raise MalformedVerdict(f"it does not grade item{'s' if len(missing) > 1 else ''} {listed}")
    return [
        _verdict(item, payload.items[item.index])
        for item in sorted(reply.items, key=lambda reply_item: reply_item.index)
    ]
