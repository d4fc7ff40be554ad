"""Issue 9, item 1 in CI: a child process saving notes and submitting answers through
Coach's own code is SIGKILLed at random moments; nothing it acknowledged is lost, no note
file is torn, the journal stays sound and verifies. `bench/crash_stress.py` runs 1,000."""

from __future__ import annotations

import random
import sqlite3
import sys
from pathlib import Path

import pytest
from stress.crash_checks import ChainState, check_journal, check_notes
from stress.crash_driver import run_trial, run_trials

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")


@pytest.mark.slow
def test_random_kills_lose_nothing_acknowledged(tmp_path: Path) -> None:
    summary = run_trials(tmp_path, 15, seed=20250101, chain=5)
    assert summary.trials == 15
    assert [(f.trial, f.problems[:3]) for f in summary.failures] == []
    # Not vacuous: the children did acknowledge work before they were killed.
    assert summary.acked_saves > 0 and summary.acked_answers > 0


@pytest.mark.slow
def test_the_checks_catch_a_torn_note_and_a_lost_answer(tmp_path: Path) -> None:
    # One clean trial, then damage what it left, as a broken save or commit would.
    home, state = tmp_path / "data", ChainState()
    result = run_trial(0, home, state, random.Random(7), window=0.3, early=0.0)
    assert result.problems == [] and result.acks.get("save", 0) > 0
    assert check_notes(home, state, []) == []
    note = next(p for p in sorted((home / "kb").glob("*.md")) if b"crash-test" in p.read_bytes())
    raw = note.read_bytes()
    note.write_bytes(raw[: len(raw) // 2])  # torn: half of a version
    assert any("torn note file" in p for p in check_notes(home, state, []))
    note.write_bytes(raw)

    with sqlite3.connect(home / "journal.sqlite3") as conn:
        attempt, answer = conn.execute("SELECT id, answer FROM attempts LIMIT 1").fetchone()
    state.answers[attempt] = answer + " (acknowledged, then lost)"
    _, problems = check_journal(home, state, [])
    assert problems == [f"acknowledged answer {attempt} lost or changed"]
