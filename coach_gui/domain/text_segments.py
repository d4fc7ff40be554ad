"""How every rule that reads text cuts it into pieces, whatever the script (DESIGN §3, ADR 0032).

Scripts written with spaces between words (Latin, Cyrillic, Greek, Arabic, Hebrew, Hangul…)
are compared by words. Scripts written without them (Han, Hiragana, Katakana, Thai, Lao,
Khmer, Myanmar) are compared by characters: a word there has no visible edge, and Unicode's
own word rules (UAX #29) also give one Han character per word and one word per Thai run.

So that a limit such as "six words in a row" means the same length of text in every
script, each piece carries a weight in `UNITS_PER_WORD`ths of a word: one word of a spaced
script weighs a whole word; one Han character two thirds (Chinese takes about 1.5
characters per English word), one kana two fifths (about 2.5), one Thai, Lao, Khmer or
Myanmar letter a quarter (about 4 letters, vowel and tone marks not counted). ADR 0032
says how these were measured.

Folding (`fold`): compatibility forms (NFKC: full-width "ＡＢ", half-width "ｶﾀｶﾅ", ligatures)
read as their plain forms; accents and the optional vowel points of Hebrew and Arabic are
dropped; marks that are letters of their own script (Thai vowels, Devanagari vowel
signs, the kana voicing marks) are kept; then Unicode case folding.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

UNITS_PER_WORD = 60

# Scripts written without spaces between words, as character-class ranges.
_HAN = (
    "\u2e80-\u2fdf\u3005-\u3007\u3021-\u3029\u3038-\u303b\u3400-\u4dbf\u4e00-\u9fff"
    "\uf900-\ufaff\U00020000-\U0002fa1f\U00030000-\U0003134f"
)
_KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f\U0001b000-\U0001b16f"
_BRAHMIC = (
    "\u0e00-\u0e7f\u0e80-\u0eff\u1780-\u17ff\u19e0-\u19ff\u1000-\u109f\ua9e0-\ua9ff\uaa60-\uaa7f"
)
UNSPACED = _HAN + _KANA + _BRAHMIC
# Hangul is written with spaces, but particles and endings join the word before them.
_HANGUL = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"

_UNSPACED_CHAR = re.compile(f"[{UNSPACED}]")
_JOINED_CHAR = re.compile(f"[{UNSPACED}{_HANGUL}]")
# One token: a single character of an unspaced script, or a run of other letters and digits.
_TOKENS = re.compile(f"[{UNSPACED}]|[^\\W_{UNSPACED}]+")
_HAN_CHAR = re.compile(f"[{_HAN}]")
_KANA_CHAR = re.compile(f"[{_KANA}]")

# Marks dropped by `fold`: accents on Latin, Greek and Cyrillic, Hebrew and Arabic points.
_ACCENTS: dict[int, None] = dict.fromkeys(
    [
        *range(0x0300, 0x0370),
        *range(0x0483, 0x048A),
        *range(0x0591, 0x05C8),
        *range(0x0610, 0x061B),
        *range(0x064B, 0x0660),
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
    return _UNSPACED_CHAR.match(char) is not None


def bounds_words(char: str) -> bool:
    """Whether `char` is part of a word whose edges a quoted span must respect: a letter or
    digit of a script written with spaces. In scripts without spaces (and in Hangul, whose
    particles join the word before them) a span may start and end anywhere."""
    return char.isalnum() and _JOINED_CHAR.match(char) is None


@lru_cache(maxsize=4096)
def char_weight(char: str) -> int:
    """The weight of one token of one character, in `UNITS_PER_WORD`ths of a word."""
    if _HAN_CHAR.match(char):
        return UNITS_PER_WORD * 2 // 3  # ~1.5 characters per word
    if _KANA_CHAR.match(char):
        return UNITS_PER_WORD * 2 // 5  # ~2.5 characters per word
    if _UNSPACED_CHAR.match(char):
        return UNITS_PER_WORD // 4  # ~4 letters per word (Thai, Lao, Khmer, Myanmar)
    return UNITS_PER_WORD


def tokens(folded: str) -> list[str]:
    """The tokens of already folded text: words, and single characters of unspaced scripts."""
    return _TOKENS.findall(folded)


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
