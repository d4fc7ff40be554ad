"""Issue 9 item 5 (DESIGN §1 rule 7): after a whole scripted session with a key set, the key
is in no file under the data and config folders (journal, WAL, logs, caches), in no
stdout or stderr, and in no logged exception; and the log holds no answer or note text
unless debug logging is switched on (COACH_DEBUG=1).

The keyring itself is the test file backend (COACH_TEST_KEYRING, outside both folders).
"""

from __future__ import annotations

import io
import json
import logging
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.coach_files import write_config, write_note
from fakes.gemini_server import FakeGemini, Fault, passes_items_whose_answer_contains
from fakes.ollama_server import FakeOllama

from coach_gui.cli import main

KEY = "AIzaSy-audit-3f9c0a1b2c4d5e6f7a8b9c0d"
WRONG_KEY = "AIzaSy-wrong-99887766554433221100aa"
NOTE_MARK = "zebra-quokka-note-body"
TITLE_MARK = "Heliotrope-title"
ASSERTION_MARK = "marmalade-assertion"
ANSWER_MARKS = ("because-ocelot-answer", "tapir-answer-two", "narwhal-answer-three")


@pytest.fixture
def servers() -> Iterator[tuple[FakeOllama, FakeGemini]]:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        yield ollama, gemini


def _setup(home: Path, ollama: FakeOllama, gemini: FakeGemini) -> None:
    write_config({
        "kb": {"path": str(home / "notes")},
        "tier1": {"ollamaUrl": ollama.url, "followUps": False},
        "judge": {"baseUrl": gemini.url, "maxRetries": 0},
    })  # fmt: skip
    front = {
        "id": "audit",
        "title": f"{TITLE_MARK} selection",
        "core_assertions": [f"{ASSERTION_MARK} one.", f"{ASSERTION_MARK} two."],
    }
    write_note(home / "notes", "audit", front, f"The {NOTE_MARK} of the note.\n")


class Session:
    """Runs `coach` in-process and keeps everything it printed."""

    def __init__(self, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
        self._capsys = capsys
        self._monkeypatch = monkeypatch
        self.printed: list[str] = []

    def __call__(self, *argv: str, stdin: str | None = None) -> tuple[int, str]:
        if stdin is not None:
            self._monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        self._capsys.readouterr()
        code = main(list(argv))
        out = self._capsys.readouterr()
        self.printed += [out.out, out.err]
        return code, out.out + out.err

    def practise(self, tmp_path: Path, answer: str, *extra: str) -> tuple[int, str]:
        path = tmp_path / "answers.json"
        path.write_text(json.dumps([answer]), encoding="utf-8")
        return self("practice", "audit", "--count", "1", "--answers", str(path), *extra)


def _script(session: Session, tmp_path: Path, gemini: FakeGemini) -> None:
    assert session("key", "set", stdin=KEY + "\n")[0] == 0
    code, text = session.practise(tmp_path, ANSWER_MARKS[0], "--json")
    assert code == 0 and _json(text)["items"]
    assert session.practise(tmp_path, ANSWER_MARKS[1], "--judge", "off")[0] == 0
    assert session("judge-pending", "--json")[0] == 0
    assert session("sessions", "--json")[0] == 0
    assert session("verify", "--json")[0] == 0
    session("doctor", "--json")  # Ollama's fake has the model; the verdict does not matter here
    assert session("key", "status")[0] == 0
    # A wrong key: Gemini answers 400 API_KEY_INVALID; the answer stays unjudged.
    assert session("key", "set", stdin=WRONG_KEY)[0] == 0
    code, text = session.practise(tmp_path, ANSWER_MARKS[2])
    assert code == 0 and "key" in text.lower()
    # The right key, but over quota: 429.
    assert session("key", "set", stdin=KEY)[0] == 0
    gemini.inject(Fault.QUOTA)
    code, text = session.practise(tmp_path, ANSWER_MARKS[2])
    assert code == 0 and "quota" in text.lower()
    assert session("judge-pending")[0] == 0  # both judged now
    assert [r.header("x-goog-api-key") for r in gemini.generate_requests].count(WRONG_KEY) == 1


def _json(text: str) -> dict[str, object]:
    start = text.index("{")
    return json.loads(text[start : text.rindex("}") + 1])  # type: ignore[no-any-return]


def _files(*folders: Path) -> list[Path]:
    return [p for folder in folders if folder.exists() for p in folder.rglob("*") if p.is_file()]


def _log_text(home: Path) -> str:
    return "\n".join(p.read_text("utf-8", "replace") for p in sorted((home / "logs").glob("*")))


def _folders(home: Path) -> list[Path]:
    return [home, Path(os.environ["COACH_CONFIG"]).parent, Path(os.environ["XDG_CONFIG_HOME"])]


def test_the_key_is_nowhere_but_the_keyring_and_the_log_holds_no_learner_text(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini)
    session = Session(capsys, monkeypatch)
    _script(session, tmp_path, gemini)
    files = _files(*_folders(coach_home))
    names = {p.name for p in files}
    assert {"journal.sqlite3", "coach.log"} <= names  # the audit looked where things are
    for path in files:
        raw = path.read_bytes()
        for key in (KEY, WRONG_KEY):
            assert key.encode() not in raw, path
            assert key.encode("utf-16-le") not in raw, path
    for printed in session.printed:
        assert KEY not in printed and WRONG_KEY not in printed
    with sqlite3.connect(coach_home / "journal.sqlite3") as conn:
        dump = "\n".join(conn.iterdump())
    assert KEY not in dump and WRONG_KEY not in dump
    assert ANSWER_MARKS[0] in dump  # the journal does keep the answers

    log = _log_text(coach_home)
    assert "HTTP Request" in log or "judging" in log  # the log was written to
    for private in (NOTE_MARK, TITLE_MARK, ASSERTION_MARK, *ANSWER_MARKS):
        assert private not in log, private
    assert KEY not in log and WRONG_KEY not in log


def test_debug_logging_is_opt_in_and_still_never_logs_the_key(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini)
    monkeypatch.setenv("COACH_DEBUG", "1")
    try:
        session = Session(capsys, monkeypatch)
        _script(session, tmp_path, gemini)
        assert logging.getLogger().level == logging.DEBUG
        log = _log_text(coach_home)
        assert " DEBUG " in log
        for path in _files(*_folders(coach_home)):
            assert KEY.encode() not in path.read_bytes(), path
            assert WRONG_KEY.encode() not in path.read_bytes(), path
    finally:
        monkeypatch.delenv("COACH_DEBUG")
        session("sessions")  # the next command puts the level back
        assert logging.getLogger().level == logging.INFO


@pytest.mark.parametrize("debug", [False, True])
def test_the_vendor_retry_log_never_writes_a_key_that_an_error_body_echoes(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    debug: bool,
) -> None:
    """Issue 34 item 5: a 429 or 5xx whose body holds the key, retried by the Gemini
    library, at the default level and at debug level: the key is in no line of coach.log."""
    ollama, gemini = servers
    write_config({
        "kb": {"path": str(coach_home / "notes")},
        "tier1": {"ollamaUrl": ollama.url, "followUps": False},
        "judge": {"baseUrl": gemini.url, "maxRetries": 3},
    })  # fmt: skip
    write_note(coach_home / "notes", "audit", {"id": "audit", "title": "Audit",
               "core_assertions": ["One.", "Two."]}, "Body.\n")  # fmt: skip
    gemini.echo_key_in_errors = True
    for fault in (Fault.QUOTA, Fault.SERVER_ERROR, Fault.UNAVAILABLE):
        gemini.inject(fault)
    if debug:
        monkeypatch.setenv("COACH_DEBUG", "1")
    session = Session(capsys, monkeypatch)
    try:
        assert session("key", "set", stdin=KEY + "\n")[0] == 0
        code, text = session.practise(tmp_path, ANSWER_MARKS[0], "--json")
        assert code == 0
        assert [i["status"] for i in _json(text)["items"]] == ["judged"]  # after 3 retries
        assert len(gemini.generate_requests) == 4
        log = _log_text(coach_home)
        assert "429" in log and "503" in log  # the retries are in the log, in our words
        assert KEY not in log
        for path in _files(*_folders(coach_home)):
            assert KEY.encode() not in path.read_bytes(), path
    finally:
        monkeypatch.delenv("COACH_DEBUG", raising=False)
        session("sessions")
