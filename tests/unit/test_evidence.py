"""Evidence from the learner's answer (DESIGN §4): what counts as found, and where the
window places each found span."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from coach_gui.domain.evidence import (
    FoldedAnswer,
    _folded_with_origins,
    evidence_ranges,
    folded,
)
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
    assert FoldedAnswer(ANSWER).holds(span) is found


def test_typographic_quotes_read_as_plain_ones() -> None:
    answer = "It\u2019s the \u201cfittest\u201d that leave offspring."
    assert FoldedAnswer(answer).holds('it\'s the "fittest"')


def test_a_span_copied_from_the_fenced_answer_is_found_in_the_answer() -> None:
    """The judge sees the answer neutralised (tags defused, invisible characters gone)."""
    answer = "A <b>bold</b> claim, with a zero\u200bwidth space."
    seen_by_judge = neutralise(answer)
    assert seen_by_judge != answer
    for span in ("[b]bold[/b] claim", "zerowidth space"):
        assert span in seen_by_judge
        assert FoldedAnswer(answer).holds(span)


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
    haystack, starts, ends = _folded_with_origins(text)
    assert len(starts) == len(ends) == len(haystack)
    assert all(0 <= a < b <= len(text) for a, b in zip(starts, ends, strict=True))


_WORDS = st.lists(
    st.text(st.characters(exclude_categories=("Zs", "Zl", "Zp", "Cc")), min_size=1, max_size=8),
    min_size=1,
    max_size=12,
)


@given(_WORDS, st.data())
def test_any_run_of_whole_words_of_the_answer_is_found_and_marked(
    words: list[str], data: st.DataObject
) -> None:
    text = " ".join(words)
    start = data.draw(st.integers(0, len(words) - 1))
    end = data.draw(st.integers(start + 1, len(words)))
    span = " ".join(words[start:end])
    if not any(char.isalnum() for char in folded(span)):
        return  # no letter or digit: never evidence
    assert FoldedAnswer(text).holds(span)
    ranges = evidence_ranges(text, [span])
    assert ranges and any(folded(span) in folded(text[a:b]) for a, b in ranges)


@given(st.text(max_size=80), st.data())
def test_any_run_of_whole_words_of_the_answer_the_judge_saw_is_found(
    text: str, data: st.DataObject
) -> None:
    """Whatever the fence did to the answer (entities and tags defused, invisible
    characters dropped), words copied from what the judge saw count as evidence."""
    words = neutralise(text).split()
    if not words:
        return
    start = data.draw(st.integers(0, len(words) - 1))
    end = data.draw(st.integers(start + 1, len(words)))
    span = " ".join(words[start:end])
    if any(char.isalnum() for char in folded(span)):
        assert FoldedAnswer(text).holds(span)


@pytest.mark.parametrize(
    "span",
    ["is immutable", "mutable object", ".", "...", " - ", "\u2026", "?!"],
)
def test_part_of_a_word_or_punctuation_alone_is_no_evidence(span: str) -> None:
    answer = "Use this immutable object… or not - really?!"
    assert not FoldedAnswer(answer).holds(span)
    assert evidence_ranges(answer, [span]) == []


def test_a_span_may_end_in_punctuation_or_start_after_it() -> None:
    answer = "Use this immutable object… or not - really?!"
    holds = FoldedAnswer(answer).holds
    assert holds("this immutable object...") and holds("really?!") and holds("not - really")


def test_composed_and_decomposed_letters_and_full_width_forms_read_the_same() -> None:
    answer = "Le cafe\u0301 est chaud; ＡＢＣ order."
    holds = FoldedAnswer(answer).holds
    assert holds("le café est") and holds("ABC order")
    ((start, end),) = evidence_ranges(answer, ["café"])
    assert answer[start:end] == "cafe\u0301"


def test_words_the_judge_saw_after_the_fence_defused_an_entity_tag_count() -> None:
    answer = "Escape it as &lt;script&gt; before output."
    seen = neutralise(answer)
    assert "[script]" in seen
    assert FoldedAnswer(answer).holds("Escape it as [script] before output")
    assert evidence_ranges(answer, ["Escape it as [script]"]) == []  # counted, not marked


def test_the_fold_drops_exactly_the_characters_the_fence_strips() -> None:
    """The translation table is read from the fence's own pattern; check every code point."""
    from coach_gui.domain.evidence import _DROP
    from coach_gui.domain.fencing import _INVISIBLE

    dropped = set(_DROP)
    matched = {p for p in range(0x110000) if _INVISIBLE.match(chr(p))}
    assert dropped == matched


def test_a_hangul_vowel_standing_alone_is_found_but_a_syllable_is_never_cut() -> None:
    """Found by Hypothesis: a vowel jamo written on its own is a word of the answer; the
    rule against cutting a syllable applies only where it joins the jamo before it."""
    assert FoldedAnswer("\u1161").holds("\u1161")
    assert evidence_ranges("\u1161", ["\u1161"]) == [(0, 1)]
    assert not FoldedAnswer("기회비용입니다").holds("기회비용이")
