"""Evidence from the learner's answer (DESIGN §4): what counts as found, and where the
window places each found span."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coach_gui.domain.evidence import _folded_with_origins, evidence_ranges, folded, found_in
from coach_gui.domain.fencing import neutralise

ANSWER = "Traits vary.  Some variation is\nINHERITED — and the fit leave more offspring."


def test_folding_ignores_case_and_white_space_runs() -> None:
    assert folded("  Some  variation\tis\n INHERITED ") == "some variation is inherited"


@pytest.mark.parametrize(
    ("span", "found"),
    [
        ("some variation is inherited", True),
        ("is inherited - and the fit", True),  # a plain dash for the answer's em dash
        ("the fit leave more offspring.", True),
        ("variation is not inherited", False),
        ("", False),
        ("   ", False),
    ],
)
def test_a_span_is_found_only_when_it_is_in_the_answer(span: str, found: bool) -> None:
    assert found_in(span, folded(ANSWER)) is found


def test_typographic_quotes_read_as_plain_ones() -> None:
    answer = "It\u2019s the \u201cfittest\u201d that leave offspring."
    assert found_in('it\'s the "fittest"', folded(answer))


def test_a_span_copied_from_the_fenced_answer_is_found_in_the_answer() -> None:
    """The judge sees the answer neutralised (tags defused, invisible characters gone)."""
    answer = "A <b>bold</b> claim, with a zero\u200bwidth space."
    seen_by_judge = neutralise(answer)
    assert seen_by_judge != answer
    for span in ("[b]bold[/b] claim", "zerowidth space"):
        assert span in seen_by_judge
        assert found_in(span, folded(answer))


def test_ranges_point_at_the_spans_in_the_original_answer() -> None:
    ranges = evidence_ranges(ANSWER, ["SOME VARIATION is inherited", "leave more"])
    assert [ANSWER[start:end] for start, end in ranges] == [
        "Some variation is\nINHERITED",
        "leave more",
    ]


def test_ranges_of_overlapping_spans_merge_and_every_occurrence_is_marked() -> None:
    answer = "slow change, slow change, and more slow change"
    assert evidence_ranges(answer, ["slow change", "change, slow"]) == [(0, 24), (35, 46)]


def test_spans_not_in_the_answer_give_no_range() -> None:
    assert evidence_ranges(ANSWER, ["nothing like this", ""]) == []


def test_a_character_that_folds_to_two_maps_back_to_itself() -> None:
    answer = "Die Straße ist lang."
    ((start, end),) = evidence_ranges(answer, ["strasse"])
    assert answer[start:end] == "Straße"


@given(st.text(max_size=200))
def test_the_slow_fold_and_the_fast_fold_agree(text: str) -> None:
    assert _folded_with_origins(text)[0] == folded(text)


@given(st.text(min_size=1, max_size=120), st.data())
def test_any_slice_of_the_answer_is_found_and_ranged_onto_itself(
    text: str, data: st.DataObject
) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    span = text[start:end]
    if not folded(span):
        return
    assert found_in(span, folded(text))
    ranges = evidence_ranges(text, [span])
    assert ranges and any(folded(text[a:b]).find(folded(span)) != -1 for a, b in ranges)


def test_the_fold_drops_exactly_the_characters_the_fence_strips() -> None:
    """The translation table is read from the fence's own pattern; check every code point."""
    from coach_gui.domain.evidence import _TABLE
    from coach_gui.domain.fencing import _INVISIBLE

    dropped = {point for point, to in _TABLE.items() if to is None}
    matched = {p for p in range(0x110000) if _INVISIBLE.match(chr(p))}
    assert dropped == matched
