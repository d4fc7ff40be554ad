"""Sessions practised in the window are sealed when they end, and a session a crash left
open is sealed as interrupted when Coach starts (DESIGN §6, issue 5)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from test_main_window_practice import answer, open_note

from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.bootstrap import build_cases, build_context
from coach_gui.services.verify import verify
from coach_gui.ui.practice.practice_pane import Phase
from coach_gui.ui.shell.main_window import MainWindow

WAIT_MS = 15_000


def _offline_config(port: int = 9) -> None:
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "tier1": {"ollamaUrl": f"http://127.0.0.1:{port}", "followUps": False},
                "judge": {"enabled": False},
            }
        ),
        encoding="utf-8",
    )


def _rows(home: Path, sql: str) -> list[Any]:
    with sqlite3.connect(home / "journal.sqlite3") as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(sql).fetchall()


def _has_answer(home: Path) -> bool:
    """Polled while another process creates and writes the journal: read-only, and a
    journal not yet created (or still being migrated) is simply 'not yet'."""
    path = home / "journal.sqlite3"
    if not path.exists():
        return False
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT 1 FROM attempts").fetchone() is not None
    except sqlite3.OperationalError:
        return False


def _window(qtbot: QtBot) -> MainWindow:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        pass
    return window


def test_a_session_ended_in_the_window_is_sealed_and_verifies(
    qtbot: QtBot, coach_home: Path
) -> None:
    _offline_config()
    window = _window(qtbot)
    open_note(qtbot, window, "Natural selection")
    pane = window.practice
    with qtbot.waitSignal(pane.session_started, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    answer(qtbot, window, "Small inherited differences add up.")
    qtbot.waitUntil(lambda: bool(_rows(coach_home, "SELECT 1 FROM attempts")), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)  # saved; Next waits
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS):
        pane.finish()
    (session,) = _rows(coach_home, "SELECT * FROM sessions")
    assert session["sealed_trace_id"] is not None
    assert not list(coach_home.glob("live-sessions/*.lock"))
    context = build_context()
    report = verify(SqliteTraceJournal(context.journal))
    context.close()
    assert report.ok and report.checked > 0


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_session_left_open_by_a_crash_is_sealed_interrupted_at_start(
    qtbot: QtBot, coach_home: Path
) -> None:
    _offline_config()
    process = subprocess.Popen(
        [sys.executable, "-m", "coach_gui", "practice", "natural-selection", "--count", "2"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdin is not None
        process.stdin.write("Kept through the crash.\n\n")
        process.stdin.flush()
        deadline = time.monotonic() + 30
        while not _has_answer(coach_home):
            assert time.monotonic() < deadline, "the answer never reached the journal"
            time.sleep(0.05)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()

    window = _window(qtbot)
    qtbot.waitUntil(
        lambda: bool(_rows(coach_home, "SELECT 1 FROM sessions WHERE sealed_trace_id IS NOT NULL")),
        timeout=WAIT_MS,
    )
    (session,) = _rows(coach_home, "SELECT disposition FROM sessions")
    assert session["disposition"] == "interrupted"
    assert [r["answer"] for r in _rows(coach_home, "SELECT answer FROM attempts")] == [
        "Kept through the crash."
    ]
    qtbot.waitUntil(lambda: "left open" in window.statusBar().currentMessage(), timeout=WAIT_MS)
