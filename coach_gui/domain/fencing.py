"""Fencing untrusted text (notes, challenges, answers, assertions) inside model prompts.

A fence is a pair of tags carrying a random per-request boundary,
``<untrusted_note_3f9c0a1b2c4d>`` … ``</untrusted_note_3f9c0a1b2c4d>``, so text inside
cannot guess how to close it. Defence in depth: `neutralise` also defuses anything in the
data that looks like a tag open or close, in any case, spacing or form (HTML entities,
full-width and other look-alike brackets), and strips invisible characters used to hide
text. The learner's text stays readable: ``<b>`` becomes ``[b]``; ``x < y`` is untouched.
"""

from __future__ import annotations

import html
import re
import secrets
import unicodedata
from collections.abc import Callable

FENCE_PREFIX = "untrusted_"

# Cf (format) characters, control characters, variation selectors, Hangul fillers and other
# invisible code points: they hide text from the reader but not from the model.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f"
    "\u0890\u0891\u08e2\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# Opening and closing brackets a reader (or a model) could take for < and >.
# Each list is closed under NFKC (a test checks it for this Python's Unicode): U+FE3F, the
# vertical-presentation angle bracket, folds to U+3008, so it is listed too (issue 21).
_LT_CHARS = "<\uff1c\ufe64\u2039\u2329\u3008\u27e8\u02c2\u1438\u276e\u276c\u2770\u29fc\ufe3f"
_GT_CHARS = ">\uff1e\ufe65\u203a\u232a\u3009\u27e9\u02c3\u1433\u276f\u276d\u2771\u29fd\ufe40"
# Double and dotted angle brackets and low arrowheads (« 《 ⟪ ⦑ ˱ ⋖; U+FE3D folds to 《) are
# ordinary punctuation too (« quotes »), so they are defused only where they open or close
# something named like a fence, `«/untrusted_…»` (issue 34); the learner's quotes stay.
_QUOTE_LT_CHARS = "\u00ab\u300a\u27ea\u2991\u02f1\u22d6\ufe3d"
_QUOTE_GT_CHARS = "\u00bb\u300b\u27eb\u2992\u02f2\u22d7\ufe3e"
_AMP_CHARS = "&\uff06\ufe60"
_SLASH_CHARS = "/\\\uff0f\uff3c\u2044\u2215\u29f8\u2571\u27cb\ufe68"
_CANDIDATE = re.compile(f"[{re.escape(_LT_CHARS + _QUOTE_LT_CHARS + _AMP_CHARS)}]")
# A bracket written as an escape ("%3C", "\u003c", "\x3c", "\U0000003c") that opens a
# fence's name, and one that closes it: a model may read the escape as the bracket.
_ESC_LT = r"(?:%3c|\\u003c|\\x3c|\\U0000003c)"
_ESC_GT = r"(?:%3e|\\u003e|\\x3e|\\U0000003e)"
_ESC_SLASH = r"(?:/|%2f|\\u002f|\\x2f|\\/)"
_ESCAPED_OPEN = re.compile(rf"{_ESC_LT}(?=\s*(?:{_ESC_SLASH}\s*)?{FENCE_PREFIX})", re.IGNORECASE)
_ESCAPED_CLOSE = re.compile(rf"(?<=\b{FENCE_PREFIX})([a-z0-9_]*){_ESC_GT}", re.IGNORECASE)
_ENTITY_WINDOW = 64  # longest entity chain we decode, e.g. "&amp;amp;#x0003c;"
_DECODE_ROUNDS = 8  # entities inside entities, "&amp;lt;", are decoded this deep
_LOOKAHEAD_CHARS = 16  # enough to see "untrusted" after a bracket
# Leading zeros of a numeric entity ("&#0000…060;" is "<") can pad it past any window; a long
# run of them (or of marks on them) right after "#" or "#x" reads the same as one zero.
_ZERO_RUN = re.compile(
    "[0\u2070\u2080\u24ea\uff10\U0001d7ce\U0001d7d8\U0001d7e2\U0001d7ec\U0001d7f6"
    "\U0001fbf0\u0300-\u036f]{16,}"
)
_WORD = re.compile(r"[^\W\d]\w*")
_LABEL = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_BOUNDARY = re.compile(r"^[0-9a-f]{8,64}$")
_ASCII_TAGGY = "_/\\!?& \t\n\r"  # ASCII that may start a tag, an entity or spacing
SAFE_OPEN = "["
SAFE_CLOSE = "]"


def new_boundary(token_bytes: Callable[[int], bytes] = secrets.token_bytes) -> str:
    """A fresh random boundary (12 hex characters) for one request's fences."""
    return token_bytes(6).hex()


def fence_tag(label: str, boundary: str) -> str:
    """The tag name of a fence, e.g. ``untrusted_note_3f9c0a1b2c4d``."""
    if not _LABEL.match(label):
        raise ValueError(f"a fence label is lower-case letters, digits and '_' (got {label!r})")
    if not _BOUNDARY.match(boundary):
        raise ValueError(f"a fence boundary is 8-64 lower-case hex digits (got {boundary!r})")
    return f"{FENCE_PREFIX}{label}_{boundary}"


def fence(label: str, text: str, boundary: str) -> str:
    """`text`, neutralised, between the opening and closing tags of one fence."""
    tag = fence_tag(label, boundary)
    return f"<{tag}>\n{neutralise(text)}\n</{tag}>"


def decoded_view(text: str) -> str:
    """What a lenient reader sees: entities decoded (repeatedly), NFKC, and invisible
    characters and combining marks dropped (they can hide a "<" or split an entity)."""
    if not any(amp in text for amp in _AMP_CHARS):  # no entity: one round is enough
        return _without_marks(_INVISIBLE.sub("", unicodedata.normalize("NFKC", text)))
    for _ in range(_DECODE_ROUNDS):
        decoded = unicodedata.normalize("NFKC", html.unescape(text))
        decoded = _without_marks(_INVISIBLE.sub("", decoded))
        if decoded == text:
            break
        text = decoded
    return text


def neutralise(text: str) -> str:
    """`text` with invisible characters removed and every tag-like bracket defused."""
    text = _collapse_entity_padding(_strip_entity_marks(_INVISIBLE.sub("", text)))
    text = _defuse_escaped(text)
    replacements: list[tuple[int, int, str]] = []
    resume = 0
    for match in _CANDIDATE.finditer(text):
        start = match.start()
        if start < resume:
            continue
        end = _unit_end(text, start, _LT_CHARS + _QUOTE_LT_CHARS)
        if end is None:
            continue
        quote = decoded_view(text[start:end])[:1] in _QUOTE_LT_CHARS
        if not (_names_a_fence(text, end) if quote else _tag_like(text, end)):
            continue
        replacements.append((start, end, SAFE_OPEN))
        resume = end
        close = _closing_unit(text, end)
        if close is not None:
            replacements.append((close[0], close[1], SAFE_CLOSE))
            resume = close[1]
    if not replacements:
        return text
    pieces: list[str] = []
    cursor = 0
    for start, end, safe in replacements:
        pieces += [text[cursor:start], safe]
        cursor = end
    pieces.append(text[cursor:])
    return "".join(pieces)


def _defuse_escaped(text: str) -> str:
    """`text` with each escaped bracket around a fence's name made a safe bracket."""
    if "%" not in text and "\\" not in text:
        return text
    text = _ESCAPED_OPEN.sub(SAFE_OPEN, text)
    return _ESCAPED_CLOSE.sub(lambda m: m.group(1) + SAFE_CLOSE, text)


def _names_a_fence(text: str, after: int) -> bool:
    """Whether what follows a quotation-mark bracket is a fence's name ("untrusted"),
    maybe after a slash and spaces, as a lenient reader sees it."""
    rest = "".join(_lookahead(text, after).split()).casefold()
    rest = rest[1:] if rest[:1] in _SLASH_CHARS else rest
    return rest.startswith(FENCE_PREFIX.rstrip("_"))


def _strip_entity_marks(text: str) -> str:
    """`text` without the combining marks inside an entity: a lenient reader drops them
    ("&" + 70 accents + "lt;" reads as "<"), and enough of them pad an entity past the
    window it is decoded in (issue 21). Marks elsewhere, and after an "&" that starts no
    entity, are the learner's and stay."""
    if not any(amp in text for amp in _AMP_CHARS):
        return text
    pieces: list[str] = []
    index, size = 0, len(text)
    while index < size:
        char = text[index]
        pieces.append(char)
        index += 1
        if char not in _AMP_CHARS:
            continue
        run_end = index
        while run_end < size and (_is_mark(text[run_end]) or _entity_char(text[run_end])):
            run_end += 1
        # The entity ends at its ";" (or, without one, where its letters and digits end):
        # marks after that belong to the learner's next word ("&amp;cafe\u0301").
        semicolon = next(
            (i for i in range(index, run_end) if unicodedata.normalize("NFKC", text[i]) == ";"),
            None,
        )
        entity_end = run_end if semicolon is None else semicolon + 1
        entity = text[index:entity_end]
        bare = "".join(ch for ch in entity if not _is_mark(ch))
        window = char + bare[:_ENTITY_WINDOW]
        if bare != entity and decoded_view(window) != window:
            entity = bare  # the marks hid an entity: drop them
        pieces.append(entity + text[entity_end:run_end])
        index = run_end
    return "".join(pieces)


def _is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


def _entity_char(char: str) -> bool:
    """A character an entity is spelled with, in any width: letters, digits, '#', ';'."""
    folded = unicodedata.normalize("NFKC", char)
    return folded.isascii() and (folded.isalnum() or folded in "#;") and len(folded) == 1


def _collapse_entity_padding(text: str) -> str:
    """`text` with each long run of zeros that pads a numeric entity cut to one zero."""

    def collapsed(run: re.Match[str]) -> str:
        before = decoded_view(text[max(0, run.start() - _ENTITY_WINDOW) : run.start()])
        if not before.endswith(("#", "#x", "#X")):
            return run.group()
        return "0" if any(not "\u0300" <= ch <= "\u036f" for ch in run.group()) else ""

    return _ZERO_RUN.sub(collapsed, text) if "0" in text or not text.isascii() else text


def _unit_end(text: str, start: int, brackets: str) -> int | None:
    """End of the bracket at `start` (a look-alike character or an entity chain that
    decodes to one), or None when no such bracket starts there."""
    char = text[start]
    if char in brackets:
        return start + 1
    if char not in _AMP_CHARS:
        return None
    window = text[start : start + _ENTITY_WINDOW]
    decoded = decoded_view(window)
    if not decoded or decoded[0] not in brackets:
        return None
    for length in range(2, len(window) + 1):
        # The shortest span that is one bracket and leaves the rest reading as before.
        if decoded_view(window[:length]) == decoded[0] and (
            decoded_view(window[length:]) == decoded[1:]
        ):
            return start + length
    return start + 1  # no clean split: defuse the "&" itself, which is always safe


def _lookahead(text: str, after: int) -> str:
    """What a lenient reader sees from `after` on: at least the first few visible
    characters, decoded from a window that never ends inside an entity."""
    size = 32
    while True:
        end = min(len(text), after + size)
        if end < len(text):  # stop short of a last, maybe incomplete, entity
            tail = max(text.rfind(amp, max(after, end - _ENTITY_WINDOW), end) for amp in _AMP_CHARS)
            if tail > after:
                end = tail
            elif tail == after:  # one entity starts right here: read it whole
                end = min(len(text), end + _ENTITY_WINDOW)
        ahead = decoded_view(text[after:end])
        rest = ahead.lstrip()
        settled = bool(rest) and not (rest[0].isalpha() or rest[0] == "_")  # "<3", "</", "<<"
        visible = len("".join(rest.split()))  # "u n t r u s t e d" is 9 letters, not 17
        if settled or visible >= _LOOKAHEAD_CHARS or end >= len(text):
            return ahead
        size *= 4  # only whitespace so far: a spaced-out tag may continue further on


def _tag_like(text: str, after: int) -> bool:
    """Whether what follows an opening bracket makes it read as a tag."""
    following = text[after : after + 1]
    if following.isascii() and following and not (following.isalpha() or following in _ASCII_TAGGY):
        return False  # "<<", "<=", "<-": plain ASCII reads as itself, no need to decode
    ahead = _lookahead(text, after)
    rest = ahead.lstrip()
    if not rest:
        return False
    first = rest[0]
    if first in _SLASH_CHARS or first in "!?":
        return True
    if first.isalpha() or first == "_":
        if len(rest) == len(ahead):  # "<b", "<untrusted_…": no space after the bracket
            return True
        word = _WORD.match(rest)
        tail = rest[word.end() :].lstrip() if word else rest
        # "< untrusted", and the name spelled out with spaces: "< u n t r u s t e d"
        squeezed = "".join(rest.split()).casefold()
        spaced_name = squeezed.startswith("untrusted")
        return spaced_name or tail[:1] in ("_", *_GT_CHARS)  # "< b >"
    return False


def _without_marks(text: str) -> str:
    """`text` without combining marks: an accent on a "<" still reads as a "<"."""
    return "".join(ch for ch in text if not unicodedata.category(ch).startswith("M"))


def _closing_unit(text: str, start: int) -> tuple[int, int] | None:
    """The bracket closing a defused tag on the same line, if any, before another opens."""
    limit = min(len(text), start + 200)
    index = start
    while index < limit and text[index] != "\n":
        if _unit_end(text, index, _LT_CHARS) is not None:
            return None
        end = _unit_end(text, index, _GT_CHARS + _QUOTE_GT_CHARS)
        if end is not None:
            return index, end
        index += 1
    return None
