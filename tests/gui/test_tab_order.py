"""Tab walks every view of the main window over a real history (judged by the fake Gemini
on loopback): from where the view puts the cursor, Tab reaches every control on screen
that is enabled, and comes back round; no control keeps the cursor (a table stepping cell
by cell, a text box taking the Tab as a character). Each view also offers each of its
Alt+letters once, menus included."""

from __future__ import annotations

import io
import json
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, RecordedRequest, assessed_reply, prompt_items
from mnemonics import clashes
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QTextBrowser,
    QWidget,
)
from pytestqt.qtbot import QtBot
from visible_text import assert_learner_words

from coach_gui.bootstrap import build_cases
from coach_gui.cli import main
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.practice.practice_view import Phase
from coach_gui.ui.shell.main_window import MainWindow

KEY = "test-key"
WAIT_MS = 10_000
CTRL = Qt.KeyboardModifier.ControlModifier
ALT = Qt.KeyboardModifier.AltModifier
Answer = Callable[[str], Any]


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _one_gap(request: RecordedRequest) -> str:
    items = [
        {"index": item.index, "verdict": "fail", "feedback": "Half of it.",
         "gaps": [{"assertion": 1, "problem": "unexplained", "explanation": "Not said."}]}
        for item in prompt_items(request)
    ]  # fmt: skip
    return assessed_reply(request, json.dumps({"items": items}))


@pytest.fixture
def history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two judged sessions with a gap each, a week ago: sessions, requests sent to the
    judge, answers to evaluate, and assertions due today."""
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = _one_gap
        path = Path(os.environ["COACH_CONFIG"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({
            "tier1": {"ollamaUrl": f"http://127.0.0.1:{_dead_port()}", "followUps": False,
                      "challengesPerSession": 1},
            "judge": {"baseUrl": gemini.url, "maxRetries": 0},
        }), encoding="utf-8")  # fmt: skip
        monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0
        answers = tmp_path / "answers.json"
        answers.write_text(json.dumps(["Variation is kept when it helps."]), encoding="utf-8")
        monkeypatch.setenv("COACH_NOW", "2026-11-02T09:00:00+00:00")
        for note in ("natural-selection", "sexual-selection"):
            assert main(["practice", note, "--answers", str(answers), "--json"]) == 0
        capsys.readouterr()
    monkeypatch.setenv("COACH_NOW", "2026-11-09T09:00:00+00:00")


@pytest.fixture
def window(qtbot: QtBot, history: None, answer_dialog: Answer) -> Iterator[MainWindow]:
    def leave(w: MainWindow) -> None:
        if w.practice.has_unsubmitted_answer():
            answer_dialog("Discard")

    win = MainWindow(build_cases())
    qtbot.addWidget(win, before_close_func=leave)
    win.resize(1280, 860)
    with qtbot.waitSignal(win.notes_listed, timeout=WAIT_MS):
        win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    win.activateWindow()
    yield win
    win.practice.finish()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def name(widget: QWidget | None) -> str:
    if widget is None:
        return "nothing"
    label = widget.accessibleName() or widget.objectName()
    return f"{type(widget).__name__} “{label}”"


def reachable(window: MainWindow) -> list[QWidget]:
    """Every control on screen that Tab should reach."""
    found = []
    for widget in window.findChildren(QWidget):
        tab = widget.focusPolicy() & Qt.FocusPolicy.TabFocus
        if not tab or not widget.isVisible() or not widget.isEnabled():
            continue
        if widget.focusProxy() is not None:
            continue  # its proxy takes the focus for it
        if isinstance(widget.parentWidget(), (QAbstractSpinBox, QComboBox)):
            continue  # the text field inside a spin box: the box takes the focus
        found.append(widget)
    return found


def walk(qtbot: QtBot, view: str, limit: int = 120) -> list[QWidget]:
    """Press Tab from where the cursor is until it comes back; fail at a control that
    keeps it (a text browser may: it steps through its links, then lets go)."""
    start = QApplication.focusWidget()
    assert start is not None and start.focusPolicy() & Qt.FocusPolicy.TabFocus, (
        f"{view}: the cursor starts on {name(start)}, which Tab never reaches"
    )
    order = [start]
    kept = 0
    for _ in range(limit):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        now = QApplication.focusWidget()
        if now is start:
            return order
        if now is order[-1]:
            kept += 1
            assert isinstance(now, QTextBrowser) and kept < 20, (
                f"{view}: Tab stays in {name(now)} after {[name(w) for w in order]}"
            )
            continue
        kept = 0
        assert now not in order, f"{view}: Tab goes round without {name(start)}: {name(now)}"
        order.append(now)
    raise AssertionError(f"{view}: Tab never came back to {name(start)}")


def check_view(qtbot: QtBot, window: MainWindow, view: str) -> None:
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    qtbot.wait(50)
    expected = reachable(window)
    order = walk(qtbot, view)
    missed = [name(w) for w in expected if w not in order]
    assert missed == [], f"{view}: Tab never reaches {missed}"
    assert clashes(window) == {}, f"{view}: one Alt+letter for two controls: {clashes(window)}"
    assert assert_learner_words([window.note_list.view], step=view) > 20


def test_tab_reaches_every_control_of_every_view(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.keyClick(window, Qt.Key.Key_F, CTRL)
    qtbot.keyClicks(window.note_list.search_box, "natural")
    qtbot.keyClick(window.note_list.search_box, Qt.Key.Key_Return)  # a note open
    qtbot.waitUntil(lambda: window.editor.has_note(), timeout=WAIT_MS)
    window.editor.assertions.list.setCurrentRow(1)  # so Move up and Move down both work
    check_view(qtbot, window, "Notes")

    qtbot.keyClick(window, Qt.Key.Key_0, CTRL)
    qtbot.waitUntil(lambda: window.views.today.start_button.isEnabled(), timeout=WAIT_MS)
    check_view(qtbot, window, "Today")

    qtbot.keyClick(window, Qt.Key.Key_3, CTRL)
    qtbot.waitUntil(lambda: window.views.sent.model.rowCount() == 2, timeout=WAIT_MS)
    check_view(qtbot, window, "Sent to judge")

    qtbot.keyClick(window, Qt.Key.Key_4, CTRL)
    sessions = window.views.sessions
    qtbot.waitUntil(lambda: sessions.model.rowCount() == 2, timeout=WAIT_MS)
    check_view(qtbot, window, "Sessions")

    qtbot.keyClick(sessions.table, Qt.Key.Key_G, ALT)  # the Gaps by note tab
    assert sessions.tabs.currentWidget() is window.views.gap_board
    window.views.gap_board.setFocus()
    QApplication.focusWidget().focusNextChild()  # into the board, as Tab from its tab does
    check_view(qtbot, window, "Gaps by note")

    qtbot.keyClick(window, Qt.Key.Key_5, CTRL)
    evals = window.views.evals
    qtbot.waitUntil(lambda: evals.sessions.count() == 2, timeout=WAIT_MS)
    check_view(qtbot, window, "Judge consistency")

    qtbot.keyClick(window, Qt.Key.Key_6, CTRL)
    stats = window.views.stats
    qtbot.waitUntil(lambda: stats.stats is not None, timeout=WAIT_MS)
    check_view(qtbot, window, "Statistics")
    qtbot.keyClick(stats.tables_box, Qt.Key.Key_B, ALT)  # every chart as a table
    qtbot.waitUntil(lambda: stats.heatmap_table.isVisible())  # (a mnemonic clicks it soon)
    assert stats.tables_box.isChecked()
    stats.take_focus()
    check_view(qtbot, window, "Statistics as tables")
    for page, letter in ((1, Qt.Key.Key_L), (2, Qt.Key.Key_T)):  # Leeches, Timeline
        qtbot.keyClick(stats.tabs.tabBar(), letter, ALT)
        assert stats.tabs.currentIndex() == page
        stats.take_focus()
        check_view(qtbot, window, stats.tabs.tabText(page).replace("&", ""))

    qtbot.keyClick(window, Qt.Key.Key_1, CTRL)
    qtbot.keyClick(window, Qt.Key.Key_P, CTRL)  # practise the open note: built-in challenges
    pane = window.practice
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    check_view(qtbot, window, "Practice")
    # Every notice of the pane up at once (offline, judge unavailable, no assertions):
    # each Alt+letter is still its own, the menus' included (Alt+H is Help).
    for notice in (pane.view.banner, pane.view.judge_notice, pane.view.assertions_notice):
        notice.show()
    pane.view.download_button.show()
    qtbot.wait(10)
    assert clashes(window) == {}, clashes(window)
