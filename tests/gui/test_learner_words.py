"""What the window says when things go wrong is in the learner's words, end to end: Ollama
not running and a judge that does not answer in time, then judging the kept answer later,
and a bad settings file at start. At each step every text on screen is read
(tests/gui/visible_text.py): no config key, exception class, web page or backend name,
and no "1 sessions"."""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, Fault
from mnemonics import inspect_next_modal
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from visible_text import assert_learner_words

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import build_cases
from coach_gui.config import ConfigError, config_path, load_config
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.practice.practice_view import Phase
from coach_gui.ui.practice.verdict_view import VerdictState
from coach_gui.ui.shell.main_window import MainWindow

KEY = "test-key"
WAIT_MS = 15_000
CTRL = Qt.KeyboardModifier.ControlModifier
Answer = Callable[[str], Any]


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def slow_judge() -> Iterator[FakeGemini]:
    """No Ollama (nothing listens at its address) and a judge slower than its time limit."""
    with FakeGemini(api_keys={KEY}) as gemini:
        path = Path(os.environ["COACH_CONFIG"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({
            "tier1": {"ollamaUrl": f"http://127.0.0.1:{_dead_port()}", "followUps": False,
                      "challengesPerSession": 1},
            "judge": {"baseUrl": gemini.url, "maxRetries": 0, "timeoutSeconds": 1},
        }), encoding="utf-8")  # fmt: skip
        KeyStore().set(KEY)
        gemini.slow_seconds = 2.0
        gemini.inject(Fault.SLOW)
        yield gemini


@pytest.fixture
def window(qtbot: QtBot, answer_dialog: Answer) -> Iterator[MainWindow]:
    win = MainWindow(build_cases())
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.notes_listed, timeout=WAIT_MS):
        win.show()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    win.activateWindow()
    yield win
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def test_no_ollama_and_a_slow_judge_are_told_in_words(
    qtbot: QtBot, slow_judge: FakeGemini, window: MainWindow
) -> None:
    qtbot.waitUntil(lambda: "not reachable" in window.views.tier1_status.text(), timeout=WAIT_MS)
    assert_learner_words([window.note_list.view], step="the window, Ollama not running")

    qtbot.keyClick(window, Qt.Key.Key_F, CTRL)
    qtbot.keyClicks(window.note_list.search_box, "natural selection")
    qtbot.keyClick(window.note_list.search_box, Qt.Key.Key_Return)
    qtbot.keyClick(window, Qt.Key.Key_P, CTRL)
    pane = window.practice
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    assert "Ollama is not running" in pane.view.banner_label.text()
    own = [window.note_list.view, pane.view.answer_box]
    assert_learner_words(own, step="a built-in challenge, Ollama not running")

    qtbot.keyClicks(pane.view.answer_box, "Useful variations are kept, over many generations.")
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(  # the verdict of the answer's own turn in the thread
        lambda: pane.view.verdict_view.state is VerdictState.UNJUDGED, timeout=WAIT_MS
    )
    said = pane.view.verdict_view.details.toPlainText()
    assert "did not answer within 1 s" in said and "Gemini timeout, in Settings" in said
    assert_learner_words(own, step="the judge out of time")
    qtbot.mouseClick(pane.view.next_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.phase is Phase.FINISHED, timeout=WAIT_MS)
    assert pane.wait_idle(WAIT_MS)
    assert_learner_words(own, step="the session's summary")

    qtbot.keyClick(window, Qt.Key.Key_3, CTRL)
    qtbot.waitUntil(lambda: window.views.sent.model.rowCount() == 1, timeout=WAIT_MS)
    assert_learner_words(own, step="Sent to judge, the request that timed out")

    qtbot.keyClick(window, Qt.Key.Key_4, CTRL)
    sessions = window.views.sessions
    qtbot.waitUntil(lambda: sessions.model.rowCount() == 1, timeout=WAIT_MS)
    assert sessions.message.text() == "1 session listed"
    assert_learner_words(own, step="Sessions, one session")

    seen = inspect_next_modal("J")  # Judge now, by its Alt+letter
    with qtbot.waitSignal(window.views.judge_pending.finished, timeout=WAIT_MS):
        window.menu_actions.judge_pending.trigger()  # the judge answers in time now
    assert seen.wait().title == "Judge pending answers" and seen.answered
    assert seen.clashes == {} and {"Alt+J", "Alt+C"} <= {key for key, _ in seen.keys}
    qtbot.waitUntil(lambda: sessions.notice.isVisible(), timeout=WAIT_MS)
    assert "because Send core assertions is on now" in sessions.notice.text()
    assert_learner_words(own, step="the kept answer judged later")

    qtbot.keyClick(window, Qt.Key.Key_0, CTRL)
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    assert_learner_words(own, step="Today after a session")


@pytest.mark.parametrize(
    ("bad", "said"),
    [
        ({"judge": {"includeAssertions": "yes"}}, "Send core assertions to the judge: "),
        ({"judge": {"timeoutSeconds": 0}}, "Gemini timeout: Input should be greater than 0"),
        ({"judge": {"includeAssertion": True}}, "an entry Coach does not know in its Judge"),
        ({"noQuote": 3}, "The No-quote check part: must be a group of settings"),
    ],
)
def test_a_bad_settings_file_names_the_setting_as_settings_does(
    qtbot: QtBot, bad: dict[str, Any], said: str
) -> None:
    from coach_gui.ui.shell.app import ConfigErrorDialog

    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    dialog = ConfigErrorDialog(caught.value)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert said in dialog.informativeText()
    assert str(path) in dialog.informativeText()  # where to fix it
    assert_learner_words(step=f"a bad settings file ({said})")
    dialog.close()
