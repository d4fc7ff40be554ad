"""A local model server speaking OpenAI's API (`tier1.server: "openai"`, DESIGN §5): LM
Studio, llama.cpp's llama-server, Jan, vLLM, LocalAI, GPT4All, and Ollama's own `/v1`.

Same rules as `ollama.OllamaClient`, whose plumbing it shares: loopback by address at
construction and at every request, no proxy from the environment, no redirects, a fresh
connection per stream so `cancel()` closes it and the server stops generating. Replies
stream as server-sent events. `max_tokens` is always sent: some servers keep generating
after the client hangs up until it is reached.

Structured output is negotiated per server and model (`DIALECTS`, best first) with a probe
that carries no learner data, and what worked is remembered in the data folder.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import closing
from pathlib import Path
from typing import Any, Final

import httpx

from coach_gui.adapters.ollama import (
    ChatStats,
    ChatStream,
    OllamaClient,
    _ChatSoFar,
    _int,
    _NdjsonStream,
    _short,
    _str,
    _Streamed,
)
from coach_gui.domain.reply_json import json_object_text
from coach_gui.domain.tier1_errors import (
    InvalidOllamaReply,
    OllamaNotRunning,
    ServerKeyRefused,
    ServerModelMissing,
    ServerNotRunning,
    ServerReportedError,
    StreamCut,
    Tier1Error,
    in_server_words,
)

log = logging.getLogger(__name__)
CHAT_PATH: Final = "/v1/chat/completions"
# OpenAI's strict schema; llama.cpp's JSON mode with a schema (llama-cpp-python refuses the
# first with a 500); plain JSON mode; the schema said in the prompt only.
DIALECTS: Final = ("json_schema", "json_object_schema", "json_object", "prompt")
DEFAULT_MAX_TOKENS: Final = 2048
_PROBE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
    "additionalProperties": False,
}


class DialectMemory:
    """Which structured-output dialect worked, per server and model, kept in one JSON file
    of the data folder (a cache: a lost or broken file only means one more probe)."""

    def __init__(self, path: Path | None) -> None:
        self._path = path
        self._lock = threading.Lock()

    def _read(self) -> dict[str, str]:
        if self._path is None:
            return {}
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {k: v for k, v in data.items() if isinstance(v, str) and v in DIALECTS}

    def get(self, server: str, model: str) -> str | None:
        with self._lock:
            return self._read().get(f"{server} {model}")

    def all(self) -> dict[str, str]:
        with self._lock:
            return self._read()

    def put(self, server: str, model: str, dialect: str) -> None:
        if self._path is None:
            return
        with self._lock:
            data = self._read()
            data[f"{server} {model}"] = dialect
            try:
                self._path.parent.mkdir(parents=True, exist_ok=True)
                temporary = self._path.with_suffix(".tmp")
                temporary.write_text(json.dumps(data, indent=1, sort_keys=True), "utf-8")
                temporary.replace(self._path)
            except OSError as exc:  # remembered for this run only
                log.info("could not remember the structured-output dialect: %s", exc)


def schema_instruction(schema: Mapping[str, Any]) -> str:
    """The schema said in words, for servers that cannot be given it any other way."""
    return (
        "Reply with one JSON object only, no other text, matching this JSON schema:\n"
        + json.dumps(schema, ensure_ascii=False, separators=(",", ":"))
    )


def with_dialect(
    body: dict[str, Any], schema: Mapping[str, Any] | None, dialect: str
) -> dict[str, Any]:
    """`body` asking for `schema` the way `dialect` does."""
    if schema is None:
        return body
    if dialect == "json_schema":
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "strict": True, "schema": dict(schema)},
        }
        return body
    if dialect == "json_object_schema":
        body["response_format"] = {"type": "json_object", "schema": dict(schema)}
        return body
    if dialect == "json_object":
        body["response_format"] = {"type": "json_object"}
    messages = [dict(m) for m in body["messages"]]
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = f"{messages[0]['content']}\n{schema_instruction(schema)}"
    else:
        messages.insert(0, {"role": "system", "content": schema_instruction(schema)})
    body["messages"] = messages
    return body


class OpenAIClient(OllamaClient):
    """One OpenAI-compatible server on this computer. Safe to share between threads."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        dialects: DialectMemory | None = None,
        connect_timeout: float = 2.0,
        read_timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        super().__init__(
            base_url,
            connect_timeout=connect_timeout,
            read_timeout=read_timeout,
            transport=transport,
        )
        if api_key:  # Jan wants one; it travels in a header, never in a recorded body
            for http in (self._http, self._streams_http):
                http.headers["Authorization"] = f"Bearer {api_key}"
        self._dialects = dialects or DialectMemory(None)
        self._known: dict[str, str] = {}

    # --- simple requests ---------------------------------------------------------------------
    def version(self) -> str:
        """What this server is, as far as its API says (it has no version endpoint)."""
        self.models()
        return "OpenAI-compatible"

    def models(self) -> list[str]:
        """The ids the server lists (``/v1/models``)."""
        try:
            data = self._get_json("/v1/models").get("data")
        except Tier1Error as error:
            raise in_server_words(error) from None
        if not isinstance(data, list):
            raise in_server_words(InvalidOllamaReply("/v1/models has no model list"))
        return [m["id"] for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]

    def has_model(self, model: str) -> bool:
        return model in self.models()

    # --- structured output ---------------------------------------------------------------------
    def dialect(self, model: str) -> str:
        """How this server takes a schema for `model`: remembered, or found by a probe
        (a tiny request with no learner data in it), best first."""
        known = self._known.get(model) or self._dialects.get(self.base_url, model)
        if known is not None:
            self._known[model] = known
            return known
        for dialect in DIALECTS[:-1]:
            if self._probe(model, dialect):
                break
        else:
            dialect = DIALECTS[-1]
        self._known[model] = dialect
        self._dialects.put(self.base_url, model, dialect)
        return dialect

    def _probe(self, model: str, dialect: str) -> bool:
        body = with_dialect(
            {
                "model": model,
                "messages": [{"role": "user", "content": 'Reply with the JSON {"ok": true}.'}],
                "max_tokens": 16,
                "temperature": 0,
                "stream": False,
            },
            _PROBE_SCHEMA,
            dialect,
        )
        try:
            # Closed at once: the probe leaves no connection open beside the streams
            response = self._http.post(CHAT_PATH, json=body, headers={"Connection": "close"})
        except httpx.HTTPError as exc:
            raise self._translate(exc, opening=True) from None
        if response.status_code in (401, 403, 404):
            raise self._status_error(response, CHAT_PATH, model)
        if response.status_code != 200:
            return False  # this dialect is refused; the next one is tried
        try:
            content = response.json()["choices"][0]["message"]["content"]
            reply = json.loads(json_object_text(content))
        except (ValueError, KeyError, IndexError, TypeError, RecursionError):
            return False
        if dialect == "json_object":
            return isinstance(reply, dict)
        return isinstance(reply, dict) and isinstance(reply.get("ok"), bool)

    # --- streams --------------------------------------------------------------------------------
    def chat_stream(
        self,
        model: str,
        messages: Sequence[Mapping[str, str]],
        *,
        format_schema: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        keep_alive: str | None = None,
        think: bool | None = False,
    ) -> ChatStream:
        """Stream a chat reply; iterate for content pieces. The dialect is settled first
        (maybe by a probe); nothing of `messages` is sent until iteration."""
        options = dict(options or {})
        body: dict[str, Any] = {
            "model": model,
            "messages": [dict(m) for m in messages],
            "stream": True,
            "max_tokens": int(options.get("num_predict") or DEFAULT_MAX_TOKENS),
        }
        if "temperature" in options:
            body["temperature"] = options["temperature"]
        if options.get("seed") is not None:
            body["seed"] = options["seed"]
        if format_schema is not None:
            body = with_dialect(body, format_schema, self.dialect(model))
        return OpenAIChatStream(_SseStream(self, CHAT_PATH, body, model))

    # --- errors ---------------------------------------------------------------------------------
    def _translate(self, exc: httpx.HTTPError, *, opening: bool) -> Tier1Error:
        error = super()._translate(exc, opening=opening)
        if isinstance(error, OllamaNotRunning):
            return ServerNotRunning(self.base_url)
        return in_server_words(error)

    def _status_error(self, response: httpx.Response, path: str, model: str | None) -> Tier1Error:
        if response.status_code in (401, 403):
            return ServerKeyRefused(self.base_url)
        if response.status_code == 404 and model is not None and path == CHAT_PATH:
            return ServerModelMissing(model, self.base_url)
        if not response.is_redirect and response.status_code >= 400:
            try:
                detail = json.loads(response.read()[:4096]).get("error")
            except (ValueError, AttributeError, RecursionError, httpx.HTTPError):
                detail = None
            if isinstance(detail, dict):  # OpenAI's {"error": {"message": ...}}
                message = detail.get("message")
                text = message if isinstance(message, str) and message else "an error"
                return ServerReportedError(_short(text))
        return in_server_words(super()._status_error(response, path, model))


class _SseStream(_NdjsonStream):
    """One streamed request read as server-sent events: each ``data:`` line's JSON, and
    ``{"done": true}`` for ``data: [DONE]``; comments and other fields are skipped."""

    def _parse(self, line: str) -> dict[str, Any]:
        if not line.startswith("data:"):
            if line.startswith((":", "event:", "id:", "retry:")):
                return {}
            log.info("server-sent event line not understood: %r", _short(line)[:200])
            raise InvalidOllamaReply("a line of the reply is not a server-sent event")
        data = line[5:].strip()
        if data == "[DONE]":
            return {"done": True}
        if data.startswith("{") and '"error"' in data:
            try:
                error = json.loads(data).get("error")
            except (ValueError, RecursionError, AttributeError):
                error = None
            if isinstance(error, dict):  # OpenAI's {"error": {"message": ...}} mid-stream
                message = error.get("message")
                text = message if isinstance(message, str) and message else "an error"
                raise ServerReportedError(_short(text))
        return super()._parse(data)


class OpenAIChatStream(ChatStream):
    """Content pieces of an OpenAI-style stream; `stats` once it has finished."""

    def __init__(self, source: _NdjsonStream) -> None:
        self._so_far = _ChatSoFar()
        _Streamed.__init__(self, source, _openai_pieces(source, self._so_far))


def _openai_pieces(source: _NdjsonStream, so_far: _ChatSoFar) -> Iterator[str]:
    try:
        yield from _openai_pieces_of(source, so_far)
    except Tier1Error as error:
        raise in_server_words(error) from None


def _openai_pieces_of(source: _NdjsonStream, so_far: _ChatSoFar) -> Iterator[str]:
    finish: str | None = None
    usage: dict[str, Any] = {}
    with closing(source.objects()) as objects:
        for data in objects:
            if data.get("done") is True:
                so_far.stats = _stats(finish, usage)
                return
            if isinstance(data.get("usage"), dict):
                usage = data["usage"]
            choices = data.get("choices")
            choice = choices[0] if isinstance(choices, list) and choices else None
            if not isinstance(choice, dict):
                continue
            delta = choice.get("delta")
            content = _str(delta.get("content")) if isinstance(delta, dict) else None
            if content:
                so_far.text += content
                yield content
            finish = _str(choice.get("finish_reason")) or finish
    if finish is None:
        raise StreamCut()
    so_far.stats = _stats(finish, usage)  # a server that sends no [DONE] after finishing


def _stats(finish: str | None, usage: Mapping[str, Any]) -> ChatStats:
    return ChatStats(
        done_reason=finish,
        eval_count=_int(usage.get("completion_tokens")),
        prompt_eval_count=_int(usage.get("prompt_tokens")),
    )
