"""The Gemini judge (Tier 2): the ONLY module that imports `google.genai` (ADR-0021 d3).

Every payload is rebuilt through `tier2_payload` before it is sent; every request body is
written to the outbox before its bytes leave (a request hook refuses to send one it could
not record); the key goes in the `x-goog-api-key` header only. Every vendor failure leaves
as one of our `JudgeError`s, raised outside the vendor's `except` so no vendor exception
(which holds the request, headers and all) rides along as a cause or context.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import httpx2
from google import genai
from google.genai import errors, types
from pydantic import ValidationError

from coach_gui.config import JudgeConfig, loopback_address
from coach_gui.domain.connections import ConnectionCheck
from coach_gui.domain.errors import CoachError
from coach_gui.domain.fencing import new_boundary
from coach_gui.domain.judge_errors import (
    JudgeAccessDenied,
    JudgeBlocked,
    JudgeCancelled,
    JudgeDisabled,
    JudgeError,
    JudgeKeyInvalid,
    JudgeKeyMissing,
    JudgeModelNotFound,
    JudgeNetworkDown,
    JudgeQuotaExceeded,
    JudgeRedirected,
    JudgeReplaced,
    JudgeRequestRejected,
    JudgeServerError,
    JudgeTimeout,
    JudgeTruncated,
    MalformedVerdict,
    checked_key,
)
from coach_gui.domain.judge_wait import JudgeWait
from coach_gui.domain.tier2 import (
    OutboxEntry,
    OutboxOutcome,
    PayloadRejected,
    Strictness,
    Tier2Payload,
    judge_prompt,
    revalidated,
    verdict_schema,
)
from coach_gui.domain.verdicts import JudgeResponse
from coach_gui.services.ports.judge import JudgeOutbox

RETRY_STATUS_CODES = (429, 500, 502, 503, 504)
_BLOCKING_FINISH = {"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII"}
_TIMEOUTS = (httpx2.ConnectTimeout, httpx.ConnectTimeout)  # reachability, not slowness
_SLOW = (httpx2.TimeoutException, httpx.TimeoutException)
_NETWORK = (httpx2.HTTPError, httpx.HTTPError)
log = logging.getLogger(__name__)


@dataclass
class _Pending:
    """The judge call running on this thread, for the request hook."""

    model: str
    payload: str
    body: str | None = None
    outbox_id: str | None = None
    local_seconds: float = 0.0  # spent writing the outbox, not waiting for the judge
    deadline: float = 0.0  # time.monotonic() when the whole wait, every try, is over
    tries: int = 0  # requests sent so far (the library retries a slow or busy judge)
    given_up: str | None = None  # the learner cancelled, or the whole wait ran out


@dataclass
class _Sending:
    """What the sending thread got: a reply or our error."""

    done: threading.Event = field(default_factory=threading.Event)
    response: types.GenerateContentResponse | None = None
    failure: CoachError | None = None


# The whole wait for one verdict, every retry included, is at most this much longer than
# one try: a judge that hangs holds the learner for one timeout and a bit, not three.
RETRY_ALLOWANCE_SECONDS = 15.0
_POLL_SECONDS = 0.05  # how soon a cancel or the end of the whole wait is noticed


class GeminiJudge:
    """One configured judge. Safe to share between threads; build it in bootstrap."""

    def __init__(
        self,
        api_key: str | None,
        *,
        model: str,
        base_url: str | None,
        api_version: str,
        timeout_seconds: float,
        temperature: float,
        max_retries: int,
        outbox: JudgeOutbox,
        seed: int | None = None,
        thinking_budget: int | None = None,
        strictness: Strictness = "standard",
        include_assertions: bool | Callable[[], bool] = True,
        enabled_now: Callable[[], bool] | None = None,
        retry_initial_delay: float = 1.0,
        still_current: Callable[[], bool] | None = None,
    ) -> None:
        """`include_assertions` and `enabled_now` may be read at each request (the live
        privacy switches): with the judge switched off, nothing is sent at all; nor once
        `still_current` says another judge was chosen (JudgeReplaced)."""
        self._enabled_now = enabled_now
        self._still_current = still_current
        if not api_key or not api_key.strip():
            raise JudgeKeyMissing()
        self._key = checked_key(api_key)  # a malformed key is refused before any request
        try:
            base_url = _by_address(base_url or DEFAULT_BASE_URL)
            self._endpoint = _origin(httpx.URL(base_url))
        except Exception:  # httpx.InvalidURL, an IDNA error: a config no parser caught
            raise JudgeError(
                "The judge's address in Coach's settings file cannot be used. Fix it, or "
                "remove it to use Google's. Your answers are kept unjudged."
            ) from None
        self.model = model
        self.api_version = api_version
        self.timeout_seconds = timeout_seconds
        self.temperature = temperature
        self.seed = seed
        self.thinking_budget = thinking_budget
        self.strictness: Strictness = strictness
        self._outbox = outbox
        allowed = include_assertions
        self._include_assertions = allowed if callable(allowed) else (lambda: bool(allowed))
        self._local = threading.local()
        self._cancelled = threading.Event()
        self.attempts = 1 + max_retries
        self.whole_wait_seconds = min(
            timeout_seconds * self.attempts, timeout_seconds + RETRY_ALLOWANCE_SECONDS
        )
        # Set by the practice session: told at each try, on the sending thread.
        self.on_wait: Callable[[JudgeWait], None] | None = None
        retry = types.HttpRetryOptions(
            attempts=1 + max_retries,
            initial_delay=retry_initial_delay,
            max_delay=max(retry_initial_delay, 10.0),
            jitter=retry_initial_delay,
            http_status_codes=list(RETRY_STATUS_CODES),
        )
        options = types.HttpOptions(
            # Always explicit: the SDK would otherwise take GOOGLE_GEMINI_BASE_URL from the
            # environment, and the config alone says where answers go.
            base_url=base_url,  # `localhost` already replaced by 127.0.0.1: no lookup
            api_version=api_version,  # explicit: the SDK's default changed between majors
            timeout=max(1, round(timeout_seconds * 1000)),  # milliseconds
            retry_options=retry,
            # No redirect is ever followed: one would re-send the key to another host
            # (issue 21); and every request must go to the configured endpoint.
            client_args={
                "follow_redirects": False,
                "event_hooks": {"request": [self._before_send], "response": [self._after_reply]},
                **_NO_ENVIRONMENT_PROXY,
            },
            async_client_args=dict(_NO_ENVIRONMENT_PROXY),  # built too, though never used
        )
        _silence_vendor_log()
        # vertexai=False: the environment (GOOGLE_GENAI_USE_VERTEXAI) must not redirect us.
        self._client = genai.Client(api_key=self._key, vertexai=False, http_options=options)

    @classmethod
    def from_config(
        cls,
        judge: JudgeConfig,
        api_key: str | None,
        outbox: JudgeOutbox,
        *,
        include_assertions: bool | Callable[[], bool] | None = None,
        enabled_now: Callable[[], bool] | None = None,
        retry_initial_delay: float = 1.0,
        still_current: Callable[[], bool] | None = None,
    ) -> GeminiJudge:
        """The judge `judge` configures; JudgeDisabled when it is switched off, so nothing
        built from a switched-off config can send anything."""
        if not judge.enabled:
            raise JudgeDisabled()
        return cls(
            api_key,
            model=judge.model,
            base_url=judge.base_url,
            api_version=judge.api_version,
            timeout_seconds=judge.timeout_seconds,
            temperature=judge.temperature,
            max_retries=judge.max_retries,
            outbox=outbox,
            seed=judge.seed,
            thinking_budget=judge.thinking_budget,
            strictness=judge.strictness,
            include_assertions=(
                judge.include_assertions if include_assertions is None else include_assertions
            ),
            enabled_now=enabled_now,
            retry_initial_delay=retry_initial_delay,
            still_current=still_current,
        )

    @property
    def judge_model(self) -> str:
        """How verdicts and the outbox name the model that grades."""
        return self.model

    def _switched_off(self) -> bool:
        return self._enabled_now is not None and not self._enabled_now()

    def _check_current(self) -> None:
        if self._still_current is not None and not self._still_current():
            raise JudgeReplaced()

    def close(self) -> None:
        self._client.close()

    def cancel(self) -> None:
        """Stop waiting for the judge (Esc, Cancel): `judge` raises JudgeCancelled within
        moments, and no later try is sent. Any thread. A request already sent finishes on
        its own thread, bounded by the whole wait; its reply, if any, is not used."""
        self._cancelled.set()

    # --- judging -----------------------------------------------------------------------------
    def judge(self, payload: Tier2Payload, *, boundary: str | None = None) -> JudgeResponse:
        """Send one payload for grading and return the model's raw reply, unparsed (apply
        `verdicts.parse_verdicts` to it). Raises PayloadRejected (nothing sent) or a
        JudgeError; a request that left is in the outbox either way."""
        if self._switched_off():  # the judge switch, read at this request
            raise JudgeDisabled()
        self._check_current()
        checked = revalidated(payload, include_assertions=self._include_assertions())
        system, user = judge_prompt(checked, boundary or new_boundary(), self.strictness)
        config = types.GenerateContentConfig(
            system_instruction=system,
            temperature=self.temperature,
            seed=self.seed,
            thinking_config=(
                None
                if self.thinking_budget is None
                else types.ThinkingConfig(thinking_budget=self.thinking_budget)
            ),
            response_mime_type="application/json",
            response_json_schema=verdict_schema(checked),
        )
        pending = _Pending(model=self.model, payload=checked.canonical())
        pending.deadline = time.monotonic() + self.whole_wait_seconds
        started = time.perf_counter()
        sent = _Sending()

        def send() -> None:  # on a thread of its own: the learner need not wait for it
            self._local.pending = pending
            try:
                sent.response = self._client.models.generate_content(
                    model=self.model, contents=user, config=config
                )
            except CoachError as error:  # raised by our own request hook
                sent.failure = error
            except Exception as error:  # every vendor failure becomes ours, below
                sent.failure = self._translate(error)
            finally:
                self._local.pending = None
                sent.done.set()

        threading.Thread(target=send, name="gemini judge", daemon=True).start()
        while not sent.done.wait(_POLL_SECONDS):
            if self._cancelled.is_set():
                pending.given_up = "cancelled"
            elif time.monotonic() >= pending.deadline:
                pending.given_up = "timeout"
            else:
                continue
            break
        latency_ms = round((time.perf_counter() - started - pending.local_seconds) * 1000)
        if pending.given_up is not None and not sent.done.is_set():
            failure: CoachError = (
                JudgeCancelled()
                if pending.given_up == "cancelled"
                else JudgeTimeout(self.whole_wait_seconds)
            )
            self._finish(pending, OutboxOutcome(status="error", error=str(failure),
                                                latency_ms=latency_ms))  # fmt: skip
            raise _naming_request(failure, pending)
        if sent.failure is not None:
            self._finish(pending, OutboxOutcome(status="error", error=str(sent.failure),
                                                latency_ms=latency_ms))  # fmt: skip
            raise _naming_request(sent.failure, pending)
        response = sent.response
        assert response is not None
        usage = response.usage_metadata
        tokens_in = usage.prompt_token_count if usage else None
        tokens_out = _output_tokens(usage)
        text, failure = _reply_text(response)  # type: ignore[assignment]
        self._finish(
            pending,
            OutboxOutcome(
                status="error" if failure else "ok",
                response=text,
                error=str(failure) if failure else None,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                latency_ms=latency_ms,
            ),
        )
        if failure is not None:
            raise _naming_request(failure, pending)
        assert text is not None and pending.body is not None
        return JudgeResponse(
            raw_text=text,
            model=self.model,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            latency_ms=latency_ms,
            request_body=pending.body,
            outbox_id=pending.outbox_id,
        )

    def test_connection(self) -> ConnectionCheck:
        """Check the key and the model with a request that sends no learner data (the
        model's description); raises the same JudgeErrors as `judge`."""
        started = time.perf_counter()
        failure: JudgeError | None = None
        try:
            found = self._client.models.get(model=self.model)
        except Exception as error:
            failure = self._translate(error)
        if failure is not None:
            raise failure
        latency_ms = round((time.perf_counter() - started) * 1000)
        name = found.display_name or found.name or self.model
        return ConnectionCheck(self.model, latency_ms, f"the key works and {name} answers")

    # --- internals ---------------------------------------------------------------------------
    def _before_send(self, request: httpx2.Request | httpx.Request) -> None:
        """Runs on the sending thread before any byte leaves: refuse a request to any
        host but the configured endpoint; record the body in the outbox, or refuse it."""
        target = _origin(request.url)
        if target != self._endpoint:
            raise JudgeRedirected(_shown(target))
        if self._switched_off():  # switched off while this request was being built
            raise JudgeDisabled()
        self._check_current()
        body = request.content.decode("utf-8")
        pending: _Pending | None = getattr(self._local, "pending", None)
        if not body:
            return  # a bodiless GET (test_connection) carries no learner data
        if pending is None:
            raise PayloadRejected("only a judge request may carry data (this is a bug in Coach)")
        self._next_try(request, pending)
        if self._key in body:
            raise PayloadRejected("the request body held the API key (this is a bug in Coach)")
        if body != pending.body:  # a retry resends the same body: one outbox row
            started = time.perf_counter()
            pending.body = body
            pending.outbox_id = self._outbox.record_sent(
                OutboxEntry(model=pending.model, payload=pending.payload, request_body=body)
            )
            pending.local_seconds += time.perf_counter() - started

    def _next_try(self, request: httpx2.Request | httpx.Request, pending: _Pending) -> None:
        """Each try (the library retries a slow or busy judge) waits at most what is left
        of the whole wait, and is told to the window; none is sent once the learner
        cancelled or the whole wait is over."""
        if self._cancelled.is_set() or pending.given_up == "cancelled":
            raise JudgeCancelled()
        left = pending.deadline - time.monotonic()
        if left <= 0 or pending.given_up is not None:
            raise JudgeTimeout(self.whole_wait_seconds)
        limit = min(self.timeout_seconds, left)
        request.extensions["timeout"] = {"connect": limit, "read": limit, "write": limit,
                                         "pool": limit}  # fmt: skip
        pending.tries += 1
        told = self.on_wait
        if told is not None:
            told(JudgeWait(min(pending.tries, self.attempts), self.attempts, left,
                           pending.deadline))  # fmt: skip

    def _after_reply(self, response: httpx2.Response | httpx.Response) -> None:
        """A redirect is an error, never a next request. A status the library retries is
        logged here, in our words (its own retry log is silenced: it quotes the body)."""
        if response.status_code in RETRY_STATUS_CODES:
            log.info("the judge answered HTTP %d; the request may be retried", response.status_code)
        if 300 <= response.status_code < 400:
            location = response.headers.get("location", "")
            try:
                where = _shown(_origin(httpx.URL(location))) if location else "elsewhere"
            except (httpx.InvalidURL, TypeError):
                where = "elsewhere"
            raise JudgeRedirected(where)

    def _finish(self, pending: _Pending, outcome: OutboxOutcome) -> None:
        if pending.outbox_id is not None:
            self._outbox.record_outcome(pending.outbox_id, outcome)

    def _translate(self, error: Exception) -> JudgeError:
        """Our error, in our own words, for a vendor exception. No vendor text goes into it
        (nor into the journal or the log): an HTTP library's message can carry an escaped
        copy of what it was given, the key included (issue 21). The log gets the class."""
        if isinstance(error, JudgeError):  # raised by our own hooks
            return error
        if isinstance(error, errors.APIError):
            return self._api_error(error)
        log.info("judge request failed: %s", type(error).__name__)
        if isinstance(error, _TIMEOUTS):
            return JudgeNetworkDown("the connection timed out")
        if isinstance(error, _SLOW):
            return JudgeTimeout(self.timeout_seconds)
        if isinstance(error, _NETWORK):
            return JudgeNetworkDown(_network_words(error))
        if isinstance(error, (ValueError, ValidationError)):  # the reply was not Gemini JSON
            return MalformedVerdict("the service's reply could not be read")
        return JudgeError(
            "The judge request failed unexpectedly. Try again; if it keeps happening, "
            "report it with the log file. Your answers are kept unjudged."
        )

    def _api_error(self, error: errors.APIError) -> JudgeError:
        code = int(error.code or 0)
        # Google's status name (e.g. PERMISSION_DENIED), never its free-text message.
        status = str(error.status or "")
        detail = f"HTTP {code} {status}" if _STATUS_NAME.match(status) else f"HTTP {code}"
        if (code == 400 and _key_invalid(error)) or code == 401:
            return JudgeKeyInvalid()
        if code == 403:
            return JudgeAccessDenied(detail)
        if code == 404:
            return JudgeModelNotFound(self.model, self.api_version)
        if code == 429:
            return JudgeQuotaExceeded()
        if code == 408:
            return JudgeTimeout(self.timeout_seconds)
        if code >= 500:
            return JudgeServerError(code, detail)
        return JudgeRequestRejected(code, detail)


def _key_invalid(error: errors.APIError) -> bool:
    """Google's bad-key answer: 400 with reason API_KEY_INVALID (or the message saying so)."""
    body = error.details if isinstance(error.details, dict) else {}
    inner = body.get("error", body)
    details = inner.get("details") if isinstance(inner, dict) else None
    reasons = {d.get("reason") for d in details or [] if isinstance(d, dict)}
    return "API_KEY_INVALID" in reasons or "API key not valid" in str(error.message or "")


def _naming_request(failure: CoachError, pending: _Pending) -> CoachError:
    """`failure`, naming the outbox row of the request that left (if one did)."""
    if isinstance(failure, JudgeError):
        failure.outbox_id = pending.outbox_id
    return failure


def _output_tokens(usage: types.GenerateContentResponseUsageMetadata | None) -> int | None:
    """Reply tokens, thinking included (both are billed as output)."""
    if usage is None or usage.candidates_token_count is None:
        return None
    return usage.candidates_token_count + (usage.thoughts_token_count or 0)


def _reply_text(response: types.GenerateContentResponse) -> tuple[str | None, JudgeError | None]:
    """The reply text, or why there is none we may use (never `response.parsed`)."""
    feedback = response.prompt_feedback
    if feedback is not None and feedback.block_reason is not None:
        return None, JudgeBlocked(_name(feedback.block_reason))
    if not response.candidates:
        return None, MalformedVerdict("the judge sent no reply at all")
    finish = _name(response.candidates[0].finish_reason)
    text = response.text
    if finish == "MAX_TOKENS":
        return text, JudgeTruncated()
    if finish in _BLOCKING_FINISH:
        return text, JudgeBlocked(finish)
    if not text:
        return text, MalformedVerdict(f"the judge sent an empty reply (finish reason {finish})")
    return text, None


def _name(value: Any) -> str:
    return str(getattr(value, "value", value) or "unknown")


DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"
# Proxies named in the environment (HTTP_PROXY, HTTPS_PROXY, ALL_PROXY) are never used:
# through one, a plain-http judge on this computer would send the key and the answers to
# the proxy, and a SOCKS one needs a library Coach does not ship (README, "Privacy").
_NO_ENVIRONMENT_PROXY: dict[str, Any] = {"trust_env": False}


# The library's own log: its retry line (tenacity's before_sleep, at INFO) quotes the
# error it retries, and an error body may quote the key (issue 34). No record is made
# below this level, so nothing it logs reaches a handler, at any level Coach runs at.
_VENDOR_LOGGERS = ("google_genai", "google.genai")


def _silence_vendor_log() -> None:
    for name in _VENDOR_LOGGERS:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _by_address(base_url: str) -> str:
    """`base_url` with a loopback host name (`localhost`) replaced by the address Coach
    means by it, 127.0.0.1, as for Tier 1: no resolver or hosts file is asked, so a
    remapped `localhost` cannot send the key and the answers to another computer."""
    url = httpx.URL(base_url)
    address = loopback_address(url.host)
    if address is None or address == url.host:
        return base_url
    return str(url.copy_with(host=address))


def _origin(url: httpx2.URL | httpx.URL) -> tuple[str, str, int | None]:
    """Scheme, host and port (the default one spelled out), as requests are compared."""
    scheme = url.scheme.lower()
    port = url.port or {"https": 443, "http": 80}.get(scheme)
    return scheme, url.host.lower(), port


def _shown(origin: tuple[str, str, int | None]) -> str:
    scheme, host, port = origin
    return f"{scheme}://{host}:{port}" if port else f"{scheme}://{host}"


_STATUS_NAME = re.compile(r"^[A-Z][A-Z_]{2,40}$")


def _network_words(error: Exception) -> str:
    """What went wrong with the connection, in our words (the class says enough)."""
    name = type(error).__name__
    if "Connect" in name:
        return "the connection was refused or could not be made"
    if "Proxy" in name:
        return "a proxy refused the connection"
    if "Read" in name or "Write" in name or "Protocol" in name:
        return "the connection broke off"
    return "the connection failed"
