"""The learner steers Today in the window (issue 19): new notes under the daily limit, sealed
with the rule that chose them; suspend, bury and resume a note or one key point; leeches
flagged in words and opened for rewording; Undo review and Redo review; Settings ›
Practice. Real journal, real sample notes, the fake Gemini on loopback, time set with
COACH_NOW."""

from __future__ import annotations

import io
import json
import os
import re
import socket
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

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
from PySide6.QtWidgets import QApplication, QTreeWidgetItem
from pytestqt.qtbot import QtBot
from time_zone import learner_in
from visible_text import assert_learner_words

from coach_gui.bootstrap import AppContext, build_context, use_cases
from coach_gui.cli import main
from coach_gui.ui.practice.practice_view import Phase
from coach_gui.ui.schedule.today_view import HELD, HELD_HEADER, NEW_HEADER, NEW_NOTE, TodayView
from coach_gui.ui.shell.main_window import MainWindow

KEY = "test-key"
WAIT_MS = 10_000
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
CTRL = Qt.KeyboardModifier.ControlModifier
# The sample notes in file order (the "file" order of new notes).
BY_FILE = [
    "Difficulties of the theory",
    "Divergence of character",
    "Geographical distribution",
    "The imperfection of the geological record",
    "Natural selection",
    "Sexual selection",
    "The struggle for existence",
    "Variation under domestication",
]


@pytest.fixture(autouse=True)
def learner_in_utc() -> Iterator[None]:
    """The learner's day runs midnight to midnight UTC (the burial's end, "today")."""
    with learner_in("UTC"):
        yield


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _configure(gemini_url: str | None, **schedule: Any) -> None:
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    judge = {"enabled": gemini_url is not None, "maxRetries": 0}
    if gemini_url is not None:
        judge["baseUrl"] = gemini_url
    path.write_text(
        json.dumps({
            "tier1": {"ollamaUrl": f"http://127.0.0.1:{_dead_port()}", "followUps": False,
                      "challengesPerSession": 1},
            "judge": judge,
            "schedule": schedule,
        }),
        encoding="utf-8",
    )  # fmt: skip


def _wrong_on_key_point_2(request: RecordedRequest) -> str:
    items = [
        {"index": item.index, "verdict": "fail", "feedback": "ok",
         "gaps": [{"assertion": 1, "problem": "wrong", "explanation": "Not so."}]}
        for item in prompt_items(request)
    ]  # fmt: skip
    return assessed_reply(request, json.dumps({"items": items}))


def _window(qtbot: QtBot, context: AppContext) -> MainWindow:
    window = MainWindow(use_cases(context))
    qtbot.addWidget(window)
    window.resize(1180, 760)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    return window


def _show_today(qtbot: QtBot, window: MainWindow) -> TodayView:
    today = window.views.today
    with qtbot.waitSignal(today.loaded, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_0, CTRL)
        today.refresh()  # read now, whether or not it was out of date
    return today


def _reload(qtbot: QtBot, today: TodayView) -> None:
    with qtbot.waitSignal(today.loaded, timeout=WAIT_MS):
        today.refresh()


def _rows(today: TodayView, kind: str) -> list[QTreeWidgetItem]:
    return [row for row in today.rows() if today.kind_of(row) == kind]


def _texts(today: TodayView, kind: str) -> list[str]:
    return [row.text(0) for row in _rows(today, kind)]


def _press(qtbot: QtBot, today: TodayView, row: QTreeWidgetItem, key: Qt.Key) -> None:
    """Select `row` and press Ctrl+`key` in the list; wait for Today to be read again."""
    today.tree.setFocus()
    today.tree.setCurrentItem(row)
    with qtbot.waitSignal(today.loaded, timeout=WAIT_MS):
        qtbot.keyClick(today.tree, key, CTRL)


def _close(qtbot: QtBot, window: MainWindow, context: AppContext) -> None:
    window.close()
    qtbot.wait(10)
    context.close()


def _decision(journal: Path) -> dict[str, Any]:
    with sqlite3.connect(journal) as conn:
        rows = conn.execute(
            "SELECT d.fields FROM sessions s JOIN scheduler_decisions d"
            " ON d.id = s.scheduler_decision_id ORDER BY s.started_at"
        ).fetchall()
    assert len(rows) == 1
    return dict(json.loads(rows[0][0]))


def test_a_new_vault_brings_in_new_notes_and_undo_takes_the_first_review_back(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """3 a day in file order: Today offers the first three notes (not "Nothing due");
    practising the first seals the limit and the order; Undo review makes it new again,
    Redo review begins it again, and the session stays listed."""
    _configure(None, newPerDay=3, newOrder="file")
    monkeypatch.setenv("COACH_NOW", START.isoformat())
    context = build_context()
    window = _window(qtbot, context)
    views = window.views
    assert views.stack.currentWidget() is window.splitter  # no history: on the notes
    today = _show_today(qtbot, window)
    assert today.pages.currentWidget() is today.tree
    header = _texts(today, NEW_HEADER)
    assert header == ["New notes today: 3 of 3 — 5 more waiting · by folder and file name"]
    offered = _texts(today, NEW_NOTE)
    assert [t.split(". ", 1)[1].split(" — ")[0] for t in offered] == BY_FILE[:3]
    assert all(t.endswith(" key points") for t in offered)
    assert today.summary_label.text() == "Nothing due. New today: 3 of 3 — 5 more waiting."
    assert [p.note.title for p in today.practice] == BY_FILE[:3]
    assert not window.menu_actions.undo_review.isEnabled()  # nothing practised yet

    qtbot.keyClick(today.tree, Qt.Key.Key_Return, CTRL)  # Start
    pane = views.practice
    assert pane.view.title_label.text() == f"Beginning a new note: {BY_FILE[0]}"
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    qtbot.keyClicks(pane.view.answer_box, "Organs of extreme perfection arose by steps.")
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, CTRL)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
    panel = pane.view.self_rating
    qtbot.mouseClick(panel.buttons[3], Qt.MouseButton.LeftButton)  # Good
    qtbot.waitUntil(lambda: "Rated Good" in panel.status.text(), timeout=WAIT_MS)
    qtbot.mouseClick(pane.view.next_button, Qt.MouseButton.LeftButton)  # the summary
    qtbot.waitUntil(lambda: pane.phase is Phase.FINISHED, timeout=WAIT_MS)
    assert pane.wait_idle(WAIT_MS)
    qtbot.waitUntil(window.menu_actions.undo_review.isEnabled, timeout=WAIT_MS)
    assert BY_FILE[1] in pane.view.next_due_button.text()  # the next new note

    decision = _decision(context.journal_path)
    assert decision["reason"] == "new_note" and decision["schedule"]["new_limit"] == 3
    assert decision["schedule"]["new_order"] == "file" and decision["schedule"]["rank"] == 1
    assert decision["schedule"]["new_begun_today"] == 0

    undo = window.menu_actions.undo_review
    assert undo.isEnabled()
    assert re.fullmatch(rf"Undo review of ‘{BY_FILE[0]}’ \(today \d\d:\d\d\)",
                        undo.text().replace("&", ""))  # fmt: skip
    when = undo.text().rsplit("(", 1)[1].rstrip(")")
    assert views.review_undo.button.isVisible()  # the status bar offers it too
    today = _show_today(qtbot, window)
    assert [p.note.title for p in today.practice] == BY_FILE[1:3]
    assert "(1 already begun)" in _texts(today, NEW_HEADER)[0]

    with qtbot.waitSignal(today.loaded, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_Z, CTRL | Qt.KeyboardModifier.AltModifier)
    said = window.statusBar().currentMessage()
    assert said.startswith(f"Undid the review of ‘{BY_FILE[0]}’ ({when})")
    assert "Your answers and the judge's verdicts stay in the history." in said
    assert [p.note.title for p in today.practice] == BY_FILE[:3]  # new again
    qtbot.waitUntil(lambda: window.menu_actions.redo_review.isEnabled(), timeout=WAIT_MS)
    assert not window.menu_actions.undo_review.isEnabled()

    shift = CTRL | Qt.KeyboardModifier.AltModifier | Qt.KeyboardModifier.ShiftModifier
    with qtbot.waitSignal(today.loaded, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_Z, shift)
    assert (
        window.statusBar()
        .currentMessage()
        .startswith(f"Counted the review of ‘{BY_FILE[0]}’ ({when}) again")
    )
    assert [p.note.title for p in today.practice] == BY_FILE[1:3]
    with qtbot.waitSignal(views.sessions.loaded, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_4, CTRL)
    assert views.sessions.table.model().rowCount() == 1  # the session stays listed
    qtbot.waitUntil(lambda: window.menu_actions.undo_review.isEnabled(), timeout=WAIT_MS)
    _close(qtbot, window, context)


def test_after_beginning_the_daily_limit_the_next_new_note_waits_for_tomorrow(
    qtbot: QtBot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        _configure(gemini.url)  # the defaults: 5 a day, oldest first
        monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0
        monkeypatch.setenv("COACH_NOW", START.isoformat())
        for name in ("natural-selection", "sexual-selection", "divergence-of-character",
                     "struggle-for-existence", "geographical-distribution"):  # fmt: skip
            practise(capsys, tmp_path, "It spreads because it helps.", note=name)
    monkeypatch.setenv("COACH_NOW", (START + timedelta(hours=2)).isoformat())
    context = build_context()
    try:
        catalogue = context.notes.load().notes
        view = TodayView(use_cases(context).schedule, {e.note.id: e.note for e in catalogue}.get,
                         catalogue=lambda: catalogue)  # fmt: skip
        qtbot.addWidget(view)
        with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
            view.show()
        assert view.today is not None and view.today.new is not None
        assert view.today.new.notes == [] and view.practice == []  # the sixth is not offered
        assert view.pages.currentWidget() is view.empty_label
        text = view.empty_label.text()
        assert (
            "You have begun 5 new notes today, your daily limit; 3 wait for tomorrow. "
            "Change the limit in Settings › Practice (Ctrl+,)." in text
        )
        assert "Daily limit of new notes reached" in view.summary_label.text()

        monkeypatch.setenv("COACH_NOW", (START + timedelta(days=1)).isoformat())
        _reload(qtbot, view)
        assert len(view.practice) == 3  # a new day: the three that waited
    finally:
        context.close()


@pytest.fixture
def missed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Iterator[AppContext]:
    """Natural selection practised on two days, its key point 2 wrong both times (missed
    once after it was first seen: a leech at 1 miss); then a month on, the judge gone."""
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = _wrong_on_key_point_2
        _configure(gemini.url, leechLapses=1, newPerDay=0)
        monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0
        for n in (0, 1):
            monkeypatch.setenv("COACH_NOW", (START + timedelta(days=n)).isoformat())
            practise(capsys, tmp_path, "Natural kinds are fixed.", note="natural-selection")
    monkeypatch.setenv("COACH_NOW", (START + timedelta(days=30)).isoformat())
    context = build_context()
    yield context
    context.close()


def test_a_leech_is_flagged_in_words_and_ctrl_e_opens_it_for_rewording(
    qtbot: QtBot, missed: AppContext
) -> None:
    window = _window(qtbot, missed)
    today = window.views.today
    qtbot.waitUntil(lambda: window.views.stack.currentWidget() is today, timeout=WAIT_MS)
    note = today.rows()[0]
    assert note.text(0).startswith("Natural selection") and "1 to reword" in note.text(0)
    leech = next(note.child(n) for n in range(note.childCount())
                 if note.child(n).text(0).startswith("2. "))  # fmt: skip
    assert "(wrong) [missed once — consider rewording it]" in leech.text(0)
    assert "1 key point flagged: consider rewording." in today.summary_label.text()
    today.tree.setFocus()
    today.tree.setCurrentItem(leech)
    assert today.edit_action.text() == "&Edit note to reword this key point"
    qtbot.keyClick(today.tree, Qt.Key.Key_E, CTRL)
    editor = window.editor
    assert window.views.stack.currentWidget() is window.splitter
    assert editor.title_edit.text() == "Natural selection"
    assert editor.assertions.list.currentRow() == 1 and editor.assertions.list.hasFocus()
    _close(qtbot, window, missed)


def test_suspend_bury_and_resume_a_note_and_a_key_point(
    qtbot: QtBot, missed: AppContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = _window(qtbot, missed)
    today = window.views.today
    qtbot.waitUntil(lambda: window.views.stack.currentWidget() is today, timeout=WAIT_MS)
    note = today.rows()[0]
    points = note.childCount()
    second = next(note.child(n) for n in range(points) if note.child(n).text(0).startswith("2. "))

    _press(qtbot, today, second, Qt.Key.Key_B)  # bury key point 2
    note = today.rows()[0]
    assert note.childCount() == points - 1
    assert not any(note.child(n).text(0).startswith("2. ") for n in range(note.childCount()))
    assert _texts(today, HELD_HEADER) == ["Held back — 1 (Resume: Ctrl+R)"]
    held = _rows(today, HELD)
    assert held[0].text(0).startswith("Natural selection: 2. ")
    assert held[0].text(1) == "buried until tomorrow"
    assert today.notice_label.text().startswith(
        "Buried key point 2 of “Natural selection” until tomorrow"
    )

    _press(qtbot, today, today.rows()[0], Qt.Key.Key_J)  # suspend the whole note
    assert today.today is not None and today.today.notes == []
    assert "Natural selection — suspended" in [f"{r.text(0)} — {r.text(1)}" for r in
                                               _rows(today, HELD)]  # fmt: skip
    assert today.pages.currentWidget() is today.tree  # what is held is still listed
    assert today.start_button.isEnabled() is False
    assert_learner_words()  # every word on screen is the learner's, in the Schedule menu too
    suspended = next(r for r in _rows(today, HELD) if r.text(1) == "suspended")
    today.tree.setCurrentItem(suspended)
    window.schedule_menu.aboutToShow.emit()
    shown = {a.text().replace("&", ""): a.isEnabled() for a in window.schedule_menu.actions()}
    assert shown["Resume “Natural selection”"] and not shown["Suspend"]  # in the menu too
    _press(qtbot, today, suspended, Qt.Key.Key_R)  # resume the note: the burial still holds
    assert [n.note.title for n in today.today.notes] == ["Natural selection"]
    assert today.rows()[0].childCount() == points - 1
    assert today.notice_label.text().startswith("Resumed “Natural selection”")

    monkeypatch.setenv("COACH_NOW", (START + timedelta(days=31, hours=1)).isoformat())
    _reload(qtbot, today)  # the next day: the burial is over
    assert today.rows()[0].childCount() == points
    assert _rows(today, HELD) == []
    _close(qtbot, window, missed)


def test_settings_practice_fields_validate_save_and_reschedule_today_at_once(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtCore import QTimer

    from coach_gui.config import load_config
    from coach_gui.ui.settings.settings_dialog import SettingsDialog

    _configure(None)
    monkeypatch.setenv("COACH_NOW", START.isoformat())
    context = build_context()
    window = _window(qtbot, context)
    today = _show_today(qtbot, window)
    assert len(today.practice) == 5  # the default limit
    seen: list[str] = []

    def change(tries: int = 200) -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, SettingsDialog):
            if tries:
                QTimer.singleShot(10, lambda: change(tries - 1))
            return
        assert dialog.new_per_day.value() == 5 and dialog.leech_lapses.value() == 4
        dialog.new_per_day.setFocus()
        dialog.new_per_day.lineEdit().setText("")  # half typed: no number yet
        seen.append(dialog.problem_label.text())
        seen.append(str(dialog.ok_button.isEnabled()))
        dialog.new_per_day.setValue(2)
        dialog.new_order.setCurrentIndex(dialog.new_order.findData("newest"))
        dialog.leech_lapses.setValue(6)
        seen.append(dialog.problem_label.text() if dialog.problem_label.isVisible() else "")
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    QTimer.singleShot(0, change)
    with qtbot.waitSignal(today.loaded, timeout=WAIT_MS):
        window.open_settings()
    assert seen == [
        "Daily limit of new notes: type a whole number from 0 to 500 (5 is the default).",
        "False",
        "",
    ]
    saved = load_config(context.config_path).schedule
    assert (saved.new_per_day, saved.new_order, saved.leech_lapses) == (2, "newest", 6)
    assert len(today.practice) == 2  # Today followed at once
    assert "newest first" in _texts(today, NEW_HEADER)[0]
    _close(qtbot, window, context)
