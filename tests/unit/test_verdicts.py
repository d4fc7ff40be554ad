"""The verdict rule (DESIGN §4, ADR-0021 d4): the domain decides, not the model, and a reply
that cannot be trusted as a verdict on exactly the items sent is malformed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coach_gui.domain.judge_errors import JudgeError, MalformedVerdict
from coach_gui.domain.tier2 import tier2_payload
from coach_gui.domain.verdicts import Gap, ItemVerdict, gap_subject, parse_verdicts

WITH = {"challenge": "Why?", "answer": "Because.", "core_assertions": ["A.", "B.", "C."]}
WITHOUT = {"challenge": "How?", "answer": "Like so."}
PAYLOAD = tier2_payload([WITH, WITHOUT], allow_assertions=True)


def item(index: int, verdict: str = "pass", gaps: list[Any] | None = None) -> dict[str, Any]:
    return {"index": index, "verdict": verdict, "gaps": gaps or [], "feedback": f"fb {index}"}


def gap(assertion: int | None, problem: str = "unexplained") -> dict[str, Any]:
    return {"assertion": assertion, "problem": problem, "explanation": "why"}


def reply(*items: dict[str, Any]) -> str:
    return json.dumps({"items": list(items)})


def malformed(raw: str) -> str:
    with pytest.raises(MalformedVerdict) as caught:
        parse_verdicts(raw, PAYLOAD)
    error = caught.value
    assert isinstance(error, JudgeError)
    assert error.reason_code == "malformed"
    assert "kept unjudged" in str(error)
    return error.reason


# --- the rule ---------------------------------------------------------------------------------


def test_adr0021_d4_pass_without_gaps_passes() -> None:
    verdicts = parse_verdicts(reply(item(0), item(1)), PAYLOAD)
    assert verdicts == [
        ItemVerdict(index=0, passed=True, gaps=(), feedback="fb 0"),
        ItemVerdict(index=1, passed=True, gaps=(), feedback="fb 1"),
    ]


def test_adr0021_d4_pass_with_any_gap_listed_is_a_fail() -> None:
    verdicts = parse_verdicts(reply(item(0, "pass", [gap(2, "wrong")]), item(1)), PAYLOAD)
    assert verdicts[0].passed is False
    assert verdicts[0].gaps == (Gap(assertion=2, problem="wrong", explanation="why"),)


def test_adr0021_d4_fail_is_a_fail_even_without_gaps() -> None:
    assert parse_verdicts(reply(item(0, "fail"), item(1)), PAYLOAD)[0].passed is False


def test_adr0021_d4_items_without_assertions_take_null_gaps() -> None:
    verdicts = parse_verdicts(reply(item(0), item(1, "fail", [gap(None)])), PAYLOAD)
    assert verdicts[1].gaps == (Gap(assertion=None, problem="unexplained", explanation="why"),)
    assert verdicts[1].passed is False


def test_verdicts_come_back_in_index_order_whatever_the_reply_order() -> None:
    verdicts = parse_verdicts(reply(item(1, "fail"), item(0)), PAYLOAD)
    assert [(v.index, v.passed) for v in verdicts] == [(0, True), (1, False)]


@given(
    st.sampled_from(["pass", "fail"]),
    st.lists(st.tuples(st.integers(0, 2), st.sampled_from(["unexplained", "wrong"])), max_size=4),
)
def test_adr0021_d4_passed_iff_pass_and_no_gap(verdict: str, gaps: list[tuple[int, str]]) -> None:
    raw = reply(item(0, verdict, [gap(a, p) for a, p in gaps]), item(1))
    first = parse_verdicts(raw, PAYLOAD)[0]
    assert first.passed == (verdict == "pass" and not gaps)
    assert [(g.assertion, g.problem) for g in first.gaps] == gaps


# --- malformed replies ----------------------------------------------------------------------------


def test_a_missing_index_is_malformed() -> None:
    assert malformed(reply(item(0))) == "it does not grade item 1"


def test_several_missing_indexes_are_named() -> None:
    assert malformed(reply()) == "it does not grade items 0, 1"


def test_a_duplicate_index_is_malformed() -> None:
    assert malformed(reply(item(0), item(1), item(0, "fail"))) == "it grades item 0 more than once"


def test_an_extra_index_is_malformed() -> None:
    reason = malformed(reply(item(0), item(1), item(2)))
    assert reason == "it grades item 2, but only 2 items were sent (0 to 1)"


def test_a_gap_naming_an_assertion_out_of_range_is_malformed() -> None:
    reason = malformed(reply(item(0, "fail", [gap(3)]), item(1)))
    assert (
        reason == "item 0 has a gap naming assertion 3, but 3 assertions were sent for it (0 to 2)"
    )


def test_a_gap_naming_an_assertion_when_none_were_sent_is_malformed() -> None:
    reason = malformed(reply(item(0), item(1, "fail", [gap(0)])))
    assert reason == "item 1 has a gap naming assertion 0, but no assertions were sent for it"


def test_a_null_gap_when_assertions_were_sent_is_malformed() -> None:
    reason = malformed(reply(item(0, "fail", [gap(None)]), item(1)))
    assert reason.startswith("item 0 has a gap naming no assertion, but 3 assertions were sent")


@pytest.mark.parametrize(
    "raw",
    ["", "Sure! The answer is good.", '{"items": [', "```json\n{}\n```", "null", "[]"],
)
def test_text_that_is_not_the_json_object_is_malformed(raw: str) -> None:
    reason = malformed(raw)
    assert "not valid JSON" in reason or "does not match the verdict shape" in reason


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ('{"verdicts": []}', "items"),
        (reply({**item(0), "verdict": "maybe"}, item(1)), "items.0.verdict"),
        (reply({**item(0), "index": "0"}, item(1)), "items.0.index"),
        (reply({**item(0), "index": 0.0}, item(1)), "items.0.index"),
        (reply({**item(0), "index": True}, item(1)), "items.0.index"),
        (reply({**item(0), "index": -1}, item(1)), "items.0.index"),
        (reply({k: v for k, v in item(0).items() if k != "feedback"}, item(1)), "feedback"),
        (reply({**item(0), "score": 10}, item(1)), "items.0.score"),
        (reply(item(0, "fail", [{**gap(0), "problem": "vague"}]), item(1)), "problem"),
        (reply(item(0, "fail", [{**gap(0), "assertion": "0"}]), item(1)), "assertion"),
        (reply(item(0, "fail", [{"assertion": 0, "problem": "wrong"}]), item(1)), "explanation"),
        (reply({**item(0), "gaps": None}, item(1)), "items.0.gaps"),
    ],
)
def test_schema_violations_are_malformed_and_say_where(raw: str, where: str) -> None:
    reason = malformed(raw)
    assert reason.startswith("it does not match the verdict shape")
    assert where in reason


def test_a_gap_is_named_by_the_learners_own_assertion_or_else_the_challenge() -> None:
    assertions = ("Selection keeps variation.", "Change is slow.")
    assert gap_subject(1, assertions) == "key point 2: Change is slow."
    assert gap_subject(None, assertions) == "the challenge"  # assertions were not sent
    assert gap_subject(2, assertions) == "the challenge"  # names none of the note's now
