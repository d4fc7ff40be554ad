"""Issue 5 acceptance, through the `coach` command line: practise offline, judge later
against the fake Gemini, review the gaps, verify every trace, catch tampering; and a
`coach practice` process killed mid-session loses nothing."""

from __future__ import annotations

import io
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_run import coach as _coach
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains

from coach_gui.cli import main

KEY = "test-key"
ASSERTIONS = ["Selection acts only on inherited variation.", "Large change takes a long time."]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _configure(home: Path, gemini_url: str, *, enabled: bool = True, include: bool = True) -> None:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "kb": {"path": str(home / "notes")},
                # No Ollama: built-in challenges, so nothing but the judge is needed.
                "tier1": {"ollamaUrl": f"http://127.0.0.1:{_free_port()}"},
                "judge": {
                    "enabled": enabled,
                    "includeAssertions": include,
                    "baseUrl": gemini_url,
                    "maxRetries": 0,
                },
            }
        ),
        encoding="utf-8",
    )
    front = {"id": "note1", "title": "Natural selection", "core_assertions": ASSERTIONS}
    (home / "notes").mkdir(parents=True, exist_ok=True)
    (home / "notes" / "natural-selection.md").write_text(
        "---\n" + yaml.safe_dump(front) + "---\nBody of the note.\n", encoding="utf-8"
    )


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini(api_keys={KEY}) as server:
        server.reply_for = passes_items_whose_answer_contains("because")
        yield server


def _set_key(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
    assert main(["key", "set"]) == 0
    capsys.readouterr()


def _practise_offline(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> dict[str, Any]:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["It is slow because each step is slight.", "No idea."]))
    code, data, err = _coach(
        capsys,
        "practice",
        "natural-selection",
        "--answers",
        str(answers),
        "--judge",
        "off",
        "--json",
    )
    assert code == 0, err
    return data  # type: ignore[no-any-return]


def _journal(home: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(home / "journal.sqlite3")
    conn.row_factory = sqlite3.Row
    return conn


def test_practise_offline_then_judge_later_then_review_and_verify(
    gemini: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(coach_home, gemini.url)
    _set_key(monkeypatch, capsys)
    practised = _practise_offline(capsys, tmp_path)
    assert gemini.requests == []  # offline: nothing left the machine
    assert practised["disposition"] == "unjudged_offline"
    first = practised["trace_id"]
    assert isinstance(first, str) and len(first) == 64
    assert not list(coach_home.glob("live-sessions/*.lock"))  # no longer live once sealed
    with _journal(coach_home) as conn:
        original = conn.execute("SELECT body FROM sealed_traces").fetchone()["body"]

    code, sessions, _ = _coach(capsys, "sessions", "--json")
    (row,) = sessions["sessions"]
    assert (row["mode"], row["items"], row["pending"], row["verified"]) == ("pending", 2, 2, True)

    code, judged, err = _coach(capsys, "judge-pending", "--json")
    assert code == 0, err
    assert [j["verdict"] for j in judged["judged"]] == ["pass", "fail"]
    assert judged["pending"] == [] and judged["assertions_sent"] is True
    assert judged["include_assertions_now"] is True  # the switch then, under its JSON name
    assert "were sent" in judged["privacy"] and "Send core assertions is on" in err
    assert len(gemini.generate_requests) == 1  # one batch
    (bound,) = judged["bound_trace_ids"]

    with _journal(coach_home) as conn:
        rows = conn.execute("SELECT trace_id, kind, body FROM sealed_traces").fetchall()
        attempts = conn.execute("SELECT status FROM attempts").fetchall()
    assert {r["trace_id"]: r["body"] for r in rows}[first] == original  # byte for byte
    assert [a["status"] for a in attempts] == ["unjudged", "unjudged"]  # sealed rows untouched
    for trace in (first, bound, None):
        code, report, err = _coach(capsys, "verify", *([trace] if trace else []), "--json")
        assert (code, report["ok"], report["first_failure"]) == (0, True, None), (trace, err)
        assert report["checked"] > 0

    code, sessions, _ = _coach(capsys, "sessions", "--json")
    (row,) = sessions["sessions"]
    assert (row["mode"], row["passed"], row["gaps"], row["pending"]) == (
        "judged_with_assertions",
        1,
        2,
        0,
    )
    assert row["bound_trace_ids"] == [bound] and row["verified"] is True

    code, gaps, _ = _coach(capsys, "gaps", practised["session_id"], "--json")
    assert code == 0
    assert [(g["assertion_text"], g["problem"]) for g in gaps["gaps"]] == [
        (ASSERTIONS[0], "unexplained"),
        (ASSERTIONS[1], "unexplained"),
    ]
    assert all(g["answer"] == "No idea." for g in gaps["gaps"])
    assert {(m["assertion_text"], m["missed"], m["judged"]) for m in gaps["by_assertion"]} == {
        (ASSERTIONS[0], 1, 2),
        (ASSERTIONS[1], 1, 2),
    }
    code, text, _ = _coach(capsys, "gaps")
    assert ASSERTIONS[0] in text and "1 of 2" in text

    # Tampering: the learner's answer changed behind Coach's back (triggers dropped).
    with _journal(coach_home) as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'"):
            conn.execute(f'DROP TRIGGER "{name}"')
        changed = conn.execute(
            "UPDATE attempts SET answer = 'I knew it all along.' WHERE answer = 'No idea.'"
            " RETURNING id"
        ).fetchone()["id"]
    code, report, _ = _coach(capsys, "verify", "--json")
    assert code == 1
    assert report["first_failure"] == {"id": changed, "reason": "digest mismatch"}
    code, text, err = _coach(capsys, "verify")
    assert code == 1 and f"FAIL {changed}: digest mismatch" in text
    assert "changed outside Coach" in err


def test_judge_pending_refuses_plainly_when_the_judge_is_off_or_has_no_key(
    gemini: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(coach_home, gemini.url, enabled=False)
    _practise_offline(capsys, tmp_path)
    code, _, err = _coach(capsys, "judge-pending", "--json")
    assert code == 2 and "switched off" in err
    _configure(coach_home, gemini.url, include=False)
    code, _, err = _coach(capsys, "judge-pending")
    assert code == 2 and "coach key set" in err
    _set_key(monkeypatch, capsys)
    code, text, err = _coach(capsys, "judge-pending")
    assert code == 0, err
    assert "Verdict: fail" in text and "not your core assertions" in err
    sent = gemini.generate_requests[0].user_text
    assert ASSERTIONS[0] not in sent and "No idea." in sent  # the switch as it is now


def test_unknown_ids_are_usage_errors(
    coach_home: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    _configure(coach_home, "http://127.0.0.1:9")
    _practise_offline(capsys, tmp_path)
    code, _, err = _coach(capsys, "verify", "ab" * 32)
    assert code == 2 and "No trace or session" in err
    code, _, err = _coach(capsys, "gaps", "ab" * 32)
    assert code == 2 and "coach sessions" in err


def _wait_for(predicate: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def _answers_in(home: Path) -> list[str]:
    path = home / "journal.sqlite3"
    if not path.exists():
        return []
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
            rows = conn.execute("SELECT answer FROM attempts ORDER BY submitted_at").fetchall()
    except sqlite3.OperationalError:  # not created yet
        return []
    return [r[0] for r in rows]


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_practice_killed_mid_session_is_sealed_interrupted_with_every_answer(
    coach_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _configure(coach_home, "http://127.0.0.1:9", enabled=False)
    process = subprocess.Popen(
        [sys.executable, "-m", "coach_gui", "practice", "natural-selection", "--count", "3"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdin is not None
        for answer in ("First answer.", "Second answer."):
            process.stdin.write(answer + "\n\n")
            process.stdin.flush()
            _wait_for(lambda a=answer: a in _answers_in(coach_home))
        process.send_signal(signal.SIGKILL)  # mid-session: a third challenge is waiting
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    with _journal(coach_home) as conn:
        (open_row,) = conn.execute("SELECT * FROM sessions").fetchall()
    assert open_row["sealed_trace_id"] is None and open_row["ended_at"] is None

    code, sessions, err = _coach(capsys, "sessions", "--json")  # the next command
    assert code == 0 and "sealed as interrupted" in err
    (row,) = sessions["sessions"]
    assert (row["disposition"], row["items"], row["verified"]) == ("interrupted", 2, True)
    with _journal(coach_home) as conn:
        body = json.loads(conn.execute("SELECT body FROM sealed_traces").fetchone()["body"])
        answers = conn.execute("SELECT id, answer FROM attempts ORDER BY submitted_at").fetchall()
    assert [a["answer"] for a in answers] == ["First answer.", "Second answer."]
    assert body["input"]["attempt_ids"] == [a["id"] for a in answers]
    assert body["input"]["disposition"] == "interrupted"
    code, report, _ = _coach(capsys, "verify", "--json")
    assert code == 0 and report["ok"]
    assert not list(coach_home.glob("live-sessions/*.lock"))  # the dead process's mark is gone


def test_a_session_without_answers_is_listed_as_such_not_as_judged(
    gemini: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _configure(coach_home, gemini.url)  # the judge on, with the assertions sent
    _set_key(monkeypatch, capsys)
    answers = tmp_path / "skipped.json"
    answers.write_text(json.dumps(["", ""]))  # every challenge skipped
    code, _, err = _coach(capsys, "practice", "natural-selection", "--answers", str(answers))
    assert code == 0, err
    code, sessions, _ = _coach(capsys, "sessions", "--json")
    (row,) = sessions["sessions"]
    assert (row["items"], row["mode"]) == (0, "no_answers")
    code, text, _ = _coach(capsys, "sessions")
    assert "[no answers]" in text and "judged" not in text
    assert gemini.generate_requests == []


def test_the_terminal_says_a_session_as_the_window_does(
    gemini: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    in_kathmandu: None,
) -> None:
    """`coach sessions` printed the start in UTC and "judged, with assertions" while the
    Sessions view showed the learner's local time and "judged with assertions" (two
    vocabularies, issue 35): both now come from `operations/vocabulary`."""
    from coach_gui.services.review import SessionSummary
    from coach_gui.ui.review.sessions_view import SessionsTableModel  # the window's own table

    _configure(coach_home, gemini.url)
    _set_key(monkeypatch, capsys)
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["It is slow because each step is slight.", "No idea."]))
    code, _, err = _coach(capsys, "practice", "natural-selection", "--answers", str(answers))
    assert code == 0, err
    code, sessions, _ = _coach(capsys, "sessions", "--json")
    (row,) = sessions["sessions"]
    code, text, _ = _coach(capsys, "sessions")
    started = datetime.fromisoformat(row["started_at"]).astimezone()
    assert text.startswith(f"{started:%Y-%m-%d %H:%M}  Natural selection  2 answers, ")
    assert "[judged with assertions]" in text
    summary = SessionSummary(**{**row, "bound_trace_ids": tuple(row["bound_trace_ids"])})
    window = [SessionsTableModel._cell(summary, column) for column in (0, 5)]
    assert window == [f"{started:%Y-%m-%d %H:%M}", "judged with assertions"]
