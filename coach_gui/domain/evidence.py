"""Is a span the judge cited really in the learner's answer (DESIGN §4)?

The judge copies spans from the answer as it saw it: fenced, so with invisible characters
stripped and tag-like brackets (entities included) defused (`fencing.neutralise`). A span
counts as found when its folded form occurs in the folded answer, or in the folded answer
as the judge saw it, **starting and ending on word boundaries** where the script has them
(a span that starts or ends with a letter or digit may not start or end inside a word of
the answer: "is immutable" is not in "this immutable"; in scripts written without spaces,
and in Hangul, a span may start and end anywhere: ADR 0032), and when it holds at least
one letter or digit (a lone "." or "..." is no evidence). Folding drops invisible
characters and the optional vowel points of Arabic and Hebrew, decomposes (Unicode NFKD:
a composed "é" and a decomposed one, full-width "Ａ" and "A" read the same), reads
typographic quotes, dashes and look-alike brackets as their plain ASCII forms, applies
Unicode case folding, and turns every run of white space into one space.

`folded` is the fast path the verdict rule uses (one pass over the answer per item);
`evidence_ranges` is the slow path the window uses to place highlights: it keeps, for each
folded character, the answer characters it came from. A span found only in the answer as
the judge saw it (one that quotes a defused tag, say) counts, but is not marked.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache

from coach_gui.domain.fencing import _AMP_CHARS, _GT_CHARS, _INVISIBLE, _LT_CHARS, neutralise
from coach_gui.domain.text_segments import bounds_words


def _invisible_code_points() -> list[int]:
    """Every code point `fencing._INVISIBLE` matches, read from its character class (so the
    two lists cannot drift apart; a test checks them against each other)."""
    body = _INVISIBLE.pattern[1:-1]
    points: list[int] = []
    index = 0
    while index < len(body):
        if index + 2 < len(body) and body[index + 1] == "-":
            points += range(ord(body[index]), ord(body[index + 2]) + 1)
            index += 3
        else:
            points.append(ord(body[index]))
            index += 1
    return points


# Invisible characters dropped (as the fence drops them), then, after decomposition,
# typographic quotes, dashes and look-alike brackets read as plain ASCII.
_DROP: dict[int, None] = dict.fromkeys(_invisible_code_points())
# The optional vowel points of Arabic and Hebrew and the Arabic tatweel, dropped too: a
# learner or a judge may write "ضَعُفَت" or "ضعفت", "חוֹק" or "חוק", and both are the same
# words (ADR 0032). A hamza written as a mark (U+0654, U+0655) is part of its letter and
# stays.
_POINTS: dict[int, None] = dict.fromkeys(
    [
        *range(0x0591, 0x05BE),
        0x05BF,
        0x05C1,
        0x05C2,
        0x05C4,
        0x05C5,
        0x05C7,
        *range(0x064B, 0x0654),
        *range(0x0656, 0x0660),
        0x0640,
        0x0670,
    ]
)
_FOLD_DROP: dict[int, None] = {**_DROP, **_POINTS}
_PLAIN: dict[str, str | None] = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u00b4\u0060", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys(_LT_CHARS + "[", "["),
    **dict.fromkeys(_GT_CHARS + "]", "]"),
    "\u2026": "...",
}
_TABLE: dict[int, str | None] = str.maketrans(_PLAIN)
_FENCE_SENSITIVE = _LT_CHARS + _AMP_CHARS + "#"


def _decomposed(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFKD", text)


def folded(text: str) -> str:
    """`text` as spans and answers are compared: see the module docstring. (`str.split`
    splits on exactly the characters `str.isspace` names.)"""
    return " ".join(_decomposed(text.translate(_FOLD_DROP)).translate(_TABLE).casefold().split())


def _word(char: str) -> bool:
    """A letter or digit a span may not start or end next to, on the same side: one of a
    script written with spaces. In Chinese, Japanese, Thai… (and Hangul, whose particles
    join the word before them) a span copied from inside a run is found (ADR 0032)."""
    return bounds_words(char)


def _inside_syllable(char: str) -> bool:
    """A Hangul vowel or final consonant, which folding split off its syllable: a span
    that ends just before one cut the syllable ("기회비용이" is not in "기회비용입니다")."""
    return "\u1160" <= char <= "\u11ff" or "\ud7b0" <= char <= "\ud7ff"


def _jamo(char: str) -> bool:
    return (
        "\u1100" <= char <= "\u11ff" or "\ua960" <= char <= "\ua97f" or "\ud7b0" <= char <= "\ud7ff"
    )


def _cuts_syllable(haystack: str, at: int) -> bool:
    """Whether a span starting or ending at `at` would cut a Hangul syllable: a vowel or
    final consonant there, joined to the jamo before it (a vowel standing alone is not)."""
    return 0 < at < len(haystack) and _inside_syllable(haystack[at]) and _jamo(haystack[at - 1])


def _occurrences(needle: str, haystack: str) -> Iterator[int]:
    """Where `needle` (folded, non-empty) starts in `haystack` on word boundaries, and
    never inside a Hangul syllable."""
    head, tail = _word(needle[0]), _word(needle[-1])
    start = haystack.find(needle)
    while start != -1:
        end = start + len(needle)
        if (
            not (head and start > 0 and _word(haystack[start - 1]))
            and not (tail and end < len(haystack) and _word(haystack[end]))
            and not _cuts_syllable(haystack, end)
            and not _cuts_syllable(haystack, start)
        ):
            yield start
        start = haystack.find(needle, start + 1)


def _needle(span: str) -> str | None:
    needle = folded(span)
    return needle if any(char.isalnum() for char in needle) else None


@dataclass
class FoldedAnswer:
    """An answer folded once for every span cited from it; the answer as the judge saw it
    (neutralised) is folded only when a span is not found in the answer itself."""

    answer: str
    _seen: str | None = None

    def __post_init__(self) -> None:
        self.text = folded(self.answer)

    def holds(self, span: str) -> bool:
        """True when `span` (as the judge wrote it) is evidence from this answer."""
        needle = _needle(span)
        if needle is None:
            return False
        if next(_occurrences(needle, self.text), None) is not None:
            return True
        if self._seen is None:
            # The fence changes nothing folding does not already undo unless the answer
            # holds something that may open a tag or an entity (or pad one, after "#").
            touched = any(char in self.answer for char in _FENCE_SENSITIVE)
            self._seen = folded(neutralise(self.answer)) if touched else self.text
        return self._seen != self.text and next(_occurrences(needle, self._seen), None) is not None


@lru_cache(maxsize=8)
def _folded_with_origins(text: str) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
    """`folded(text)`, and for each of its characters the first and the past-the-end
    index in `text` of the characters it came from (kept for the last few answers: the
    window asks once per key point). Characters are decomposed a cluster at a time (a
    character and the combining marks after it), as NFKD reorders marks within one; an
    ASCII word, the common case, maps one to one."""
    out = _Origins()
    if text.translate(_FOLD_DROP) != text:  # dropped characters: the general path throughout
        kept = [(i, c) for i, c in enumerate(text) if c.translate(_FOLD_DROP)]
        out.add_clusters(_clusters(kept))
        return out.result()
    for word in _RUN.finditer(text):
        first, past = word.span()
        if out.chars:
            out.space(first - 1)
        if word.group().isascii():
            out.add_ascii(word.group(), first, past)
        else:
            out.add_clusters(_clusters(list(enumerate(word.group(), first))))
    return out.result()


_RUN = re.compile(r"\S+")


class _Origins:
    """The folded characters being built, with where each came from."""

    def __init__(self) -> None:
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self._pending: int | None = None

    def space(self, index: int) -> None:
        if self._pending is None:
            self._pending = index

    def _flush(self) -> None:
        if self._pending is not None:
            self.chars.append(" ")
            self.starts.append(self._pending)
            self.ends.append(self._pending + 1)
            self._pending = None

    def add_ascii(self, word: str, first: int, past: int) -> None:
        self._flush()
        self.chars.append(word.translate(_TABLE).lower())  # one character for one
        self.starts.extend(range(first, past))
        self.ends.extend(range(first + 1, past + 1))

    def add_clusters(self, clusters: Iterable[tuple[int, int, str]]) -> None:
        for first, last, cluster in clusters:
            for piece in _decomposed(cluster).translate(_TABLE).casefold():
                if piece.isspace():
                    if self.chars:
                        self.space(first)
                    continue
                self._flush()
                self.chars.append(piece)
                self.starts.append(first)
                self.ends.append(last + 1)

    def result(self) -> tuple[str, tuple[int, ...], tuple[int, ...]]:
        return "".join(self.chars), tuple(self.starts), tuple(self.ends)


def _clusters(kept: Sequence[tuple[int, str]]) -> Iterator[tuple[int, int, str]]:
    """(first index, last index, text) of each run of a starter and the marks after it."""
    run: list[tuple[int, str]] = []
    for index, char in kept:
        if run and _starts_cluster(char):
            yield run[0][0], run[-1][0], "".join(c for _, c in run)
            run = []
        run.append((index, char))
    if run:
        yield run[0][0], run[-1][0], "".join(c for _, c in run)


def _starts_cluster(char: str) -> bool:
    """A character NFKD never reorders with what comes before it."""
    if char.isascii():
        return True
    if unicodedata.combining(char):
        return False
    decomposed = _decomposed(char)
    return not decomposed or not unicodedata.combining(decomposed[0])


def evidence_ranges(answer: str, spans: Iterable[str]) -> list[tuple[int, int]]:
    """Where each found span sits in `answer`: (start, end) character ranges, one per
    occurrence of each span, sorted and merged where they overlap. Spans not found in the
    answer itself give none."""
    haystack, starts, ends = _folded_with_origins(answer)
    ranges: list[tuple[int, int]] = []
    for span in spans:
        needle = _needle(span)
        if needle is None:
            continue
        for start in _occurrences(needle, haystack):
            ranges.append((starts[start], ends[start + len(needle) - 1]))
    return _merged(ranges)


def _merged(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
