"""A fake Ollama on 127.0.0.1 that speaks the real wire format, records every request,
and injects faults on demand.

Chat replies stream as chunked NDJSON, one token per line, then a ``done: true`` line with
``done_reason``, ``eval_count``, ``prompt_eval_count`` and durations, as Ollama does.

    with FakeOllama() as ollama:
        ollama.queue_challenge("Why do species change over time?")
        ollama.inject(Fault.CUT_STREAM, after_tokens=3)
        OllamaClient(ollama.url, ...)
"""

from __future__ import annotations

import json
import re
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from http.server import BaseHTTPRequestHandler
from typing import Any

from fakes.loopback import LoopbackServer

DEFAULT_MODEL = "llama3.2:3b"
DEFAULT_CHALLENGE = "In your own words, why does this idea matter?"
DEEP = 100_000  # how deep DEEP_LINE nests, past any recursion limit


class Fault(StrEnum):
    MODEL_NOT_FOUND = "model_not_found"  # 404 {"error": "model ... not found"}
    SERVER_ERROR = "server_error"  # 500 before any streaming
    ERROR_MID_STREAM = "error_mid_stream"  # a few tokens, then an {"error": ...} line
    CUT_STREAM = "cut_stream"  # a few tokens, then the socket closes without `done`
    GARBAGE_LINE = "garbage_line"  # a few tokens, then a line that is not JSON
    HANG = "hang"  # a few tokens, then nothing until the client leaves or release()
    SLOW_LOAD = "slow_load"  # no response at all (model loading) until release()
    REDIRECT = "redirect"  # 307 to a host outside this computer
    WEB_PAGE = "web_page"  # 200, a web page (something that is not Ollama, at its address)
    DEEP_LINE = "deep_line"  # a few tokens, then a valid JSON line nested 100,000 deep


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body, or None
    # Other connections of this client still open when the request arrived, after
    # waiting a moment for closes in flight: a client that leaves a stream unclosed
    # shows here (issue 13: an unclosed stream was closed later by the garbage collector,
    # inside httpcore's pool lock, and the practice worker deadlocked).
    others_open: int = 0
    raw_body: bytes = b""  # the body's bytes exactly as received

    def _messages(self, role: str) -> str:
        messages = self.body.get("messages", []) if isinstance(self.body, dict) else []
        return "".join(m.get("content", "") for m in messages if m.get("role") == role)

    @property
    def user_text(self) -> str:
        """The user messages' text: for a judge request, the fenced items (the same
        prompt Gemini gets, so `gemini_server.prompt_items` reads it)."""
        return self._messages("user")

    @property
    def system_text(self) -> str:
        return self._messages("system")

    @property
    def schema(self) -> Any:
        """The JSON schema the request asked the reply to follow, in either wire format
        (None: the schema went in the prompt only, or none was asked)."""
        body = self.body if isinstance(self.body, dict) else {}
        schema = body.get("format")
        response_format = body.get("response_format")
        if isinstance(response_format, dict):  # the OpenAI wire (issue 31)
            named = response_format.get("json_schema")
            schema = (
                named.get("schema") if isinstance(named, dict) else response_format.get("schema")
            )
        return schema

    @property
    def is_judge(self) -> bool:
        """A request for a verdict (its `format` is the judge's schema), not a challenge."""
        schema = self.schema
        if schema is None and '"assessments"' in self.system_text:
            return True  # the schema only in the prompt: the judge's instructions say so
        return isinstance(schema, dict) and "items" in schema.get("properties", {})


@dataclass
class _Injected:
    fault: Fault
    path: str
    after_tokens: int
    times: int | None  # None: every matching request


@dataclass
class FakeOllama(LoopbackServer):
    models: list[str] = field(default_factory=lambda: [DEFAULT_MODEL])
    version: str = "0.12.6"
    token_delay: float = 0.0  # seconds between tokens ("slow tokens")
    pull_steps: int = 5
    pull_delay: float = 0.0
    not_in_library: set[str] = field(default_factory=set)  # /api/pull fails for these
    reply_for: Callable[[RecordedRequest], str] | None = None  # content from the request
    # The local judge's replies (judge requests only): any `reply_for` of the fake Gemini
    # works here too, since both read the items from the same fenced prompt. Default: every
    # item passes with each assertion explained, citing the answer.
    judge_reply_for: Callable[[RecordedRequest], str] | None = None
    redirect_to: str = "http://example.com/api/chat"
    # Benchmarks: when a list, each chat token's send time (time.perf_counter) is appended.
    token_sent_at: list[float] | None = None
    # When set, each chat request records how many other connections were still open
    # when it arrived (RecordedRequest.others_open), waiting up to a second for closes.
    watch_connections: bool = False
    # The OpenAI wire on /v1, as Ollama itself serves it: which `response_format` types this
    # server takes (others get a 400, as servers that do not know one answer), and an
    # optional text around each reply (a code fence, prose after it).
    openai_formats: tuple[str, ...] = ("json_schema", "json_object")
    openai_wrap: tuple[str, str] = ("", "")
    # Which wire Coach is pointed at (issue 31): "ollama" (/api/chat, NDJSON) or "openai"
    # (/v1/chat/completions, server-sent events). Tests written against "/api/chat" run on
    # either: `inject` and `requests_to` read "/api/chat" as this wire's chat path.
    wire: str = "ollama"
    # A key the OpenAI API wants as "Authorization: Bearer <key>" (Jan); None: no key.
    api_key: str | None = None

    def __post_init__(self) -> None:
        self._init_loopback()
        self._replies: deque[str] = deque()
        self._faults: list[_Injected] = []
        self._release = threading.Event()
        self.hanging = threading.Event()  # set when a HANG fault starts waiting
        self.client_gone = threading.Event()  # set when a streaming client hung up early
        self.done_lines_sent = 0
        self._connections = 0  # open client connections, counted by the handler
        self._connections_changed = threading.Condition(self._lock)

    # --- scripting -----------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        path = self._on_wire(path)
        chats = [r for r in self.requests if r.path == path]
        if path == OPENAI_CHAT:  # the structured-output probe is not a chat the test sent
            chats = [r for r in chats if not _is_probe(r.body)]
        return chats

    @property
    def chat_path(self) -> str:
        return OPENAI_CHAT if self.wire == "openai" else "/api/chat"

    def _on_wire(self, path: str) -> str:
        return self.chat_path if path == "/api/chat" else path

    def tier1_config(self) -> dict[str, str]:
        """The `tier1` config keys that point Coach at this server in its wire format."""
        if self.wire == "openai":
            return {"server": "openai", "url": self.url}
        return {"ollamaUrl": self.url}

    def client(self, **kwargs: Any) -> Any:
        """Coach's client for this server's wire format (`OllamaClient` or `OpenAIClient`)."""
        return client_class(self.wire)(self.url, **kwargs)

    def queue_reply(self, content: str) -> None:
        """The next chat reply's content, exactly as the model would write it."""
        with self._lock:
            self._replies.append(content)

    def queue_challenge(self, text: str, kind: str = "explain") -> None:
        """The next chat reply: a challenge in the JSON shape Tier 1 asks for."""
        self.queue_reply(json.dumps({"challenge": text, "kind": kind}))

    def inject(
        self,
        fault: Fault,
        *,
        path: str = "/api/chat",
        after_tokens: int = 2,
        times: int | None = 1,
    ) -> None:
        with self._lock:
            self._faults.append(_Injected(fault, self._on_wire(path), after_tokens, times))

    def release(self) -> None:
        """Let a hanging stream carry on to its normal end."""
        self._release.set()

    # --- used by the handler -----------------------------------------------------------------
    def _take_fault(self, path: str) -> _Injected | None:
        with self._lock:
            for injected in self._faults:
                if injected.path == path:
                    if injected.times is not None:
                        injected.times -= 1
                        if injected.times <= 0:
                            self._faults.remove(injected)
                    return injected
        return None

    @property
    def judge_requests(self) -> list[RecordedRequest]:
        paths = ("/api/chat", "/v1/chat/completions")
        return [r for r in self.requests if r.path in paths and r.is_judge]

    def _content_for(self, request: RecordedRequest) -> str:
        if request.is_judge:
            from fakes.gemini_server import passes_items_whose_answer_contains

            judge = self.judge_reply_for or passes_items_whose_answer_contains("")
            return judge(request)  # type: ignore[arg-type]
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        if self.reply_for is not None:
            return self.reply_for(request)
        return json.dumps({"challenge": DEFAULT_CHALLENGE, "kind": "explain"})

    def _connection(self, delta: int) -> None:
        with self._connections_changed:
            self._connections += delta
            self._connections_changed.notify_all()

    def _others_open(self, wait: float = 1.0) -> int:
        """Connections open besides the caller's, once closes in flight have landed."""
        with self._connections_changed:
            self._connections_changed.wait_for(lambda: self._connections <= 1, timeout=wait)
            return self._connections - 1

    def _wait(self, seconds: float) -> None:
        if seconds > 0:
            self._stopping.wait(seconds)


OPENAI_CHAT = "/v1/chat/completions"
WIRES = ("ollama", "openai")


def client_class(wire: str) -> Any:
    """Coach's client class for a wire format."""
    if wire == "openai":
        from coach_gui.adapters.openai_compat import OpenAIClient

        return OpenAIClient
    from coach_gui.adapters.ollama import OllamaClient

    return OllamaClient


def _is_probe(body: Any) -> bool:
    """The OpenAI client's structured-output probe: no learner data, `{"ok": true}` asked."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return (
        isinstance(messages, list)
        and len(messages) == 1
        and isinstance(messages[0], dict)
        and '{"ok": true}' in str(messages[0].get("content"))
    )


def _tokens(content: str) -> list[str]:
    """Split like a tokenizer would, roughly: short pieces that rejoin to the content."""
    return re.findall(r"\s*[^\s]{1,6}|\s+", content) or [""]


class _Handler(BaseHTTPRequestHandler):
    fake: FakeOllama
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    # --- plumbing ------------------------------------------------------------------------
    def handle(self) -> None:
        self.fake._connection(+1)
        try:
            super().handle()
        except (ConnectionResetError, BrokenPipeError):
            self.close_connection = True  # the client went away between requests
        finally:
            self.fake._connection(-1)

    def _read_body(self) -> tuple[Any, bytes]:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            return (json.loads(raw) if raw else None), raw
        except json.JSONDecodeError:
            return None, raw

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _send_page(self) -> None:
        data = (
            b"<!DOCTYPE html>\n<html><head><title>Router</title></head>\n<body><h1>Router "
            b"login</h1><p>Enter the admin password.</p></body></html>\n"
        )
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _line(self, payload: Any | str) -> None:
        text = payload if isinstance(payload, str) else json.dumps(payload)
        data = (text + "\n").encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _cut(self) -> None:
        self.wfile.flush()
        self.close_connection = True
        self.connection.shutdown(socket.SHUT_RDWR)

    def _client_left(self) -> bool:
        # poll, not select: select cannot watch a descriptor past 1024 (a long test run)
        poller = select.poll()
        poller.register(self.connection, select.POLLIN)
        readable = poller.poll(0)
        return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""

    def _hang(self) -> bool:
        """Wait for release(), the client leaving, or shutdown; True to carry on."""
        self.fake.hanging.set()
        while not self.fake._stopping.is_set():
            if self.fake._release.wait(0.02):
                return True
            if self._client_left():
                self.fake.client_gone.set()
                return False
        return False

    # --- routes ---------------------------------------------------------------------------
    def do_GET(self) -> None:
        self._handle("GET")

    def do_POST(self) -> None:
        self._handle("POST")

    def _handle(self, method: str) -> None:
        body, raw = self._read_body() if method == "POST" else (None, b"")
        watching = self.fake.watch_connections and self.path in ("/api/chat", OPENAI_CHAT)
        others = self.fake._others_open() if watching else 0
        request = RecordedRequest(method, self.path, dict(self.headers.items()), body, others, raw)
        self.fake._record(request)
        # Faults are for the requests a test sends, not the OpenAI client's probe before them
        probe = self.path == OPENAI_CHAT and _is_probe(body)
        fault = None if probe else self.fake._take_fault(self.path)
        try:
            wanted = self.fake.api_key
            given = self.headers.get("Authorization")
            if wanted and self.path.startswith("/v1/") and given != f"Bearer {wanted}":
                self._send_json(401, {"error": {"message": "Invalid API key"}})
                return
            if fault and fault.fault is Fault.SERVER_ERROR:
                self._send_json(500, {"error": "llama runner process has terminated"})
            elif fault and fault.fault is Fault.REDIRECT:
                self._send_json(307, {}, {"Location": self.fake.redirect_to})
            elif fault and fault.fault is Fault.WEB_PAGE:
                self._send_page()
            elif (method, self.path) == ("GET", "/api/version"):
                self._send_json(200, {"version": self.fake.version})
            elif (method, self.path) == ("GET", "/api/tags"):
                self._send_json(200, {"models": [_tag(m) for m in self.fake.models]})
            elif (method, self.path) == ("POST", "/api/chat"):
                self._chat(request, fault)
            elif (method, self.path) == ("GET", "/v1/models"):
                data = [
                    {"id": m, "object": "model", "owned_by": "library"} for m in self.fake.models
                ]
                self._send_json(200, {"object": "list", "data": data})
            elif (method, self.path) == ("POST", "/v1/chat/completions"):
                self._openai_chat(request, fault)
            elif (method, self.path) == ("POST", "/api/pull"):
                self._pull(request, fault)
            else:
                self._send_json(404, {"error": "404 page not found"})
        except (BrokenPipeError, ConnectionResetError):
            self.fake.client_gone.set()
            self.close_connection = True

    def _chat(self, request: RecordedRequest, fault: _Injected | None) -> None:
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model", ""))
        if model not in self.fake.models or (fault and fault.fault is Fault.MODEL_NOT_FOUND):
            self._send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        if fault and fault.fault is Fault.SLOW_LOAD and not self._hang():
            return
        content = self.fake._content_for(request)
        tokens = _tokens(content)
        if body.get("stream", True) is False:
            self._send_json(200, _chat_line(model, content) | _done_stats(len(tokens)))
            self.fake.done_lines_sent += 1
            return
        self._start_stream()
        for index, token in enumerate(tokens):
            if fault and index == fault.after_tokens and not self._fault_mid_stream(fault):
                return
            self.fake._wait(self.fake.token_delay)
            self._line(_chat_line(model, token, done=False))
            if self.fake.token_sent_at is not None:
                self.fake.token_sent_at.append(time.perf_counter())
        self._line(_chat_line(model, "") | _done_stats(len(tokens)))
        self.fake.done_lines_sent += 1
        self._end_stream()

    def _openai_chat(self, request: RecordedRequest, fault: _Injected | None) -> None:
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model", ""))
        if model not in self.fake.models or (fault and fault.fault is Fault.MODEL_NOT_FOUND):
            self._send_json(404, {"error": {"message": f"model '{model}' not found"}})
            return
        response_format = body.get("response_format")
        kind = response_format.get("type") if isinstance(response_format, dict) else None
        if kind is not None and kind not in self.fake.openai_formats:
            self._send_json(400, {"error": {"message": f"response_format {kind} unsupported"}})
            return
        if "max_tokens" not in body:
            self._send_json(400, {"error": {"message": "this fake wants max_tokens"}})
            return
        if fault and fault.fault is Fault.SLOW_LOAD and not self._hang():
            return
        before, after = self.fake.openai_wrap
        if _is_probe(body):
            content = '{"ok": true}'  # the structured-output probe
        else:
            content = before + self.fake._content_for(request) + after
        if body.get("stream") is not True:
            message = {"role": "assistant", "content": content}
            self._send_json(200, {"choices": [{"index": 0, "message": message,
                                               "finish_reason": "stop"}]})  # fmt: skip
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        tokens = _tokens(content)
        for index, token in enumerate(tokens):
            if fault and index == fault.after_tokens and not self._fault_mid_stream(fault):
                return
            self.fake._wait(self.fake.token_delay)
            chunk = {"choices": [{"index": 0, "delta": {"content": token}, "finish_reason": None}]}
            self._line("data: " + json.dumps(chunk) + "\n")
            if self.fake.token_sent_at is not None:
                self.fake.token_sent_at.append(time.perf_counter())
        last = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 321, "completion_tokens": len(tokens)}}  # fmt: skip
        self._line("data: " + json.dumps(last) + "\n")
        self._line("data: [DONE]\n")
        self.fake.done_lines_sent += 1
        self._end_stream()

    def _fault_mid_stream(self, fault: _Injected) -> bool:
        """Play a mid-stream fault; True when the stream should carry on afterwards."""
        sse = self.path == OPENAI_CHAT
        if fault.fault is Fault.ERROR_MID_STREAM:
            message = "an error was encountered while running the model"
            if sse:  # llama.cpp's server: an error event with OpenAI's error object
                self._line("data: " + json.dumps({"error": {"message": message}}) + "\n")
            else:
                self._line({"error": message})
            self._end_stream()
            return False
        if fault.fault is Fault.CUT_STREAM:
            self._cut()
            return False
        if fault.fault is Fault.GARBAGE_LINE:
            self._line("<html>502 Bad Gateway</html>")
            self._end_stream()
            return False
        if fault.fault is Fault.DEEP_LINE:
            self._line(("data: " if sse else "") + "[" * DEEP + "]" * DEEP)
            self._end_stream()
            return False
        if fault.fault is Fault.HANG:
            return self._hang()
        return True

    def _pull(self, request: RecordedRequest, fault: _Injected | None) -> None:
        body = request.body if isinstance(request.body, dict) else {}
        model = str(body.get("model") or body.get("name") or "")
        self._start_stream()
        self._line({"status": "pulling manifest"})
        if model in self.fake.not_in_library:
            self._line({"error": "pull model manifest: file does not exist"})
            self._end_stream()
            return
        total, digest = 2_000_000_000, "sha256:" + "ab" * 32
        for step in range(1, self.fake.pull_steps + 1):
            if fault and step - 1 == fault.after_tokens and not self._fault_mid_stream(fault):
                return
            self.fake._wait(self.fake.pull_delay)
            completed = total * step // self.fake.pull_steps
            self._line(
                {"status": f"pulling {digest[7:19]}", "digest": digest, "total": total,
                 "completed": completed}
            )  # fmt: skip
        for status in ("verifying sha256 digest", "writing manifest"):
            self._line({"status": status})
        if model not in self.fake.models:  # installed before "success" says so, as Ollama
            self.fake.models.append(model)
        self._line({"status": "success"})
        self._end_stream()


def _tag(model: str) -> dict[str, Any]:
    return {
        "name": model,
        "model": model,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 2_019_393_189,
        "digest": "a80c4f17acd5" + "0" * 52,
        "details": {"format": "gguf", "family": "llama", "parameter_size": "3.2B",
                    "quantization_level": "Q4_K_M"},
    }  # fmt: skip


def _chat_line(model: str, content: str, *, done: bool = True) -> dict[str, Any]:
    return {
        "model": model,
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "message": {"role": "assistant", "content": content},
        "done": done,
    }


def _done_stats(tokens: int) -> dict[str, Any]:
    return {
        "done_reason": "stop",
        "total_duration": 1_234_000_000,
        "load_duration": 12_000_000,
        "prompt_eval_count": 321,
        "prompt_eval_duration": 200_000_000,
        "eval_count": tokens,
        "eval_duration": 1_000_000_000,
    }


FakeOllama.handler_class = _Handler
