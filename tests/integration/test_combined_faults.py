"""Issue 9 item 7: both services fail in one session. Ollama's stream is cut mid-reply (or
it reports an error mid-stream) while the judge answers 429. The session goes on with
built-in challenges, the learner is told both reasons, every answer is in the journal, the
session is sealed and verifies, and once the judge recovers `coach judge-pending` grades
what was left."""

from __future__ import annotations

import io
import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_run import coach as _coach
from fakes.coach_files import write_config, write_note
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from fakes.gemini_server import Fault as GeminiFault
from fakes.ollama_server import FakeOllama
from fakes.ollama_server import Fault as OllamaFault

from coach_gui.cli import main

KEY = "test-key"
ANSWERS = ["It changes because of selection.", "Traits vary.", "Because time is long."]


@pytest.fixture
def servers(wire: str) -> Iterator[tuple[FakeOllama, FakeGemini]]:
    """Tier 1 on both wire formats (the `wire` fixture), the judge on the fake Gemini."""
    with FakeOllama(wire=wire) as ollama, FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        yield ollama, gemini


def _setup(home: Path, ollama: FakeOllama, gemini: FakeGemini) -> None:
    write_config({
        "kb": {"path": str(home / "notes")},
        "tier1": {**ollama.tier1_config(), "followUps": False},
        "judge": {"baseUrl": gemini.url, "maxRetries": 0},
    })  # fmt: skip
    front = {"id": "n1", "title": "Selection", "core_assertions": ["Traits vary.", "Time."]}
    write_note(home / "notes", "selection", front, "Body.\n")


@pytest.mark.parametrize(
    ("fault", "ollama_words"),
    [
        (OllamaFault.CUT_STREAM, "closed before the reply was finished"),
        (OllamaFault.ERROR_MID_STREAM, "reported an error"),
    ],
)
def test_ollama_dies_mid_stream_while_the_judge_is_over_quota(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    fault: OllamaFault,
    ollama_words: str,
) -> None:
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini)
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY))
    assert main(["key", "set"]) == 0
    ollama.inject(fault, times=None)  # every stream dies a few tokens in
    gemini.inject(GeminiFault.QUOTA, times=None)  # every judge request: 429
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(ANSWERS), encoding="utf-8")

    code, data, err = _coach(
        capsys, "practice", "selection", "--count", "3", "--answers", str(answers), "--json"
    )
    assert code == 0, err
    # The session went on: built-in challenges, every answer taken.
    assert [i["origin"] for i in data["items"]] == ["builtin"] * 3
    assert [i["answer"] for i in data["items"]] == ANSWERS
    assert all(i["status"] == "unjudged" and i["verdict"] is None for i in data["items"])
    # Both reasons reach the learner, in the JSON and on stderr.
    said = json.dumps(data) + err
    assert ollama_words in said
    assert "quota" in said.lower()
    assert ollama_words in err and "quota" in err.lower()
    assert len(ollama.requests_to("/api/chat")) >= 3 and len(gemini.generate_requests) >= 1

    # Nothing lost: the answers are committed, the session is sealed and verifies.
    with sqlite3.connect(coach_home / "journal.sqlite3") as conn:
        rows = conn.execute("SELECT answer FROM attempts ORDER BY submitted_at").fetchall()
        sealed = conn.execute("SELECT sealed_trace_id FROM sessions").fetchall()
    assert [r[0] for r in rows] == ANSWERS
    assert len(sealed) == 1 and sealed[0][0] == data["trace_id"]
    code, sessions, _ = _coach(capsys, "sessions", "--json")
    (row,) = sessions["sessions"]
    assert (row["items"], row["pending"], row["verified"]) == (3, 3, True)
    assert row["disposition"] == data["disposition"] != "all_passed"

    # Still over quota: judging later fails plainly and keeps everything pending.
    code, text, err = _coach(capsys, "judge-pending")
    assert "quota" in (text + err).lower(), (code, text, err)
    code, sessions, _ = _coach(capsys, "sessions", "--json")
    assert sessions["sessions"][0]["pending"] == 3

    # The judge recovers (a healthy server behind judge.baseUrl): the pending answers are
    # graded and bound to the original trace.
    with FakeGemini(api_keys={KEY}) as recovered:
        recovered.reply_for = passes_items_whose_answer_contains("because")
        config = Path(os.environ["COACH_CONFIG"])
        settings = json.loads(config.read_text(encoding="utf-8"))
        settings["judge"]["baseUrl"] = recovered.url
        config.write_text(json.dumps(settings), encoding="utf-8")
        code, judged, err = _coach(capsys, "judge-pending", "--json")
    assert code == 0, err
    assert [j["verdict"] for j in judged["judged"]] == ["pass", "fail", "pass"]
    assert judged["pending"] == [] and len(judged["bound_trace_ids"]) == 1
    code, report, _ = _coach(capsys, "verify", "--json")
    assert (code, report["ok"]) == (0, True)
