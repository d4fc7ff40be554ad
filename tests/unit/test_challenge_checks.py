"""Replies that are not challenges never reach the learner (issue 31); the per-request
schemas a grammar-constrained runtime follows; JSON read out of a fence or prose."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from fakes.multilingual_notes import NOTES

from coach_gui.domain.challenge_checks import ChallengeChecks, instruction_text
from coach_gui.domain.challenge_stream import ChallengeStream, NotAChallenge
from coach_gui.domain.challenges import ChallengeKind, challenge_schema, tier1_messages
from coach_gui.domain.no_quote import NoQuoteCheck
from coach_gui.domain.reply_json import json_object_text
from coach_gui.domain.tier2 import tier2_payload, verdict_schema
from coach_gui.domain.verdicts import MalformedVerdict, parse_verdicts

B = "0123456789abcdef"
ESSAY = " ".join(["Selection keeps traits that help an animal live longer"] * 7) + "?"
ECHO = "Asks the learner to explain the idea, why or how it works, in their own words?"
MESSAGES = tier1_messages("Natural selection", "Body of the note.", ["One point."],
                          ChallengeKind.EXPLAIN, B)  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        ("<one question>", "placeholder"),
        ("Question: <your question here>", "placeholder"),
        ("Why does <concept> matter?", "placeholder"),
        # Seen from SmolLM2 in CI: tag-like ids, no question (shown to the learner, once).
        ("<jb-challenge-6008c1c2f815f9ca98b8d00b890507e47a92975f1443c3c4c-jb-challenge-"
         "6008c1c2f815f9ca98b8d00b890507e47a92975f1443c3c-16728d458b9c55bac312d12f2e7?",
         "ids or markup"),
        ("challenge", "own words"),
        ("What it is not", "neither a question nor a task"),
        ("Why?", "too short"),
        (ESSAY, "too long"),
        (ECHO, "instructions"),
    ],
)  # fmt: skip
def test_replies_that_are_not_challenges_are_rejected_with_a_reason(reply: str, why: str) -> None:
    problem = ChallengeChecks(instruction_text(MESSAGES)).problem(reply)
    assert problem is not None and why in problem


@pytest.mark.parametrize(
    "reply",
    [
        "Why can a process that only keeps or removes traits still produce new kinds?",
        "Explain in your own words how a small advantage spreads through a population.",
        "Imagine a valley that grows colder. Predict which animals leave more young.",
        # Markup is text to show as written (the injection tests), not a placeholder.
        "<i>Not italic</i> &amp; <a href='https://evil.example'>why</a> does it last?",
        *(q for note in NOTES for q in note.honest),
    ],
)
def test_questions_and_tasks_in_every_language_pass(reply: str) -> None:
    assert ChallengeChecks(instruction_text(MESSAGES)).problem(reply) is None


def test_the_prompt_carries_no_placeholder_a_model_could_copy() -> None:
    assert "<one question>" not in json.dumps(MESSAGES)
    tags = [re.findall(r"<(?!/?untrusted_)[^<>]*>", text) for text in instruction_text(MESSAGES)]
    assert tags == [[], []]  # only the fences' own tags, named as such


def test_a_placeholder_reply_is_never_shown_while_streaming() -> None:
    stream = ChallengeStream(NoQuoteCheck("Body of the note."), ChallengeChecks())
    shown = ""
    with pytest.raises(NotAChallenge):
        for piece in ('{"challenge": "<one', ' question>"', ', "kind": "explain"}'):
            shown += stream.feed(piece)
    assert shown == ""


def test_the_challenge_schema_fixes_the_kind_and_bounds_the_length() -> None:
    schema = challenge_schema(ChallengeKind.APPLY)
    jsonschema.validate({"challenge": "How would this apply?", "kind": "apply"}, schema)
    for bad in (
        {"challenge": "x" * 501, "kind": "apply"},
        {"challenge": "Why so?", "kind": "explain"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)


def _payload():  # type: ignore[no-untyped-def]
    return tier2_payload(
        [{"challenge": "c", "answer": "the answer", "core_assertions": ["p0", "p1", "p2"]},
         {"challenge": "d", "answer": "another"}],
        include_assertions=True,
    )  # fmt: skip


def _assessment(n: int) -> dict[str, object]:
    return {"assertion": n, "status": "unexplained", "evidence": [], "reason": "r"}


def test_the_verdict_schema_admits_exactly_one_assessment_per_sent_assertion() -> None:
    payload, schema = _payload(), verdict_schema(_payload())
    good = {"items": [
        {"index": 0, "assessments": [_assessment(n) for n in range(3)], "gaps": [],
         "verdict": "fail", "feedback": "f"},
        {"index": 1, "assessments": [], "gaps": [], "verdict": "pass", "feedback": "f"},
    ]}  # fmt: skip
    jsonschema.validate(good, schema)
    assert len(parse_verdicts(json.dumps(good), payload)) == 2
    # What a real small model wrote under the old schema: one assessment for five points.
    skipped = json.loads(json.dumps(good))
    skipped["items"][0]["assessments"] = [_assessment(0)]
    repeated = json.loads(json.dumps(good))
    repeated["items"][0]["assessments"] = [_assessment(0), _assessment(0), _assessment(2)]
    swapped = json.loads(json.dumps(good))
    swapped["items"].reverse()
    for bad in (skipped, repeated, swapped):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    for bad in (skipped, repeated):  # the domain still checks on its own
        with pytest.raises(MalformedVerdict):
            parse_verdicts(json.dumps(bad), payload)


@pytest.mark.parametrize(
    ("reply", "read"),
    [
        ('{"a": 1}', '{"a": 1}'),
        ('```json\n{"a": 1}\n```', '{"a": 1}'),
        ('{"a": 1}\nHope this helps!', '{"a": 1}'),
        ('Sure! {"a": 1}', 'Sure! {"a": 1}'),  # prose before: nothing is guessed
        ('{"a": ', '{"a": '),
    ],
)
def test_json_is_read_out_of_a_fence_or_before_prose_and_nothing_is_invented(
    reply: str, read: str
) -> None:
    assert json_object_text(reply) == read
