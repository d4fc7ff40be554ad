"""Issue 19 through the command line and a real journal: a new vault's Today offers new notes
under the daily limit, `coach schedule` suspends, buries, resumes, undoes and redoes, `coach
stats` counts what the history holds, and the decision a session starts with is stored
whole and checked by `coach verify`."""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cli_run import practise
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from fakes.vaults import file_hashes, obsidian_vault
from test_cli_sessions import KEY, _coach, _configure, _set_key

from coach_gui.bootstrap import build_context
from coach_gui.domain.digests import content_id

START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _at(monkeypatch: pytest.MonkeyPatch, moment: datetime) -> None:
    monkeypatch.setenv("COACH_NOW", moment.isoformat())


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, data, err = _coach(capsys, *argv, "--json")
    assert code == 0, err
    return data  # type: ignore[no-any-return]


def _practise(capsys: pytest.CaptureFixture[str], tmp_path: Path, note: str) -> None:
    practise(capsys, tmp_path, *["It holds because of inherited variation."] * 3, note=note)


@pytest.fixture
def judged(coach_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        _configure(coach_home, gemini.url)
        _set_key(monkeypatch, capsys)
        yield gemini


def test_a_new_vault_offers_five_new_notes_and_a_begun_one_counts_against_today(
    judged: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    vault = obsidian_vault(coach_home / "notes" / "Vault", notes=60)  # beside the tidy note
    with_points = [n for n in vault.notes if n.assertions] + ["natural-selection.md"]
    before = file_hashes(coach_home / "notes")
    _at(monkeypatch, START)
    today = _json(capsys, "today")
    assert today["notes"] == []  # nothing practised: nothing due ...
    new = today["new"]  # ... but the notes with key points come in, five a day
    assert (new["limit"], new["order"], new["begun_today"]) == (5, "oldest", 0)
    assert new["waiting"] == len(with_points) > 5
    assert [n["rank"] for n in new["notes"]] == [1, 2, 3, 4, 5]
    assert all(n["assertions"] > 0 for n in new["notes"])

    _at(monkeypatch, START + timedelta(minutes=5))
    _practise(capsys, tmp_path, "natural-selection")
    _at(monkeypatch, START + timedelta(minutes=10))
    after = _json(capsys, "today")["new"]
    assert after["begun_today"] == 1 and after["waiting"] == len(with_points) - 1
    assert len(after["notes"]) == 4
    assert "Natural selection" not in [n["title"] for n in after["notes"]]
    _at(monkeypatch, START + timedelta(days=1))
    tomorrow = _json(capsys, "today")["new"]["notes"]
    assert len(tomorrow) == 5  # a new day, a new allowance
    code, text, _ = _coach(capsys, "today")
    assert code == 0 and "New notes: 5 today" in text
    assert file_hashes(coach_home / "notes") == before  # reading wrote nothing


def test_schedule_holds_undo_and_stats_agree_with_the_history(
    judged: FakeGemini,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _at(monkeypatch, START)
    _practise(capsys, tmp_path, "natural-selection")
    _at(monkeypatch, START + timedelta(days=400))  # everything is due
    due = _json(capsys, "today")
    (note,) = due["notes"]
    points = len(note["assertions"])
    stats = _json(capsys, "stats")
    assert stats["reviews"] == points and stats["counts"]["assertions"] == points
    assert stats["counts"]["due"] == points and stats["counts"]["suspended"] == 0
    assert stats["optimizer"] == {
        "reviews_needed": 400, "available": False, "parameters_fitted": False,
    }  # fmt: skip

    suspended = _json(capsys, "schedule", "suspend", "natural-selection")
    assert suspended["action"] == "suspend" and suspended["until"] is None
    held = _json(capsys, "today")
    assert held["notes"] == [] and [h["kind"] for h in held["held"]] == ["suspended"]
    assert _json(capsys, "stats")["counts"]["suspended"] == 1
    _at(monkeypatch, START + timedelta(days=400, minutes=1))
    _json(capsys, "schedule", "resume", "natural-selection")
    _at(monkeypatch, START + timedelta(days=400, minutes=2))
    _json(capsys, "schedule", "bury", "natural-selection", "--assertion", "1")
    (buried,) = _json(capsys, "today")["notes"]
    assert len(buried["assertions"]) == points - 1
    _at(monkeypatch, START + timedelta(days=401, hours=12))  # past the learner's midnight
    assert len(_json(capsys, "today")["notes"][0]["assertions"]) == points

    undone = _json(capsys, "schedule", "undo")
    assert undone["done"] is True and undone["note_id"] == note["note_id"]
    assert _json(capsys, "stats")["reviews"] == 0
    again = _json(capsys, "today")
    assert again["notes"] == [] and "Natural selection" in [
        n["title"] for n in again["new"]["notes"]
    ]  # its only review undone: it is new again
    _at(monkeypatch, START + timedelta(days=401, hours=13))
    assert _json(capsys, "schedule", "redo")["done"] is True
    assert _json(capsys, "stats")["reviews"] == points
    assert _json(capsys, "schedule", "redo")["done"] is False
    code, _, err = _coach(capsys, "schedule", "suspend")
    assert code == 2 and "needs a note" in err
    code, _, err = _coach(capsys, "schedule", "bury", "natural-selection", "--assertion", "99")
    assert code == 2 and "between 1 and" in err
    assert _json(capsys, "verify")["ok"] is True


def test_a_sessions_decision_is_stored_whole_and_verify_catches_an_edit(
    judged: FakeGemini,
    coach_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from coach_gui.bootstrap import build_context
    from coach_gui.operations.app import note_catalogue
    from coach_gui.operations.practice import open_practice
    from coach_gui.operations.today import today_with_plans

    _at(monkeypatch, START)
    context = build_context()
    lookup, entries = note_catalogue(context)
    _today, plans = today_with_plans(context, lookup, entries)
    first = plans[0]
    opened = open_practice(context, first.note, context.practice_settings(), plan=first.plan)
    assert opened is not None
    opened.close()
    context.close()
    journal = coach_home / "journal.sqlite3"
    with sqlite3.connect(journal) as conn:
        ((stored_id, fields),) = conn.execute("SELECT id, fields FROM scheduler_decisions")
        (session_decision,) = conn.execute("SELECT scheduler_decision_id FROM sessions").fetchone()
    assert stored_id == session_decision == first.plan.decision_id
    decided = json.loads(fields)
    assert content_id("scheduler_decision", decided) == stored_id
    assert decided["reason"] == "new_note" and decided["note_id"] == first.note.id
    assert (decided["schedule"]["new_limit"], decided["schedule"]["new_order"]) == (5, "oldest")
    assert len(decided["schedule"]["parameters"]) == 21
    assert _json(capsys, "verify")["ok"] is True

    conn = sqlite3.connect(journal)  # someone edits the limit behind Coach's back
    try:
        conn.execute("DROP TRIGGER scheduler_decisions_no_update")
        decided["schedule"]["new_limit"] = 50
        conn.execute("UPDATE scheduler_decisions SET fields = ?", (json.dumps(decided),))
        conn.commit()
    finally:
        conn.close()
    code, report, _ = _coach(capsys, "verify", "--json")
    assert code == 1 and report["first_failure"]["id"] == stored_id
    assert report["first_failure"]["reason"] == "digest mismatch"


def test_verify_catches_an_edited_hold_or_undo(
    judged: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _at(monkeypatch, START)
    _practise(capsys, tmp_path, "natural-selection")
    _at(monkeypatch, START + timedelta(minutes=5))
    hold = _json(capsys, "schedule", "suspend", "natural-selection")
    _at(monkeypatch, START + timedelta(minutes=6))
    assert _json(capsys, "schedule", "undo")["done"] is True
    assert _json(capsys, "verify")["ok"] is True
    for table, change in (
        ("schedule_holds", "action = 'resume'"),
        ("review_changes", "action = 'redo'"),
    ):
        conn = sqlite3.connect(coach_home / "journal.sqlite3")
        try:
            conn.execute(f"DROP TRIGGER IF EXISTS {table}_no_update")
            (stored,) = conn.execute(f"SELECT id FROM {table}").fetchone()
            conn.execute(f"UPDATE {table} SET {change}")
            conn.commit()
        finally:
            conn.close()
        code, report, _ = _coach(capsys, "verify", "--json")
        assert code == 1 and report["first_failure"] == {"id": stored, "reason": "digest mismatch"}
        if table == "schedule_holds":
            assert stored == hold["id"]
            conn = sqlite3.connect(coach_home / "journal.sqlite3")
            conn.execute("UPDATE schedule_holds SET action = 'suspend'")  # put it back
            conn.commit()
            conn.close()


@pytest.mark.parametrize("table", ["schedule_holds", "review_changes", "fsrs_parameters"])
def test_verify_catches_a_deleted_hold_or_undo(
    judged: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    table: str,
) -> None:
    """Issue 34 item 6: a hold (or an undo) deleted behind Coach's back passed verify."""
    _at(monkeypatch, START)
    _practise(capsys, tmp_path, "natural-selection")
    _at(monkeypatch, START + timedelta(minutes=5))
    _json(capsys, "schedule", "suspend", "natural-selection")
    _at(monkeypatch, START + timedelta(minutes=6))
    assert _json(capsys, "schedule", "undo")["done"] is True
    _at(monkeypatch, START + timedelta(minutes=7))
    context = build_context(seed=False)
    try:  # a parameter set, as the optimizer's Apply stores one
        context.scheduler().apply_parameters(None, None)
    finally:
        context.close()
    assert _json(capsys, "verify")["ok"] is True
    conn = sqlite3.connect(coach_home / "journal.sqlite3")
    try:
        conn.execute(f"DROP TRIGGER IF EXISTS {table}_no_delete")
        (stored,) = conn.execute(f"SELECT id FROM {table}").fetchone()
        conn.execute(f"DELETE FROM {table}")
        conn.commit()
    finally:
        conn.close()
    code, report, _ = _coach(capsys, "verify", "--json")
    assert code == 1
    assert report["first_failure"] == {"id": stored, "reason": "missing record"}


def test_the_terminal_says_when_in_the_learners_own_time(
    judged: FakeGemini,
    in_kathmandu: None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 35, one vocabulary: `coach today` and `coach schedule undo` printed UTC
    ("due 2027-12-07 09:00 UTC") while the window says the learner's own time."""
    _at(monkeypatch, START)
    _practise(capsys, tmp_path, "natural-selection")
    _at(monkeypatch, START + timedelta(days=400))
    (note,) = _json(capsys, "today")["notes"]
    code, text, err = _coach(capsys, "today")
    assert code == 0, err
    for point in note["assertions"]:
        local = datetime.fromisoformat(point["due"]).astimezone()
        assert f"due {local:%Y-%m-%d %H:%M}" in text or (
            f"scheduled {local:%Y-%m-%d %H:%M})" in text
        ), text
    assert _json(capsys, "schedule", "redo")["done"] is False  # nothing undone yet
    code, done, err = _coach(capsys, "schedule", "undo", "--json")
    assert code == 0 and done["done"] is True
    reviewed = datetime.fromisoformat(done["at"]).astimezone()
    assert f"The review of {reviewed:%Y-%m-%d %H:%M} no longer counts" in err
    assert "UTC" not in text + err
