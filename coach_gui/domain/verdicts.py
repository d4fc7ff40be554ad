"""The judge's verdicts, and the verdict rule (DESIGN §4): the domain decides, not the model.

An item passes only when the judge says "pass" AND lists no gap. A reply that is not the
JSON asked for, that misses, repeats or invents an item index, or whose gap names an
assertion that was not sent, is a malformed verdict: the attempts stay unjudged.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field, ValidationError

from coach_gui.domain.judge_errors import MalformedVerdict
from coach_gui.domain.records import Record
from coach_gui.domain.tier2 import Tier2Payload

Problem = Literal["unexplained", "wrong"]
_Index = Annotated[int, Field(ge=0)]


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


class ItemVerdict(Record):
    """The domain's verdict on one item of the payload."""

    index: _Index
    passed: bool
    gaps: tuple[Gap, ...]
    feedback: str


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


class _ReplyItem(Record):
    index: _Index
    verdict: Literal["pass", "fail"]
    gaps: tuple[_ReplyGap, ...]
    feedback: str


class _Reply(Record):
    items: tuple[_ReplyItem, ...]


def _first_problem(error: ValidationError) -> str:
    detail = error.errors(include_url=False)[0]
    where = ".".join(str(part) for part in detail["loc"]) or "the reply"
    if detail["type"] == "json_invalid":
        return "it is not valid JSON"
    return f"it does not match the verdict shape ({where}: {detail['msg']})"


def _check_gaps(item: _ReplyItem, payload: Tier2Payload) -> None:
    sent = payload.items[item.index].core_assertions
    for gap in item.gaps:
        if sent is None and gap.assertion is not None:
            raise MalformedVerdict(
                f"item {item.index} has a gap naming assertion {gap.assertion}, but no "
                "assertions were sent for it"
            )
        if sent is not None and (gap.assertion is None or gap.assertion >= len(sent)):
            named = "no assertion" if gap.assertion is None else f"assertion {gap.assertion}"
            raise MalformedVerdict(
                f"item {item.index} has a gap naming {named}, but {len(sent)} assertion"
                f"{'s were' if len(sent) != 1 else ' was'} sent for it (0 to {len(sent) - 1})"
            )


def parse_verdicts(raw_text: str, payload: Tier2Payload) -> list[ItemVerdict]:
    """The verdict on every item of `payload`, in index order, from the judge's raw reply.

    Raises MalformedVerdict, with a reason a person can read, when the reply cannot be
    trusted as a verdict on exactly these items.
    """
    try:
        reply = _Reply.model_validate_json(raw_text)
    except ValidationError as error:
        raise MalformedVerdict(_first_problem(error)) from None
    count = len(payload.items)
    seen: set[int] = set()
    for item in reply.items:
        if item.index >= count:
            raise MalformedVerdict(
                f"it grades item {item.index}, but only {count} item"
                f"{'s were' if count != 1 else ' was'} sent (0 to {count - 1})"
            )
        if item.index in seen:
            raise MalformedVerdict(f"it grades item {item.index} more than once")
        seen.add(item.index)
        _check_gaps(item, payload)
    missing = sorted(set(range(count)) - seen)
    if missing:
        listed = ", ".join(str(index) for index in missing)
        raise MalformedVerdict(f"it does not grade item{'s' if len(missing) > 1 else ''} {listed}")
    return [
        ItemVerdict(
            index=item.index,
            # The verdict rule: "pass" with any gap listed is a fail.
            passed=item.verdict == "pass" and not item.gaps,
            gaps=tuple(Gap(**gap.model_dump()) for gap in item.gaps),
            feedback=item.feedback,
        )
        for item in sorted(reply.items, key=lambda reply_item: reply_item.index)
    ]
