"""The Today view over a seeded history (judged by the fake Gemini on loopback, time set
with COACH_NOW), its empty state, Start, and the self-rating buttons of the practice pane."""

from __future__ import annotations

import io
import json
import os
import socket
import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from cli_run import practise
from fakes.gemini_server import (
    FakeGemini,
    RecordedRequest,
    assessed_reply,
    passes_items_whose_answer_contains,
    prompt_items,
)
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from shots import SHOTS

from coach_gui.bootstrap import AppContext, build_context, use_cases
from coach_gui.cli import main
from coach_gui.domain.notes import Note
from coach_gui.operations.today import DuePractice
from coach_gui.ui.practice.practice_pane import PracticePane
from coach_gui.ui.practice.practice_view import Phase
from coach_gui.ui.schedule.today_view import TodayView

KEY = "test-key"
WAIT_MS = 10_000
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _configure(gemini_url: str, *, judge: bool = True) -> None:
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({
            # No Ollama: built-in challenges, which quote nothing.
            "tier1": {"ollamaUrl": f"http://127.0.0.1:{_dead_port()}", "followUps": False,
                      "challengesPerSession": 1},
            "judge": {"enabled": judge, "baseUrl": gemini_url, "maxRetries": 0},
        }),
        encoding="utf-8",
    )  # fmt: skip


def _misses_assertion_1_of_natural_selection(request: RecordedRequest) -> str:
    items = []
    for item in prompt_items(request):
        gaps = (
            [{"assertion": 1, "problem": "wrong", "explanation": "Not so."}]
            if "natural" in item.answer.lower()
            else []
        )
        items.append({"index": item.index, "verdict": "fail" if gaps else "pass",
                      "gaps": gaps, "feedback": "ok"})  # fmt: skip
    return assessed_reply(request, json.dumps({"items": items}))


def _seed_history(
    gemini: FakeGemini,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two notes practised on three days: one keeps a misconception, one is explained;
    then the clock is a month on."""
    gemini.reply_for = _misses_assertion_1_of_natural_selection
    _configure(gemini.url)
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
    assert main(["key", "set"]) == 0
    for n in (0, 1, 3):
        monkeypatch.setenv("COACH_NOW", (START + timedelta(days=n)).isoformat())
        practise(capsys, tmp_path, "Natural kinds fixed.", note="natural-selection")
        practise(capsys, tmp_path, "Mates choose.", note="sexual-selection")
    monkeypatch.setenv("COACH_NOW", (START + timedelta(days=30)).isoformat())


@pytest.fixture
def seeded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[AppContext]:
    """The seeded history, with the judge gone (answers from now on stay unjudged)."""
    with FakeGemini(api_keys={KEY}) as gemini:
        _seed_history(gemini, tmp_path, capsys, monkeypatch)
    context = build_context()
    yield context
    context.close()


def _lookup(context: AppContext) -> dict[str, Note]:
    return {entry.note.id: entry.note for entry in context.notes.load().notes}


def _view(qtbot: QtBot, context: AppContext) -> TodayView:
    view = TodayView(use_cases(context).schedule, _lookup(context).get)
    qtbot.addWidget(view)
    view.resize(980, 640)
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.show()
    return view


def test_today_lists_due_notes_open_gaps_first_and_starts_them_with_plans(
    qtbot: QtBot, seeded: AppContext
) -> None:
    view = _view(qtbot, seeded)
    titles = [view.tree.topLevelItem(n).text(0) for n in range(view.tree.topLevelItemCount())]
    assert len(titles) == 2
    assert titles[0].startswith("Natural selection") and "a key point wrong" in titles[0]
    assert titles[1].startswith("Sexual selection")
    first = view.tree.topLevelItem(0)
    assert first.child(0).text(0).startswith("2. ") and "(wrong)" in first.child(0).text(0)
    assert first.child(0).text(3) == "again"
    assert view.start_button.isEnabled() and "2 notes due" in view.summary_label.text()
    assert len(view.chart.days) == 14 and view.chart.days[0][1] == view.today.due  # type: ignore[union-attr]
    for widget in view.findChildren(QWidget):
        if widget.isVisible() and widget.focusPolicy() != Qt.FocusPolicy.NoFocus:
            assert widget.accessibleName(), f"{widget!r} has no accessible name"

    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)  # let layouts settle before the grab
    assert view.grab().save(str(SHOTS / "today.png"), "PNG")

    with qtbot.waitSignal(view.start_requested, timeout=WAIT_MS) as started:
        view.tree.setFocus()
        qtbot.keyClick(view.tree, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    practice: list[DuePractice] = started.args[0]
    assert [p.note.title for p in practice] == ["Natural selection", "Sexual selection"]
    plan = practice[0].plan
    assert plan.targets[0] == 1 and len(plan.gap_ids) == 1 and len(plan.decision_id) == 64
    assert practice[1].plan.gap_ids == ()


def test_nothing_due_says_what_to_do(qtbot: QtBot) -> None:
    _configure(f"http://127.0.0.1:{_dead_port()}", judge=False)
    context = build_context()
    try:
        view = _view(qtbot, context)
        assert view.pages.currentWidget() is view.empty_label
        assert view.empty_label.text().startswith(
            "Nothing due in the next 14 days. Practise a note to start its schedule."
        )
        assert view.summary_label.text() == "Nothing due."
        assert not view.start_button.isEnabled()
        assert "Nothing falls due" in view.chart.accessibleDescription()
    finally:
        context.close()


def test_self_rating_buttons_record_a_rating_for_an_unjudged_answer(qtbot: QtBot) -> None:
    _configure(f"http://127.0.0.1:{_dead_port()}", judge=False)
    context = build_context()
    entry = context.notes.load().find("natural-selection")
    assert entry is not None
    pane = PracticePane(use_cases(context).practice)
    qtbot.addWidget(pane)
    pane.resize(900, 700)
    pane.show()
    try:
        pane.start(entry.note)
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
        pane.view.answer_box.setFocus()
        qtbot.keyClicks(pane.view.answer_box, "Useful inherited differences spread.")
        qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
        panel = pane.view.self_rating
        assert panel.isVisible()
        assert entry.note.core_assertions[0] in panel.caption.text()
        qtbot.mouseClick(panel.buttons[2], Qt.MouseButton.LeftButton)  # Hard
        qtbot.waitUntil(lambda: "Rated Hard" in panel.status.text(), timeout=WAIT_MS)
        panel.buttons[4].setFocus()
        qtbot.keyClick(panel.buttons[4], Qt.Key.Key_3)  # the key changes it to Good
        qtbot.waitUntil(lambda: "Rated Good" in panel.status.text(), timeout=WAIT_MS)
        with sqlite3.connect(context.journal_path) as conn:
            rows = conn.execute("SELECT assertion, rating FROM self_ratings").fetchall()
        assert sorted(rows) == sorted((text, 3) for text in entry.note.core_assertions)
        due = context.scheduler().today(_lookup(context).get)
        assert due.notes == []  # rated Good just now: not due today
        assert sum(count for _, count in due.forecast) == len(entry.note.core_assertions)
    finally:
        assert pane.shutdown(WAIT_MS)
        qtbot.wait(10)
        context.close()


def test_coach_opens_on_today_and_practises_the_due_notes_in_turn(
    qtbot: QtBot, seeded: AppContext
) -> None:
    """With a history, the main window opens on Today; Start practises the due notes one
    after another, each session sealing the scheduler's decision that chose it."""
    from coach_gui.ui.shell.main_window import MainWindow

    window = MainWindow(use_cases(seeded))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    views = window.views
    qtbot.waitUntil(lambda: views.stack.currentWidget() is views.today, timeout=WAIT_MS)
    assert window.menu_actions.show_today.isChecked()
    window.resize(1180, 760)
    qtbot.wait(50)  # let layouts settle before the grab
    assert window.grab().save(str(SHOTS / "main-window-today.png"), "PNG")
    plans = {p.note.title: p.plan for p in views.today.practice}
    # The two due notes, then today's new notes (5 a day, oldest first: all found at once,
    # so in file order).
    new_titles = [p.note.title for p in views.today.practice][2:]
    assert len(new_titles) == 5 and "Difficulties" in new_titles[0]

    qtbot.mouseClick(views.today.start_button, Qt.MouseButton.LeftButton)
    pane = views.practice
    assert views.stack.currentWidget() is pane
    assert pane.view.title_label.text() == "Practising gaps: Natural selection"
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    qtbot.keyClicks(pane.view.answer_box, "Selection keeps useful variation; it makes none.")
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
    qtbot.mouseClick(pane.view.next_button, Qt.MouseButton.LeftButton)  # "Next: summary"
    qtbot.waitUntil(lambda: pane.phase is Phase.FINISHED, timeout=WAIT_MS)
    assert pane.view.next_due_button.isVisible()
    assert "Sexual selection" in pane.view.next_due_button.text()

    qtbot.mouseClick(pane.view.next_due_button, Qt.MouseButton.LeftButton)
    assert pane.view.title_label.text() == "Practising what is due: Sexual selection"
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    assert pane.view.finish_button.isEnabled()
    qtbot.mouseClick(pane.view.finish_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: pane.phase is Phase.FINISHED, timeout=WAIT_MS)
    assert new_titles[0] in pane.view.next_due_button.text()  # then the new notes
    assert pane.wait_idle(WAIT_MS)
    qtbot.wait(10)

    with sqlite3.connect(seeded.journal_path) as conn:
        chosen = conn.execute(
            "SELECT note_title_at_start, scheduler_decision_id, gap_ids FROM sessions"
            " WHERE scheduler_decision_id IS NOT NULL ORDER BY started_at"
        ).fetchall()
    assert [(title, decision) for title, decision, _gaps in chosen] == [
        ("Natural selection", plans["Natural selection"].decision_id),
        ("Sexual selection", plans["Sexual selection"].decision_id),
    ]
    assert json.loads(chosen[0][2]) == list(plans["Natural selection"].gap_ids)

    # Ctrl+5: Judge consistency lists the judged sessions (the seeded history's six).
    with qtbot.waitSignal(views.evals.sessions_loaded, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_5, Qt.KeyboardModifier.ControlModifier)
    assert views.stack.currentWidget() is views.evals
    assert window.menu_actions.show_evals.isChecked()
    assert views.evals.sessions.count() == 6


def test_today_is_read_again_after_a_session_it_started(
    qtbot: QtBot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Practising a due note from Start (judged: explained) takes it off Today when the
    learner goes back, so Start never practises from an old list."""
    from coach_gui.ui.shell.main_window import MainWindow

    with FakeGemini(api_keys={KEY}) as gemini:  # the judge stays up: the answer is judged
        _seed_history(gemini, tmp_path, capsys, monkeypatch)
        context = build_context()
        window = MainWindow(use_cases(context))
        qtbot.addWidget(window)
        with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
            window.show()
        views = window.views
        qtbot.waitUntil(lambda: views.stack.currentWidget() is views.today, timeout=WAIT_MS)
        assert [p.note.title for p in views.today.practice][:2] == [
            "Natural selection",
            "Sexual selection",
        ]

        qtbot.mouseClick(views.today.start_button, Qt.MouseButton.LeftButton)
        pane = views.practice
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
        qtbot.keyClicks(pane.view.answer_box, "Selection keeps useful variation; it makes none.")
        qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
        qtbot.mouseClick(pane.view.next_button, Qt.MouseButton.LeftButton)  # "Next: summary"
        qtbot.waitUntil(lambda: pane.phase is Phase.FINISHED, timeout=WAIT_MS)
        assert pane.wait_idle(WAIT_MS)

        with qtbot.waitSignal(views.today.loaded, timeout=WAIT_MS):
            qtbot.keyClick(window, Qt.Key.Key_0, Qt.KeyboardModifier.ControlModifier)
        assert [p.note.title for p in views.today.practice][:2] == [
            "Sexual selection",
            "Difficulties of the theory",  # the first new note
        ]
        window.close()
        qtbot.wait(10)
        context.close()


def test_right_after_practice_today_says_when_the_next_key_points_are_due(
    qtbot: QtBot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every key point explained on Monday 2 November: nothing is due that day, and Today
    says when the next ones are, not that there is no schedule yet."""
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        _configure(gemini.url)
        monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0
        monkeypatch.setenv("TZ", "UTC")  # the learner's day: midnight to midnight UTC
        time.tzset()
        monkeypatch.setenv("COACH_NOW", START.isoformat())
        practise(capsys, tmp_path, "It spreads because it helps.", note="natural-selection")
    monkeypatch.setenv("COACH_NOW", (START + timedelta(hours=1)).isoformat())
    context = build_context()
    try:
        view = _view(qtbot, context)
        entry = context.notes.load().find("natural-selection")
        assert entry is not None
        count = len(entry.note.core_assertions)
        assert view.today is not None and view.today.notes == []
        assert view.pages.currentWidget() is view.empty_label
        # FSRS gives a first "Good" about two days: due on Wednesday 4 November.
        said = f"Nothing due today. Next: {count} key points on Wednesday 4 November."
        assert view.empty_label.text().startswith(said + "\n\n")
        assert view.summary_label.text() == said
        assert "start its schedule" not in view.empty_label.text()
    finally:
        context.close()
        time.tzset()


def test_a_new_desired_retention_saved_in_settings_reschedules_today(
    qtbot: QtBot, seeded: AppContext
) -> None:
    """Settings › Desired retention 0.70 (fewer reviews): Today is worked out again at
    once, with fewer key points due than at 0.90 and none sooner, and the next session's
    settings follow."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from coach_gui.ui.settings.settings_dialog import SettingsDialog
    from coach_gui.ui.shell.main_window import MainWindow

    window = MainWindow(use_cases(seeded))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    views = window.views
    qtbot.waitUntil(lambda: views.stack.currentWidget() is views.today, timeout=WAIT_MS)
    today = views.today.today
    assert today is not None

    def due_times() -> dict[tuple[str, int], str]:
        shown = views.today.today
        assert shown is not None
        return {(n.note.id, a.index): a.memory.due for n in shown.notes for a in n.assertions}

    before = due_times()
    seen: list[str] = []

    def change_settings(tries: int = 200) -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, SettingsDialog):
            if tries:
                QTimer.singleShot(10, lambda: change_settings(tries - 1))
            return
        for field, text in ((dialog.desired_retention, "0.70"),
                            (dialog.challenges_per_session, "1")):  # fmt: skip
            field.setFocus()
            field.selectAll()
            qtbot.keyClicks(field, text)
        seen.append(dialog.problem_label.text() if dialog.problem_label.isVisible() else "")
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, change_settings)
    with qtbot.waitSignal(views.today.loaded, timeout=WAIT_MS):
        window.open_settings()
    assert seen == [""]
    assert seeded.config.schedule.desired_retention == 0.7
    assert seeded.practice_settings().challenges == 1
    after = due_times()  # fewer reviews: most key points are not due yet after all
    assert after.keys() < before.keys() and views.today.today.due < today.due  # type: ignore[union-attr]
    assert all(after[key] >= before[key] for key in after)
    window.close()
