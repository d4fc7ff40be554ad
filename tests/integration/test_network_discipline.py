"""Issue 9 item 6 (DESIGN §1 rule 8): every socket connection a whole `coach` session
opens, recorded. With the judge off only loopback Ollama is contacted (not even another
loopback port); with it on, only Ollama and the judge's host (judge.baseUrl).

`coach` runs in-process (coach_gui.cli.main) so the recorder, like the suite's
non-loopback guard in tests/conftest.py, sees every socket.
"""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.coach_files import write_config, write_note
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from fakes.ollama_server import FakeOllama

from coach_gui.cli import main

KEY = "test-key"


@pytest.fixture
def connections(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, int]]]:
    """(host, port) of every connect made while the test runs, through the suite's guard."""
    made: list[tuple[str, int]] = []
    guarded_connect, guarded_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def record(address: Any) -> None:
        if isinstance(address, tuple):
            made.append((str(address[0]), int(address[1])))
        else:
            made.append((str(address), 0))

    def connect(self: socket.socket, address: Any) -> Any:
        record(address)
        return guarded_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> Any:
        record(address)
        return guarded_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    yield made


def _address(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").rstrip("/").rsplit(":", 1)
    return host, int(port)


def _setup(home: Path, ollama: FakeOllama, gemini: FakeGemini, *, judge: bool) -> None:
    write_config({
        "kb": {"path": str(home / "notes")},
        "tier1": ollama.tier1_config(),
        "judge": {"enabled": judge, "baseUrl": gemini.url, "maxRetries": 0},
    })  # fmt: skip
    front = {"id": "n1", "title": "Selection", "core_assertions": ["Traits vary.", "Some last."]}
    write_note(home / "notes", "selection", front, "Body.\n")


def _session(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    """A whole session: practise, then look at it, verify it, check health."""
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["It is because traits vary.", "Some last longer."]))
    capsys.readouterr()
    code = main(["practice", "selection", "--count", "2", "--answers", str(answers), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    for argv in (["sessions", "--json"], ["gaps", "--json"], ["verify", "--json"]):
        assert main(argv) == 0
    main(["doctor", "--json"])
    capsys.readouterr()
    return json.loads(out.out)  # type: ignore[no-any-return]


@pytest.fixture
def servers(wire: str) -> Iterator[tuple[FakeOllama, FakeGemini]]:
    """The local server in both wire formats (the `wire` fixture), and the judge's."""
    with FakeOllama(wire=wire) as ollama, FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        yield ollama, gemini


def _set_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY))
    assert main(["key", "set"]) == 0


def test_adr0021_d8_judge_off_contacts_only_loopback_ollama(
    servers: tuple[FakeOllama, FakeGemini],
    connections: list[tuple[str, int]],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini, judge=False)
    _set_key(monkeypatch)  # a key is set, and still nothing goes to the judge
    data = _session(tmp_path, capsys)
    assert main(["judge-pending"]) == 2  # refused: the judge is switched off
    assert data["disposition"] == "unjudged_offline"
    assert [i["origin"] for i in data["items"]] == ["tier1", "tier1"]
    assert set(connections) == {_address(ollama.url)}
    assert gemini.requests == []


def test_judge_on_contacts_only_ollama_and_the_judge_host(
    servers: tuple[FakeOllama, FakeGemini],
    connections: list[tuple[str, int]],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini, judge=True)
    _set_key(monkeypatch)
    data = _session(tmp_path, capsys)
    assert [i["status"] for i in data["items"]] == ["judged", "judged"]
    assert set(connections) == {_address(ollama.url), _address(gemini.url)}
    assert gemini.generate_requests  # the judge was really asked


def test_the_recorder_sees_a_stray_connection(
    connections: list[tuple[str, int]], servers: tuple[FakeOllama, FakeGemini]
) -> None:
    """The recorder is not blind: a connection made on the side shows up."""
    _, gemini = servers
    with socket.create_connection(_address(gemini.url)):
        pass
    assert connections == [_address(gemini.url)]
