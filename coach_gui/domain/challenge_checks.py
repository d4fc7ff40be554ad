"""Replies that are not challenges (issue 31): rejected with a reason, like quotes, and
regenerated. A real small model, asked for a question, wrote the prompt's own placeholder
(``<one question>``), a heading ("What it is not"), and a 60-word essay; none of them may
reach the learner.

The checks, in order: an echo of the prompt (a placeholder in angle brackets, the schema's
own words, or a run of the instructions' words), far too short or too long (weighed with
`text_segments`, so a Chinese question is measured like an English one), and not a question
or task. The last one only judges what it can read: in Latin, Cyrillic and Greek text in a
language whose function words it knows, a challenge needs a question mark or a sentence that
opens with a task verb ("Explain…", "Erkläre…", "Объясните…"); in other scripts (Thai writes
questions without a mark) any text of the right length passes it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from coach_gui.domain.fencing import FENCE_PREFIX
from coach_gui.domain.function_words import FUNCTION_WORDS
from coach_gui.domain.no_quote import NoQuoteCheck, normalise_words, token_weights
from coach_gui.domain.text_segments import UNITS_PER_WORD

MIN_WORDS = 3  # "Why?" and "Explain." ask nothing about the note
MAX_WORDS = 55  # a question a learner reads at a glance; the essay seen was 60 words
ECHO_RUN_WORDS = 7  # a run this long shared with the instructions is an echo, not a question

# A slot in angle brackets made of words ("<one question>", "<your question here>",
# "<question>"); not markup, which a learner may see as text ("<i>", "</i>", "<a href=…>").
_PLACEHOLDER = re.compile(
    r"<(?!(?:a|b|i|u|s|p|q|em|br|hr|li|ol|ul|tt|td|tr|th|sub|sup|del|ins|div|span|code|"
    r"strong|small|mark|cite|abbr|pre)>)[^\W\d_][\w -]{1,58}>"
    r"|\{\{[^{}]*\}\}|\[(?:your|the|one|a)\b[^\]]*\]",
    re.I,
)
# A run of hex digits as long as an id or a digest: a small model, given ids and fences,
# once wrote a "question" of tag-like ids ("<jb-challenge-6008c1c2f815f9ca98b8…"); no
# question a learner should read is made of them.
_MACHINE_ID = re.compile(r"[0-9a-f]{16,}", re.I)
# The words of the schema and of a bare reply skeleton: a challenge made only of them is an
# echo ("challenge", "explain", "question", "...").
_SCHEMA_WORDS = frozenset(
    [
        "challenge",
        "challenges",
        "kind",
        "question",
        "questions",
        "explain",
        "apply",
        "contrast",
        "example",
        "predict",
        "json",
        "reply",
        "text",
        "string",
        "one",
        "your",
        "the",
        "a",
        "an",
        "here",
    ]
)
# The last two count only at the end: Greek's question mark (U+037E, and the semicolon).
_QUESTION_MARKS = "?？؟՞፧⸮\u037e;"
_SENTENCE_START = re.compile(r"(?:^|[.!?:;。！？\n]\s*)([^\W\d_]+)", re.U)
_JUDGED_LANGUAGES = ("en", "de", "fr", "es", "ru")
_TASK_VERB_TEXT = (
    # en
    "explain describe give name list compare contrast predict imagine suppose consider apply "
    "use show tell say write state identify define discuss outline summarise summarize "
    "justify argue estimate calculate sketch draw think picture find choose decide evaluate "
    "assess propose suggest design plan illustrate relate connect walk put provide offer "
    "recall try pick rank classify distinguish demonstrate "
    # de
    "erkläre erklären erklärt beschreibe beschreiben nenne nennen gib geben vergleiche "
    "vergleichen stell stelle stellen überlege überlegen begründe begründen zeige zeigen "
    "finde finden schildere schildern erläutere erläutern denk denke "
    # fr
    "expliquez explique décrivez décris donnez donne citez cite comparez compare imaginez "
    "imagine prédisez prédis montrez montre proposez propose justifiez justifie trouvez "
    "trouve indiquez indique illustrez illustre présentez présente "
    # es
    "explica explique explicad describe describa describid da dé dad nombra nombre compara "
    "compare imagina imagine predice prediga muestra muestre propón proponga justifica "
    "justifique piensa piense menciona mencione ilustra ilustre "
    # ru
    "объясните объясни опишите опиши приведите приведи назовите назови сравните сравни "
    "представьте представь предскажите предскажи покажите покажи расскажите расскажи "
    "придумайте придумай подумайте подумай обоснуйте обоснуй"
)
_TASK_VERBS = frozenset(_TASK_VERB_TEXT.split())


@lru_cache(maxsize=1)
def _known_function_words() -> frozenset[str]:
    words = (w for lang in _JUDGED_LANGUAGES for w in FUNCTION_WORDS[lang].split())
    return frozenset(w for word in words for w in normalise_words(word))


def _weight(text: str) -> int:
    return sum(token_weights(text))


def _alphabetic_script(text: str) -> bool:
    """Mostly Latin, Cyrillic or Greek letters: scripts that mark a question."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return False
    marked = sum(
        1 for ch in letters if unicodedata.name(ch, "").startswith(("LATIN", "CYRILLIC", "GREEK"))
    )
    return marked * 2 > len(letters)


def _is_question_or_task(text: str) -> bool:
    if any(mark in text for mark in _QUESTION_MARKS[:-2]) or text.rstrip().endswith(
        _QUESTION_MARKS[-2:]
    ):
        return True
    if not _alphabetic_script(text):
        return True  # a script whose questions this check cannot read: not judged
    words = set(normalise_words(text))
    if not words & _known_function_words():
        return True  # a language whose task verbs this check does not know
    starts = {m.group(1).casefold() for m in _SENTENCE_START.finditer(text)}
    return bool(starts & _TASK_VERBS)


_FENCED = re.compile(rf"<({FENCE_PREFIX}[a-z0-9_]+)>.*?</\1>", re.S)


def instruction_text(messages: Sequence[dict[str, str]]) -> list[str]:
    """The request's own words: every message with its fenced data (the note, the
    learner's answer, earlier questions) taken out."""
    return [_FENCED.sub(" ", m.get("content", "")) for m in messages]


class ChallengeChecks:
    """Checks one request's reply against the instructions that asked for it."""

    def __init__(self, instructions: Sequence[str] = ()) -> None:
        """`instructions`: the prompt's own words (system text and the task lines, not the
        fenced note), which a reply must not echo."""
        text = "\n".join(instructions)
        self._echo = (
            NoQuoteCheck(text, max_shared_words=ECHO_RUN_WORDS, max_containment=1.0)
            if text.strip()
            else None
        )

    def problem(self, challenge: str) -> str | None:
        """Why `challenge` is not a challenge a learner should see, or None."""
        if _PLACEHOLDER.search(challenge):
            return "it was a placeholder from the request, not a question"
        if _MACHINE_ID.search(challenge):
            return "it was made of ids or markup, not a question"
        words = normalise_words(challenge)
        if words and all(w in _SCHEMA_WORDS for w in words):
            return "it repeated the request's own words, not a question"
        if self._echo is not None:
            finding = self._echo.check(challenge)
            if finding is not None and finding.rule == "shared_run":
                return "it repeated the request's instructions instead of asking a question"
        weight = _weight(challenge)
        if weight < MIN_WORDS * UNITS_PER_WORD:
            return "it was too short to be a question"
        if weight > MAX_WORDS * UNITS_PER_WORD:
            return f"it was too long (over {MAX_WORDS} words) for a practice question"
        if not _is_question_or_task(challenge):
            return "it was neither a question nor a task"
        return None
