"""The OpenAI-compatible wire (issue 31) against a loopback server speaking it: streaming,
negotiation, replies wrapped in prose, loopback, redirects, cancel, and the local judge."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama, Fault

from coach_gui.adapters.openai_compat import CHAT_PATH, DialectMemory, OpenAIClient
from coach_gui.domain.challenges import ChallengeKind, challenge_schema, parse_challenge_json
from coach_gui.domain.tier1_errors import (
    GenerationCancelled,
    OllamaNotLoopback,
    OllamaServerError,
    ServerModelMissing,
    ServerNotRunning,
)

QUESTION = "Why can a process that only keeps or removes traits still produce new kinds?"
MESSAGES = [{"role": "system", "content": "sys"}, {"role": "user", "content": "note"}]


def _client(server: FakeOllama, tmp_path: Path) -> OpenAIClient:
    return OpenAIClient(server.url, dialects=DialectMemory(tmp_path / "dialects.json"))


def _chats(server: FakeOllama) -> list[dict[str, object]]:
    return [r.body for r in server.requests_to(CHAT_PATH)]


@pytest.mark.parametrize(
    ("formats", "dialect"),
    [
        (("json_schema", "json_object"), "json_schema"),
        (("json_object",), "json_object_schema"),
        ((), "prompt"),
    ],
)
def test_structured_output_is_negotiated_and_remembered(
    tmp_path: Path, formats: tuple[str, ...], dialect: str
) -> None:
    with FakeOllama(openai_formats=formats) as server:
        server.queue_challenge(QUESTION)
        with _client(server, tmp_path) as client:
            schema = challenge_schema(ChallengeKind.EXPLAIN)
            options = {"num_predict": 99, "temperature": 0.2}
            stream = client.chat_stream(
                DEFAULT_MODEL, MESSAGES, format_schema=schema, options=options
            )
            text = "".join(stream)
        assert parse_challenge_json(text).text == QUESTION
        sent = _chats(server)[-1]
        assert sent["stream"] is True and sent["max_tokens"] == 99 and sent["temperature"] == 0.2
        if dialect == "json_schema":
            assert sent["response_format"]["json_schema"]["schema"] == schema
        elif dialect == "json_object_schema":
            assert sent["response_format"] == {"type": "json_object", "schema": schema}
        else:
            assert "response_format" not in sent
            assert json.dumps(schema, separators=(",", ":")) in sent["messages"][0]["content"]
        # Remembered: a new client for the same server and model sends no probe.
        probes = len(_chats(server)) - 1
        server.queue_challenge(QUESTION)
        with _client(server, tmp_path) as again:
            "".join(again.chat_stream(DEFAULT_MODEL, MESSAGES, format_schema=schema))
        assert len(_chats(server)) == probes + 2
    assert (
        json.loads((tmp_path / "dialects.json").read_text())[f"{server.url} {DEFAULT_MODEL}"]
        == dialect
    )


def test_a_reply_in_a_code_fence_with_prose_after_it_is_read(tmp_path: Path) -> None:
    with FakeOllama(openai_wrap=("```json\n", "\n```\nHope this helps!")) as server:
        server.queue_challenge(QUESTION)
        with _client(server, tmp_path) as client:
            text = "".join(
                client.chat_stream(DEFAULT_MODEL, MESSAGES, format_schema=challenge_schema())
            )
    assert parse_challenge_json(text).text == QUESTION


def test_models_and_missing_model(tmp_path: Path) -> None:
    with FakeOllama() as server, _client(server, tmp_path) as client:
        assert client.models() == [DEFAULT_MODEL] and client.has_model(DEFAULT_MODEL)
        with pytest.raises(ServerModelMissing) as caught:
            "".join(client.chat_stream("other", MESSAGES))
    assert "Developer tab" in str(caught.value) and "Traceback" not in str(caught.value)


def test_nothing_running_says_so_in_the_learners_words(tmp_path: Path) -> None:
    with FakeOllama() as server:
        url = server.url
    with OpenAIClient(url) as client, pytest.raises(ServerNotRunning) as caught:
        client.models()
    assert url in str(caught.value) and "built-in challenges" in str(caught.value)


def test_loopback_only_by_address() -> None:
    for url in ("http://192.0.2.1:1234", "http://example.com:1234", "ftp://127.0.0.1:1234"):
        with pytest.raises(OllamaNotLoopback):
            OpenAIClient(url)


def test_a_redirect_is_not_followed(tmp_path: Path) -> None:
    with FakeOllama() as server, _client(server, tmp_path) as client:
        client.dialect(DEFAULT_MODEL)
        server.inject(Fault.REDIRECT, path=CHAT_PATH)
        with pytest.raises(OllamaServerError) as caught:
            "".join(client.chat_stream(DEFAULT_MODEL, MESSAGES, format_schema=challenge_schema()))
        assert "does not follow" in str(caught.value)
        sent = [r for r in server.requests if r.path == CHAT_PATH]
        assert len(sent) == 2  # the probe and this one: nothing more


def test_cancel_closes_the_connection_so_the_server_stops(tmp_path: Path) -> None:
    with FakeOllama() as server, _client(server, tmp_path) as client:
        client.dialect(DEFAULT_MODEL)
        server.inject(Fault.HANG, path=CHAT_PATH, after_tokens=2)
        stream = client.chat_stream(DEFAULT_MODEL, MESSAGES, format_schema=challenge_schema())
        threading.Thread(target=lambda: (server.hanging.wait(5), client.cancel())).start()
        with pytest.raises(GenerationCancelled):
            "".join(stream)
        assert server.client_gone.wait(5)


def test_the_local_judge_on_the_openai_wire(tmp_path: Path) -> None:
    from fakes.in_ram import InRamOutbox

    from coach_gui.adapters.local_judge import OllamaJudge
    from coach_gui.domain.tier2 import tier2_payload, verdict_schema
    from coach_gui.domain.verdicts import parse_verdicts

    payload = tier2_payload(
        [{"challenge": QUESTION, "answer": "kept traits add up", "core_assertions": ["a", "b"]}],
        include_assertions=True,
    )
    with FakeOllama() as server:
        outbox = InRamOutbox()
        judge = OllamaJudge(_client(server, tmp_path), model=DEFAULT_MODEL, temperature=0.0,
                            seed=1, keep_alive="5m", timeout_seconds=30, outbox=outbox)  # fmt: skip
        reply = judge.judge(payload)
        judge.close()
        (request,) = server.judge_requests
    assert request.body["response_format"]["json_schema"]["schema"] == verdict_schema(payload)
    assert json.loads(reply.request_body) == request.body  # the outbox has the body as sent
    assert [v.passed for v in parse_verdicts(reply.raw_text, payload)] == [True]


def test_a_judge_model_the_server_does_not_have_is_said_and_nothing_is_sent(
    tmp_path: Path,
) -> None:
    """The structured-output probe meets the missing model first: the learner is told what
    to load, in the server's terms, and no answer left this computer (nothing in the outbox)."""
    from fakes.in_ram import InRamOutbox

    from coach_gui.adapters.local_judge import OllamaJudge
    from coach_gui.domain.judge_errors import LocalJudgeUnavailable
    from coach_gui.domain.tier2 import tier2_payload

    payload = tier2_payload(
        [{"challenge": QUESTION, "answer": "kept traits add up", "core_assertions": ["a"]}],
        include_assertions=True,
    )
    with FakeOllama(wire="openai") as server:
        outbox = InRamOutbox()
        judge = OllamaJudge(_client(server, tmp_path), model="not-loaded", temperature=0.0,
                            seed=1, keep_alive="5m", timeout_seconds=30, outbox=outbox)  # fmt: skip
        with pytest.raises(LocalJudgeUnavailable) as caught:
            judge.judge(payload)
        judge.close()
        assert server.judge_requests == [] and outbox.rows == {}
    said = str(caught.value)
    assert "no model 'not-loaded' loaded" in said and "Ollama" not in said


def test_a_server_that_wants_a_key_gets_the_one_in_the_keyring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Jan's Local API Server wants a key: without one the learner is told how to store it;
    `coach key set --local-server` keeps it in the keyring (not the Gemini key's place), it
    travels in a header, and never in a body the outbox keeps."""
    import io

    from fakes.coach_files import write_config

    from coach_gui.bootstrap import build_context, key_store
    from coach_gui.cli import main
    from coach_gui.domain.tier1_errors import ServerKeyRefused

    secret = "jan-local-key-123"
    with FakeOllama(wire="openai", api_key=secret) as server:
        write_config({"tier1": {**server.tier1_config(), "model": DEFAULT_MODEL}})
        context = build_context()
        with context.ollama_client() as client, pytest.raises(ServerKeyRefused) as caught:
            client.models()
        context.close()
        said = str(caught.value)
        assert "coach key set --local-server" in said and server.url in said

        monkeypatch.setattr("sys.stdin", io.StringIO(secret + "\n"))
        assert main(["key", "set", "--local-server"]) == 0
        assert key_store().status().has_key is False  # the Gemini key's place is untouched
        capsys.readouterr()
        assert main(["doctor", "--json"]) in (0, 1)
        out = capsys.readouterr().out
        assert secret not in out
        checks = {c["name"]: c for c in json.loads(out)["checks"]}
        assert checks["local server key"]["detail"].startswith("a key is set")

        server.queue_challenge(QUESTION)
        context = build_context()
        with context.ollama_client() as client:
            assert client.models() == [DEFAULT_MODEL]
            stream = client.chat_stream(DEFAULT_MODEL, MESSAGES, format_schema=challenge_schema())
            body = stream.request_body()
            assert parse_challenge_json("".join(stream)).text == QUESTION
        context.close()
        chats = [r for r in server.requests if r.path == CHAT_PATH]
    assert chats and all(r.headers["Authorization"] == f"Bearer {secret}" for r in chats)
    assert secret not in body and all(secret not in r.raw_body.decode() for r in chats)


def test_doctor_shows_the_structured_output_level_per_server_and_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`coach doctor` says how each model of the server takes a schema, found by a probe
    with no learner data and remembered: a lower level is a warning, never a failure."""
    from fakes.coach_files import write_config

    from coach_gui.cli import main

    judge_model = "judge-model"
    for formats, level, words in [
        (("json_schema", "json_object"), "json_schema", "a strict JSON schema"),
        ((), "prompt", "the schema said in the prompt only"),
    ]:
        with FakeOllama(wire="openai", openai_formats=formats,
                        models=[DEFAULT_MODEL, judge_model]) as server:  # fmt: skip
            write_config({
                "tier1": {**server.tier1_config(), "model": DEFAULT_MODEL},
                "judge": {"provider": "local", "localModel": judge_model},
            })  # fmt: skip
            capsys.readouterr()
            main(["doctor", "--json"])
            report = json.loads(capsys.readouterr().out)
            probes = [r for r in server.requests if r.path == CHAT_PATH]
        checks = {c["name"]: c for c in report["checks"]}
        found = checks["structured output"]
        assert [(i["model"], i["level"]) for i in found["items"]] == [
            (DEFAULT_MODEL, level),
            (judge_model, level),
        ]
        assert all(i["server"] == server.url for i in found["items"])
        assert words in found["detail"] and found["ok"]
        assert found["level"] == ("ok" if level == "json_schema" else "warn")
        assert "OpenAI-compatible" in checks["ollama"]["detail"]
        assert all("untrusted" not in json.dumps(r.body) for r in probes)  # no learner data
