"""Issue 33, item 5: the session summary's sentence about the judge says what is true now.
The learner practised with the judge off, switched it on (Ctrl+Shift+J) and finished: the
summary still said "The judge is switched off…". It now follows the switch, also while
the summary is on screen."""

from __future__ import annotations

from fakes.gemini_server import FakeGemini
from fakes.ollama_server import FakeOllama
from mnemonics import activate
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot
from test_practice_judged import (  # noqa: F401
    KEY,
    WAIT_MS,
    answer,
    configure,
    servers,
    wait_answered,
)

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import use_cases
from coach_gui.ui.kit import tasks
from coach_gui.ui.shell.main_window import MainWindow

CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
OFF = "The judge is switched off"


def test_the_summary_follows_the_judge_switch(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],  # noqa: F811
) -> None:
    ollama, gemini = servers
    KeyStore().set(KEY)
    window = MainWindow(use_cases(configure(ollama, gemini, enabled=False)))
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        pass
    assert activate(window)
    pane = window.practice
    window.views.show_practice()
    pane.start(window.cases.notes.store.load().find("natural-selection").note)  # type: ignore[union-attr]
    answer(qtbot, pane)
    wait_answered(qtbot, pane)  # kept unjudged: the judge is off

    QTest.keyClick(window, Qt.Key.Key_J, CTRL_SHIFT)  # the judge on, before finishing
    qtbot.waitUntil(lambda: window.cases.settings.config.judge.enabled, timeout=WAIT_MS)
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS):
        pane.view.next_button.click()
    summary = pane.view.summary_label
    qtbot.waitUntil(summary.isVisible, timeout=WAIT_MS)
    assert OFF not in summary.text()
    assert "The judge is on now" in summary.text()
    assert "Judge pending answers" in summary.text()

    QTest.keyClick(window, Qt.Key.Key_J, CTRL_SHIFT)  # and off again, summary on screen
    qtbot.waitUntil(lambda: not window.cases.settings.config.judge.enabled, timeout=WAIT_MS)
    assert OFF in summary.text()
    assert gemini.generate_requests == []  # nothing was sent meanwhile
    assert pane.shutdown(WAIT_MS)
    window.close()
    assert tasks.wait_for_writes(WAIT_MS)  # the switches, saved
    qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=WAIT_MS)  # and delivered
