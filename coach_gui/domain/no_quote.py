"""The no-quote check (ADR-0005, ADR 0032): a challenge must not give the note away.

A challenge or follow-up is rejected when it shares a run as long as `max_shared_words`
words with the note body, one of its assertions or its title, or when the share of its
shingles found in the note (body and assertions) reaches `max_containment`. Text is cut by
`text_segments`: words where the script has spaces, single characters where it has none
(Chinese, Japanese, Thai…), each weighed so that a length means the same amount of text in
every script (6 words, 9 Han characters, 24 Thai letters). Tokens are compared after
folding case, accents, width, punctuation, whitespace and look-alike letters, and by a
crude stem, so "Natural   SELECTION's" matches "natural selections" typed with a Cyrillic
"а".

Two refinements keep honest questions that only name the topic from being rejected:
function words of several languages ("the", "der", "的") do not make a run or a shingle
count on their own, and containment ignores a text whose overlap is a single phrase
shorter than twice the run limit.

The note's runs are hashed once per note, so one check costs a few dozen set look-ups.
"""

from __future__ import annotations

import math
import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Literal

from coach_gui.domain.function_words import FUNCTION_WORDS
from coach_gui.domain.notes import Note
from coach_gui.domain.records import Record
from coach_gui.domain.text_segments import (
    UNITS_PER_WORD,
    compared_by_character,
    is_hangul_syllable,
    tokens,
    weights,
    windows,
)

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

# Function words of every listed language: a run of them, or a shingle made only of them,
# says nothing about a note (coach_gui/domain/function_words.py). A check uses only the
# lists of the languages its note is written in (`_function_stems`): merged, "die", "war",
# "man" or "son" would be function words in an English note and let its quotes through.
STOP_WORDS = frozenset(w for words in FUNCTION_WORDS.values() for w in words.split())
# A language's function words apply to a note when the note holds at least this share of
# the function words of the language it holds most of.
_LANGUAGE_SHARE = 0.5
# A shared run only counts when at least this share of its weight is in words that are not
# function words: "by the extent of the market" names a topic, it quotes nothing.
_MIN_CONTENT_SHARE = 0.5
# Below this many content shingles a challenge is too short to judge by containment.
_MIN_SHINGLES = 4
_SUFFIXES = ("ing", "ed", "e")
# Korean particles that join the word before them ("선택은", "선택이" and "선택" are one word).
_HANGUL_PARTICLES = (
    *("에서", "으로", "에게", "까지", "부터", "처럼", "보다"),
    *"은는이가을를의에도로와과",
)
_HANGUL_SYLLABLE = re.compile("[\uac00-\ud7af]")


def _stem(word: str) -> str:
    """A crude stem so that "raises", "raised" and "raise" compare equal, and "선택은"
    and "선택이" too; a character of a script without spaces is its own stem."""
    if len(word) < 2:
        return word
    if _HANGUL_SYLLABLE.match(word):
        for particle in _HANGUL_PARTICLES:
            if len(word) > len(particle) + 1 and word.endswith(particle):
                return word[: -len(particle)]
        return word
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


# Languages whose words change their endings a lot ("цена", "цены", "цену"; "natürliche",
# "natürlichen"): a note written in one of them has its words, and the texts checked
# against it, cut to their Snowball stems, so a quote with its endings changed is still a
# quote (ADR 0035). Each applies to the words of its own script only. English keeps the
# crude stem above (its endings change little and its behaviour is pinned by the tests).
_SNOWBALL = {"de": "german", "fr": "french", "es": "spanish", "ru": "russian", "ar": "arabic"}
_CYRILLIC = re.compile("[\u0400-\u04ff]")
_ARABIC = re.compile("[\u0600-\u06ff]")
_LATIN = re.compile("[a-z\u00c0-\u024f]")


def _script_of(word: str) -> str:
    first = word[:1]
    if _CYRILLIC.match(first):
        return "cyrillic"
    if _ARABIC.match(first):
        return "arabic"
    return "latin" if _LATIN.match(first) else "other"


_SCRIPT_OF_LANGUAGE = {
    "de": "latin",
    "fr": "latin",
    "es": "latin",
    "ru": "cyrillic",
    "ar": "arabic",
}


@lru_cache(maxsize=16)
def _stemmer_for(languages: frozenset[str] | None) -> Callable[[str], str]:
    """How a check's words are stemmed for a note written in `languages`: each script with
    exactly one inflecting language among them gets that language's Snowball stemmer (two
    languages of one script, or English beside one, keep the crude stem: a German stem cuts
    English words wrongly); every other word gets the crude stem."""
    if not languages:
        return _stem
    by_script: dict[str, list[str]] = {}
    for language in languages:
        script = _SCRIPT_OF_LANGUAGE.get(language) or ("latin" if language == "en" else "")
        by_script.setdefault(script, []).append(language)
    import snowballstemmer  # (11 ms, paid at the first check of such a note, not at start-up)

    stemmers = {
        script: snowballstemmer.stemmer(_SNOWBALL[langs[0]])
        for script, langs in by_script.items()
        if script and len(langs) == 1 and langs[0] in _SNOWBALL
    }
    if not stemmers:
        return _stem
    # A Snowball stemmer keeps the word it works on in itself: two checks on two worker
    # threads (a challenge and a follow-up, say) must not stem through one at once.
    lock = threading.Lock()

    @lru_cache(maxsize=65536)
    def stem(word: str) -> str:
        stemmer = stemmers.get(_script_of(word))
        if stemmer is None or len(word) < 2:
            return _stem(word)
        with lock:
            stemmed = str(stemmer.stemWord(word))
        return stemmed.translate(_CONFUSABLES)

    return stem


def normalise_words(text: str) -> list[str]:
    """The words of `text` folded for comparison: case, accents, look-alikes, punctuation,
    width; a character of a script without spaces is a word of its own (ADR 0032). The
    check then cuts Korean words into syllables (`_Text`)."""
    folded = unicodedata.normalize("NFKC", text).translate(_CAPITAL_CONFUSABLES).casefold()
    return tokens(_bare(folded).translate(_CONFUSABLES))


def _plain_words(text: str) -> list[str]:
    """The words of `text` folded as `normalise_words` does but with their letters kept in
    their own script, for a language's stemmer: "Цена" is "цена", not "цeha"."""
    return tokens(_bare(unicodedata.normalize("NFKC", text).casefold()))


def _bare(folded: str) -> str:
    if folded.isascii():
        return _APOSTROPHES.sub("", folded)
    decomposed = unicodedata.normalize("NFKD", folded)
    # Marks go (accents, vowel points, Thai vowel and tone marks, some of which have
    # combining class 0): a quote with an accent or a tone mark changed is still a quote.
    # So does the Arabic tatweel, which only stretches a word (text copied from a justified
    # book is full of it): "الكـــون" is "الكون". The breve of the Russian "й" stays.
    bare = "".join(
        ch
        for i, ch in enumerate(decomposed)
        if (unicodedata.category(ch) != "Mn" or _is_short_i(decomposed, i)) and ch != "\u0640"
    )
    return _APOSTROPHES.sub("", unicodedata.normalize("NFC", bare))


def _is_short_i(text: str, index: int) -> bool:
    """Whether `text[index]` is the breve of the Russian "й", a letter of its own (not an
    accent): "прочий" keeps it, so the Russian stemmer can find the word's ending."""
    return text[index] == "\u0306" and index > 0 and text[index - 1] == "и"


@lru_cache(maxsize=1)
def _languages_of_stems() -> dict[str, frozenset[str]]:
    """For each function word folded and stemmed as text is, the languages it is one in
    (built at the first check, so start-up does not pay for it)."""
    languages: dict[str, set[str]] = {}
    for language, words in FUNCTION_WORDS.items():
        folded = [w for word in words.split() for w in normalise_words(word)]
        for stem in {*folded, *(_stem(w) for w in folded)}:
            languages.setdefault(stem, set()).add(language)
    return {stem: frozenset(langs) for stem, langs in languages.items()}


def _languages(stems: Iterable[str]) -> frozenset[str] | None:
    """The languages a note (its `stems`) is written in: those whose function words occur
    in it at least `_LANGUAGE_SHARE` times as often as the most frequent language's; None
    when it holds none. The check guesses no language beyond this count, and a note in two
    languages gets both."""
    by_stem = _languages_of_stems()
    hits: Counter[str] = Counter()
    for stem, count in Counter(stems).items():
        for language in by_stem.get(stem, ()):
            hits[language] += count
    best = max(hits.values(), default=0)
    if not best:
        return None
    return frozenset(lang for lang, n in hits.items() if n >= best * _LANGUAGE_SHARE)


def _function_stems(chosen: frozenset[str] | None) -> frozenset[str]:
    """The function words of the `chosen` languages (all of them when None)."""
    return frozenset(
        stem
        for stem, langs in _languages_of_stems().items()
        if chosen is None or not langs.isdisjoint(chosen)
    )


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
            characters = sum(len(w) == 1 and compared_by_character(w) for w in self.words)
            if not characters:
                return f"it repeated {len(self.words)} words in a row from {where}"
            if characters == len(self.words):
                return f"it repeated {characters} characters in a row from {where}"
            return f"it repeated a passage of {len(self.words)} words and characters from {where}"
        share = round((self.containment or 0.0) * 100)
        return f"{share}% of its phrasing came from your note"


class _Text:
    """A text cut for the check: its tokens (for the finding), their stems and weights, and
    the stem of the word each came from (what function words are looked up by).

    A Korean word is cut into its syllables once its particle is stripped: Korean spacing
    varies between writers ("가치 있는" and "가치있는" are the same words), so comparing
    whole words let a quote through with a space dropped or added (ADR 0032)."""

    def __init__(self, text: str, stem: Callable[[str], str] = _stem) -> None:
        self.words: list[str] = []
        self.stems: list[str] = []
        self.sources: list[str] = []
        words = normalise_words(text)
        self.word_stems = [_stem(word) for word in words]
        plain = words if stem is _stem else _plain_words(text)
        if len(plain) != len(words):  # (never seen: look-alikes map letters to letters)
            plain, stem = words, _stem
        for word, crude, own in zip(words, self.word_stems, plain, strict=True):
            if len(crude) > 1 and all(map(is_hangul_syllable, crude)):
                self.words.extend(crude)
                self.stems.extend(crude)
                self.sources.extend([crude] * len(crude))
            else:
                self.words.append(word)
                self.stems.append(crude if stem is _stem else stem(own))
                self.sources.append(crude)
        self.weights = weights(self.words)

    def grams(self, units: int) -> list[tuple[str, ...]]:
        """Each shortest run of stems from each start that weighs at least `units`."""
        stems = self.stems
        return [tuple(stems[i:end]) for i, end in enumerate(windows(self.weights, units))]


class NoQuoteCheck:
    """Checks texts against one note. Build it once per note; `check` is cheap.

    Lengths are weights (`text_segments`): `max_shared_words` words of a spaced script, or
    the same length of text in characters of one without spaces (9 Han characters, 24 Thai
    letters for 6 words). A run counts when at least half of its weight is in content
    words. Containment counts when the shared shingles come from two or more places in the
    text, or from one phrase of at least twice `max_shared_words` words: so "what does
    Smith mean by the extent of the market?" passes, while a sentence with a word or two
    swapped does not.
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
        self._run_units = max_shared_words * UNITS_PER_WORD
        self._shingle_units = shingle_words * UNITS_PER_WORD
        self._min_content = max(1, math.ceil(max_shared_words * _MIN_CONTENT_SHARE))
        self._runs: dict[int, str] = {}  # hash of a run of max_shared_words -> where it is
        self._shingles: set[int] = set()
        sources = [("body", body)] + [(f"assertion {i}", a) for i, a in enumerate(assertions, 1)]
        sources.append(("title", title))
        cuts = [(where, _Text(text)) for where, text in sources]
        languages = _languages(stem for _, cut in cuts for stem in cut.word_stems)
        self._stop = _function_stems(languages)
        self._stem = _stemmer_for(languages)
        if self._stem is not _stem:
            cuts = [(where, _Text(text, self._stem)) for where, text in sources]
        cuts, titled = cuts[:-1], cuts[-1][1]
        for where, cut in reversed(cuts):  # the body wins when a run is in both
            for gram in cut.grams(self._run_units):
                self._runs[hash(gram)] = where
            self._shingles.update(hash(s) for s in cut.grams(self._shingle_units))
        # The title takes part in the run rule only (ADR 0013): naming the topic is what a
        # challenge shaped by the note does; repeating a long title word for word is not.
        for gram in titled.grams(self._run_units):
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
        cut = _Text(text, self._stem)
        return self._shared_run(cut) or self._containment(cut)

    def _shared_run(self, cut: _Text) -> QuoteFinding | None:
        ends = windows(cut.weights, self._run_units)
        stems, stop = cut.stems, self._stop
        found = [self._runs.get(hash(tuple(stems[i:end]))) for i, end in enumerate(ends)]
        start = 0
        while start < len(found):
            if found[start] is None:
                start += 1
                continue
            end = start  # consecutive shared windows make one run of words
            while end + 1 < len(found) and found[end + 1] is not None:
                end += 1
            past = ends[end]
            content = sum(
                weight
                for source, weight in zip(
                    cut.sources[start:past], cut.weights[start:past], strict=True
                )
                if source not in stop
            )
            if content >= self._min_content * UNITS_PER_WORD:
                where = found[start] or "body"
                return QuoteFinding(
                    rule="shared_run", words=tuple(cut.words[start:past]), source=where
                )
            start = end + 1
        return None

    def _containment(self, cut: _Text) -> QuoteFinding | None:
        ends = windows(cut.weights, self._shingle_units)
        grams = [tuple(cut.stems[i:end]) for i, end in enumerate(ends)]
        found = [hash(g) in self._shingles for g in grams]
        if _one_short_phrase(found, ends, cut.weights, 2 * self._run_units):
            return None
        stop = self._stop
        counted = {  # shingles made only of function words say nothing either way
            hash(g): f
            for g, f, i, end in zip(grams, found, range(len(ends)), ends, strict=True)
            if not stop.issuperset(cut.sources[i:end])
        }
        if len(counted) < _MIN_SHINGLES:
            return None
        share = sum(counted.values()) / len(counted)
        if share >= self.max_containment:
            return QuoteFinding(rule="containment", containment=round(share, 3))
        return None


def _one_short_phrase(
    found: list[bool], ends: list[int], weighed: list[int], max_units: int
) -> bool:
    """Whether the shared shingles form at most one phrase lighter than `max_units`: a topic
    named in passing, which containment alone should not reject."""
    pieces = [i for i, f in enumerate(found) if f and (i == 0 or not found[i - 1])]
    if len(pieces) > 1:
        return False
    if not pieces:
        return True
    first = pieces[0]
    last = next((i for i in range(first, len(found)) if not found[i]), len(found)) - 1
    return sum(weighed[first : ends[last]]) < max_units


def token_weights(text: str) -> list[int]:
    """The weight of each token the check cuts `text` into (`text_segments.weights`)."""
    return _Text(text).weights
