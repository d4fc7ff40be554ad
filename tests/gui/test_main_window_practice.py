"""Practice inside the main window: Ctrl+P practises the open note, Ctrl+1 / Ctrl+2 switch
between the notes and the practice view, the Tier 1 indicator sits in the status bar,
and closing mid-session ends the session with every submitted answer kept."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import build_cases
from coach_gui.operations.tier1 import Tier1State
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.practice.practice_pane import Phase
from coach_gui.ui.practice.verdict_view import VerdictState
from coach_gui.ui.shell import help_dialogs
from coach_gui.ui.shell.main_window import MainWindow

Answer = Callable[[str], Any]  # the answer_dialog fixture (tests/gui/conftest.py)
KEY = "test-key"
HONEST = "Why can a process that only keeps or removes traits still produce new kinds?"
SECOND = "How would the work of a pigeon fancier differ from what happens in the wild?"
WAIT_MS = 10_000
CTRL = Qt.KeyboardModifier.ControlModifier


@pytest.fixture
def servers(wire: str) -> Iterator[tuple[FakeOllama, FakeGemini]]:
    """Tier 1 on both wire formats (the `wire` fixture), the judge on the fake Gemini."""
    with FakeOllama(wire=wire) as ollama, FakeGemini(api_keys={KEY}) as gemini:
        for text in (HONEST, SECOND):
            ollama.queue_challenge(text)
        path = Path(os.environ["COACH_CONFIG"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({
            "tier1": {**ollama.tier1_config(), "model": DEFAULT_MODEL, "followUps": False,
                      "challengesPerSession": 2},
            "judge": {"baseUrl": gemini.url, "maxRetries": 0},
        }), encoding="utf-8")  # fmt: skip
        KeyStore().set(KEY)
        yield ollama, gemini


def open_window(qtbot: QtBot, answer_dialog: Answer) -> MainWindow:
    def settle(window: MainWindow) -> None:  # pytest-qt closes the window after the test
        if window.isVisible() and window.practice.has_unsubmitted_answer():
            answer_dialog("Discard")

    window = MainWindow(build_cases())
    qtbot.addWidget(window, before_close_func=settle)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)  # index and Tier 1 check
    window.activateWindow()
    return window


def open_note(qtbot: QtBot, window: MainWindow, title: str) -> None:
    model, view = window.note_list.model, window.note_list.view
    row = next(r for r in range(model.rowCount()) if model.entry(r).note.title == title)
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(model.index(row)).center()
    )
    assert window.editor.title_edit.text() == title


def rows(window: MainWindow, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(window.cases.settings.places().journal) as conn:
        return conn.execute(sql).fetchall()


def answer(qtbot: QtBot, window: MainWindow, text: str) -> None:
    pane = window.practice
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    qtbot.keyClicks(pane.view.answer_box, text)
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, CTRL)


def test_ctrl_p_practises_the_open_note_and_ctrl_1_ctrl_2_switch_views(
    qtbot: QtBot, servers: tuple[FakeOllama, FakeGemini], answer_dialog: Answer
) -> None:
    window = open_window(qtbot, answer_dialog)
    assert not window.views.on_practice
    assert window.views.tier1_status.status.state is Tier1State.READY
    assert window.views.tier1_status.text() == DEFAULT_MODEL
    open_note(qtbot, window, "Natural selection")

    qtbot.keyClick(window.note_list.view, Qt.Key.Key_P, CTRL)
    assert window.views.on_practice
    assert window.practice.view.title_label.text() == "Practising: Natural selection"
    answer(qtbot, window, "Useful inherited differences are kept and add up.")
    qtbot.waitUntil(lambda: window.practice.phase is Phase.ANSWERED, timeout=WAIT_MS)
    assert window.practice.view.verdict_view.state is VerdictState.PASSED  # the fake passes it

    qtbot.keyClick(window.practice.view.next_button, Qt.Key.Key_1, CTRL)
    assert not window.views.on_practice
    assert window.menu_actions.show_notes.isChecked()
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_2, CTRL)
    assert window.views.on_practice and window.practice.phase is Phase.ANSWERED
    qtbot.keyClick(window.practice.view.next_button, Qt.Key.Key_Escape)  # not streaming: no-op
    assert window.views.on_practice

    window.views.show_notes()
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_P, CTRL)  # the same note: back to it
    assert window.views.on_practice and window.practice.phase is Phase.ANSWERED
    assert rows(window, "SELECT COUNT(*) FROM sessions") == [(1,)]

    keys = dict(help_dialogs.shortcut_rows(window.menu_actions.with_shortcuts()))
    assert keys["Ctrl+P"] == "Practise note"
    assert (keys["Ctrl+1"], keys["Ctrl+2"]) == ("Show notes", "Show practice")


def test_practise_with_unsaved_edits_asks_first_and_practises_the_saved_note(
    qtbot: QtBot, servers: tuple[FakeOllama, FakeGemini], answer_dialog: Answer
) -> None:
    window = open_window(qtbot, answer_dialog)
    open_note(qtbot, window, "Natural selection")
    qtbot.keyClicks(window.editor.title_edit, " (revised)")

    asked = answer_dialog("Cancel")
    window.menu_actions.practise.trigger()
    assert asked.answered and asked.title == "Unsaved changes"
    assert not window.views.on_practice and not window.practice.active

    asked = answer_dialog("Save")
    window.menu_actions.practise.trigger()
    assert asked.answered
    qtbot.waitUntil(lambda: window.views.on_practice, timeout=WAIT_MS)
    assert window.practice.view.title_label.text() == "Practising: Natural selection (revised)"
    assert not window.editor.is_dirty()


def test_closing_mid_session_ends_it_keeps_every_answer_and_reopens_on_practice(
    qtbot: QtBot, servers: tuple[FakeOllama, FakeGemini], answer_dialog: Answer
) -> None:
    window = open_window(qtbot, answer_dialog)
    open_note(qtbot, window, "Natural selection")
    window.menu_actions.practise.trigger()
    answer(qtbot, window, "Useful inherited differences are kept and add up.")
    qtbot.waitUntil(lambda: window.practice.phase is Phase.ANSWERED, timeout=WAIT_MS)
    window.practice.view.next_button.click()
    qtbot.waitUntil(lambda: window.practice.phase is Phase.ANSWERING, timeout=WAIT_MS)
    qtbot.keyClicks(window.practice.view.answer_box, "half an answer")

    asked = answer_dialog("Cancel")
    window.close()
    assert asked.answered and "not submitted yet" in asked.text
    assert window.isVisible() and window.practice.active

    asked = answer_dialog("Discard")
    window.close()
    assert asked.answered and not window.isVisible()
    assert rows(window, "SELECT a.answer, a.status FROM attempts a") == [
        ("Useful inherited differences are kept and add up.", "judged")
    ]
    assert rows(window, "SELECT ended_at IS NOT NULL, disposition FROM sessions") == [
        (1, "all_passed")
    ]

    again = open_window(qtbot, answer_dialog)
    assert again.views.on_practice  # a session was in progress: back where the learner was
    assert again.practice.view.resume_button.isVisible()
    assert "Natural selection" in again.practice.view.idle_label.text()
    with qtbot.waitSignal(again.practice.session_started, timeout=WAIT_MS):
        qtbot.mouseClick(again.practice.view.resume_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: again.practice.phase is Phase.ANSWERING, timeout=WAIT_MS)
    again.practice.finish()  # nothing typed: no question
    qtbot.waitUntil(lambda: again.practice.phase is Phase.FINISHED, timeout=WAIT_MS)
    again.close()

    third = open_window(qtbot, answer_dialog)
    assert not third.views.on_practice  # the last session was finished: open on the notes
    assert QApplication.activeModalWidget() is None


def test_a_note_without_assertions_says_so_and_offers_to_add_them(
    qtbot: QtBot, servers: tuple[FakeOllama, FakeGemini], answer_dialog: Answer
) -> None:
    """Issue 14: most vault notes have no core assertions; practice says what that means
    for grading and takes the learner to add some."""
    window = open_window(qtbot, answer_dialog)
    kb = Path(window.cases.notes.location)
    (kb / "Bare idea.md").write_text("An idea written in Obsidian.\n", encoding="utf-8")
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.listing.reload()
    open_note(qtbot, window, "Bare idea")
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_P, CTRL)
    notice = window.practice.view.assertions_notice
    assert notice.isVisible() and "no core assertions" in notice.label.text()
    qtbot.waitUntil(lambda: window.practice.phase is Phase.ANSWERING, timeout=WAIT_MS)
    qtbot.mouseClick(window.practice.view.add_assertions_button, Qt.MouseButton.LeftButton)
    assert not window.views.on_practice
    assert window.editor.title_edit.text() == "Bare idea"
    qtbot.waitUntil(lambda: window.editor.assertions.list.count() == 1, timeout=WAIT_MS)
    open_note(qtbot, window, "Natural selection")  # a note with assertions: no notice
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_P, CTRL)
    assert not notice.isVisible()
