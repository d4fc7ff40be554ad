"""Every dialog Coach opens answers to the keyboard: each button has its own Alt+letter
(none shared within the dialog), and pressing it does what clicking does. Each dialog is
opened the way a learner opens it, on the real main window over the sample notes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mnemonics import activate, buttons_without_a_key, clashes, inspect_next_modal, offered
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from coach_gui.bootstrap import build_cases
from coach_gui.domain.errors import ConfigError, JournalError
from coach_gui.domain.tier1_errors import OllamaNotRunning
from coach_gui.domain.tier2 import tier2_payload
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.shell.main_window import MainWindow

Answer = Callable[[str], Any]
CTRL = Qt.KeyboardModifier.ControlModifier
WAIT_MS = 10_000


@pytest.fixture
def window(qtbot: QtBot, answer_dialog: Answer) -> Iterator[MainWindow]:
    def discard_edits(w: MainWindow) -> None:
        if w.isVisible() and w.editor.is_dirty():
            answer_dialog("Discard")

    win = MainWindow(build_cases())
    qtbot.addWidget(win, before_close_func=discard_edits)
    with qtbot.waitSignal(win.notes_listed, timeout=WAIT_MS):
        win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: pending_tasks() == [])
    win.activateWindow()
    yield win


def keys_of(seen_keys: list[tuple[str, str]]) -> set[str]:
    return {key for key, _owner in seen_keys}


def open_first_note(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.keyClick(window, Qt.Key.Key_F, CTRL)
    qtbot.keyClick(window.note_list.search_box, Qt.Key.Key_Down)
    assert window.editor.has_note()


def test_unsaved_changes_save_discard_cancel(qtbot: QtBot, window: MainWindow) -> None:
    open_first_note(qtbot, window)
    first = window.editor.title_edit.text()
    qtbot.keyClicks(window.editor.source_edit, " (edited)")
    seen = inspect_next_modal("D")
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_Down)  # another note: asks first
    assert seen.wait().title == "Unsaved changes"
    assert {"Alt+S", "Alt+D", "Alt+C"} <= keys_of(seen.keys)
    assert seen.clashes == {} and seen.keyless == []
    assert seen.answered  # Alt+D discarded: the next note is open
    assert window.editor.title_edit.text() != first and not window.editor.is_dirty()


def test_delete_and_discard_new_note(qtbot: QtBot, window: MainWindow) -> None:
    open_first_note(qtbot, window)
    file_name = window.editor.file_name()
    assert file_name is not None
    seen = inspect_next_modal("C")
    window.menu_actions.delete.trigger()
    assert seen.wait().title == "Delete note" and seen.answered
    assert {"Alt+M", "Alt+C"} <= keys_of(seen.keys) and seen.clashes == {}
    assert (Path(window.cases.notes.location) / file_name).exists()  # Alt+C: kept

    assert activate(window)
    qtbot.keyClick(window, Qt.Key.Key_N, CTRL)
    qtbot.keyClicks(window.editor.title_edit, "Draft")
    seen = inspect_next_modal("D")
    window.menu_actions.delete.trigger()
    assert seen.wait().title == "Discard new note" and seen.answered
    assert {"Alt+D", "Alt+C"} <= keys_of(seen.keys) and seen.keyless == []
    assert not window.editor.has_note()


@pytest.mark.parametrize(
    ("action", "title", "press"),
    [
        ("shortcuts", "Keyboard shortcuts — Coach", "C"),
        ("locations", "Where my data lives — Coach", "C"),
        ("privacy_summary", "Privacy summary — Coach", "C"),
        ("about", "About Coach", "O"),
        ("deleted_notes", "Deleted notes — Coach", "C"),
    ],
)
def test_the_help_windows_and_deleted_notes_close_by_keyboard(
    window: MainWindow, action: str, title: str, press: str
) -> None:
    seen = inspect_next_modal(press)
    getattr(window.menu_actions, action).trigger()
    assert seen.wait().title == title and seen.answered, seen
    assert seen.clashes == {}
    assert f"Alt+{press}" in keys_of(seen.keys)
    # Where my data lives has an Open folder button on each row: Tab reaches them.
    assert set(seen.keyless) <= {"Open folder"}


def test_a_failure_message_and_the_eval_refusal_close_with_alt_o(
    qtbot: QtBot, window: MainWindow
) -> None:
    from coach_gui.ui.kit.failures import show_failure

    seen = inspect_next_modal("O")
    show_failure(window, JournalError("The journal is locked by another Coach."))
    assert seen.wait().answered
    assert "Alt+O" in keys_of(seen.keys) and seen.keyless == []

    assert activate(window)
    qtbot.keyClick(window, Qt.Key.Key_5, CTRL)
    evals = window.views.evals
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    seen = inspect_next_modal("O")
    qtbot.mouseClick(evals.run_button, Qt.MouseButton.LeftButton)  # nothing ticked: refused
    assert seen.wait().title == "Judge consistency" and seen.answered
    assert clashes(evals) == {}


def test_the_notes_folder_question(qtbot: QtBot, window: MainWindow, tmp_path: Path) -> None:
    from coach_gui.ui.settings.notes_folder import NotesFolderChooser

    folder = tmp_path / "vault"
    folder.mkdir()
    (folder / "Idea.md").write_text("# Idea\n", encoding="utf-8")
    switched: list[bool] = []
    seen = inspect_next_modal("U")
    NotesFolderChooser(
        window, window.cases.notes, window.config_owner, lambda: switched.append(True)
    ).look_at(folder)
    assert seen.wait().answered
    assert seen.title == "Open notes folder" and seen.clashes == {}
    assert {"Alt+U", "Alt+C"} <= keys_of(seen.keys)
    qtbot.waitUntil(lambda: switched == [True], timeout=WAIT_MS)  # Alt+U used the folder


def shown(qtbot: QtBot, dialog: QWidget) -> QWidget:
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    return dialog


def test_payload_review_model_download_welcome_and_bad_settings(
    qtbot: QtBot, window: MainWindow
) -> None:
    from coach_gui.ui.practice.model_download import ModelDownloadDialog
    from coach_gui.ui.practice.payload_review import PayloadReviewDialog, PendingReview
    from coach_gui.ui.shell.app import ConfigErrorDialog
    from coach_gui.ui.shell.welcome import show_welcome

    payload = tier2_payload([{"challenge": "Why?", "answer": "Because."}], include_assertions=False)
    review = shown(qtbot, PayloadReviewDialog(PendingReview(payload, "gemini-2.5-flash")))
    assert {"Alt+S", "Alt+D"} <= keys_of(offered(review)) and clashes(review) == {}

    def no_ollama() -> Any:
        raise OllamaNotRunning("http://127.0.0.1:9")

    download = ModelDownloadDialog(no_ollama, "llama3.2:3b")
    shown(qtbot, download)  # the download starts when shown, and stops at once here
    assert download.retry_button.isVisible()
    assert {"Alt+T", "Alt+C"} <= keys_of(offered(download)) and clashes(download) == {}
    assert buttons_without_a_key(download) == []

    welcome = show_welcome(window)
    qtbot.waitUntil(lambda: not welcome.key_section.status_label.text().startswith("Checking"))
    assert clashes(welcome) == {} and buttons_without_a_key(welcome) == []
    welcome.close()

    bad = shown(qtbot, ConfigErrorDialog(ConfigError("must be true or false", key="judge.enabled")))
    assert {"Alt+O", "Alt+T", "Alt+R", "Alt+Q"} <= keys_of(offered(bad))
    assert clashes(bad) == {} and buttons_without_a_key(bad) == []
    bad.close()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)  # the Welcome's check
