"""Errors of Tier 2 (the Gemini judge) and of the key store that holds its key.

Defined in the domain so that services can catch them without importing an adapter. Each
message says what happened and what to do next; `reason_code` is the short code a judge
refusal is journaled under. No message ever contains an API key: callers pass only text
they made themselves, or vendor text that `scrub` has cleaned.
"""

from __future__ import annotations

from typing import ClassVar

from coach_gui.domain.errors import CoachError

_KEPT = "Your answers are kept unjudged; judge them later"
_SETTINGS = "set it in Settings or `coach key set`"


def scrub(text: str, secret: str | None) -> str:
    """`text` without `secret` in it, for vendor text that may echo what it was given."""
    if secret:
        text = text.replace(secret, "[key removed]")
    return " ".join(text.split())[:300]


class JudgeError(CoachError):
    """The judge could not grade the answers. The answers stay unjudged, never lost."""

    reason_code: ClassVar[str] = "judge_error"
    # The outbox row of the request that failed, when one left the machine (issue 21: the
    # refusal names it, so the row is sealed with the session).
    outbox_id: str | None = None


class JudgeDisabled(JudgeError):
    """The judge is switched off: nothing is sent anywhere."""

    reason_code = "judge_off"

    def __init__(self) -> None:
        super().__init__(
            "The judge is switched off, so nothing was sent. Your answers are kept "
            "unjudged; switch the judge on to have them graded."
        )


class JudgeKeyMissing(JudgeError):
    """No Gemini API key is stored in the OS keyring."""

    reason_code = "key_missing"

    def __init__(self) -> None:
        super().__init__(f"No Gemini API key — {_SETTINGS}. {_KEPT}.")


class JudgeKeyInvalid(JudgeError):
    """Google refused the key (400 API_KEY_INVALID, or 401)."""

    reason_code = "key_invalid"

    def __init__(self) -> None:
        super().__init__(
            "API key not valid — set it in Settings (or `coach key set`) with a key from "
            f"Google AI Studio. {_KEPT}."
        )


class JudgeAccessDenied(JudgeError):
    """The key is valid but may not use this API or model (403)."""

    reason_code = "access_denied"

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(
            f"Google refused the request ({detail}). Check that the Gemini API is enabled "
            f"for this key's project, or use another key in Settings. {_KEPT}."
        )


class JudgeModelNotFound(JudgeError):
    """The configured model does not exist for this API version (404)."""

    reason_code = "model_not_found"

    def __init__(self, model: str, api_version: str) -> None:
        self.model = model
        super().__init__(
            f"The judge model '{model}' is not available on the Gemini API "
            f"{api_version}. Choose another Gemini model in Settings. {_KEPT}."
        )


class JudgeQuotaExceeded(JudgeError):
    """Google answered 429 RESOURCE_EXHAUSTED, even after the bounded retries."""

    reason_code = "quota"

    def __init__(self) -> None:
        super().__init__(
            "The Gemini API quota for this key is used up for now (429). Wait a minute and "
            f"judge again, or check the key's plan in Google AI Studio. {_KEPT}."
        )


class JudgeServerError(JudgeError):
    """Google answered 5xx, even after the bounded retries."""

    reason_code = "server_error"

    def __init__(self, status: int, detail: str) -> None:
        self.status = status
        self.detail = detail
        super().__init__(
            f"The Gemini service had a problem on its side (error {status}). Try again in a "
            f"few minutes. {_KEPT}."
        )


class JudgeRequestRejected(JudgeError):
    """Any other 4xx: Google would not take the request as sent."""

    reason_code = "rejected"

    def __init__(self, status: int, detail: str) -> None:
        self.status = status
        self.detail = detail
        super().__init__(
            f"The Gemini API refused the request ({status}: {detail}). Check the judge's "
            f"settings (the Gemini model, and the address if you set one). {_KEPT}."
        )


class JudgeRedirected(JudgeError):
    """The judge's server pointed elsewhere (a 3xx), or a request was about to go to a
    host other than the configured one: nothing was sent there, the key least of all."""

    reason_code = "redirected"

    def __init__(self, where: str) -> None:
        self.where = where
        super().__init__(
            f"The judge's server sent Coach to another address ({where}); Coach does not "
            "follow it, so nothing was sent there. Check the judge's address in Coach's "
            f"settings file. {_KEPT}."
        )


class JudgeTimeout(JudgeError):
    """No answer within judge.timeoutSeconds."""

    reason_code = "timeout"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(
            f"The judge did not answer within {seconds:g} s. Try again; if it keeps "
            f"happening, allow it more time (Gemini timeout, in Settings). {_KEPT}."
        )


class JudgeNetworkDown(JudgeError):
    """The connection could not be made (refused, DNS, no route, TLS)."""

    reason_code = "network"

    def __init__(self, detail: str) -> None:
        self.detail = detail
        super().__init__(
            f"Coach could not reach the judge ({detail}). Check the internet connection "
            f"(and the judge's address in the settings file, if you set one). {_KEPT}."
        )


class JudgeBlocked(JudgeError):
    """Gemini's safety filters blocked the prompt or the reply."""

    reason_code = "blocked"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(
            f"Gemini's safety filter refused to grade these answers ({reason}). {_KEPT}, or "
            "answer the challenge again in other words."
        )


class JudgeTruncated(JudgeError):
    """The reply stopped at the output token limit (finishReason MAX_TOKENS)."""

    reason_code = "truncated"

    def __init__(self) -> None:
        super().__init__(
            "The judge's reply was cut off at its length limit. Judge fewer answers at a "
            f"time and try again. {_KEPT}."
        )


class MalformedVerdict(JudgeError):
    """The judge's reply is not a usable verdict for the items sent (DESIGN §4)."""

    reason_code = "malformed"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(
            f"The judge's reply could not be used: {reason}. Your answers are kept unjudged; "
            "judge them again later."
        )


class KeyringUnavailable(CoachError):
    """No safe OS keyring is available; Coach never falls back to a plain-text file."""

    INSTALL = (
        "Install and unlock an OS keyring (gnome-keyring for the Secret Service, or KWallet), "
        "then try again."
    )

    def __init__(self, why: str, next_step: str = INSTALL) -> None:
        self.why = why
        super().__init__(
            f"Coach cannot store or read keys: {why}. {next_step} Coach never keeps keys in "
            "a plain-text file."
        )


class JudgeKeyMalformed(JudgeError):
    """The key holds a character no API key has: refused before it is stored or sent, so
    no HTTP library can echo an escaped copy of it into an error (issue 21)."""

    reason_code = "key_malformed"

    def __init__(self) -> None:
        super().__init__(
            "The key has a character an API key cannot have (a line break, a space, a "
            "control or a non-ASCII character). Copy the key again from Google AI Studio "
            f"and {_SETTINGS}. {_KEPT}."
        )


def checked_key(key: str) -> str:
    """`key` without surrounding whitespace (a pasted newline); JudgeKeyMalformed unless
    every character is printable ASCII other than a space, as Google's keys are."""
    key = key.strip()
    if not all("!" <= ch <= "~" for ch in key):
        raise JudgeKeyMalformed()
    return key


class EmptyKey(CoachError):
    """An empty or blank key was given to store."""

    def __init__(self) -> None:
        super().__init__(
            "The key is empty. Paste the whole key from Google AI Studio and try again."
        )


class LocalJudgeUnavailable(JudgeError):
    """The judge on this computer (Ollama, `judge.provider: local`) could not grade."""

    reason_code = "local_judge"

    def __init__(self, problem: str) -> None:
        self.problem = problem
        super().__init__(f"The judge on this computer could not grade: {problem}. {_KEPT}.")


class JudgeCancelled(JudgeError):
    """The learner stopped judging (before a request, or during one to the local model)."""

    reason_code = "cancelled"

    def __init__(self) -> None:
        super().__init__("You cancelled judging; this answer is kept and can be judged later.")


class JudgeReplaced(JudgeError):
    """Settings chose another judge while this one was about to grade: nothing was sent."""

    reason_code = "judge_changed"

    def __init__(self) -> None:
        super().__init__(
            "Another judge was chosen in Settings just as this answer was being sent, so it "
            f"was not sent. {_KEPT}."
        )
