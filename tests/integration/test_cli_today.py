"""Issue 7 acceptance through the `coach` command line: a simulated week of practice judged
by the fake Gemini (over loopback), time set with COACH_NOW; `coach today --json` lists the
missed assertions first, and their intervals grow as they are explained."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cli_run import practise
from fakes.gemini_server import FakeGemini, RecordedRequest, assessed_reply, prompt_items
from test_cli_sessions import ASSERTIONS, KEY, _coach, _configure, _set_key

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
MISSED = ASSERTIONS[1]


class Judge:
    """Explains assertion 0 always; assertion 1 only once `learned` is set."""

    learned = False

    def __call__(self, request: RecordedRequest) -> str:
        gaps = [] if self.learned else [
            {"assertion": 1, "problem": "unexplained", "explanation": "Not why it is slow."}
        ]  # fmt: skip
        items = [
            {"index": i.index, "verdict": "fail" if gaps else "pass", "gaps": gaps,
             "feedback": "ok"}
            for i in prompt_items(request)
        ]  # fmt: skip
        return assessed_reply(request, json.dumps({"items": items}))


def _at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setenv("COACH_NOW", moment.isoformat())


def _today(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    code, data, err = _coach(capsys, "today", "--json", *extra)
    assert code == 0, err
    return data  # type: ignore[no-any-return]


def _assertions(today: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for note in today["notes"] for a in note["assertions"]]


def _practise(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = practise(capsys, tmp_path, "Selection keeps inherited differences.")
    assert data["items"][0]["status"] == "judged"


def test_a_week_of_practice_puts_missed_assertions_first_and_grows_explained_intervals(
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judge = Judge()
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = judge
        _configure(coach_home, gemini.url)
        _set_key(monkeypatch, capsys)
        _at(monkeypatch, START - timedelta(days=1))
        assert _today(capsys)["notes"] == []  # no history: nothing due

        intervals: list[float] = []
        for n in range(7):
            judge.learned = n >= 3  # missed for three days, explained from then on
            _at(monkeypatch, START + timedelta(days=n))
            _practise(capsys, tmp_path)
            if n == 2:
                _at(monkeypatch, START + timedelta(days=3, hours=1))
                (note,) = _today(capsys)["notes"]
                first = note["assertions"][0]
                assert first["text"] == MISSED and first["gap"] == "unexplained"
                assert first["last_rating"] == "again" and note["open_gap"] == "unexplained"
                assert first["gap_id"] and len(first["gap_id"]) == 64
            # Far ahead, everything is due: read each assertion's current interval.
            _at(monkeypatch, START + timedelta(days=3650))
            by_text = {a["text"]: a for a in _assertions(_today(capsys))}
            intervals.append(by_text[MISSED]["interval_days"])
            assert by_text[ASSERTIONS[0]]["interval_days"] >= by_text[MISSED]["interval_days"]

    missed, explained = intervals[:3], intervals[3:]
    assert max(missed) <= 1.0  # forgotten every day: due again the next day
    assert explained == sorted(explained) and explained[-1] >= 3 * max(missed)


def test_the_cache_rebuilt_from_history_equals_the_one_kept_up_to_date(
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judge = Judge()
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = judge
        _configure(coach_home, gemini.url)
        _set_key(monkeypatch, capsys)
        for n in (0, 2, 5):
            judge.learned = n == 5
            _at(monkeypatch, START + timedelta(days=n))
            _practise(capsys, tmp_path)
            _at(monkeypatch, START + timedelta(days=60))
            kept = _today(capsys)
    rebuilt = _today(capsys, "--rebuild")
    assert kept["notes"] == rebuilt["notes"] and kept["forecast"] == rebuilt["forecast"]
    assert [a["reviews"] for a in _assertions(rebuilt)] == [3, 3]
    with sqlite3.connect(coach_home / "journal.sqlite3") as conn:
        (stale,) = conn.execute("SELECT count(*) FROM assertion_memory_stale").fetchone()
        (cached,) = conn.execute("SELECT count(*) FROM assertion_memory").fetchone()
    assert (stale, cached) == (0, 2)


def test_a_bad_coach_now_is_a_usage_error(
    coach_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COACH_NOW", "next tuesday")
    code, _, err = _coach(capsys, "today", "--json")
    assert code == 2 and "COACH_NOW" in err
