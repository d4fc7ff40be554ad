"""How every rule that reads text cuts it into pieces, whatever the script (DESIGN §3, ADR 0032).

Scripts written with spaces between words (Latin, Cyrillic, Greek, Arabic, Hebrew, Hangul…)
are compared by words. Scripts written without them (Han, Hiragana, Katakana, Thai, Lao,
Khmer, Myanmar) are compared by characters: a word there has no visible edge, and Unicode's
own word rules (UAX #29) also give one Han character per word and one word per Thai run.

So that a limit such as "six words in a row" means the same length of text in every
script, each piece carries a weight in `UNITS_PER_WORD`ths of a word: one word of a spaced
script weighs a whole word; one Han character two thirds (Chinese takes about 1.5
characters per English word), one kana two fifths (about 2.5), one Thai, Lao, Khmer or
Myanmar letter a quarter (about 4 letters, vowel and tone marks not counted). Korean is
written with spaces, but its spacing varies between writers, so the no-quote check cuts a
Korean word (its particle stripped) into syllables, each weighing two thirds of a word
like a Han character (about 1.5 syllables per English word). ADR 0032 says how these were
measured.

Folding (`fold`): compatibility forms (NFKC: full-width "ＡＢ", half-width "ｶﾀｶﾅ", ligatures)
read as their plain forms; accents, the optional vowel points of Hebrew and Arabic and the
Arabic tatweel (which only stretches a word) are dropped; marks that are letters of their
own script (Thai vowels, Devanagari vowel signs, the kana voicing marks) are kept; then
Unicode case folding.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from functools import lru_cache
from typing import Literal

UNITS_PER_WORD = 60

# Scripts written without spaces between words, as ranges of code points.
_HAN = (
    (0x2E80, 0x2FDF), (0x3005, 0x3007), (0x3021, 0x3029), (0x3038, 0x303B),
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x2FA1F),
    (0x30000, 0x3134F),
)  # fmt: skip
_KANA = ((0x3040, 0x309F), (0x30A0, 0x30FF), (0x31F0, 0x31FF), (0xFF66, 0xFF9F), (0x1B000, 0x1B16F))
# Thai, Lao, Myanmar, Khmer (and its symbols), Myanmar extensions.
_BRAHMIC = (
    (0x0E00, 0x0E7F), (0x0E80, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x19E0, 0x19FF),
    (0xA9E0, 0xA9FF), (0xAA60, 0xAA7F),
)  # fmt: skip
# Hangul is written with spaces, but particles and endings join the word before them.
_HANGUL = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7AF), (0xD7B0, 0xD7FF))

_RANGES = sorted(
    (low, high, kind)
    for kind, ranges in (("han", _HAN), ("kana", _KANA), ("brahmic", _BRAHMIC), ("hangul", _HANGUL))
    for low, high in ranges
)
_STARTS = [low for low, _, _ in _RANGES]
# Classified by bisection, not by a regular expression: compiling a character class this
# wide costs milliseconds, which every start-up would pay (bench/bench_startup.py).
_UNSPACED_KINDS = ("han", "kana", "brahmic")


def _kind(char: str) -> str | None:
    point = ord(char)
    if point < 0x0E00:  # Latin, Greek, Cyrillic, Hebrew, Arabic, Indic: spaced
        return None
    at = bisect.bisect_right(_STARTS, point) - 1
    if at >= 0 and point <= _RANGES[at][1]:
        return _RANGES[at][2]
    return None


@lru_cache(maxsize=1)
def _token_pattern() -> re.Pattern[str]:
    """One token: a character of an unspaced script, or a run of other letters and digits
    (compiled on first use, at the first check, not at start-up)."""
    unspaced = "".join(
        f"{chr(low)}-{chr(high)}" for low, high, kind in _RANGES if kind in _UNSPACED_KINDS
    )
    return re.compile(f"[{unspaced}]|[^\\W_{unspaced}]+")


# Marks dropped by `fold`: accents on Latin, Greek and Cyrillic, Hebrew and Arabic points.
_ACCENTS: dict[int, None] = dict.fromkeys(
    [
        *range(0x0300, 0x0370),
        *range(0x0483, 0x048A),
        *range(0x0591, 0x05C8),
        *range(0x0610, 0x061B),
        *range(0x064B, 0x0660),
        0x0640,  # the Arabic tatweel, which only stretches a word
        0x0670,
        *range(0x06D6, 0x06EE),
        *range(0x1AB0, 0x1B00),
        *range(0x1DC0, 0x1E00),
        *range(0x20D0, 0x2100),
        *range(0xFE20, 0xFE30),
    ]
)


def fold(text: str) -> str:
    """`text` as search and comparison read it (see the module docstring)."""
    if text.isascii():  # the common case, and far cheaper than normalising
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text).translate(_ACCENTS)
    return unicodedata.normalize("NFC", decomposed).casefold()


def is_unspaced(char: str) -> bool:
    """Whether `char` belongs to a script written without spaces between words."""
    return _kind(char) in _UNSPACED_KINDS


def bounds_words(char: str) -> bool:
    """Whether `char` is part of a word whose edges a quoted span must respect: a letter or
    digit of a script written with spaces. In scripts without spaces (and in Hangul, whose
    particles join the word before them) a span may start and end anywhere."""
    return char.isalnum() and _kind(char) is None


@lru_cache(maxsize=4096)
def char_weight(char: str) -> int:
    """The weight of one token of one character, in `UNITS_PER_WORD`ths of a word."""
    kind = _kind(char)
    if kind == "han":
        return UNITS_PER_WORD * 2 // 3  # ~1.5 characters per word
    if kind == "kana":
        return UNITS_PER_WORD * 2 // 5  # ~2.5 characters per word
    if kind == "brahmic":
        return UNITS_PER_WORD // 4  # ~4 letters per word (Thai, Lao, Khmer, Myanmar)
    if is_hangul_syllable(char):
        return UNITS_PER_WORD * 2 // 3  # ~1.5 syllables per word, as Han (ADR 0032)
    return UNITS_PER_WORD


def is_hangul_syllable(char: str) -> bool:
    """Whether `char` is one composed Hangul syllable (가 … 힣)."""
    return "\uac00" <= char <= "\ud7a3"


def compared_by_character(char: str) -> bool:
    """Whether the no-quote check compares `char` as a token of its own: a character of a
    script without spaces, or a Hangul syllable (Korean spacing varies between writers)."""
    return is_unspaced(char) or is_hangul_syllable(char)


def tokens(folded: str) -> list[str]:
    """The tokens of already folded text: words, and single characters of unspaced scripts."""
    return _token_pattern().findall(folded)


def weights(pieces: list[str]) -> list[int]:
    """The weight of each token, in `UNITS_PER_WORD`ths of a word."""
    return [UNITS_PER_WORD if len(p) > 1 else char_weight(p) for p in pieces]


def windows(weighed: list[int], units: int) -> list[int]:
    """For each start token, the end (exclusive) of the shortest run from it that weighs at
    least `units`; runs that cannot reach it are left out, so the list may be shorter than
    the tokens. The same start in the same tokens always gives the same run, so a run copied
    from one text gives equal windows in the other."""
    ends: list[int] = []
    total, end, count = 0, 0, len(weighed)
    for start in range(count):
        while total < units and end < count:
            total += weighed[end]
            end += 1
        if total < units:
            break
        ends.append(end)
        total -= weighed[start]
    return ends


def text_direction(text: str) -> Literal["rtl", "ltr"] | None:
    """The direction `text` reads in as a paragraph, from its first letter with a strong
    direction (Unicode's bidi rule P2): "rtl" for Hebrew, Arabic, Syriac, Thaana… (classes
    R and AL), "ltr" for every other script, None when it holds no such letter."""
    for char in text:
        kind = unicodedata.bidirectional(char)
        if kind in ("R", "AL"):
            return "rtl"
        if kind == "L":
            return "ltr"
    return None


def reads_right_to_left(text: str) -> bool:
    """Whether `text` reads right to left as a paragraph (`text_direction`)."""
    return text_direction(text) == "rtl"
