"""A fake Gemini API on 127.0.0.1 that speaks the real `generateContent` JSON, records every
request, and injects faults on demand.

``POST /{version}/models/{model}:generateContent`` answers as Google does:
``candidates[0].content.parts[].text``, ``finishReason``, and ``usageMetadata`` with
``promptTokenCount`` / ``candidatesTokenCount`` / ``totalTokenCount``. Token counts are an
estimate, ceil(characters / 4) of the prompt's text (system instruction + contents) and
of the reply text, since there is no tokenizer here. ``GET /{version}/models/{model}``
returns the model's description.

    with FakeGemini(api_keys={"good-key"}) as gemini:
        gemini.queue_reply('{"items": [...]}')           # the model's next reply text
        gemini.inject(Fault.QUOTA, times=2)               # the next two requests get 429
        gemini.reply_for = passes_items_whose_answer_contains("because")
"""

from __future__ import annotations

import json
import math
import re
import socket
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from http.server import BaseHTTPRequestHandler
from typing import Any

from fakes.assessing import assessed, from_gaps
from fakes.loopback import LoopbackServer

DEFAULT_MODEL = "gemini-2.5-flash"
API_VERSIONS = ("v1", "v1beta", "v1alpha")
_ROUTE = re.compile(r"^/(?P<version>v[0-9a-z]+)/models/(?P<model>[^/:?]+)(?P<method>:[A-Za-z]+)?$")
_FENCED = re.compile(
    r"<untrusted_item(?P<item>\d+)_(?P<part>challenge|answer|assertion(?P<n>\d+))_[0-9a-f]+>\n"
    r"(?P<text>.*?)\n</untrusted_item(?P=item)_(?P=part)_[0-9a-f]+>",
    re.DOTALL,
)


SIGN_IN_PAGE = (
    b"<!DOCTYPE html><html><head><title>Sign in</title></head><body><h1>Welcome to "
    b"CafeNet</h1><p>Sign in to use the Wi-Fi.</p></body></html>"
)


class Fault(StrEnum):
    KEY_INVALID = "key_invalid"  # 400 INVALID_ARGUMENT, details reason API_KEY_INVALID
    PERMISSION_DENIED = "permission_denied"  # 403 PERMISSION_DENIED
    MODEL_NOT_FOUND = "model_not_found"  # 404 NOT_FOUND
    QUOTA = "quota"  # 429 RESOURCE_EXHAUSTED
    SERVER_ERROR = "server_error"  # 500 INTERNAL
    UNAVAILABLE = "unavailable"  # 503 UNAVAILABLE ("The model is overloaded")
    SLOW = "slow"  # wait `slow_seconds` (past the client's timeout), then answer
    NOT_JSON_TEXT = "not_json_text"  # 200, but the model's text is prose, not JSON
    SCHEMA_VIOLATION = "schema_violation"  # 200, JSON that breaks the verdict schema
    BLOCKED = "blocked"  # 200, promptFeedback.blockReason SAFETY and no candidates
    MAX_TOKENS = "max_tokens"  # 200, text cut off and finishReason MAX_TOKENS
    SAFETY_STOP = "safety_stop"  # 200, candidate with finishReason SAFETY and no text
    HTML_BODY = "html_body"  # 200 with an HTML page instead of JSON (a captive portal)
    REDIRECT = "redirect"  # `redirect_status` to `redirect_to` (the same path on it)
    SIGN_IN_PAGE = "sign_in_page"  # any request: 200, a Wi-Fi sign-in web page (not Google)


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    raw_body: bytes
    body: Any  # the parsed JSON body, or None

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers.items() if k.lower() == name.lower()), None)

    @property
    def user_text(self) -> str:
        return "".join(p.get("text", "") for c in self.body["contents"] for p in c["parts"])

    @property
    def system_text(self) -> str:
        return "".join(p.get("text", "") for p in self.body["systemInstruction"]["parts"])


@dataclass(frozen=True)
class PromptItem:
    """One item as the fake reads it back out of the judge prompt's fences."""

    index: int
    challenge: str
    answer: str
    assertions: tuple[str, ...] | None


def prompt_items(request: RecordedRequest) -> list[PromptItem]:
    """The items of a judge prompt, read from its fences (the text as fenced, neutralised)."""
    parts: dict[int, dict[str, Any]] = {}
    for match in _FENCED.finditer(request.user_text):
        item = parts.setdefault(int(match["item"]), {"assertions": {}})
        if match["n"] is not None:
            item["assertions"][int(match["n"])] = match["text"]
        else:
            item[match["part"]] = match["text"]
    return [
        PromptItem(
            index,
            item.get("challenge", ""),
            item.get("answer", ""),
            tuple(item["assertions"][n] for n in sorted(item["assertions"]))
            if item["assertions"]
            else None,
        )
        for index, item in sorted(parts.items())
    ]


def assessed_reply(request: RecordedRequest, raw: str) -> str:
    """`raw`, a reply written as gaps, in the contract of DESIGN §4 for this request's
    items (`assessing.assessed`)."""
    items = {item.index: (item.answer, item.assertions) for item in prompt_items(request)}
    return assessed(raw, items.get)


def assessments_for(item: PromptItem, ok: bool) -> list[dict[str, Any]]:
    """One assessment per assertion sent: all explained (citing the start of the answer)
    when `ok`, else all unexplained with no evidence."""
    if item.assertions is None:
        return []
    gaps = [] if ok else [
        {"assertion": n, "problem": "unexplained", "explanation": "Not explained."}
        for n in range(len(item.assertions))
    ]  # fmt: skip
    return from_gaps(item.answer, len(item.assertions), gaps)


def verdict_json(request: RecordedRequest, passes: Callable[[PromptItem], bool]) -> str:
    """A well-formed verdict for every item of the request, in the contract of DESIGN §4:
    with assertions, one assessment per assertion (explained with evidence from the answer
    when the item passes, unexplained otherwise) and no gap; without, no gap when it
    passes and one null gap when it fails."""
    items = []
    for item in prompt_items(request):
        ok = passes(item)
        gaps: list[dict[str, Any]] = []
        if not ok and item.assertions is None:
            gaps = [{"assertion": None, "problem": "unexplained", "explanation": "Too vague."}]
        feedback = "Well explained." if ok else "Explain the missing points."
        items.append(
            {"index": item.index, "assessments": assessments_for(item, ok), "gaps": gaps,
             "verdict": "pass" if ok else "fail", "feedback": feedback}
        )  # fmt: skip
    return json.dumps({"items": items})


def passes_items_whose_answer_contains(word: str) -> Callable[[RecordedRequest], str]:
    """A `reply_for`: items pass when their answer contains `word` (any case)."""
    return lambda request: verdict_json(request, lambda item: word.lower() in item.answer.lower())


def _tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def _error(code: int, status: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status, **extra}}


_KEY_INVALID = _error(
    400,
    "INVALID_ARGUMENT",
    "API key not valid. Please pass a valid API key.",
    details=[
        {
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "API_KEY_INVALID",
            "domain": "googleapis.com",
            "metadata": {"service": "generativelanguage.googleapis.com"},
        },
        {
            "@type": "type.googleapis.com/google.rpc.LocalizedMessage",
            "locale": "en-US",
            "message": "API key not valid. Please pass a valid API key.",
        },
    ],
)
_QUOTA = _error(
    429,
    "RESOURCE_EXHAUSTED",
    "You exceeded your current quota, please check your plan and billing details.",
    details=[
        {
            "@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [
                {"quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
                 "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}
            ],
        },
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1s"},
    ],
)  # fmt: skip
_PERMISSION_DENIED = _error(
    403,
    "PERMISSION_DENIED",
    "Generative Language API has not been used in project 123 before or it is disabled.",
    details=[{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED"}],
)
_INTERNAL = _error(500, "INTERNAL", "An internal error has occurred. Please retry.")
_UNAVAILABLE = _error(503, "UNAVAILABLE", "The model is overloaded. Please try again later.")


@dataclass
class _Injected:
    fault: Fault
    times: int | None  # None: every request


@dataclass
class FakeGemini(LoopbackServer):
    models: list[str] = field(default_factory=lambda: [DEFAULT_MODEL])
    api_keys: set[str] | None = None  # when set, any other key is API_KEY_INVALID
    reply_for: Callable[[RecordedRequest], str] | None = None  # the model's text
    slow_seconds: float = 3.0  # how long a SLOW fault waits before answering
    redirect_to: str = "http://example.com"  # where a REDIRECT fault sends the client
    redirect_status: int = 302
    echo_key_in_errors: bool = False  # error bodies quote the request's key (as some gateways do)

    def __post_init__(self) -> None:
        self._init_loopback()
        self._replies: deque[str] = deque()
        self._faults: list[_Injected] = []

    # --- scripting -----------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def generate_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith(":generateContent")]

    def queue_reply(self, text: str) -> None:
        """The model's next reply text, exactly as it will appear in the part."""
        with self._lock:
            self._replies.append(text)

    def inject(self, fault: Fault, *, times: int | None = 1) -> None:
        with self._lock:
            self._faults.append(_Injected(fault, times))

    # --- used by the handler -------------------------------------------------------------
    def _take_fault(self, only: Fault | None = None) -> Fault | None:
        """The next injected fault (or the next of kind `only`), used up once per request."""
        with self._lock:
            for injected in self._faults:
                if only is not None and injected.fault is not only:
                    continue
                if injected.times is not None:
                    injected.times -= 1
                    if injected.times <= 0:
                        self._faults.remove(injected)
                return injected.fault
        return None

    def _text_for(self, request: RecordedRequest) -> str:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        if self.reply_for is not None:
            return self.reply_for(request)
        return verdict_json(request, lambda item: True)


class _Handler(BaseHTTPRequestHandler):
    fake: FakeGemini
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without this, Nagle's algorithm and
        # the client's delayed ACK add ~40 ms to every reply.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def handle(self) -> None:
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            self.close_connection = True

    def _send(self, status: int, payload: Any, content_type: str = "application/json") -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", f"{content_type}; charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = None
        request = RecordedRequest(method, self.path, dict(self.headers.items()), raw, body)
        self.fake._record(request)
        try:
            self._route(request)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _route(self, request: RecordedRequest) -> None:
        if self.fake._take_fault(Fault.SIGN_IN_PAGE):  # answered before Google could be
            self._send(200, SIGN_IN_PAGE, "text/html")
            return
        if self.fake._take_fault(Fault.REDIRECT):  # any request, before the route is read
            self.send_response(self.fake.redirect_status)
            self.send_header("Location", self.fake.redirect_to.rstrip("/") + request.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        route = _ROUTE.match(request.path)
        if route is None or route["version"] not in API_VERSIONS:
            self._send(404, _error(404, "NOT_FOUND", f"Not found: {request.path}"))
            return
        key = request.header("x-goog-api-key")
        if key is None:
            self._send(403, _error(403, "PERMISSION_DENIED", "Method doesn't allow "
                                   "unregistered callers. Please use API Key."))  # fmt: skip
            return
        fault = self.fake._take_fault()
        if fault is Fault.KEY_INVALID or (
            self.fake.api_keys is not None and key not in self.fake.api_keys
        ):
            self._send(400, _KEY_INVALID)
            return
        errors = {
            Fault.PERMISSION_DENIED: (403, _PERMISSION_DENIED),
            Fault.QUOTA: (429, _QUOTA),
            Fault.SERVER_ERROR: (500, _INTERNAL),
            Fault.UNAVAILABLE: (503, _UNAVAILABLE),
        }
        if fault in errors:
            code, body = errors[fault]
            if self.fake.echo_key_in_errors:
                body = json.loads(json.dumps(body))
                body["error"]["message"] += f" (request key: {key})"
            self._send(code, body)
            return
        model = route["model"]
        if fault is Fault.MODEL_NOT_FOUND or model not in self.fake.models:
            self._send(404, _error(404, "NOT_FOUND", f"models/{model} is not found for API "
                                   f"version {route['version']}, or is not supported for "
                                   "generateContent."))  # fmt: skip
            return
        if fault is Fault.SLOW and self.fake._stopping.wait(self.fake.slow_seconds):
            return
        if request.method == "GET" and route["method"] is None:
            self._send(200, _model_info(model))
        elif request.method == "POST" and route["method"] == ":generateContent":
            self._generate(request, model, fault)
        else:
            self._send(404, _error(404, "NOT_FOUND", f"Not found: {request.path}"))

    def _generate(self, request: RecordedRequest, model: str, fault: Fault | None) -> None:
        if not isinstance(request.body, dict) or "contents" not in request.body:
            self._send(400, _error(400, "INVALID_ARGUMENT", "* contents: must not be empty"))
            return
        try:
            prompt_tokens = _tokens(request.system_text + request.user_text)
        except (KeyError, TypeError):
            self._send(400, _error(400, "INVALID_ARGUMENT", "Invalid JSON payload received."))
            return
        if fault is Fault.HTML_BODY:
            self._send(200, b"<html><body>Sign in to the Wi-Fi</body></html>", "text/html")
            return
        if fault is Fault.BLOCKED:
            self._send(200, {
                "promptFeedback": {"blockReason": "SAFETY", "safetyRatings": [
                    {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH"}]},
                "usageMetadata": {"promptTokenCount": prompt_tokens,
                                  "totalTokenCount": prompt_tokens},
                "modelVersion": model,
            })  # fmt: skip
            return
        text = self.fake._text_for(request)
        finish = "STOP"
        if fault is Fault.NOT_JSON_TEXT:
            text = "Sure! Here is my assessment: the answer is mostly right."
        elif fault is Fault.SCHEMA_VIOLATION:
            text = json.dumps({"items": [{"index": "first", "verdict": "maybe"}]})
        elif fault is Fault.MAX_TOKENS:
            text, finish = text[: max(1, len(text) // 2)], "MAX_TOKENS"
        candidate: dict[str, Any] = {"content": {"parts": [{"text": text}], "role": "model"},
                                     "finishReason": finish, "index": 0}  # fmt: skip
        if fault is Fault.SAFETY_STOP:
            candidate = {"finishReason": "SAFETY", "index": 0}
            text = ""
        out_tokens = _tokens(text)
        self._send(200, {
            "candidates": [candidate],
            "usageMetadata": {"promptTokenCount": prompt_tokens,
                              "candidatesTokenCount": out_tokens,
                              "totalTokenCount": prompt_tokens + out_tokens,
                              "promptTokensDetails": [{"modality": "TEXT",
                                                       "tokenCount": prompt_tokens}]},
            "modelVersion": model,
            "responseId": "fake-" + str(len(self.fake.requests)),
        })  # fmt: skip


def _model_info(model: str) -> dict[str, Any]:
    return {
        "name": f"models/{model}",
        "version": "001",
        "displayName": model,
        "inputTokenLimit": 1048576,
        "outputTokenLimit": 65536,
        "supportedGenerationMethods": ["generateContent", "countTokens"],
        "temperature": 1,
        "maxTemperature": 2,
    }


FakeGemini.handler_class = _Handler


# --- judges that break the contract of DESIGN §4 in one way each -----------------------------


def _contract_reply(
    request: RecordedRequest, edit: Callable[[PromptItem, list[dict[str, Any]]], None]
) -> str:
    """Every item passes with every assertion explained (citing the answer), then `edit`
    changes each item's assessments in place."""
    items = []
    for item in prompt_items(request):
        assessments = assessments_for(item, True)
        if item.assertions is not None:
            edit(item, assessments)
        items.append({"index": item.index, "assessments": assessments, "gaps": [],
                      "verdict": "pass", "feedback": "Well explained."})  # fmt: skip
    return json.dumps({"items": items})


def cites_words_not_in_the_answer(
    assertion: int, span: str = "selection acts on inherited variation"
) -> Callable[[RecordedRequest], str]:
    """Marks `assertion` explained, citing `span`, which the answer does not hold."""

    def edit(_item: PromptItem, assessments: list[dict[str, Any]]) -> None:
        assessments[assertion]["evidence"] = [span]

    return lambda request: _contract_reply(request, edit)


def skips_an_assertion(assertion: int) -> Callable[[RecordedRequest], str]:
    """Leaves `assertion` out of the assessments."""

    def edit(_item: PromptItem, assessments: list[dict[str, Any]]) -> None:
        assessments.pop(assertion)

    return lambda request: _contract_reply(request, edit)


def assesses_one_twice(assertion: int) -> Callable[[RecordedRequest], str]:
    """Assesses `assertion` twice (once explained, once unexplained)."""

    def edit(_item: PromptItem, assessments: list[dict[str, Any]]) -> None:
        again = {**assessments[assertion], "status": "unexplained", "evidence": []}
        assessments.append(again)

    return lambda request: _contract_reply(request, edit)


_REASONS = {
    "explained": "The answer explains it.",
    "unexplained": "The answer does not say this.",
    "wrong": "The answer says the opposite.",
}


def cites(
    spans: dict[int, list[str]], status: dict[int, str] | None = None
) -> Callable[[RecordedRequest], str]:
    """Cites exactly `spans[n]` for assertion n (others as `assessments_for`), with the
    status `status[n]` where given."""

    def edit(_item: PromptItem, assessments: list[dict[str, Any]]) -> None:
        for n, cited_spans in spans.items():
            assessments[n]["evidence"] = cited_spans
        for n, given in (status or {}).items():
            assessments[n]["status"] = given
            assessments[n]["reason"] = _REASONS[given]

    return lambda request: _contract_reply(request, edit)
