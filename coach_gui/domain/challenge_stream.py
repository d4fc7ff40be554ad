"""Showing a challenge while Tier 1 is still writing it, without ever showing a quote.

The model replies with JSON (``{"challenge": "...", "kind": "..."}``), streamed a few
characters at a time. `ChallengeStream` pulls the challenge text out of the partial JSON
and releases words to the screen only when they are safe:

- whole words (runs between spaces) are released only when the complete words after them
  weigh a run of ``max_shared_words`` less the last released token (`text_segments`
  weights: 5 English words, 8 Han characters, 23 Thai letters), the word still arriving
  not counted, and every prefix is checked with the shared-run rule, so no token that
  belongs to a quoted run is ever released (a run that includes a released token lies
  wholly inside an already-checked prefix);
- containment, a measure of the whole text, is checked on each prefix and again at the
  end; a challenge that fails it late is *withdrawn* before the learner can answer it,
  and is never stored or sent to the judge (ADR-0004).
"""

from __future__ import annotations

import re

from coach_gui.domain.challenge_checks import ChallengeChecks
from coach_gui.domain.challenges import MAX_CHALLENGE_CHARS, ParsedChallenge, parse_challenge_json
from coach_gui.domain.no_quote import NoQuoteCheck, QuoteFinding, token_weights
from coach_gui.domain.text_segments import UNITS_PER_WORD
from coach_gui.domain.tier1_errors import InvalidChallengeReply, Tier1Error

# The JSON around a challenge ({"challenge": "...", "kind": "..."}, white space, and
# \uXXXX escapes: six characters each, e.g. for a challenge in Cyrillic) is never this much
# longer than the longest challenge allowed.
MAX_REPLY_CHARS = 8 * MAX_CHALLENGE_CHARS + 1_000
_KEY = re.compile(r'"challenge"\s*:\s*"')
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


class ChallengeRejected(Tier1Error):
    """A reply that may not reach the learner; `reason` says why (recorded, shown, and
    given to the model when it is asked again)."""

    def __init__(self, reason: str, message: str) -> None:
        self.reason = reason
        super().__init__(message)


class QuoteRejected(ChallengeRejected):
    """A challenge broke the no-quote rule; `finding` says how."""

    def __init__(self, finding: QuoteFinding) -> None:
        self.finding = finding
        super().__init__(
            finding.reason, f"The challenge was too close to your note ({finding.reason})."
        )


class NotAChallenge(ChallengeRejected):
    """A reply that is not a challenge: an echo of the prompt, not a question or task, far
    too short or too long (`challenge_checks`)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, f"The model's reply was not a usable challenge ({reason}).")


def partial_json_string(raw: str, start: int) -> tuple[str, bool]:
    """Decode the JSON string body that begins at `raw[start]` as far as it has arrived.
    Returns (text so far, whether the closing quote has arrived)."""
    out: list[str] = []
    i = start
    while i < len(raw):
        ch = raw[i]
        if ch == '"':
            return "".join(out), True
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(raw):
            break  # an escape cut in half: wait for the rest
        code = raw[i + 1]
        if code == "u":
            digits = raw[i + 2 : i + 6]
            if len(digits) < 4:
                break
            try:
                out.append(chr(int(digits, 16)))
            except ValueError:
                out.append("\ufffd")
            i += 6
            continue
        out.append(_ESCAPES.get(code, code))
        i += 2
    return "".join(out), False


class ChallengeStream:
    """Feed raw reply pieces; get back text that is safe to show, as it becomes safe."""

    def __init__(self, check: NoQuoteCheck, checks: ChallengeChecks | None = None) -> None:
        self._check = check
        self._checks = checks
        self._raw = ""
        self._shown = ""
        self._run_units = check.max_shared_words * UNITS_PER_WORD

    @property
    def shown(self) -> str:
        """Everything released to the screen so far."""
        return self._shown

    @property
    def raw(self) -> str:
        return self._raw

    def feed(self, piece: str) -> str:
        """Add a piece of the reply; returns newly releasable text ('' if none).
        Raises QuoteRejected as soon as the text so far breaks the shared-run rule, and
        InvalidChallengeReply as soon as the reply is longer than any challenge may be
        (the caller then stops reading: a model that runs on must not hold practice)."""
        self._raw += piece
        if len(self._raw) > MAX_REPLY_CHARS:
            raise InvalidChallengeReply(f"the reply ran past {MAX_REPLY_CHARS} characters")
        key = _KEY.search(self._raw)
        if not key:
            return ""
        text, closed = partial_json_string(self._raw, key.end())
        if len(text) > MAX_CHALLENGE_CHARS and len(" ".join(text.split())) > MAX_CHALLENGE_CHARS:
            # measured as parse_challenge_json measures it, white space collapsed
            raise InvalidChallengeReply(f"the challenge is over {MAX_CHALLENGE_CHARS} characters")
        finding = self._check.check(text)
        if finding is not None and (finding.rule == "shared_run" or closed):
            raise QuoteRejected(finding)
        if closed:  # whole: checked before any of it is shown
            self._check_is_challenge(" ".join(text.split()))
        safe = " ".join(text.split()) if closed else self._safe_prefix(text)
        if len(safe) <= len(self._shown) or not safe.startswith(self._shown):
            return ""
        new = safe[len(self._shown) :]
        self._shown = safe
        return new

    def _safe_prefix(self, text: str) -> str:
        """The whole words of `text` (still arriving) that no quoted run can reach: those
        followed by complete words weighing at least a run less their own last token. Counted
        in weights, not in words, since a "word" between spaces may be one Han character or
        a whole Thai phrase; the last word may still be arriving and does not count."""
        complete = text.split()[:-1]
        held = 0
        for at in range(len(complete) - 1, -1, -1):
            pieces = token_weights(complete[at])
            if pieces and held >= self._run_units - pieces[-1]:
                return " ".join(complete[: at + 1])
            held += sum(pieces)
        return ""

    def finish(self) -> ParsedChallenge:
        """The whole reply has arrived: parse it and apply every rule to the full text."""
        parsed = parse_challenge_json(self._raw)
        finding = self._check.check(parsed.text)
        if finding is not None:
            raise QuoteRejected(finding)
        self._check_is_challenge(parsed.text)
        return parsed

    def _check_is_challenge(self, text: str) -> None:
        problem = self._checks.problem(text) if self._checks is not None else None
        if problem is not None:
            raise NotAChallenge(problem)
