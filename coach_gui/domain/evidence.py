"""Is a span the judge cited really in the learner's answer (DESIGN §4)?

The judge copies spans from the answer as it saw it: fenced, so with invisible characters
stripped and tag-like brackets defused (`fencing.neutralise`). A span counts as found when
its folded form is a substring of the answer's folded form. Folding drops invisible
characters, reads typographic quotes, dashes and look-alike brackets as their plain ASCII
forms, applies Unicode case folding, and turns every run of white space into one space.
A span that folds to nothing is never found.

`folded` is the fast path the verdict rule uses (one pass over the answer per item);
`evidence_ranges` is the slow path the window uses to place highlights: it keeps, for each
folded character, the index of the answer character it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from coach_gui.domain.fencing import _GT_CHARS, _INVISIBLE, _LT_CHARS


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


# One table for one C-speed pass: invisible characters dropped (as the fence drops them),
# typographic quotes, dashes and look-alike brackets read as plain ASCII.
_PLAIN: dict[str, str | None] = {
    **dict.fromkeys("\u2018\u2019\u201a\u201b\u2032\u00b4\u0060", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f\u2033\u00ab\u00bb", '"'),
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys(_LT_CHARS + "[", "["),
    **dict.fromkeys(_GT_CHARS + "]", "]"),
    "\u2026": "...",
}
_TABLE: dict[int, str | None] = {
    **dict.fromkeys(_invisible_code_points()),
    **str.maketrans(_PLAIN),
}


def folded(text: str) -> str:
    """`text` as spans and answers are compared: see the module docstring. (`str.split`
    splits on exactly the characters `str.isspace` names.)"""
    return " ".join(text.translate(_TABLE).casefold().split())


def found_in(span: str, folded_answer: str) -> bool:
    """True when `span` (as the judge wrote it) occurs in the answer `folded_answer`."""
    needle = folded(span)
    return bool(needle) and needle in folded_answer


@lru_cache(maxsize=8)
def _folded_with_origins(text: str) -> tuple[str, tuple[int, ...]]:
    """`folded(text)`, and for each of its characters the index in `text` it came from
    (kept for the last few answers: the window asks once per key point)."""
    chars: list[str] = []
    origins: list[int] = []
    pending_space: int | None = None
    for index, char in enumerate(text):
        pieces = char.translate(_TABLE).casefold()
        if not pieces:  # an invisible character (some are white space too: dropped first)
            continue
        if pieces.isspace():
            if chars and pending_space is None:
                pending_space = index
            continue
        if pending_space is not None:
            chars.append(" ")
            origins.append(pending_space)
            pending_space = None
        chars.append(pieces)
        origins += [index] * len(pieces)
    return "".join(chars), tuple(origins)


def evidence_ranges(answer: str, spans: Iterable[str]) -> list[tuple[int, int]]:
    """Where each found span sits in `answer`: (start, end) character ranges, one per
    occurrence of each span, sorted and merged where they overlap. Spans not found give
    none."""
    haystack, origins = _folded_with_origins(answer)
    ranges: list[tuple[int, int]] = []
    for span in spans:
        needle = folded(span)
        if not needle:
            continue
        start = haystack.find(needle)
        while start != -1:
            end = start + len(needle) - 1
            ranges.append((origins[start], origins[end] + 1))
            start = haystack.find(needle, start + 1)
    return _merged(ranges)


def _merged(ranges: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
