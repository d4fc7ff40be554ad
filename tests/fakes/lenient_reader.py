"""A lenient reader of prompts, written apart from the code under test: it sees what a
model might read as a tag. Entities are decoded repeatedly ("&amp;lt;" is two levels),
text is NFKC-normalised, invisible characters, marks and variation selectors are dropped,
look-alike brackets and slashes are read as the real ones, and so are escaped ones
("%3C", "\\u003c", "\\x3c")."""

from __future__ import annotations

import html
import re
import unicodedata

_LOOKS_LIKE = str.maketrans(
    dict.fromkeys("＜﹤‹〈〈⟨˂ᐸ❮❬❰⧼«《⟪⦑˱⋖", "<") | dict.fromkeys("＞﹥›〉〉⟩˃ᐳ❯❭❱⧽»》⟫⦒˲⋗", ">")
    | dict.fromkeys("／⁄∕⧸╱", "/")
)  # fmt: skip
# Escaped brackets and slashes a model may read as the characters (URL, JSON, Python).
_ESCAPES = [
    (re.compile(r"%3c|\\u003c|\\x3c|\\U0000003c", re.IGNORECASE), "<"),
    (re.compile(r"%3e|\\u003e|\\x3e|\\U0000003e", re.IGNORECASE), ">"),
    (re.compile(r"%2f|\\u002f|\\x2f|\\/", re.IGNORECASE), "/"),
]
_FENCE_OPENING = re.compile(r"<\s*/?\s*untrusted", re.IGNORECASE)
_FENCE_TAG = re.compile(r"<\s*/?\s*untrusted[^>]*>", re.IGNORECASE)
ANY_TAG = re.compile(r"<\s*/?\s*[^\W\d]", re.IGNORECASE)


def lenient_view(text: str) -> str:
    for _ in range(8):
        decoded = unicodedata.normalize("NFKC", html.unescape(text))
        decoded = "".join(
            ch
            for ch in decoded
            if unicodedata.category(ch) not in ("Cf", "Mn", "Me")
            and not (unicodedata.category(ch) == "Cc" and ch not in "\t\n\r")
            and not 0xE0000 <= ord(ch) <= 0xE01EF
            and not 0xFE00 <= ord(ch) <= 0xFE0F
        )
        if decoded == text:
            break
        text = decoded
    for escaped, char in _ESCAPES:
        text = escaped.sub(char, text)
    return text.translate(_LOOKS_LIKE)


def fence_tags(text: str) -> list[str]:
    """The start of each fence-like tag a lenient reader sees (`<untrusted`, `</untrusted`)."""
    return _FENCE_OPENING.findall(lenient_view(text))


def whole_fence_tags(text: str) -> list[str]:
    """Every whole fence-like tag a lenient reader would see, normalised to `<untrusted_…>`."""
    return [re.sub(r"\s+", "", t).lower() for t in _FENCE_TAG.findall(lenient_view(text))]
