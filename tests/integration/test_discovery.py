"""Finding the local model servers already running (issue 31), against loopback fakes of
both wire formats standing where each runtime listens: a usable server is named with its
models; one that cannot be used yet says which server and what to do there; a port where
nothing listens is not found; only loopback is ever contacted."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama, Fault

from coach_gui.adapters.discovery import find_servers
from coach_gui.domain.local_servers import DEFAULT_CANDIDATES, Candidate


def _free_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


def _at(name: str, url: str) -> Candidate:
    """The runtime `name` of the known list, standing at `url` instead of its own port."""
    known = next(c for c in DEFAULT_CANDIDATES if c.name == name)
    return Candidate(known.name, url, known.wire, known.load_a_model)


@pytest.fixture
def running() -> Iterator[dict[str, FakeOllama]]:
    with (
        FakeOllama() as ollama,
        FakeOllama(wire="openai", models=["qwen2.5-7b-instruct", "gemma-3-4b"]) as lm_studio,
        FakeOllama(wire="openai", models=[]) as llama_cpp,
        FakeOllama(wire="openai", api_key="secret") as jan,
    ):
        yield {"Ollama": ollama, "LM Studio": lm_studio, "llama.cpp": llama_cpp, "Jan": jan}


def test_every_running_server_is_named_with_its_models_or_what_to_do(
    running: dict[str, FakeOllama],
) -> None:
    candidates = [_at(name, server.url) for name, server in running.items()]
    candidates.append(_at("vLLM", _free_url()))  # nothing listens there
    found = {s.name: s for s in find_servers(candidates)}

    assert list(found) == ["Ollama", "LM Studio", "llama.cpp", "Jan"]  # no vLLM: not running
    assert found["Ollama"].usable and found["Ollama"].models == (DEFAULT_MODEL,)
    assert found["Ollama"].wire == "ollama"
    lm = found["LM Studio"]
    assert lm.usable and lm.wire == "openai" and lm.url == running["LM Studio"].url
    assert lm.models == ("qwen2.5-7b-instruct", "gemma-3-4b")
    assert "LM Studio at" in lm.describe() and "2 models" in lm.describe()
    empty = found["llama.cpp"]
    assert not empty.usable
    assert empty.problem == (
        f"llama.cpp is running at {running['llama.cpp'].url} but no model is loaded: start "
        "llama-server with a model (llama-server -m model.gguf)"
    )
    assert "wants a key" in str(found["Jan"].problem)
    assert "coach key set --local-server" in str(found["Jan"].problem)
    # Nothing of a learner's was sent: only the model lists were asked for.
    for server in running.values():
        assert {r.path for r in server.requests} <= {"/api/tags", "/v1/models"}


def test_lm_studio_with_no_model_loaded_says_to_load_one_in_its_developer_tab() -> None:
    with FakeOllama(wire="openai", models=[]) as server:
        (found,) = find_servers([_at("LM Studio", server.url)])
    assert found.problem == (
        f"LM Studio is running at {server.url} but no model is loaded: load one in LM "
        "Studio's Developer tab"
    )


def test_something_else_at_a_runtimes_port_is_told_in_words() -> None:
    with FakeOllama(wire="openai") as server:
        server.inject(Fault.WEB_PAGE, path="/v1/models", times=None)
        (found,) = find_servers([_at("GPT4All", server.url)])
    assert not found.usable
    assert "not as GPT4All does" in str(found.problem) and "<" not in str(found.problem)


def test_a_cancelled_search_stops_before_the_next_server() -> None:
    with FakeOllama() as first, FakeOllama(wire="openai") as second:
        asked: list[int] = []

        def cancelled() -> bool:
            asked.append(1)
            return len(asked) > 1

        found = find_servers([_at("Ollama", first.url), _at("Jan", second.url)],
                             cancelled=cancelled)  # fmt: skip
        assert [s.name for s in found] == ["Ollama"] and second.requests == []


def test_the_known_servers_are_all_on_loopback_at_their_default_ports() -> None:
    ports = {c.name: c.url for c in DEFAULT_CANDIDATES}
    assert ports == {
        "Ollama": "http://127.0.0.1:11434",
        "LM Studio": "http://127.0.0.1:1234",
        "llama.cpp": "http://127.0.0.1:8080",
        "Jan": "http://127.0.0.1:1337",
        "vLLM": "http://127.0.0.1:8000",
        "GPT4All": "http://127.0.0.1:4891",
    }
