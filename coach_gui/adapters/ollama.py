"""Ollama over HTTP on loopback only: version, installed models, streamed chat, model pull.

Synchronous (httpx); the GUI runs it on a worker thread and calls `cancel()` from the GUI
thread. Every failure leaves as one of our Tier 1 errors, with the next step in its message.
"""

from __future__ import annotations

import json
import logging
import socket
import threading
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from contextlib import closing, suppress
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import httpx

from coach_gui.config import loopback_address
from coach_gui.domain.connections import PullProgress
from coach_gui.domain.tier1_errors import (
    GenerationCancelled,
    InvalidOllamaReply,
    ModelMissing,
    ModelPullFailed,
    OllamaNotLoopback,
    OllamaNotRunning,
    OllamaServerError,
    OllamaTimeout,
    StreamCut,
    Tier1Error,
)

log = logging.getLogger(__name__)
_MAX_ERROR_CHARS = 200


@dataclass(frozen=True)
class ChatStats:
    """What Ollama reports on the final ``done`` line (any field may be absent)."""

    done_reason: str | None = None
    eval_count: int | None = None
    prompt_eval_count: int | None = None
    total_duration_ns: int | None = None
    load_duration_ns: int | None = None
    prompt_eval_duration_ns: int | None = None
    eval_duration_ns: int | None = None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_ERROR_CHARS else text[: _MAX_ERROR_CHARS - 1] + "…"


def _loopback_url(url: httpx.URL) -> httpx.URL:
    """`url` with its host replaced by the loopback address Coach connects to (never a
    name: no resolver is asked, ADR-0021 decision 6 and issue 21); OllamaNotLoopback when
    its host is not loopback."""
    address = loopback_address(url.host) if url.scheme in ("http", "https") else None
    if address is None:
        raise OllamaNotLoopback(str(url.copy_with(path="/", query=None, fragment=None)))
    return url.copy_with(host=address)


def _require_loopback_address(url: httpx.URL) -> None:
    """At request time: the host must already be a loopback IP literal."""
    if url.scheme not in ("http", "https") or loopback_address(url.host) != url.host:
        raise OllamaNotLoopback(str(url.copy_with(path="/", query=None, fragment=None)))


class OllamaClient:
    """One Ollama server on this computer. Safe to share between threads."""

    def __init__(
        self,
        base_url: str,
        *,
        connect_timeout: float = 2.0,
        read_timeout: float = 120.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        try:
            url = httpx.URL(base_url)
        except (httpx.InvalidURL, TypeError):
            raise OllamaNotLoopback(base_url) from None
        self.base_url = str(url).rstrip("/")  # as configured, for messages
        url = _loopback_url(url)  # before any socket exists
        self.read_timeout = read_timeout
        settings: dict[str, Any] = {
            "base_url": url,
            "timeout": httpx.Timeout(read_timeout, connect=connect_timeout),
            "follow_redirects": False,
            "trust_env": False,  # no proxy from the environment: loopback means loopback
            "transport": transport,
            "event_hooks": {"request": [self._check_request]},
        }
        self._http = httpx.Client(**settings)
        # Streams get a fresh connection each, so cancel() can reach its socket even while
        # Ollama is still loading the model and has sent nothing back yet.
        no_reuse = httpx.Limits(max_keepalive_connections=0)
        self._streams_http = httpx.Client(**settings, limits=no_reuse)
        self._lock = threading.Lock()
        self._open: set[_NdjsonStream] = set()

    def _check_request(self, request: httpx.Request) -> None:
        _require_loopback_address(request.url)  # again at request time, by address

    def close(self) -> None:
        self.cancel()
        self._http.close()
        self._streams_http.close()

    def __enter__(self) -> OllamaClient:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    # --- simple requests ---------------------------------------------------------------------
    def version(self) -> str:
        """Ollama's version, e.g. ``0.12.6``."""
        data = self._get_json("/api/version")
        version = data.get("version")
        if not isinstance(version, str):
            raise InvalidOllamaReply("/api/version has no version")
        return version

    def models(self) -> list[str]:
        """Names of the installed models (``/api/tags``)."""
        data = self._get_json("/api/tags")
        models = data.get("models")
        if not isinstance(models, list):
            raise InvalidOllamaReply("/api/tags has no model list")
        return [m["name"] for m in models if isinstance(m, dict) and isinstance(m.get("name"), str)]

    def has_model(self, model: str) -> bool:
        """Whether `model` is installed; ``name`` and ``name:latest`` are the same model."""
        wanted = model if ":" in model else f"{model}:latest"
        return any(n in (model, wanted) for n in self.models())

    def _get_json(self, path: str) -> dict[str, Any]:
        try:
            response = self._http.get(path)
        except httpx.HTTPError as exc:
            raise self._translate(exc, opening=True) from None
        if response.status_code != 200:
            raise self._status_error(response, path, model=None)
        try:
            data = response.json()
        except (ValueError, RecursionError):  # (nested too deep to read)
            raise InvalidOllamaReply(f"{path} did not return JSON") from None
        if not isinstance(data, dict):
            raise InvalidOllamaReply(f"{path} did not return a JSON object")
        return data

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
        """Stream a chat reply; iterate for content pieces. Nothing is sent until then."""
        body: dict[str, Any] = {"model": model, "messages": [dict(m) for m in messages]}
        body["stream"] = True
        if format_schema is not None:
            body["format"] = dict(format_schema)
        if options:
            body["options"] = dict(options)
        if keep_alive is not None:
            body["keep_alive"] = keep_alive
        if think is not None:
            body["think"] = think
        return ChatStream(_NdjsonStream(self, "/api/chat", body, model))

    def pull(self, model: str) -> PullStream:
        """Download `model`; iterate for progress. Nothing is sent until then."""
        return PullStream(_NdjsonStream(self, "/api/pull", {"model": model, "stream": True}, model))

    def cancel(self) -> None:
        """Stop every open stream of this client at once (from any thread)."""
        with self._lock:
            streams = list(self._open)
        for stream in streams:
            stream.cancel()

    def _register(self, stream: _NdjsonStream, is_open: bool) -> None:
        with self._lock:
            if is_open:
                self._open.add(stream)
            else:
                self._open.discard(stream)

    # --- errors ---------------------------------------------------------------------------------
    def _translate(self, exc: httpx.HTTPError, *, opening: bool) -> Tier1Error:
        if isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)):
            return OllamaNotRunning(self.base_url)
        if isinstance(exc, httpx.TimeoutException):
            return OllamaTimeout(self.base_url, self.read_timeout)
        if opening and isinstance(exc, httpx.RemoteProtocolError):
            return OllamaServerError("it closed the connection without answering")
        if isinstance(exc, (httpx.ReadError, httpx.RemoteProtocolError, httpx.StreamError)):
            return StreamCut()
        log.info("Ollama request failed: %s: %s", type(exc).__name__, exc)
        return OllamaServerError("the connection failed")

    def _status_error(self, response: httpx.Response, path: str, model: str | None) -> Tier1Error:
        if response.is_redirect:
            where = response.headers.get("location", "elsewhere")
            return OllamaServerError(
                _short(f"it redirected {path} to {where}, which Coach does not follow")
            )
        try:
            raw = response.read()[:4096]
            detail = json.loads(raw).get("error")
        except (ValueError, AttributeError, RecursionError, httpx.HTTPError):
            detail = None
        if response.status_code == 404 and model is not None and path == "/api/chat":
            return ModelMissing(model)
        if response.status_code == 404:
            return InvalidOllamaReply(f"HTTP 404 for {path}")
        text = detail if isinstance(detail, str) and detail else f"HTTP {response.status_code}"
        if path == "/api/pull" and model is not None:
            return ModelPullFailed(model, _short(text))
        return OllamaServerError(_short(text))


class _NdjsonStream:
    """One streamed request: yields the JSON objects of its NDJSON lines; cancellable."""

    def __init__(self, client: OllamaClient, path: str, body: dict[str, Any], model: str) -> None:
        self._client = client
        self._path = path
        self._body = body
        self.model = model
        self._cancelled = threading.Event()
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._response: httpx.Response | None = None

    def request_body(self) -> str:
        """The request's body exactly as it will be sent (httpx's JSON encoding)."""
        request = self._client._streams_http.build_request("POST", self._path, json=self._body)
        return request.content.decode("utf-8")

    def cancel(self) -> None:
        """Stop the stream now: the reading thread raises GenerationCancelled."""
        self._cancelled.set()
        with self._lock:
            sock, response = self._socket, self._response
        _abort(sock, response)

    def _trace(self, event: str, info: dict[str, Any]) -> None:
        if event == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            with self._lock:
                self._socket = sock if isinstance(sock, socket.socket) else None
            if self._cancelled.is_set():
                _abort(self._socket, None)

    def objects(self) -> Generator[dict[str, Any], None, None]:
        self._client._register(self, True)
        try:
            yield from self._read()
        finally:
            self._client._register(self, False)

    def _read(self) -> Iterator[dict[str, Any]]:
        http = self._client._streams_http
        if self._cancelled.is_set():
            raise GenerationCancelled()
        request = http.build_request("POST", self._path, json=self._body)
        request.extensions["trace"] = self._trace
        try:
            response = http.send(request, stream=True)
        except httpx.HTTPError as exc:
            raise self._error(exc, opening=True) from None
        with self._lock:
            self._response = response
        try:
            if self._cancelled.is_set():
                raise GenerationCancelled()
            if response.status_code != 200:
                raise self._client._status_error(response, self._path, self.model)
            for line in response.iter_lines():
                if self._cancelled.is_set():
                    raise GenerationCancelled()
                if line.strip():
                    yield self._parse(line)
            if self._cancelled.is_set():
                raise GenerationCancelled()
        except httpx.HTTPError as exc:
            raise self._error(exc, opening=False) from None
        finally:
            with self._lock:
                self._response = None
                self._socket = None
            response.close()

    def _error(self, exc: httpx.HTTPError, *, opening: bool) -> Tier1Error:
        if self._cancelled.is_set():
            return GenerationCancelled()
        return self._client._translate(exc, opening=opening)

    def _parse(self, line: str) -> dict[str, Any]:
        try:
            data = json.loads(line)
        except ValueError:
            # Its text (a web page, say, from something that is not Ollama) goes to the log.
            log.info("Ollama reply line is not JSON: %r", _short(line)[:200])
            raise InvalidOllamaReply("a line of the reply is not JSON") from None
        except RecursionError:  # valid JSON, nested past what can be read
            raise InvalidOllamaReply("a line of the reply is nested too deeply to read") from None
        if not isinstance(data, dict):
            raise InvalidOllamaReply("a line of the reply is not a JSON object")
        error = data.get("error")
        if error is not None:
            if self._path == "/api/pull":
                raise ModelPullFailed(self.model, _short(str(error)))
            raise OllamaServerError(_short(str(error)))
        return data


def _abort(sock: socket.socket | None, response: httpx.Response | None) -> None:
    """Wake a thread blocked reading: closing a socket does not interrupt its recv, but
    shutting it down does."""
    if sock is not None:
        with suppress(OSError):  # already closed
            sock.shutdown(socket.SHUT_RDWR)
    elif response is not None:
        response.close()  # a transport without sockets (tests) stops at its next read


class _Streamed:
    """Shared iterator plumbing: iterate for items, `cancel()` from any thread, `close()`
    when done. The generator behind it holds no reference back to this object, so
    dropping the stream frees it at once, on the thread that dropped it: a stream left to
    the garbage collector was once closed inside httpcore's pool lock and deadlocked the
    practice worker (issue 13)."""

    def __init__(self, source: _NdjsonStream, items: Iterator[Any]) -> None:
        self._source = source
        self._items = items

    def cancel(self) -> None:
        self._source.cancel()

    def close(self) -> None:
        """Stop reading and release the connection (e.g. when the caller gives up)."""
        self._source.cancel()
        close: Callable[[], None] | None = getattr(self._items, "close", None)
        if close is not None:
            close()


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@dataclass
class _ChatSoFar:
    text: str = ""
    stats: ChatStats | None = None


class ChatStream(_Streamed):
    """Content pieces as they arrive; `stats` is set once the ``done`` line has come."""

    def __init__(self, source: _NdjsonStream) -> None:
        self._so_far = _ChatSoFar()
        super().__init__(source, _chat_pieces(source, self._so_far))

    @property
    def text(self) -> str:
        return self._so_far.text

    def request_body(self) -> str:
        """What this stream sends, byte for byte (for the judge's outbox)."""
        return self._source.request_body()

    @property
    def stats(self) -> ChatStats | None:
        return self._so_far.stats

    def __iter__(self) -> ChatStream:
        return self

    def __next__(self) -> str:
        return next(self._items)  # type: ignore[no-any-return]


def _chat_pieces(source: _NdjsonStream, so_far: _ChatSoFar) -> Iterator[str]:
    with closing(source.objects()) as objects:
        for data in objects:
            message = data.get("message")
            content = _str(message.get("content")) if isinstance(message, dict) else None
            if content:
                so_far.text += content
                yield content
            if data.get("done") is True:
                so_far.stats = _chat_stats(data)
                return
    raise StreamCut()


def _chat_stats(data: dict[str, Any]) -> ChatStats:
    return ChatStats(
        done_reason=_str(data.get("done_reason")),
        eval_count=_int(data.get("eval_count")),
        prompt_eval_count=_int(data.get("prompt_eval_count")),
        total_duration_ns=_int(data.get("total_duration")),
        load_duration_ns=_int(data.get("load_duration")),
        prompt_eval_duration_ns=_int(data.get("prompt_eval_duration")),
        eval_duration_ns=_int(data.get("eval_duration")),
    )


class PullStream(_Streamed):
    """Progress lines of a model download, ending with status ``success``."""

    def __init__(self, source: _NdjsonStream) -> None:
        super().__init__(source, _pull_progress(source))

    def __iter__(self) -> PullStream:
        return self

    def __next__(self) -> PullProgress:
        return next(self._items)  # type: ignore[no-any-return]


def _pull_progress(source: _NdjsonStream) -> Iterator[PullProgress]:
    with closing(source.objects()) as objects:
        for data in objects:
            progress = PullProgress(
                status=_str(data.get("status")) or "",
                digest=_str(data.get("digest")),
                total=_int(data.get("total")),
                completed=_int(data.get("completed")),
            )
            yield progress
            if progress.status == "success":
                return
    raise StreamCut()
