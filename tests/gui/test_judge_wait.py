"""Issue 33, item 2: a judge that hangs no longer holds the learner. The wait says which try
it is and how long is left; Esc or Cancel judging stops it at once (the answer kept,
unjudged, for Judge later); the whole wait, every retry included, has a bound; and closing
during a hang does not wait for it. A fake Gemini over a real socket that never answers."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fakes.gemini_server import FakeGemini, Fault
from fakes.ollama_server import FakeOllama
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from test_practice_judged import (  # noqa: F401  (fixtures)
    ANSWER,
    KEY,
    WAIT_MS,
    answer,
    configure,
    make_pane,
    natural_selection,
    rows,
    saved_turn,
    servers,
    wait_answered,
)

from coach_gui.adapters import gemini as gemini_adapter
from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import AppContext
from coach_gui.ui.practice.practice_pane import PracticePane
from coach_gui.ui.practice.verdict_view import VerdictState

HANG_SECONDS = 120.0  # longer than any wait here: the judge never answers in time


def hanging(gemini: FakeGemini) -> None:
    gemini.slow_seconds = HANG_SECONDS
    gemini.inject(Fault.SLOW, times=None)


def judging_pane(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],  # noqa: F811
    make_pane: Callable[[AppContext], PracticePane],  # noqa: F811
    **judge: object,
) -> tuple[PracticePane, AppContext]:
    ollama, gemini = servers
    KeyStore().set(KEY)
    hanging(gemini)
    context = configure(ollama, gemini, **judge)
    pane = make_pane(context)
    pane.start(natural_selection(context))
    answer(qtbot, pane)
    return pane, context


@pytest.mark.parametrize("stop", ["Esc", "Cancel judging"])
def test_the_wait_is_shown_and_esc_or_cancel_stops_it_keeping_the_answer(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],  # noqa: F811
    make_pane: Callable[[AppContext], PracticePane],  # noqa: F811
    stop: str,
) -> None:
    pane, context = judging_pane(qtbot, servers, make_pane, timeoutSeconds=30, maxRetries=2)
    view = saved_turn(qtbot, pane).verdict
    qtbot.waitUntil(lambda: "try 1 of 3" in view.heading.text(), timeout=WAIT_MS)
    heading = view.heading.text()
    assert heading.startswith("Judging your answer… try 1 of 3, at most ")
    assert "s left (Esc or Cancel stops waiting; the answer is kept)" in heading
    left = int(heading.split("at most ")[1].split(" s")[0])
    assert 40 <= left <= 45  # one 30 s try plus 15 s for retries, not 3 × 30 s
    cancel = pane.view.cancel_button
    assert cancel.isEnabled() and cancel.text() == "&Cancel judging"

    if stop == "Esc":
        qtbot.keyClick(pane.view.next_button, Qt.Key.Key_Escape)
    else:
        pane.view.activateWindow()
        qtbot.keyClick(pane.view, Qt.Key.Key_C, Qt.KeyboardModifier.AltModifier)
    wait_answered(qtbot, pane)  # in moments, not when the try times out (30 s)
    assert view.state is VerdictState.UNJUDGED
    assert "You cancelled judging; this answer is kept" in view.details.toPlainText()
    assert rows(context, "SELECT answer, status FROM attempts") == [(ANSWER, "unjudged")]
    assert rows(context, "SELECT reason_code FROM judge_refusals") == [("cancelled",)]
    assert not cancel.isEnabled()
    assert pane.view.self_rating.isVisible()  # it can be rated meanwhile, or judged later
    assert len(servers[1].generate_requests) == 1  # and no retry goes out after the cancel


def test_the_whole_wait_has_a_bound_not_only_each_try(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],  # noqa: F811
    make_pane: Callable[[AppContext], PracticePane],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Six tries of 2 s each would hold the learner 12 s and more; the whole wait is 3 s."""
    monkeypatch.setattr(gemini_adapter, "RETRY_ALLOWANCE_SECONDS", 1.0)
    pane, context = judging_pane(qtbot, servers, make_pane, timeoutSeconds=2, maxRetries=5)
    view = saved_turn(qtbot, pane).verdict
    qtbot.waitUntil(lambda: "of 6" in view.heading.text(), timeout=WAIT_MS)
    wait_answered(qtbot, pane)
    assert view.state is VerdictState.UNJUDGED
    assert "did not answer within 3 s" in view.details.toPlainText()
    assert rows(context, "SELECT status FROM attempts") == [("unjudged",)]
    assert len(servers[1].generate_requests) <= 2


def test_closing_during_a_hang_does_not_wait_for_the_judge(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],  # noqa: F811
    make_pane: Callable[[AppContext], PracticePane],  # noqa: F811
) -> None:
    pane, context = judging_pane(qtbot, servers, make_pane, timeoutSeconds=60, maxRetries=2)
    view = saved_turn(qtbot, pane).verdict
    qtbot.waitUntil(lambda: "try 1 of 3" in view.heading.text(), timeout=WAIT_MS)
    # As the window does when it closes: the session ends and its lane is idle within a
    # second, though the judge's try would wait a minute.
    assert pane.shutdown(1_000)
    assert rows(context, "SELECT answer, status FROM attempts") == [(ANSWER, "unjudged")]


def test_judge_pending_cancel_stops_a_hanging_judge_at_once(
    qtbot: QtBot,
    tmp_path: object,
    capsys: pytest.CaptureFixture[str],
    answer_dialog: Callable[[str], object],
    coach_home: object,
) -> None:
    """The sweep of issue 33: *Judge pending answers…* had the same wait. Its Cancel now
    stops the request under way too (it used to let it finish: up to the whole wait)."""
    from pathlib import Path

    from PySide6.QtWidgets import QApplication, QProgressDialog, QPushButton
    from test_sessions_view import _configure, _practise_offline, _rows, _window

    from coach_gui.ui.kit import tasks

    with FakeGemini(api_keys={KEY}) as gemini:
        _configure(gemini.url)
        KeyStore().set(KEY)
        _practise_offline(Path(str(tmp_path)), capsys, "Kept unjudged, to be judged later.")
        hanging(gemini)
        window = _window(qtbot)
        action = window.views.judge_pending.action
        asked = answer_dialog("Judge now")
        action.trigger()
        qtbot.waitUntil(lambda: bool(asked.answered), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: bool(gemini.generate_requests), timeout=WAIT_MS)  # sent
        dialog = window.views.judge_pending.progress
        assert isinstance(dialog, QProgressDialog) and dialog.isVisible()
        # Well within the judge's own timeout (30 s) and its whole wait (45 s).
        (cancel,) = [b for b in dialog.findChildren(QPushButton) if b.isVisible()]
        assert cancel.text() == "&Cancel"
        with qtbot.waitSignal(window.views.judge_pending.finished, timeout=5_000):
            cancel.click()
        assert QApplication.activeModalWidget() is None
        pending = _rows(Path(str(coach_home)), "SELECT status FROM attempts")
        assert [row["status"] for row in pending] == ["unjudged"]  # kept, for later
        qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=WAIT_MS)  # Sessions, read
        window.close()
