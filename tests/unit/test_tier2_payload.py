"""ADR-0021 in the domain: the Tier 2 payload is the only thing that may leave, and
`tier2_payload` refuses anything else. Test names say which decision (d1..d5) they hold."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coach_gui.config import JudgeConfig
from coach_gui.domain.fencing import neutralise
from coach_gui.domain.tier2 import (
    PayloadRejected,
    Tier2Item,
    Tier2Payload,
    revalidated,
    tier2_payload,
)

ITEM = {"challenge": "Why do species change over time?", "answer": "Because of selection."}
WITH_ASSERTIONS = {**ITEM, "core_assertions": ["Variation is inherited.", "More are born."]}

# What a note, a session or a verdict carries that must never reach the judge (DESIGN §1.1).
FORBIDDEN_FIELDS = [
    "body", "note", "note_body", "title", "path", "id", "coach_id", "note_id", "source",
    "tags", "session_id", "verdict", "gap", "gaps", "buzzword", "buzzwords", "quote",
    "feedback", "coreAssertions", "assertions", "Challenge", "answer ", "",
]  # fmt: skip

# Visible text: what the fence strips (a lone variation selector, say) counts as blank.
texts = st.text(min_size=1).filter(lambda t: neutralise(t).strip() and t.isprintable())
items = st.fixed_dictionaries({"challenge": texts, "answer": texts})
assertion_lists = st.lists(texts, min_size=1, max_size=5)


def rejected(items: Any, *, allow: bool = True) -> PayloadRejected:
    with pytest.raises(PayloadRejected) as caught:
        tier2_payload(items, include_assertions=allow)
    return caught.value


# --- decision 1: only challenge + answer (+ assertions) per item ------------------------------


@pytest.mark.parametrize("field", FORBIDDEN_FIELDS)
def test_adr0021_d1_no_other_field_is_ever_accepted(field: str) -> None:
    error = rejected([ITEM, {**ITEM, field: "marker-7f3a"}])
    assert error.index == 1
    assert error.field == field
    assert f"item 1, field '{field}'" in str(error)
    assert "Nothing left this computer" in str(error)


def test_adr0021_d1_the_payload_holds_exactly_what_was_given() -> None:
    payload = tier2_payload([WITH_ASSERTIONS, ITEM], include_assertions=True)
    assert json.loads(payload.canonical()) == {"items": [WITH_ASSERTIONS, ITEM]}


@given(st.lists(items, min_size=1, max_size=4), st.data())
def test_adr0021_d1_any_extra_field_is_rejected(raw: list[dict[str, str]], data: Any) -> None:
    index = data.draw(st.integers(0, len(raw) - 1))
    extra = data.draw(
        st.text(min_size=1, max_size=20).filter(
            lambda k: k not in ("challenge", "answer", "core_assertions")
        )
    )
    value = data.draw(st.one_of(st.text(), st.integers(), st.none(), st.lists(st.text())))
    raw[index] = {**raw[index], extra: value}
    error = rejected(raw, allow=data.draw(st.booleans()))
    assert (error.index, error.field) == (index, extra)


# --- decision 2: the switch ---------------------------------------------------------------------


def test_adr0021_d2_the_switch_is_on_by_default() -> None:
    assert JudgeConfig().include_assertions is True


def test_adr0021_d2_switch_off_payload_is_exactly_challenge_and_answer() -> None:
    payload = tier2_payload([ITEM, ITEM], include_assertions=False)
    assert payload.canonical() == json.dumps(
        {"items": [dict(sorted(ITEM.items()))] * 2}, separators=(",", ":"), ensure_ascii=False
    )
    assert not payload.carries_assertions


def test_adr0021_d2_switch_on_without_assertions_sends_none() -> None:
    payload = tier2_payload([ITEM], include_assertions=True)
    assert json.loads(payload.canonical()) == {"items": [ITEM]}


# --- decision 3: the domain enforces it ----------------------------------------------------------


@given(st.lists(items, min_size=1, max_size=4), st.lists(assertion_lists, min_size=1))
def test_adr0021_d3_assertions_only_when_allowed(
    raw: list[dict[str, Any]], assertions: list[list[str]]
) -> None:
    with_assertions = [
        {**item, "core_assertions": assertions[n % len(assertions)]} for n, item in enumerate(raw)
    ]
    error = rejected(with_assertions, allow=False)
    assert (error.index, error.field) == (0, "core_assertions")
    assert "switched off for this request (Send core assertions)" in str(error)
    payload = tier2_payload(with_assertions, include_assertions=True)
    assert [list(i.core_assertions or ()) for i in payload.items] == [
        item["core_assertions"] for item in with_assertions
    ]


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("Variation is inherited.", "core_assertions"),  # a string, not a list of them
        ([], "core_assertions"),
        (["fine", ""], "core_assertions[1]"),
        (["fine", "   \n"], "core_assertions[1]"),
        (["\u200b\u2060"], "core_assertions[0]"),  # only invisible characters
        (["fine", 3], "core_assertions[1]"),
        ([None], "core_assertions[0]"),
        ({"0": "a"}, "core_assertions"),
    ],
)
def test_adr0021_d3_assertions_are_a_list_of_non_empty_strings(value: Any, field: str) -> None:
    error = rejected([{**ITEM, "core_assertions": value}])
    assert (error.index, error.field) == (0, field)


def test_adr0021_d3_an_empty_item_list_is_rejected() -> None:
    assert "no items" in str(rejected([]))


@pytest.mark.parametrize("items", ["challenge", b"x", {"challenge": "a", "answer": "b"}, None])
def test_adr0021_d3_items_must_be_a_list(items: Any) -> None:
    rejected(items)


def test_adr0021_d3_an_empty_item_is_rejected() -> None:
    error = rejected([ITEM, {}])
    assert error.index == 1
    assert "is empty" in str(error)


@pytest.mark.parametrize("field", ["challenge", "answer"])
@pytest.mark.parametrize("blank", ["", " ", "\n\t", "\u00a0", "\u200b", "\ufeff \u2060"])
def test_adr0021_d3_empty_or_blank_strings_are_rejected(field: str, blank: str) -> None:
    error = rejected([{**ITEM, field: blank}])
    assert (error.index, error.field) == (0, field)
    assert "empty or blank" in str(error)


@pytest.mark.parametrize("field", ["challenge", "answer"])
def test_adr0021_d3_a_missing_challenge_or_answer_is_rejected(field: str) -> None:
    item = {k: v for k, v in ITEM.items() if k != field}
    error = rejected([item])
    assert (error.index, error.field) == (0, field)
    assert "missing" in str(error)


@pytest.mark.parametrize("value", [3, 2.5, True, None, b"bytes", ["a"], {"a": "b"}])
@pytest.mark.parametrize("field", ["challenge", "answer"])
def test_adr0021_d3_non_string_values_are_rejected(field: str, value: Any) -> None:
    error = rejected([{**ITEM, field: value}])
    assert (error.index, error.field) == (0, field)
    assert "must be text" in str(error)


@pytest.mark.parametrize("item", ["a string", ["challenge", "answer"], 7, None])
def test_adr0021_d3_an_item_must_be_a_mapping(item: Any) -> None:
    assert rejected([ITEM, item]).index == 1


def test_adr0021_d3_records_refuse_what_tier2_payload_refuses() -> None:
    with pytest.raises(ValueError):
        Tier2Item(challenge=" ", answer="a")
    with pytest.raises(ValueError):
        Tier2Item(challenge="c", answer="a", core_assertions=())
    with pytest.raises(ValueError):
        Tier2Item(challenge="c", answer="a", title="t")  # type: ignore[call-arg]
    with pytest.raises(ValueError):
        Tier2Payload(items=())
    item = Tier2Item(challenge="c", answer="a")
    with pytest.raises(ValueError):
        item.answer = "changed"  # type: ignore[misc]


def test_adr0021_d3_the_adapter_recheck_rebuilds_every_payload() -> None:
    payload = tier2_payload([WITH_ASSERTIONS, ITEM], include_assertions=True)
    assert revalidated(payload, include_assertions=True) == payload


def test_adr0021_d3_the_adapter_recheck_refuses_assertions_when_switched_off() -> None:
    payload = tier2_payload([ITEM, WITH_ASSERTIONS], include_assertions=True)
    with pytest.raises(PayloadRejected) as caught:
        revalidated(payload, include_assertions=False)
    assert (caught.value.index, caught.value.field) == (1, "core_assertions")
    plain = tier2_payload([ITEM], include_assertions=False)
    assert revalidated(plain, include_assertions=False) == plain


def test_adr0021_d3_the_adapter_recheck_catches_records_built_without_validation() -> None:
    blank = Tier2Payload.model_construct(
        items=(Tier2Item.model_construct(challenge="c", answer=""),)
    )
    with pytest.raises(PayloadRejected, match="item 0, field 'answer'"):
        revalidated(blank, include_assertions=True)
    sneaky = Tier2Item.model_construct(challenge="c", answer="a", core_assertions=("x", 5))
    with pytest.raises(PayloadRejected, match=r"core_assertions\[1\]"):
        revalidated(Tier2Payload.model_construct(items=(sneaky,)), include_assertions=True)
    empty = Tier2Payload.model_construct(items=())
    with pytest.raises(PayloadRejected, match="no items"):
        revalidated(empty, include_assertions=True)
    with pytest.raises(PayloadRejected):
        revalidated({"items": [ITEM]}, include_assertions=True)
