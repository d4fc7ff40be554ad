"""Issue 9 item 7 in the window: Ollama's stream dies mid-reply while the judge answers 429.
The learner sees both reasons at once, goes on practising with built-in challenges, and
every answer is kept for judging later."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini
from fakes.gemini_server import Fault as GeminiFault
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from fakes.ollama_server import Fault as OllamaFault
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from shots import SHOTS
from visible_text import assert_learner_words

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import build_cases
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.practice.practice_pane import Phase
from coach_gui.ui.practice.verdict_view import VerdictState
from coach_gui.ui.shell.main_window import MainWindow

KEY = "test-key"
WAIT_MS = 10_000
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def failing_servers() -> Iterator[tuple[FakeOllama, FakeGemini]]:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        path = Path(os.environ["COACH_CONFIG"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({
            "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": False,
                      "challengesPerSession": 2},
            "judge": {"baseUrl": gemini.url, "maxRetries": 0},
        }), encoding="utf-8")  # fmt: skip
        KeyStore().set(KEY)
        ollama.inject(OllamaFault.CUT_STREAM, times=None)  # every stream dies a few tokens in
        gemini.inject(GeminiFault.QUOTA, times=None)  # every judge request: 429
        yield ollama, gemini


def test_both_services_failing_shows_both_reasons_and_keeps_every_answer(
    qtbot: QtBot,
    failing_servers: tuple[FakeOllama, FakeGemini],
    answer_dialog: Callable[[str], Any],
) -> None:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    model = window.note_list.model
    row = next(
        r for r in range(model.rowCount()) if model.entry(r).note.title == "Natural selection"
    )
    window.note_list.view.setCurrentIndex(model.index(row))
    qtbot.waitUntil(lambda: window.editor.title_edit.text() == "Natural selection", timeout=WAIT_MS)
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_P, CTRL)
    pane = window.practice
    answers = ["Selection keeps useful variation.", "Breeders choose; nature does not."]
    for number, text in enumerate(answers, start=1):
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
        pane.view.answer_box.setFocus()
        qtbot.keyClicks(pane.view.answer_box, text)
        qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, CTRL)
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
        # Both reasons are on screen together: why the challenges are built in, and why
        # the answers are not judged.
        turn = pane.view.turn  # the answer, under its challenge and what was said of it
        assert turn is not None
        ollama_said = turn.notice.text()  # about this challenge: it fell back
        assert turn.notice.isVisible()
        assert "closed before the reply was finished" in ollama_said, ollama_said
        verdict = pane.view.verdict_view  # about this answer: kept, and why it is not judged
        assert verdict.isVisible() and verdict.state is VerdictState.UNJUDGED
        assert "is kept" in verdict.heading.text()
        assert "quota" in verdict.details.toPlainText().lower()
        assert_learner_words([pane.view.answer_box], step=f"answer {number}, both failing")
        if number == 1:
            qtbot.wait(50)
            assert window.grab().save(str(SHOTS / "practice-both-failing.png"), "PNG")
            qtbot.mouseClick(pane.view.next_button, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(pane.view.next_button, Qt.MouseButton.LeftButton)  # "Next: summary"
    qtbot.waitUntil(lambda: pane.phase is Phase.FINISHED, timeout=WAIT_MS)
    assert pane.wait_idle(WAIT_MS)
    assert_learner_words(step="the summary of a session with both failing")
    qtbot.wait(10)

    with sqlite3.connect(window.cases.settings.places().journal) as conn:
        kept = [r[0] for r in conn.execute("SELECT answer FROM attempts ORDER BY submitted_at")]
        sealed = conn.execute("SELECT sealed_trace_id FROM sessions").fetchall()
        refusals = conn.execute("SELECT DISTINCT reason_code FROM judge_refusals").fetchall()
    assert kept == answers  # nothing lost; both wait to be judged later
    assert len(sealed) == 1 and sealed[0][0] is not None
    assert refusals == [("quota",)] or all("quota" in r[0] for r in refusals)
