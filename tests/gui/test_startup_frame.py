"""The window opens in two steps (issue 16): the frame is on screen before the config and
the rest of Coach are loaded, and what the learner does meanwhile is kept — typing in the
search box filters the notes once they arrive, Ctrl+P practises the note that opens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from coach_gui.bootstrap import build_cases, build_context, use_cases
from coach_gui.ui.kit import window_state
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.practice.practice_view import Phase
from coach_gui.ui.shell.main_window import OPENING_TEXT, MainWindow

CTRL = Qt.KeyboardModifier.ControlModifier
WAIT_MS = 15_000


def _titles(window: MainWindow) -> list[str]:
    model = window.note_list.model
    return [model.entry(row).note.title for row in range(model.rowCount())]


def test_typing_and_ctrl_p_in_the_frame_are_kept_until_the_notes_arrive(
    qtbot: QtBot, answer_dialog: Callable[[str], Any]
) -> None:
    context = build_context()
    entries = context.notes.load().notes
    natural = next(e for e in entries if e.note.title == "Natural selection")
    window_state.window_settings().setValue(window_state.LAST_NOTE, natural.note.id)

    window = MainWindow()  # the frame, as `coach` shows it first
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()  # the learner's double-click gives it focus
    qtbot.waitUntil(window.isActiveWindow)
    assert not window.is_attached
    assert window.where_label.text() == OPENING_TEXT
    assert window.menu_actions.practise.isEnabled()  # a key pressed now is not lost
    qtbot.keyClicks(window.note_list.search_box, "selection")
    qtbot.keyClick(window.note_list.search_box, Qt.Key.Key_P, CTRL)

    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.attach(use_cases(context))
    assert window.where_label.text().startswith("Notes in ")
    assert window.note_list.search_box.text() == "selection"
    qtbot.waitUntil(lambda: "Natural selection" in _titles(window), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: len(_titles(window)) < len(entries), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.practice.active, timeout=WAIT_MS)  # the queued Ctrl+P
    assert window.practice.note is not None
    assert window.practice.note.title == "Natural selection"
    qtbot.waitUntil(lambda: window.practice.phase is Phase.ANSWERING, timeout=WAIT_MS)
    window.practice.finish()
    qtbot.waitUntil(lambda: window.practice.phase is Phase.FINISHED, timeout=WAIT_MS)
    window.listing.stop_watching()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def test_the_frame_closes_before_it_is_attached(qtbot: QtBot) -> None:
    """Quitting while Coach opens (or on a bad config) closes the frame at once."""
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    assert window.close()
    assert not window.isVisible()


def test_the_frame_has_the_finished_windows_chrome(qtbot: QtBot) -> None:
    """No jump when the rest arrives: the menus, toolbar and status bar are there from
    the first paint, and attaching adds the privacy switches in their place."""
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    menus = [a.text() for a in window.menuBar().actions()]
    before = len(window.toolbar.actions())
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.attach(build_cases())
    assert [a.text() for a in window.menuBar().actions()] == menus
    toolbar = window.toolbar.actions()
    assert len(toolbar) == before + len(window.privacy.actions()) + 1  # and a separator
    anchor = toolbar.index(window.toolbar_anchor)
    assert toolbar[anchor - 1].isSeparator()
    assert all(a in toolbar[:anchor] for a in window.privacy.actions())
    window.listing.stop_watching()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def test_ctrl_p_after_the_frame_is_attached_waits_for_the_notes(
    qtbot: QtBot, answer_dialog: Callable[[str], Any]
) -> None:
    """Found in review: attaching turned Practise off until a note was open, so Ctrl+P
    pressed while the notes were still loading was lost."""
    context = build_context()
    natural = next(e for e in context.notes.load().notes if e.note.title == "Natural selection")
    window_state.window_settings().setValue(window_state.LAST_NOTE, natural.note.id)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.attach(use_cases(context))
        assert window.menu_actions.practise.isEnabled()  # listed later: the key waits
        qtbot.keyClick(window.note_list.search_box, Qt.Key.Key_P, CTRL)
    qtbot.waitUntil(lambda: window.practice.phase is Phase.ANSWERING, timeout=WAIT_MS)
    assert window.practice.note is not None
    assert window.practice.note.title == "Natural selection"
    window.practice.finish()
    qtbot.waitUntil(lambda: window.practice.phase is Phase.FINISHED, timeout=WAIT_MS)
    window.listing.stop_watching()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def test_a_failure_while_opening_says_so_and_ends_the_app(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch, answer_dialog: Callable[[str], Any]
) -> None:
    """Found in review: an error while the frame waited for the rest (a reset config that
    cannot be written, say) left a frame saying "Opening your notes…" for ever."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from coach_gui.ui.shell import app

    def refuse(**_options: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(app, "open_use_cases", refuse)
    said = answer_dialog("OK")  # the message box, answered as a person would
    guard = QTimer()
    guard.setSingleShot(True)
    guard.timeout.connect(lambda: QApplication.instance().exit(99))  # a hang fails, not stalls
    guard.start(10_000)
    assert app.run_gui([]) == 2
    guard.stop()
    assert said.answered and said.title == "Coach cannot start"
    assert "unexpected problem" in said.text and "Traceback" not in said.text
    assert not any(w.isVisible() for w in QApplication.topLevelWidgets())
