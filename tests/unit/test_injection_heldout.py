"""Issue 21: a held-out corpus (tests/unit/heldout_corpus.py, 320 strings not in the
issue 9 corpus) at every injection site of the Tier 1 and judge prompts — note title and
body, assertions, earlier questions, challenge, answer. Nothing in any fence may read as
a fence tag, neither to the app's own decoded view nor to the stricter lenient reader."""

from __future__ import annotations

import re

import pytest
from heldout_corpus import HELD_OUT
from test_injection import HARMLESS, _assert_intact, judge_prompts, tier1_prompts

from coach_gui.domain.fencing import decoded_view, fence

_APP_READS_A_TAG = re.compile(r"<\s*/?\s*untrusted", re.IGNORECASE)


def test_the_held_out_corpus_is_large_and_new() -> None:
    from injection_corpus import CORPUS

    assert len(HELD_OUT) >= 200 and len(set(HELD_OUT)) == len(HELD_OUT)
    assert not set(HELD_OUT) & set(CORPUS)


@pytest.mark.parametrize("hostile", HELD_OUT)
def test_no_held_out_string_survives_at_any_site(hostile: str) -> None:
    fenced = fence("answer", hostile, "0123456789ab")
    inner = fenced.split("\n", 1)[1].rsplit("\n", 1)[0]
    assert not _APP_READS_A_TAG.search(decoded_view(inner)), repr(hostile)
    _assert_intact(tier1_prompts(hostile), tier1_prompts(HARMLESS), hostile)
    _assert_intact(judge_prompts(hostile), judge_prompts(HARMLESS), hostile)
