"""Replies in the judge contract of DESIGN §4 for the fake judges: one assessment per sent
assertion, each `explained` or `wrong` one citing a span copied from the answer.

Tests written as "the judge lists these gaps" keep saying so: `from_gaps` turns such a gap
list into the assessments a judge keeping the new contract sends (each gap's assertion gets
its problem as status, every other assertion is explained).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

_WORDS = re.compile(r"\S+")


def cited(answer: str, words: int = 5) -> str:
    """A span a judge would cite: the answer's first `words` words, exactly as written."""
    found = list(_WORDS.finditer(answer))[:words]
    return answer[found[0].start() : found[-1].end()] if found else answer


def from_gaps(
    answer: str, assertions: int, gaps: Sequence[Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """The assessments that say what `gaps` say about an item with `assertions` assertions."""
    problems = {gap["assertion"]: gap for gap in gaps}
    out = []
    for n in range(assertions):
        gap = problems.get(n)
        status = "explained" if gap is None else str(gap["problem"])
        out.append(
            {"assertion": n, "status": status,
             "evidence": [] if status == "unexplained" else [cited(answer)],
             "reason": "The answer explains it." if gap is None else str(gap["explanation"])}
        )  # fmt: skip
    return out


def assessed(raw: str, sent: Callable[[int], tuple[str, tuple[str, ...] | None] | None]) -> str:
    """`raw`, a gaps-style reply, in the new contract: each item whose (answer, assertions)
    `sent(index)` names, sent with assertions and without assessments of its own, gets
    assessments from its gaps and no gaps. Anything else is left as it is."""
    reply = json.loads(raw)
    for item in reply.get("items", []):
        if not isinstance(item, dict) or "assessments" in item:
            continue
        index = item.get("index")
        found = sent(index) if isinstance(index, int) else None
        if found is None or found[1] is None:
            item.setdefault("assessments", [])
            continue
        answer, assertions = found[0], found[1]
        item["assessments"] = from_gaps(answer, len(assertions), item.get("gaps", []))
        item["gaps"] = []
    return json.dumps(reply)


def assessed_for(raw: str, payload: Any) -> str:
    """`assessed(raw, …)` for the items of a `Tier2Payload`."""

    def sent(index: int) -> tuple[str, tuple[str, ...] | None] | None:
        if not 0 <= index < len(payload.items):
            return None
        return payload.items[index].answer, payload.items[index].core_assertions

    return assessed(raw, sent)
