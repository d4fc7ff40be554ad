"""The local model adapters against a fake server over real loopback sockets: the wire
format, every fault the learner can meet, cancelling, and never leaving this computer.

Every test runs on both wire formats (the `wire` fixture, issue 31): Ollama's native API
(`OllamaClient`) and the OpenAI-compatible one (`OpenAIClient`). Pulling a model and
Ollama's version exist on Ollama's API only."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama, Fault, client_class

from coach_gui.adapters.ollama import ChatStream, OllamaClient
from coach_gui.domain.challenges import CHALLENGE_SCHEMA, ChallengeKind, parse_challenge_json
from coach_gui.domain.errors import ConfigError
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
    Tier1Unavailable,
)

MESSAGES = [{"role": "user", "content": "Write one challenge."}]
JOIN_SECONDS = 10  # generous: only a hung thread could ever take this long
OLLAMA_ONLY = pytest.mark.parametrize("wire", ["ollama"])  # no such thing on the OpenAI API
# What the learner is told, per wire: which program to start, how to get a model.
NOT_RUNNING = {"ollama": ("Ollama is not running at", "“ollama serve”"),
               "openai": ("No model server answers at", "LM Studio")}  # fmt: skip
GET_MODEL = {"ollama": "run `ollama pull {model}`", "openai": "has no model '{model}' loaded"}
RESTART = {"ollama": "restart Ollama", "openai": "restart the model server"}
NOT_READABLE = {"ollama": "not JSON", "openai": "not a server-sent event"}


@pytest.fixture
def client(fake_ollama: FakeOllama) -> Iterator[OllamaClient]:
    with fake_ollama.client(connect_timeout=2, read_timeout=30) as ollama:
        yield ollama


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Consumer:
    """Reads a stream on its own thread, as the GUI's worker does."""

    stream: ChatStream
    pieces: list[str] = field(default_factory=list)
    error: BaseException | None = None
    first_piece: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._arrived = threading.Condition()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            for piece in self.stream:
                with self._arrived:
                    self.pieces.append(piece)
                    self._arrived.notify_all()
                self.first_piece.set()
        except BaseException as exc:  # the test inspects whatever ended the stream
            self.error = exc

    def finished(self) -> bool:
        self.thread.join(JOIN_SECONDS)
        return not self.thread.is_alive()

    def received(self, count: int) -> bool:
        """Wait until `count` pieces have been read (the server may send faster)."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self.pieces) >= count, JOIN_SECONDS)


# --- the wire format ---------------------------------------------------------------------------
def test_version_and_installed_models(client: OllamaClient, fake_ollama: FakeOllama) -> None:
    fake_ollama.models.append("qwen3:1.7b")
    expected = fake_ollama.version if fake_ollama.wire == "ollama" else "OpenAI-compatible"
    assert client.version() == expected
    assert client.models() == [DEFAULT_MODEL, "qwen3:1.7b"]
    assert client.has_model(DEFAULT_MODEL)
    assert not client.has_model("mistral")


def test_chat_streams_a_structured_challenge_with_final_stats(
    client: OllamaClient, fake_ollama: FakeOllama
) -> None:
    fake_ollama.queue_challenge("Why might two finches on nearby islands differ?", "predict")
    stream = client.chat_stream(
        DEFAULT_MODEL,
        MESSAGES,
        format_schema=CHALLENGE_SCHEMA,
        options={"temperature": 0.7, "seed": 42},
        keep_alive="10m",
    )
    pieces = list(stream)

    assert len(pieces) > 5, "one piece per NDJSON line, not one blob"
    parsed = parse_challenge_json("".join(pieces))
    assert parsed.text == "Why might two finches on nearby islands differ?"
    assert parsed.kind is ChallengeKind.PREDICT
    assert stream.text == "".join(pieces)
    assert stream.stats is not None
    assert stream.stats.done_reason == "stop"
    assert stream.stats.eval_count == len(pieces)
    assert stream.stats.prompt_eval_count == 321
    (request,) = fake_ollama.requests_to("/api/chat")
    if fake_ollama.wire == "openai":
        schema = {"name": "reply", "strict": True, "schema": CHALLENGE_SCHEMA}
        assert request.body == {
            "model": DEFAULT_MODEL,
            "messages": MESSAGES,
            "stream": True,
            "max_tokens": 2048,  # always sent: some servers run on after a hang-up
            "temperature": 0.7,
            "seed": 42,
            "response_format": {"type": "json_schema", "json_schema": schema},
        }
    else:
        assert request.body == {
            "model": DEFAULT_MODEL,
            "messages": MESSAGES,
            "stream": True,
            "format": CHALLENGE_SCHEMA,
            "options": {"temperature": 0.7, "seed": 42},
            "keep_alive": "10m",
            "think": False,
        }
    assert request.headers["Host"] == fake_ollama.url.removeprefix("http://")


def test_pieces_reach_the_caller_before_the_reply_is_complete(
    client: OllamaClient, fake_ollama: FakeOllama
) -> None:
    fake_ollama.queue_challenge("What would change if the market were larger?")
    fake_ollama.inject(Fault.HANG, after_tokens=3)
    consumer = Consumer(client.chat_stream(DEFAULT_MODEL, MESSAGES))

    assert fake_ollama.hanging.wait(JOIN_SECONDS)
    assert consumer.first_piece.wait(JOIN_SECONDS)
    assert fake_ollama.done_lines_sent == 0  # the server is still holding the rest back
    fake_ollama.release()

    assert consumer.finished()
    assert consumer.error is None
    assert parse_challenge_json("".join(consumer.pieces)).text.startswith("What would change")


def test_slow_tokens_still_arrive_whole(client: OllamaClient, fake_ollama: FakeOllama) -> None:
    fake_ollama.token_delay = 0.01
    fake_ollama.queue_challenge("How does a calm mind return to the past?")
    stream = client.chat_stream(DEFAULT_MODEL, MESSAGES)
    pieces = list(stream)
    assert json.loads("".join(pieces))["challenge"] == "How does a calm mind return to the past?"
    assert stream.stats is not None and stream.stats.eval_count == len(pieces)


# --- faults: what the learner is told ---------------------------------------------------------
def test_nothing_listening_says_start_ollama(wire: str) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with client_class(wire)(url, connect_timeout=2, read_timeout=5) as client:
        for call in (client.version, client.models, lambda: list(client.chat_stream("m", []))):
            with pytest.raises(OllamaNotRunning) as caught:
                call()
            assert isinstance(caught.value, Tier1Unavailable)
            said, start = NOT_RUNNING[wire]
            assert f"{said} {url}" in str(caught.value)
            assert start in str(caught.value)


def test_unknown_model_says_which_model_to_pull(client: OllamaClient, wire: str) -> None:
    with pytest.raises(ModelMissing) as caught:
        list(client.chat_stream("phi4:14b", MESSAGES))
    assert caught.value.model == "phi4:14b"
    assert isinstance(caught.value, Tier1Unavailable)
    assert GET_MODEL[wire].format(model="phi4:14b") in str(caught.value)


def test_injected_404_is_a_missing_model(client: OllamaClient, fake_ollama: FakeOllama) -> None:
    fake_ollama.inject(Fault.MODEL_NOT_FOUND)
    with pytest.raises(ModelMissing) as caught:
        list(client.chat_stream(DEFAULT_MODEL, MESSAGES))
    assert GET_MODEL[fake_ollama.wire].format(model=DEFAULT_MODEL) in str(caught.value)


def test_server_error_before_streaming(client: OllamaClient, fake_ollama: FakeOllama) -> None:
    fake_ollama.inject(Fault.SERVER_ERROR)
    with pytest.raises(OllamaServerError) as caught:
        list(client.chat_stream(DEFAULT_MODEL, MESSAGES))
    message = str(caught.value)
    assert "llama runner process has terminated" in message
    assert RESTART[fake_ollama.wire] in message


def test_server_error_on_a_simple_request(client: OllamaClient, fake_ollama: FakeOllama) -> None:
    tags = "/api/tags" if fake_ollama.wire == "ollama" else "/v1/models"
    fake_ollama.inject(Fault.SERVER_ERROR, path=tags)
    with pytest.raises(OllamaServerError, match="llama runner process has terminated"):
        client.models()


@pytest.mark.parametrize(
    ("fault", "error", "words"),
    [
        (Fault.ERROR_MID_STREAM, OllamaServerError, "error was encountered while running"),
        (Fault.CUT_STREAM, StreamCut, "closed before the reply was finished"),
        (Fault.GARBAGE_LINE, InvalidOllamaReply, "unreadable"),
    ],
)
def test_mid_stream_faults_keep_what_had_arrived(
    client: OllamaClient,
    fake_ollama: FakeOllama,
    fault: Fault,
    error: type[Exception],
    words: str,
) -> None:
    words = NOT_READABLE[fake_ollama.wire] if words == "unreadable" else words
    fake_ollama.inject(fault, after_tokens=3)
    stream = client.chat_stream(DEFAULT_MODEL, MESSAGES)
    pieces: list[str] = []
    with pytest.raises(error, match=words) as caught:
        for piece in stream:
            pieces.append(piece)
    assert len(pieces) == 3
    assert stream.text == "".join(pieces)
    assert stream.stats is None
    assert "Try again" in str(caught.value)


def test_read_timeout_names_the_setting(fake_ollama: FakeOllama) -> None:
    fake_ollama.inject(Fault.HANG, after_tokens=1)
    client = fake_ollama.client(connect_timeout=2, read_timeout=0.3)
    with client, pytest.raises(OllamaTimeout) as caught:
        list(client.chat_stream(DEFAULT_MODEL, MESSAGES))
    assert "Read timeout, in Settings" in str(caught.value)


def test_the_client_is_usable_again_after_a_fault(
    client: OllamaClient, fake_ollama: FakeOllama
) -> None:
    fake_ollama.inject(Fault.CUT_STREAM, after_tokens=1)
    with pytest.raises(StreamCut):
        list(client.chat_stream(DEFAULT_MODEL, MESSAGES))
    fake_ollama.queue_challenge("And now?")
    assert parse_challenge_json("".join(client.chat_stream(DEFAULT_MODEL, MESSAGES))).text == (
        "And now?"
    )


# --- cancel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("cancel_via", ["client", "stream"])
def test_cancel_mid_stream_stops_the_reader_and_closes_the_connection(
    client: OllamaClient, fake_ollama: FakeOllama, cancel_via: str
) -> None:
    fake_ollama.inject(Fault.HANG, after_tokens=2)
    stream = client.chat_stream(DEFAULT_MODEL, MESSAGES)
    consumer = Consumer(stream)
    assert fake_ollama.hanging.wait(JOIN_SECONDS)
    assert consumer.received(2)  # both tokens read before the server went quiet

    (client.cancel if cancel_via == "client" else stream.cancel)()

    assert consumer.finished()
    assert isinstance(consumer.error, GenerationCancelled)
    assert len(consumer.pieces) == 2
    assert fake_ollama.client_gone.wait(JOIN_SECONDS), "the server saw the client hang up"


def test_cancel_while_the_model_is_still_loading(
    client: OllamaClient, fake_ollama: FakeOllama
) -> None:
    fake_ollama.inject(Fault.SLOW_LOAD)
    consumer = Consumer(client.chat_stream(DEFAULT_MODEL, MESSAGES))
    assert fake_ollama.hanging.wait(JOIN_SECONDS)  # request sent, no response yet
    client.cancel()
    assert consumer.finished()
    assert isinstance(consumer.error, GenerationCancelled)
    assert fake_ollama.client_gone.wait(JOIN_SECONDS)


def test_cancel_before_reading_sends_nothing(client: OllamaClient, fake_ollama: FakeOllama) -> None:
    stream = client.chat_stream(DEFAULT_MODEL, MESSAGES)
    stream.cancel()
    with pytest.raises(GenerationCancelled):
        next(stream)
    assert fake_ollama.requests_to("/api/chat") == []


# --- pull -----------------------------------------------------------------------------------
@OLLAMA_ONLY
def test_pull_reports_progress_then_the_model_is_installed(
    client: OllamaClient, fake_ollama: FakeOllama
) -> None:
    progress = list(client.pull("qwen3:1.7b"))
    assert progress[0].status == "pulling manifest"
    fractions = [p.fraction for p in progress if p.fraction is not None]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert progress[-1].status == "success"
    assert fake_ollama.requests_to("/api/pull")[0].body == {"model": "qwen3:1.7b", "stream": True}
    assert client.has_model("qwen3:1.7b")


@OLLAMA_ONLY
def test_pull_of_an_unknown_model_says_so(client: OllamaClient, fake_ollama: FakeOllama) -> None:
    fake_ollama.not_in_library.add("no-such-model")
    with pytest.raises(ModelPullFailed) as caught:
        list(client.pull("no-such-model"))
    assert caught.value.model == "no-such-model"
    assert "file does not exist" in str(caught.value)
    assert "Local model, in Settings" in str(caught.value)


@OLLAMA_ONLY
def test_pull_can_be_cancelled(client: OllamaClient, fake_ollama: FakeOllama) -> None:
    fake_ollama.inject(Fault.HANG, path="/api/pull", after_tokens=2)
    pull = client.pull("qwen3:1.7b")
    seen: list[str] = []
    errors: list[BaseException] = []

    def read() -> None:
        try:
            seen.extend(p.status for p in pull)
        except BaseException as exc:
            errors.append(exc)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert fake_ollama.hanging.wait(JOIN_SECONDS)
    client.cancel()
    reader.join(JOIN_SECONDS)
    assert not reader.is_alive()
    assert [type(e) for e in errors] == [GenerationCancelled]
    assert "qwen3:1.7b" not in fake_ollama.models


# --- loopback only ------------------------------------------------------------------------------
@dataclass
class SocketLog:
    connects: list[Any] = field(default_factory=list)
    lookups: list[Any] = field(default_factory=list)

    def hosts(self) -> set[str]:
        return {str(a[0]) for a in self.connects} | {str(h) for h in self.lookups}


@pytest.fixture
def socket_log(monkeypatch: pytest.MonkeyPatch) -> SocketLog:
    """Records every connect and name lookup made while the test runs."""
    log = SocketLog()

    def recording(real: Callable[..., Any], into: list[Any], pick: int) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            into.append(args[pick])
            return real(*args, **kwargs)

        return wrapper

    monkeypatch.setattr(socket.socket, "connect", recording(socket.socket.connect, log.connects, 1))
    monkeypatch.setattr(
        socket, "create_connection", recording(socket.create_connection, log.connects, 0)
    )
    monkeypatch.setattr(socket, "getaddrinfo", recording(socket.getaddrinfo, log.lookups, 0))
    return log


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com:11434",
        "http://10.0.0.7:11434",
        "http://192.168.1.20:11434",
        "http://127.0.0.1.nip.io:11434",
        "http://localhost.example.com:11434",
        "http://[2001:db8::1]:11434",
        "ftp://127.0.0.1:11434",
        "not a url",
        # Issue 21: names that would go to a resolver, however loopback they look.
        "http://127.0.0.1.:11434",
        "http://localhost.:11434",
        "http://LOCALHOST.:11434",
        "http://[::1%25lo]:11434",
    ],
)
def test_adr0021_d6_a_non_loopback_url_is_refused_before_any_connection(
    socket_log: SocketLog, url: str, wire: str
) -> None:
    with pytest.raises(OllamaNotLoopback) as caught:
        client_class(wire)(url)
    assert isinstance(caught.value, ConfigError)
    assert caught.value.key == "tier1.ollamaUrl"
    assert "must run on this computer" in str(caught.value)
    assert socket_log.connects == [] and socket_log.lookups == []


@pytest.mark.parametrize("name", ["localhost", "LocalHost"])
def test_localhost_is_reached_by_address_and_no_resolver_is_ever_asked(
    socket_log: SocketLog, fake_ollama: FakeOllama, name: str
) -> None:
    """A hosts-file line or a DNS answer for `localhost` can send nothing elsewhere: the
    name is never looked up; Coach connects to 127.0.0.1 (issue 21, item 1)."""
    port = fake_ollama.url.rsplit(":", 1)[1]
    kind = client_class(fake_ollama.wire)
    with kind(f"http://{name}:{port}", connect_timeout=2, read_timeout=10) as ollama:
        assert ollama.models() == fake_ollama.models
        assert "".join(ollama.chat_stream(DEFAULT_MODEL, MESSAGES))
    looked_up = {str(h) for h in socket_log.lookups}
    assert looked_up == {"127.0.0.1"}  # an address literal: getaddrinfo asks nobody
    assert {str(a[0]) for a in socket_log.connects} <= {"127.0.0.1"}


def test_adr0021_d6_the_loopback_check_is_repeated_for_every_request(
    client: OllamaClient, fake_ollama: FakeOllama, socket_log: SocketLog
) -> None:
    # Whatever changes the URL after construction, no request may leave this computer.
    client._http.base_url = "http://example.com:11434"  # type: ignore[assignment]
    client._streams_http.base_url = "http://example.com:11434"  # type: ignore[assignment]
    with pytest.raises(OllamaNotLoopback):
        client.version()
    with pytest.raises(OllamaNotLoopback):
        list(client.chat_stream(DEFAULT_MODEL, MESSAGES))
    assert socket_log.connects == [] and socket_log.lookups == []
    assert fake_ollama.requests == []


def test_redirects_are_not_followed(
    client: OllamaClient, fake_ollama: FakeOllama, socket_log: SocketLog
) -> None:
    fake_ollama.inject(Fault.REDIRECT)
    with pytest.raises(OllamaServerError, match="does not follow"):
        list(client.chat_stream(DEFAULT_MODEL, MESSAGES))
    assert "example.com" not in socket_log.hosts()
    assert socket_log.hosts() <= {"127.0.0.1"}


def test_proxy_settings_in_the_environment_are_ignored(
    fake_ollama: FakeOllama, socket_log: SocketLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, "http://proxy.example.com:3128")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    fake_ollama.queue_challenge("Direct?")
    with fake_ollama.client() as client:
        assert json.loads("".join(client.chat_stream(DEFAULT_MODEL, MESSAGES)))["challenge"] == (
            "Direct?"
        )
    assert socket_log.hosts() <= {"127.0.0.1"}
