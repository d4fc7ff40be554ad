"""Both privacy switches flipped mid-session, in the real main window (issue 13): each
request to the judge carries exactly what the switches said when it was made, and no
answer given with the judge on is left unjudged because a switch moved.

Before the live privacy state, switching *Send core assertions* on mid-session left every
later answer unjudged: the session sent assertions and the adapter, still holding the
switch from the session's start, refused them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fakes.coach_files import write_config
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains, prompt_items
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from test_main_window_practice import open_window

from coach_gui.adapters.secrets import KeyStore
from coach_gui.ui.practice.practice_pane import Phase
from coach_gui.ui.practice.verdict_view import VerdictState
from coach_gui.ui.shell.main_window import MainWindow

Answer = Callable[[str], Any]
KEY = "test-key"
WAIT_MS = 10_000
CTRL = Qt.KeyboardModifier.ControlModifier
CTRL_SHIFT = CTRL | Qt.KeyboardModifier.ShiftModifier
# (judge on?, assertions on?) for each answer, in order: every change from one to the next
# is made with the toolbar's keys while the session is open.
STEPS = [(True, False), (True, True), (False, True), (True, True), (True, False), (False, False),
         (True, False), (True, True)]  # fmt: skip


@pytest.fixture
def servers(wire: str) -> Iterator[tuple[FakeOllama, FakeGemini]]:
    """Tier 1 on both wire formats (the `wire` fixture), the judge on the fake Gemini."""
    with FakeOllama(wire=wire) as ollama, FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("answer")
        write_config({
            "tier1": {**ollama.tier1_config(), "model": DEFAULT_MODEL, "followUps": False,
                      "challengesPerSession": len(STEPS)},
            "judge": {"enabled": True, "includeAssertions": False, "baseUrl": gemini.url,
                      "maxRetries": 0},
        })  # fmt: skip
        KeyStore().set(KEY)
        yield ollama, gemini


def _flip_to(qtbot: QtBot, window: MainWindow, judge: bool, assertions: bool) -> None:
    privacy = window.privacy
    if privacy.judge_action.isChecked() != judge:
        qtbot.keyClick(window, Qt.Key.Key_J, CTRL_SHIFT)
    if privacy.assertions_action.isChecked() != assertions:
        if not privacy.assertions_action.isEnabled():  # greyed out while the judge is off
            qtbot.keyClick(window, Qt.Key.Key_J, CTRL_SHIFT)
            qtbot.keyClick(window, Qt.Key.Key_A, CTRL_SHIFT)
            qtbot.keyClick(window, Qt.Key.Key_J, CTRL_SHIFT)
        else:
            qtbot.keyClick(window, Qt.Key.Key_A, CTRL_SHIFT)
    assert (privacy.judge_action.isChecked(), privacy.assertions_action.isChecked()) == (
        judge,
        assertions,
    )


def test_each_switch_flipped_mid_session_applies_to_the_next_request_exactly(
    qtbot: QtBot, servers: tuple[FakeOllama, FakeGemini], answer_dialog: Answer
) -> None:
    _ollama, gemini = servers
    window = open_window(qtbot, answer_dialog)
    model = window.note_list.model
    entry = next(
        model.entry(r) for r in range(model.rowCount())
        if model.entry(r).note.title == "Natural selection"
    )  # fmt: skip
    assertions = entry.note.core_assertions
    window.views.show_practice()
    window.practice.start(entry.note)
    pane = window.practice
    for n, (judge, with_assertions) in enumerate(STEPS):
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
        _flip_to(qtbot, window, judge, with_assertions)
        pane.view.answer_box.setPlainText(f"answer {n}: kept differences add up over generations")
        qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, CTRL)
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
        if judge:
            assert pane.view.verdict_view.state is VerdictState.PASSED, n
        else:
            turn = pane.view.turn
            assert turn is not None and "the judge is switched off" in turn.status.text(), n
        if n + 1 < len(STEPS):
            qtbot.keyClick(pane.view.next_button, Qt.Key.Key_Return, CTRL)

    sent = [prompt_items(r)[0] for r in gemini.generate_requests]
    judged_steps = [(n, a) for n, (j, a) in enumerate(STEPS) if j]
    assert [item.answer.split(":")[0] for item in sent] == [f"answer {n}" for n, _ in judged_steps]
    assert [item.assertions is not None for item in sent] == [a for _, a in judged_steps]
    assert all(item.assertions == assertions for item in sent if item.assertions is not None)

    with sqlite3.connect(window.cases.settings.places().journal) as conn:
        attempts = conn.execute(
            "SELECT a.answer, a.status, a.unjudged_reason, v.assertions_sent FROM attempts a "
            "LEFT JOIN verdicts v ON v.attempt_id = a.id ORDER BY a.submitted_at"
        ).fetchall()
        refused = conn.execute("SELECT COUNT(*) FROM judge_refusals").fetchone()[0]
    assert len(attempts) == len(STEPS)
    for (answer, _status, reason, assertions_sent), (judge, with_assertions) in zip(
        attempts, STEPS, strict=True
    ):
        if judge:
            assert assertions_sent == int(with_assertions), answer  # judged, as switched
        else:
            assert assertions_sent is None and reason == "the judge is switched off", answer
    assert refused == 0  # nothing was refused for a switch that moved
