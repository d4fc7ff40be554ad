"""The no-quote check (ADR-0005): a challenge must not give the note away.

A challenge or follow-up is rejected when it shares a run of `max_shared_words` normalised
words with the note body, one of its assertions or its title, or when the share of its word shingles
found in the note (body and assertions) reaches `max_containment`. Words are compared after
folding case, accents, punctuation, whitespace and look-alike letters, and by a crude stem,
so "Natural   SELECTION's" matches "natural selections" typed with a Cyrillic "а".

Two refinements keep honest questions that only name the topic from being rejected:
function words ("the", "of", "what") do not make a run or a shingle count on their own, and
containment ignores a text whose overlap is a single phrase shorter than twice the run limit.

The note's n-grams are hashed once per note, so one check costs a few dozen set look-ups.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Iterable, Sequence
from typing import Literal

from coach_gui.domain.notes import Note
from coach_gui.domain.records import Record

# Capitals from other scripts that look like Latin ones; mapped before case folding, since
# folding makes Greek "Η" (like H) an "η" (like n).
_CAPITAL_CONFUSABLES = str.maketrans(
    dict(zip("АВЕЅІЈКМНОРСТУХΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABESIJKMHOPCTYXABEZHIKMNOPTYX", strict=True))
)
# Small letters from other scripts that look like Latin ones (after case folding).
_CONFUSABLES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "һ": "h", "і": "i", "ї": "i", "ј": "j",
        "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y",
        "х": "x", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "ɡ": "g", "ı": "i", "ȷ": "j",
        "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
        "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "ζ": "z", "ω": "w", "ϲ": "c", "ϳ": "j",
        "ø": "o", "đ": "d", "ħ": "h", "ł": "l", "ŀ": "l", "ß": "ss", "æ": "ae", "œ": "oe",
    }
)  # fmt: skip
# Apostrophes join a word ("don't" = "dont"); every other non-letter separates words.
_APOSTROPHES = re.compile("['`´ʹʻʼʽˈ‘’‛′＇]")
_WORDS = re.compile(r"[^\W_]+")

# Function words: a run of them, or a shingle made only of them, says nothing about a note.
_FUNCTION_WORDS = """
    a about above after again against all also am an and any are as at be because been
    before being below between both but by can could did do does doing down during each
    either few for from further had has have having he her here hers him his how i if in
    into is it its itself just may me might more most must my neither no nor not now of off
    on once one only or other our ours out over own same shall she should so some such than
    that the their theirs them then there these they this those through to too under until
    up upon very was we were what when where whether which while who whom whose why will
    with would yet you your yours
"""
STOP_WORDS = frozenset(_FUNCTION_WORDS.split())
# A shared run only counts when it holds at least this share of max_shared_words in words
# that are not function words: "by the extent of the market" names a topic, it quotes nothing.
_MIN_CONTENT_SHARE = 0.5
# Below this many content shingles a challenge is too short to judge by containment.
_MIN_SHINGLES = 4
_SUFFIXES = ("ing", "ed", "e")


def _stem(word: str) -> str:
    """A crude stem so that "raises", "raised" and "raise" compare equal."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


_STOP_STEMS = frozenset(_stem(w) for w in STOP_WORDS) | STOP_WORDS


def normalise_words(text: str) -> list[str]:
    """The words of `text` folded for comparison: case, accents, look-alikes, punctuation."""
    folded = unicodedata.normalize("NFKC", text).translate(_CAPITAL_CONFUSABLES).casefold()
    decomposed = unicodedata.normalize("NFKD", folded)
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    bare = _APOSTROPHES.sub("", bare.translate(_CONFUSABLES))
    return _WORDS.findall(bare)


class QuoteFinding(Record):
    """Why a text was rejected: a shared run of words, or too much shared phrasing."""

    rule: Literal["shared_run", "containment"]
    words: tuple[str, ...] = ()  # the shared run, normalised (for logs, not the learner)
    containment: float | None = None
    source: str = "note"  # "body", "title" or "assertion N" (1-based) for a shared run

    @property
    def reason(self) -> str:
        """What the learner is told; it never repeats the note's words."""
        if self.rule == "shared_run":
            where = {"body": "your note", "title": "the title of your note"}.get(
                self.source, f"{self.source} of your note"
            )
            return f"it repeated {len(self.words)} words in a row from {where}"
        share = round((self.containment or 0.0) * 100)
        return f"{share}% of its phrasing came from your note"


def _ngrams(words: Sequence[str], n: int) -> Iterable[tuple[str, ...]]:
    return (tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def _stems(text: str) -> tuple[list[str], list[str]]:
    words = normalise_words(text)
    return words, [_stem(w) for w in words]


class NoQuoteCheck:
    """Checks texts against one note. Build it once per note; `check` is cheap.

    A run counts when at least half of `max_shared_words` of its words are content words.
    Containment counts when the shared shingles come from two or more places in the text,
    or from one phrase of at least twice `max_shared_words` words: so "what does Smith mean
    by the extent of the market?" passes, while a sentence with a word or two swapped does not.
    """

    def __init__(
        self,
        body: str,
        assertions: Sequence[str] = (),
        *,
        title: str = "",
        max_shared_words: int = 6,
        max_containment: float = 0.5,
        shingle_words: int = 3,
    ) -> None:
        if max_shared_words < 2 or shingle_words < 1:
            raise ValueError("max_shared_words must be at least 2 and shingle_words at least 1")
        if not 0.0 < max_containment <= 1.0:
            raise ValueError("max_containment must be in (0, 1]")
        self.max_shared_words = max_shared_words
        self.max_containment = max_containment
        self.shingle_words = shingle_words
        self._min_content = max(1, math.ceil(max_shared_words * _MIN_CONTENT_SHARE))
        self._runs: dict[int, str] = {}  # hash of a max_shared_words-gram -> where it is
        self._shingles: set[int] = set()
        sources = [("body", body)] + [(f"assertion {i}", a) for i, a in enumerate(assertions, 1)]
        for where, text in reversed(sources):  # the body wins when a run is in both
            _, stems = _stems(text)
            for gram in _ngrams(stems, max_shared_words):
                self._runs[hash(gram)] = where
            self._shingles.update(hash(s) for s in _ngrams(stems, shingle_words))
        # The title takes part in the run rule only (ADR 0013): naming the topic is what a
        # challenge shaped by the note does; repeating a long title word for word is not.
        _, stems = _stems(title)
        for gram in _ngrams(stems, max_shared_words):
            self._runs.setdefault(hash(gram), "title")

    @classmethod
    def for_note(
        cls, note: Note, *, max_shared_words: int, max_containment: float, shingle_words: int
    ) -> NoQuoteCheck:
        return cls(
            note.body,
            note.core_assertions,
            title=note.title,
            max_shared_words=max_shared_words,
            max_containment=max_containment,
            shingle_words=shingle_words,
        )

    def check(self, text: str) -> QuoteFinding | None:
        """None when `text` may be shown; otherwise the first rule it breaks."""
        words, stems = _stems(text)
        return self._shared_run(words, stems) or self._containment(stems)

    def _shared_run(self, words: list[str], stems: list[str]) -> QuoteFinding | None:
        n = self.max_shared_words
        found = [self._runs.get(hash(g)) for g in _ngrams(stems, n)]
        start = 0
        while start < len(found):
            if found[start] is None:
                start += 1
                continue
            end = start  # consecutive shared windows make one run of words
            while end + 1 < len(found) and found[end + 1] is not None:
                end += 1
            span = stems[start : end + n]
            if sum(w not in _STOP_STEMS for w in span) >= self._min_content:
                where = found[start] or "body"
                return QuoteFinding(
                    rule="shared_run", words=tuple(words[start : end + n]), source=where
                )
            start = end + 1
        return None

    def _containment(self, stems: list[str]) -> QuoteFinding | None:
        grams = list(_ngrams(stems, self.shingle_words))
        found = [hash(g) in self._shingles for g in grams]
        if _one_short_phrase(found, self.shingle_words, 2 * self.max_shared_words):
            return None
        counted = {  # shingles made only of function words say nothing either way
            hash(g): f for g, f in zip(grams, found, strict=True) if not _STOP_STEMS.issuperset(g)
        }
        if len(counted) < _MIN_SHINGLES:
            return None
        share = sum(counted.values()) / len(counted)
        if share >= self.max_containment:
            return QuoteFinding(rule="containment", containment=round(share, 3))
        return None


def _one_short_phrase(found: list[bool], shingle_words: int, max_words: int) -> bool:
    """Whether the shared shingles form at most one phrase of fewer than `max_words` words:
    a topic named in passing, which containment alone should not reject."""
    pieces = [i for i, f in enumerate(found) if f and (i == 0 or not found[i - 1])]
    if len(pieces) > 1:
        return False
    if not pieces:
        return True
    length = next((i for i in range(pieces[0], len(found)) if not found[i]), len(found))
    return length - pieces[0] + shingle_words - 1 < max_words
