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
from coach_gui.domain.verdicts import (
    CITED_NOTHING,
    CITED_NOTHING_WRONG,
    Gap,
    ItemVerdict,
    gap_subject,
    parse_verdicts,
)

ANSWER = "Because variation is inherited, and the slow change adds up over many generations."
WITH = {"challenge": "Why?", "answer": ANSWER, "core_assertions": ["A.", "B.", "C."]}
WITHOUT = {"challenge": "How?", "answer": "Like so."}
PAYLOAD = tier2_payload([WITH, WITHOUT], include_assertions=True)
SPAN = "variation is inherited"


def assess(n: int, status: str = "explained", evidence: list[str] | None = None) -> dict[str, Any]:
    cited = ([] if status == "unexplained" else [SPAN]) if evidence is None else evidence
    return {"assertion": n, "status": status, "evidence": cited, "reason": f"reason {n}"}


def all_explained() -> list[dict[str, Any]]:
    return [assess(n) for n in range(3)]


def item(
    index: int,
    verdict: str = "pass",
    gaps: list[Any] | None = None,
    assessments: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    if assessments is None:
        assessments = all_explained() if index == 0 else []
    return {"index": index, "assessments": assessments, "gaps": gaps or [],
            "verdict": verdict, "feedback": f"fb {index}"}  # fmt: skip


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


# --- the rule with assertions: one assessment per assertion, resting on the answer --------


def test_every_assertion_explained_with_evidence_passes() -> None:
    first = parse_verdicts(reply(item(0), item(1)), PAYLOAD)[0]
    assert first.passed is True and first.gaps == ()
    assert [(a.assertion, a.status, a.evidence) for a in first.assessments] == [
        (n, "explained", (SPAN,)) for n in range(3)
    ]


def test_gaps_are_the_unexplained_and_wrong_assessments_with_the_judges_reason() -> None:
    assessments = [assess(0), assess(1, "unexplained"), assess(2, "wrong")]
    first = parse_verdicts(reply(item(0, "fail", assessments=assessments), item(1)), PAYLOAD)[0]
    assert first.passed is False
    assert first.gaps == (
        Gap(assertion=1, problem="unexplained", explanation="reason 1"),
        Gap(assertion=2, problem="wrong", explanation="reason 2"),
    )


def test_the_models_verdict_word_does_not_override_its_assessments() -> None:
    wrong = [assess(0), assess(1), assess(2, "wrong")]
    said_pass = parse_verdicts(reply(item(0, "pass", assessments=wrong), item(1)), PAYLOAD)[0]
    said_fail = parse_verdicts(reply(item(0, "fail"), item(1)), PAYLOAD)[0]
    assert said_pass.passed is False  # "pass", but an assertion is wrong
    assert said_fail.passed is True  # "fail", but every assertion is explained with evidence


def test_explained_citing_a_span_not_in_the_answer_becomes_unexplained_and_says_so() -> None:
    made_up = [assess(0), assess(1, evidence=["natural selection is random"]), assess(2)]
    first = parse_verdicts(reply(item(0, assessments=made_up), item(1)), PAYLOAD)[0]
    downgraded = first.assessments[1]
    assert downgraded.status == "unexplained" and downgraded.claimed == "explained"
    assert downgraded.reason == CITED_NOTHING == "the judge cited nothing from your answer"
    assert downgraded.evidence == () and downgraded.unfound == ("natural selection is random",)
    assert first.passed is False
    assert first.gaps == (Gap(assertion=1, problem="unexplained", explanation=CITED_NOTHING),)


def test_explained_citing_nothing_at_all_becomes_unexplained() -> None:
    bare = [assess(0), assess(1), assess(2, evidence=[])]
    third = parse_verdicts(reply(item(0, assessments=bare), item(1)), PAYLOAD)[0].assessments[2]
    assert (third.status, third.claimed, third.reason) == (
        "unexplained",
        "explained",
        CITED_NOTHING,
    )


def test_wrong_needs_the_span_that_is_wrong() -> None:
    unsupported = [assess(0), assess(1), assess(2, "wrong", evidence=["not in it"])]
    first = parse_verdicts(reply(item(0, assessments=unsupported), item(1)), PAYLOAD)[0]
    third = first.assessments[2]
    assert (third.status, third.claimed) == ("unexplained", "wrong")
    assert third.reason == CITED_NOTHING_WRONG
    supported = [assess(0), assess(1), assess(2, "wrong", evidence=["the slow change"])]
    kept = parse_verdicts(reply(item(0, assessments=supported), item(1)), PAYLOAD)[0]
    assert kept.assessments[2].status == "wrong" and kept.assessments[2].claimed is None


@pytest.mark.parametrize(
    "span",
    [
        "VARIATION IS INHERITED",  # case
        "variation   is\ninherited",  # white space
        "  variation is inherited ",  # the ends
        "Because variation is inherited, and the slow change adds up over many generations.",
    ],
)
def test_evidence_is_found_after_case_and_white_space_folding(span: str) -> None:
    assessments = [assess(n, evidence=[span]) for n in range(3)]
    first = parse_verdicts(reply(item(0, assessments=assessments), item(1)), PAYLOAD)[0]
    assert first.passed and all(a.evidence == (span,) for a in first.assessments)


@pytest.mark.parametrize("span", ["", "   ", "variation is not inherited", "inherited variation"])
def test_an_empty_or_absent_span_is_not_evidence(span: str) -> None:
    assessments = [assess(0), assess(1), assess(2, evidence=[span])]
    first = parse_verdicts(reply(item(0, assessments=assessments), item(1)), PAYLOAD)[0]
    assert first.assessments[2].status == "unexplained" and not first.passed


def test_one_found_span_is_enough_and_the_unfound_ones_are_kept_apart() -> None:
    assessments = [assess(0), assess(1), assess(2, evidence=["made up", "slow change"])]
    third = parse_verdicts(reply(item(0, assessments=assessments), item(1)), PAYLOAD)[0]
    assert third.assessments[2].status == "explained"
    assert third.assessments[2].evidence == ("slow change",)
    assert third.assessments[2].unfound == ("made up",)


def test_assessments_in_any_order_come_back_in_assertion_order() -> None:
    shuffled = [assess(2), assess(0), assess(1, "unexplained")]
    first = parse_verdicts(reply(item(0, assessments=shuffled), item(1)), PAYLOAD)[0]
    assert [a.assertion for a in first.assessments] == [0, 1, 2]


@given(st.lists(st.sampled_from(["explained", "unexplained", "wrong"]), min_size=3, max_size=3))
def test_passed_iff_every_assertion_explained(statuses: list[str]) -> None:
    assessments = [assess(n, status) for n, status in enumerate(statuses)]
    first = parse_verdicts(reply(item(0, assessments=assessments), item(1)), PAYLOAD)[0]
    assert first.passed == all(s == "explained" for s in statuses)
    assert [(g.assertion, g.problem) for g in first.gaps] == [
        (n, s) for n, s in enumerate(statuses) if s != "explained"
    ]


# --- the rule without assertions: gaps as the judge lists them ----------------------------


def test_adr0021_d4_pass_without_gaps_passes() -> None:
    verdicts = parse_verdicts(reply(item(0), item(1)), PAYLOAD)
    assert verdicts[1] == ItemVerdict(index=1, passed=True, gaps=(), feedback="fb 1")


def test_adr0021_d4_pass_with_any_gap_listed_is_a_fail() -> None:
    verdicts = parse_verdicts(reply(item(0), item(1, "pass", [gap(None, "wrong")])), PAYLOAD)
    assert verdicts[1].passed is False
    assert verdicts[1].gaps == (Gap(assertion=None, problem="wrong", explanation="why"),)


def test_adr0021_d4_fail_is_a_fail_even_without_gaps() -> None:
    assert parse_verdicts(reply(item(0), item(1, "fail")), PAYLOAD)[1].passed is False


def test_an_item_without_assertions_may_leave_out_assessments_and_gaps() -> None:
    bare = {"index": 1, "verdict": "pass", "feedback": "fb 1"}
    assert parse_verdicts(reply(item(0), bare), PAYLOAD)[1].passed is True


def test_verdicts_come_back_in_index_order_whatever_the_reply_order() -> None:
    verdicts = parse_verdicts(reply(item(1, "fail"), item(0)), PAYLOAD)
    assert [(v.index, v.passed) for v in verdicts] == [(0, True), (1, False)]


@given(
    st.sampled_from(["pass", "fail"]),
    st.lists(st.sampled_from(["unexplained", "wrong"]), max_size=4),
)
def test_adr0021_d4_passed_iff_pass_and_no_gap(verdict: str, problems: list[str]) -> None:
    raw = reply(item(0), item(1, verdict, [gap(None, p) for p in problems]))
    second = parse_verdicts(raw, PAYLOAD)[1]
    assert second.passed == (verdict == "pass" and not problems)
    assert [g.problem for g in second.gaps] == problems


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


def test_a_missing_assessment_is_malformed() -> None:
    reason = malformed(reply(item(0, assessments=[assess(0), assess(2)]), item(1)))
    assert reason == "it skipped key point 2 of answer 1"
    assert malformed(reply(item(0, assessments=[]), item(1))) == (
        "it skipped key points 1, 2, 3 of answer 1"
    )


def test_a_duplicate_assessment_is_malformed() -> None:
    twice = [assess(0), assess(1), assess(1, "unexplained"), assess(2)]
    assert malformed(reply(item(0, assessments=twice), item(1))) == (
        "it graded key point 2 of answer 1 twice"
    )


def test_an_assessment_of_an_assertion_not_sent_is_malformed() -> None:
    extra = [*all_explained(), assess(3)]
    assert malformed(reply(item(0, assessments=extra), item(1))) == (
        "it graded key point 4 of answer 1, which was sent with 3 key points"
    )
    assert malformed(reply(item(0), item(1, assessments=[assess(0)]))) == (
        "it graded key points of answer 2, which was sent without key points"
    )


def test_a_gap_naming_an_assertion_out_of_range_is_malformed() -> None:
    reason = malformed(reply(item(0, "fail", [gap(3)]), item(1)))
    assert (
        reason == "item 0 has a gap naming assertion 3, but 3 assertions were sent for it (0 to 2)"
    )


def test_a_gap_naming_an_assertion_when_none_were_sent_is_malformed() -> None:
    reason = malformed(reply(item(0), item(1, "fail", [gap(0)])))
    assert reason == "item 1 has a gap naming assertion 0, but no assertions were sent for it"


def test_with_assertions_the_judges_own_gaps_are_not_used() -> None:
    """The gaps are the assessments' (DESIGN §4): a null gap or one naming a sent assertion
    beside complete assessments changes nothing, and does not lose the verdict."""
    raw = reply(item(0, "fail", [gap(None), gap(1, "wrong")]), item(1))
    first = parse_verdicts(raw, PAYLOAD)[0]
    assert first.passed is True and first.gaps == ()


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
        (reply(item(0), item(1, "fail", [{**gap(None), "problem": "vague"}])), "problem"),
        (reply(item(0), item(1, "fail", [{**gap(None), "assertion": "0"}])), "assertion"),
        (reply(item(0), item(1, "fail", [{"assertion": None, "problem": "wrong"}])), "explanation"),
        (reply({**item(0), "gaps": None}, item(1)), "items.0.gaps"),
        (reply(item(0, assessments=[{**assess(0), "status": "partly"}]), item(1)), "status"),
        (reply(item(0, assessments=[{**assess(0), "evidence": "a span"}]), item(1)), "evidence"),
        (reply(item(0, assessments=[{**assess(0), "reason": None}]), item(1)), "reason"),
        (reply(item(0, assessments=[{**assess(0), "assertion": -1}]), item(1)), "assertion"),
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
