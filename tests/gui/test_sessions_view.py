"""The Sessions view (issue 5): sessions practised offline through `coach practice`, listed
with their ✓, shown answer by answer, judged later from the window against the fake
Gemini, their gaps exported as Markdown, the per-note Gaps board and Practise these gaps;
and the screenshots a person looks at."""

from __future__ import annotations

import json
import os
import re
import socket
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QWidget
from pytestqt.qtbot import QtBot
from shots import save_png
from test_main_window_practice import open_note

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import build_cases
from coach_gui.cli import main
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.review.gap_board import NOT_JUDGED
from coach_gui.ui.shell.main_window import MainWindow

WAIT_MS = 15_000
KEY = "test-key"
Answer = Callable[[str], Any]  # the answer_dialog fixture (tests/gui/conftest.py)


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _configure(gemini_url: str, *, judge: bool = True) -> None:
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                # No Ollama: built-in challenges, which quote nothing.
                "tier1": {"ollamaUrl": f"http://127.0.0.1:{_dead_port()}", "followUps": False},
                "judge": {
                    "enabled": judge,
                    "includeAssertions": True,
                    "baseUrl": gemini_url,
                    "maxRetries": 0,
                },
            }
        ),
        encoding="utf-8",
    )


def _practise_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str], *answers: str) -> str:
    file = tmp_path / "answers.json"
    file.write_text(json.dumps(list(answers)), encoding="utf-8")
    argv = ["practice", "natural-selection", "--answers", str(file), "--judge", "off", "--json"]
    capsys.readouterr()
    assert main(argv) == 0
    return str(json.loads(capsys.readouterr().out)["session_id"])


def _rows(home: Path, sql: str) -> list[Any]:
    with sqlite3.connect(home / "journal.sqlite3") as conn:
        conn.row_factory = sqlite3.Row
        return conn.execute(sql).fetchall()


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini(api_keys={KEY}) as server:
        server.reply_for = passes_items_whose_answer_contains("because")
        yield server


def _window(qtbot: QtBot) -> MainWindow:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.resize(1180, 760)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    return window


def _show_sessions(qtbot: QtBot, window: MainWindow) -> None:
    view = window.views.sessions
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    assert window.views.stack.currentWidget() is view
    qtbot.waitUntil(lambda: view.detail.data is not None, timeout=WAIT_MS)


def _cells(window: MainWindow, row: int) -> list[str]:
    model = window.views.sessions.model
    return [str(model.index(row, c).data()) for c in range(model.columnCount())]


def save_as_when_asked(path: Path) -> list[str]:
    """Answer the next save dialog with `path`, as a person would: type it, press Save.
    The list gets the dialog's title once it was answered."""
    answered: list[str] = []

    def answer(tries_left: int) -> None:
        modal = QApplication.activeModalWidget()
        if not isinstance(modal, QFileDialog):
            if tries_left:
                QTimer.singleShot(10, lambda: answer(tries_left - 1))
            return
        name = modal.findChild(QLineEdit, "fileNameEdit")
        assert name is not None
        name.setText(str(path))
        answered.append(modal.windowTitle())
        modal.accept()

    QTimer.singleShot(0, lambda: answer(500))
    return answered


def test_sessions_judged_later_from_the_window_reviewed_exported_and_practised(
    qtbot: QtBot,
    gemini: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    answer_dialog: Answer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # paths on screen read as a learner's: ~/…
    _configure(gemini.url)
    KeyStore().set(KEY)
    _practise_offline(tmp_path, capsys, "It adds up because each step helps.", "No idea.")
    latest = _practise_offline(tmp_path, capsys, "Not sure.")
    assert gemini.requests == []
    window = _window(qtbot)
    open_note(qtbot, window, "Natural selection")  # the note the Gaps board then shows
    _show_sessions(qtbot, window)
    view = window.views.sessions
    assert view.model.rowCount() == 2
    assert _cells(window, 0)[1:] == ["Natural selection", "1", "0", "0", "pending", "✓"]
    assert _cells(window, 1)[1:] == ["Natural selection", "2", "0", "0", "pending", "✓"]
    assert view.current_summary() is not None and view.current_summary().session_id == latest
    assert "Not judged yet" in view.detail.text.toPlainText()

    # Judge pending answers, from the Sessions toolbar: it says first what will be sent.
    action = window.views.judge_pending.action
    assert action.isEnabled()
    asked = answer_dialog("Judge now")
    with qtbot.waitSignal(window.views.judge_pending.finished, timeout=WAIT_MS):
        action.trigger()
    assert asked.answered and "with the note's core assertions" in asked.informative
    assert asked.text == "Send 3 answers to Google Gemini (gemini-2.5-flash) to be judged?"
    assert len(gemini.generate_requests) == 1
    notice = view.notice.text()
    assertions = next(n for n in window.notes() if n.title == "Natural selection").core_assertions
    n = len(assertions)
    assert f"Judged 3 answers: 1 passed, {2 * n} gaps found." in notice
    assert "core assertions were sent" in notice
    qtbot.waitUntil(lambda: _cells(window, 1)[2:5] == ["2", "1", str(n)], timeout=WAIT_MS)
    assert _cells(window, 1)[5:] == ["judged with assertions", "✓"]
    assert _cells(window, 0)[2:] == ["1", "0", str(n), "judged with assertions", "✓"]

    # The detail of the older session, answer by answer, with the learner's assertion text.
    with qtbot.waitSignal(view.detail.shown, timeout=WAIT_MS):
        view.table.selectRow(1)
    text = view.detail.text.toPlainText()
    # The answer reads whole once the judge's evidence marks ("[1, 2]") are left out.
    unmarked = re.sub(r"\[\d+(?:, \d+)*\]", "", text)
    assert "It adds up because each step helps." in unmarked and "✓ Pass" in text
    assert "It adds up because each[1, 2, 3, 4, 5]" in text  # the fake cites 5 words
    assert "No idea." in text and "Needs work" in text
    assert f"Key point 2 — ○ Not explained\n“{assertions[1]}”" in text  # the learner's words
    assert "Explain the missing points." in text

    # The button, as the learner uses it: the save dialog opens, they name the file.
    target = tmp_path / "export" / "gaps.md"
    target.parent.mkdir()
    chosen = save_as_when_asked(target)
    with qtbot.waitSignal(view.detail.exported, timeout=WAIT_MS):
        qtbot.mouseClick(view.detail.export_button, Qt.MouseButton.LeftButton)
    assert chosen == ["Export gaps as Markdown"]
    assert view.detail.status.toolTip() == str(target)  # the file the learner chose
    exported = target.read_text(encoding="utf-8")
    assert exported.startswith("# Gaps: Natural selection\n")
    assert "> No idea." in exported and f"key point {n}: {assertions[-1]}" in exported
    assert "It adds up because" not in exported  # a passed answer has no gaps to export
    save_png(window, "sessions.png")

    # The Gaps board of the note: each key point missed twice, and the chart's numbers.
    board = window.views.gap_board
    with qtbot.waitSignal(board.loaded, timeout=WAIT_MS):
        view.tabs.setCurrentWidget(board)
    assert board.current_note().title == "Natural selection"
    assert board.table.rowCount() == n
    assert {board.table.item(r, 1).text() for r in range(board.table.rowCount())} == {"2×"}
    assert board.table.item(0, 0).text() == f"1. {assertions[0]}"
    assert "2 sessions" in board.chart.accessibleDescription()
    assert f"Open gaps now: {n}" in board.chart.accessibleDescription()
    save_png(window, "gap-board.png")

    # Practise these gaps: a session whose challenges target those assertions, with the gap
    # ids and the decision recorded.
    gap_ids = sorted(g.gap_id for g in board.gaps)
    with qtbot.waitSignal(window.practice.session_started, timeout=WAIT_MS):
        qtbot.mouseClick(board.practise_button, Qt.MouseButton.LeftButton)
    assert window.views.on_practice
    qtbot.waitUntil(
        lambda: bool(_rows(coach_home, "SELECT 1 FROM challenges c JOIN sessions s ON"
                           " s.id = c.session_id WHERE s.scheduler_decision_id IS NOT NULL")),
        timeout=WAIT_MS,
    )  # fmt: skip
    (session,) = _rows(coach_home, "SELECT * FROM sessions WHERE gap_ids != '[]'")
    assert sorted(json.loads(session["gap_ids"])) == gap_ids
    targets = [
        json.loads(row["target_assertions"])
        for row in _rows(
            coach_home,
            f"SELECT target_assertions FROM challenges WHERE session_id = '{session['id']}'",
        )
    ]
    assert targets and all(t and set(t) <= set(range(n)) for t in targets)
    window.practice.finish()
    qtbot.waitUntil(lambda: not window.practice.active, timeout=WAIT_MS)


def test_a_session_that_does_not_verify_shows_a_cross_with_the_reason(
    qtbot: QtBot,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    unnamed_controls: Callable[[QWidget], list[str]],
) -> None:
    _configure("http://127.0.0.1:9", judge=False)
    _practise_offline(tmp_path, capsys, "Kept as written.")
    with sqlite3.connect(coach_home / "journal.sqlite3") as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'"):
            conn.execute(f'DROP TRIGGER "{name}"')
        conn.execute("UPDATE attempts SET answer = 'Changed behind its back.'")
    window = _window(qtbot)
    _show_sessions(qtbot, window)
    model = window.views.sessions.model
    assert model.index(0, 6).data() == "✗"
    assert "digest mismatch" in model.index(0, 6).data(Qt.ItemDataRole.ToolTipRole)
    # The judge is off: Judge pending answers is disabled and says why.
    action = window.views.judge_pending.action
    assert not action.isEnabled() and "judge is off" in action.toolTip()
    assert action in window.views.sessions.toolbar.actions()
    assert unnamed_controls(window.views.sessions) == []
    board = window.views.gap_board
    window.views.sessions.tabs.setCurrentWidget(board)
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    assert unnamed_controls(board) == []
    # Never judged against its key points: the board says so, and has nothing to practise.
    note = next(n for n in window.notes() if n.title == "Natural selection")
    with qtbot.waitSignal(board.loaded, timeout=WAIT_MS):
        board.select_note(note.id)
    assert board.message.text() == NOT_JUDGED and "covered" not in board.message.text()
    assert board.table.rowCount() == 0 and not board.practise_button.isEnabled()
    assert "No answers judged yet" in board.chart.accessibleDescription()


def test_judge_pending_says_how_many_answers_go_to_the_judge_on_this_computer(
    qtbot: QtBot, coach_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    answer_dialog: Answer,
) -> None:  # fmt: skip
    path = Path(os.environ["COACH_CONFIG"])
    _configure("http://127.0.0.1:9", judge=False)
    _practise_offline(tmp_path, capsys, "One.", "Two.")
    config = json.loads(path.read_text(encoding="utf-8"))
    config["judge"] |= {"enabled": True, "provider": "local", "localModel": "qwen2.5:7b"}
    path.write_text(json.dumps(config), encoding="utf-8")
    window = _window(qtbot)
    asked = answer_dialog("Cancel")
    window.views.judge_pending.action.trigger()
    qtbot.waitUntil(lambda: asked.answered, timeout=WAIT_MS)
    assert asked.text == "Judge 2 answers on this computer, with qwen2.5:7b?"
    assert "nothing leaves this computer" in asked.informative
    qtbot.waitUntil(lambda: window.views.judge_pending.action.isEnabled(), timeout=WAIT_MS)
    assert _rows(coach_home, "SELECT * FROM outbox") == []  # cancelled: nothing was judged


def test_with_no_answer_waiting_judge_pending_asks_nothing_and_sends_nothing(
    qtbot: QtBot, gemini: FakeGemini
) -> None:
    _configure(gemini.url)
    KeyStore().set(KEY)
    window = _window(qtbot)
    asked: list[str] = []  # any question shown meanwhile (closed, so a failure cannot hang)

    def watch() -> None:
        modal = QApplication.activeModalWidget()
        if modal is not None:
            asked.append(modal.windowTitle())
            modal.close()

    watcher = QTimer(window)
    watcher.timeout.connect(watch)
    watcher.start(10)
    with qtbot.waitSignal(window.views.judge_pending.finished, timeout=WAIT_MS):
        window.views.judge_pending.action.trigger()
    watcher.stop()
    assert asked == [] and gemini.requests == []
    notice = window.views.sessions.notice.text()
    assert notice.startswith("Nothing to judge: every answer you gave has been judged.")
