"""Issue 17, undo, on the real main window: an assertion removed, added, edited or moved
comes back with Ctrl+Z (text and place), only for the note it belongs to, and the file on
disk changes only when the learner saves; a deleted note comes back with Ctrl+Z in the note
list, the status bar's Undo or File › Deleted notes… (after a restart too), at its path,
byte for byte, with its id and so its history; a file that took its place is never
overwritten; and Ctrl+N from the Practice view shows the new draft."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fakes.vaults import file_hashes, obsidian_vault
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot
from test_main_window import kb, open_note, titles, type_into_item_editor, wait_saved

from coach_gui.bootstrap import build_cases, build_context
from coach_gui.cli import main
from coach_gui.ui.kit import tasks
from coach_gui.ui.notes.deleted_notes import DeletedNotesDialog
from coach_gui.ui.shell.main_window import MainWindow

Answer = Callable[[str], Any]  # the answer_dialog fixture (tests/gui/conftest.py)
CTRL = Qt.KeyboardModifier.ControlModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
NATURAL_SELECTION = 5  # assertions in the sample note


def _configure(vault: Path | None = None) -> None:
    """No Ollama (built-in challenges) and no judge: `coach practice` runs offline."""
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {
        "tier1": {"ollamaUrl": "http://127.0.0.1:9", "followUps": False},
        "judge": {"enabled": False},
    }
    if vault is not None:
        settings["kb"] = {"path": str(vault)}
    config.write_text(json.dumps(settings), encoding="utf-8")


def _open_window(qtbot: QtBot, answer_dialog: Answer) -> MainWindow:
    def discard_edits(w: MainWindow) -> None:
        if w.isVisible() and w.editor.is_dirty():
            answer_dialog("Discard")

    window = MainWindow(build_cases())
    qtbot.addWidget(window, before_close_func=discard_edits)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    qtbot.waitExposed(window)
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [])
    window.activateWindow()
    return window


def _settle(qtbot: QtBot, window: MainWindow) -> None:
    """No watcher report may start a reload after the test: stop watching, then wait."""
    window.listing.stop_watching()
    qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=10_000)


@dataclass
class _Answer:
    button: str
    text: str = ""
    informative: str = ""
    answered: bool = False


def _answer_question(button: str) -> _Answer:
    """Like `answer_dialog`, for a question asked over a dialog already open: the click
    waits for a message box, not for the first modal window."""
    answer = _Answer(button)

    def click(tries_left: int) -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            if tries_left:
                QTimer.singleShot(10, lambda: click(tries_left - 1))
            return
        answer.text, answer.informative = box.text(), box.informativeText()
        for candidate in box.buttons():
            if candidate.text().replace("&", "") == button:
                answer.answered = True
                candidate.click()
                return
        box.close()

    QTimer.singleShot(0, lambda: click(500))
    return answer


def _select_assertion(qtbot: QtBot, window: MainWindow, row: int) -> None:
    listed = window.editor.assertions.list
    window.activateWindow()  # back from a dialog
    listed.setFocus()
    listed.setCurrentRow(row)
    qtbot.waitUntil(listed.hasFocus)


def _delete_open_note(qtbot: QtBot, window: MainWindow, answer_dialog: Answer) -> Path:
    path = kb(window) / (window.editor.file_name() or "")
    answer = answer_dialog("Move to trash")
    window.menu_actions.delete.trigger()
    assert answer.answered
    qtbot.waitUntil(lambda: not path.exists() and not window.editor.has_note())
    return path


# --- assertions ------------------------------------------------------------------------------


def test_a_removed_assertion_comes_back_in_its_place_and_the_file_changes_only_on_save(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    window = _open_window(qtbot, answer_dialog)
    path = open_note(qtbot, window, "Natural selection")
    original = path.read_bytes()
    editor = window.editor
    before = editor.assertions.assertions()
    assert len(before) == NATURAL_SELECTION
    _select_assertion(qtbot, window, 2)
    listed = editor.assertions.list

    qtbot.keyClick(listed, Qt.Key.Key_Delete)
    assert editor.assertions.assertions() == before[:2] + before[3:]
    assert editor.is_dirty() and window.isWindowModified()
    qtbot.keyClick(listed, Qt.Key.Key_Z, CTRL)
    assert editor.assertions.assertions() == before
    assert listed.currentRow() == 2 and listed.currentItem().text() == before[2]
    assert not editor.is_dirty() and not window.isWindowModified()  # back to the saved state
    assert path.read_bytes() == original  # nothing was written

    qtbot.keyClick(listed, Qt.Key.Key_Z, CTRL_SHIFT)  # redo: removed again
    assert editor.assertions.assertions() == before[:2] + before[3:] and editor.is_dirty()
    qtbot.keyClick(window, Qt.Key.Key_S, CTRL)
    wait_saved(qtbot, window)
    assert before[2].encode() not in path.read_bytes()  # saved without it, as asked

    listed.setFocus()
    qtbot.keyClick(listed, Qt.Key.Key_Z, CTRL)  # undo past the save: an unsaved edit again
    assert editor.assertions.assertions() == before
    assert editor.is_dirty() and before[2].encode() not in path.read_bytes()
    qtbot.keyClick(listed, Qt.Key.Key_Y, CTRL)  # Ctrl+Y redoes too: the saved state
    assert not editor.is_dirty()
    qtbot.keyClick(listed, Qt.Key.Key_Z, CTRL)
    qtbot.keyClick(window, Qt.Key.Key_S, CTRL)
    wait_saved(qtbot, window)
    assert path.read_bytes() == original  # put back where it was, as it was written
    _settle(qtbot, window)


def test_adding_editing_and_moving_are_undone_in_turn(qtbot: QtBot, answer_dialog: Answer) -> None:
    window = _open_window(qtbot, answer_dialog)
    open_note(qtbot, window, "Natural selection")
    editor = window.editor
    before = editor.assertions.assertions()
    listed = editor.assertions.list
    _select_assertion(qtbot, window, 0)

    qtbot.keyClick(listed, Qt.Key.Key_Insert)
    type_into_item_editor(qtbot, "Selection is slow.")
    qtbot.waitUntil(lambda: len(editor.assertions.assertions()) == NATURAL_SELECTION + 1)
    added = editor.assertions.assertions()
    assert added[1] == "Selection is slow."
    listed.setFocus()
    listed.setCurrentRow(3)
    qtbot.keyClick(listed, Qt.Key.Key_F2)
    type_into_item_editor(qtbot, "An edited assertion.")
    qtbot.waitUntil(lambda: "An edited assertion." in editor.assertions.assertions())
    edited = editor.assertions.assertions()
    listed.setFocus()
    qtbot.keyClick(listed, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    moved = editor.assertions.assertions()
    assert moved[4] == "An edited assertion." and moved != edited

    seen = []
    for _ in range(3):
        qtbot.keyClick(listed, Qt.Key.Key_Z, CTRL)
        seen.append(editor.assertions.assertions())
        assert window.statusBar().currentMessage().startswith("Undone: ")
    assert seen == [edited, added, before]
    assert not editor.is_dirty()
    qtbot.keyClick(listed, Qt.Key.Key_Z, CTRL)
    assert editor.assertions.assertions() == before
    assert window.statusBar().currentMessage() == "Nothing to undo here."
    _settle(qtbot, window)


def test_undo_never_reaches_another_note_and_typing_keeps_its_own_undo(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    window = _open_window(qtbot, answer_dialog)
    path = open_note(qtbot, window, "Natural selection")
    original = path.read_bytes()
    editor = window.editor
    _select_assertion(qtbot, window, 0)
    qtbot.keyClick(editor.assertions.list, Qt.Key.Key_Delete)
    removed = editor.assertions.assertions()
    qtbot.keyClicks(editor.title_edit, " (draft)")
    qtbot.keyClick(editor.title_edit, Qt.Key.Key_Z, CTRL)  # the title field's own undo
    assert editor.title_edit.text() == "Natural selection"
    assert editor.assertions.assertions() == removed

    answer = answer_dialog("Discard")
    other = open_note(qtbot, window, "Sexual selection")
    assert answer.answered
    theirs = editor.assertions.assertions()
    _select_assertion(qtbot, window, 0)
    qtbot.keyClick(editor.assertions.list, Qt.Key.Key_Z, CTRL)
    assert editor.assertions.assertions() == theirs and not editor.is_dirty()
    assert window.statusBar().currentMessage() == "Nothing to undo here."
    assert path.read_bytes() == original and other.is_file()
    _settle(qtbot, window)


# --- deleted notes ---------------------------------------------------------------------------


def test_delete_then_ctrl_z_in_the_note_list_puts_it_back_with_its_history(
    qtbot: QtBot, answer_dialog: Answer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vault = obsidian_vault(tmp_path / "vault")  # it has a .trash folder: Obsidian's own
    _configure(vault.root)
    rel = next(
        n.rel_path
        for n in vault.notes
        if n.assertions and b"\nid:" not in (vault.root / n.rel_path).read_bytes()
    )
    window = _open_window(qtbot, answer_dialog)
    note_id = next(e.note.id for e in window.listing.entries.values() if e.file_name == rel)
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["An answer in my own words."]), encoding="utf-8")
    capsys.readouterr()
    argv = ["practice", note_id, "--count", "1", "--answers", str(answers), "--judge", "off"]
    assert main([*argv, "--json"]) == 0  # its history: a session in the journal
    session_id = json.loads(capsys.readouterr().out)["session_id"]
    start = file_hashes(vault.root)

    window.open_note(note_id)
    path = _delete_open_note(qtbot, window, answer_dialog)
    trashed = f".trash/{path.name}"
    during = file_hashes(vault.root)
    assert {k for k in start.keys() | during.keys() if start.get(k) != during.get(k)} == {
        rel,
        trashed,
    }
    assert window.window_undo.button.isVisible()
    assert "trash" in window.statusBar().currentMessage()
    window.activateWindow()  # back from the question: focus is where the window left it
    qtbot.waitUntil(window.note_list.view.hasFocus)

    qtbot.keyClick(window.note_list.view, Qt.Key.Key_Z, CTRL)
    qtbot.waitUntil(lambda: path.exists() and window.editor.current_note_id() == note_id)
    assert file_hashes(vault.root) == start  # every file as it was, the note byte for byte
    assert window.editor.file_name() == rel
    assert window.note_list.current_note_id() == note_id
    assert window.window_undo.button.isHidden()
    assert "Restored" in window.statusBar().currentMessage()
    from coach_gui.operations.review import sessions

    journal = build_context(seed=False)  # the same journal, read as the terminal does
    (session,) = sessions(journal, limit=None)
    journal.close()
    assert session.session_id == session_id
    attached = window.entry_for(session.note_id)  # what the views look the session up by
    assert attached is not None and attached.file_name == rel
    _settle(qtbot, window)


def test_deleted_notes_lists_it_after_a_restart_and_restore_selects_it(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    window = _open_window(qtbot, answer_dialog)
    path = open_note(qtbot, window, "Divergence of character")
    original = path.read_bytes()
    _delete_open_note(qtbot, window, answer_dialog)  # into the system trash
    _settle(qtbot, window)
    window.close()

    again = _open_window(qtbot, answer_dialog)  # Coach opened again
    assert "Divergence of character" not in titles(again)
    again.menu_actions.deleted_notes.trigger()
    dialog = again.findChild(DeletedNotesDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1)
    cells = [dialog.table.item(0, c).text() for c in range(4)]
    assert cells[0] == "Divergence of character" and cells[1] == path.name
    assert cells[3] == "the system trash" and dialog.restore_button.isEnabled()
    assert dialog.table.hasFocus()

    qtbot.keyClick(dialog.table, Qt.Key.Key_R, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: path.exists() and again.editor.has_note())
    assert path.read_bytes() == original
    assert again.editor.title_edit.text() == "Divergence of character"
    assert "Divergence of character" in titles(again)
    assert again.note_list.current_note_id() == again.editor.current_note_id()
    trash = Path(os.environ["XDG_DATA_HOME"]) / "Trash"
    assert list((trash / "files").iterdir()) == [] and list((trash / "info").iterdir()) == []
    _settle(qtbot, again)


def test_restore_never_overwrites_the_file_that_took_its_place(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    window = _open_window(qtbot, answer_dialog)
    path = open_note(qtbot, window, "Sexual selection")
    original = path.read_bytes()
    _delete_open_note(qtbot, window, answer_dialog)
    newcomer = b"---\ntitle: Written again\n---\nA new note in the old place.\n"
    path.write_bytes(newcomer)

    answer = answer_dialog("Cancel")
    qtbot.mouseClick(window.window_undo.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: answer.answered)
    assert path.name in answer.text and "never overwrites" in answer.informative
    assert f"{path.stem} (restored).md" in answer.informative
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [])
    assert path.read_bytes() == newcomer

    window.menu_actions.deleted_notes.trigger()
    dialog = window.findChild(DeletedNotesDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1)
    answer = _answer_question(f"Restore as “{path.stem} (restored).md”")  # over the dialog
    qtbot.mouseClick(dialog.restore_button, Qt.MouseButton.LeftButton)
    beside = path.with_name(f"{path.stem} (restored).md")
    qtbot.waitUntil(lambda: beside.exists() and window.editor.has_note())
    assert answer.answered
    assert beside.read_bytes() == original and path.read_bytes() == newcomer
    assert window.editor.file_name() == beside.name
    assert window.editor.title_edit.text() == "Sexual selection"
    _settle(qtbot, window)


# --- Ctrl+N ---------------------------------------------------------------------------------


def test_ctrl_n_from_the_practice_view_shows_the_new_draft(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    window = _open_window(qtbot, answer_dialog)
    qtbot.keyClick(window, Qt.Key.Key_2, CTRL)  # the Practice view
    assert window.stack.currentWidget() is window.practice
    qtbot.keyClick(window, Qt.Key.Key_N, CTRL)
    assert window.stack.currentWidget() is window.splitter
    assert window.menu_actions.show_notes.isChecked()
    editor = window.editor
    assert editor.has_note() and editor.file_name() is None
    assert QApplication.focusWidget() is editor.title_edit
    qtbot.keyClicks(editor.title_edit, "Drafted from practice")
    assert window.windowTitle().startswith("Drafted from practice")
    _settle(qtbot, window)


def test_a_note_in_a_trash_coach_cannot_open_says_how_to_get_it_back(
    qtbot: QtBot, answer_dialog: Answer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """macOS: Coach cannot look into the Trash; the row says Put Back, Restore is off."""
    from coach_gui.adapters import note_trash

    monkeypatch.setattr(note_trash, "PLATFORM", "darwin")
    window = _open_window(qtbot, answer_dialog)
    path = open_note(qtbot, window, "Natural selection")
    _delete_open_note(qtbot, window, answer_dialog)
    assert window.window_undo.button.isHidden()  # nothing Coach could undo itself
    window.activateWindow()
    qtbot.waitUntil(window.note_list.view.hasFocus)
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_Z, CTRL)
    assert "Put Back" in window.statusBar().currentMessage() and not path.exists()
    window.menu_actions.deleted_notes.trigger()
    dialog = window.findChild(DeletedNotesDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1)
    assert not dialog.restore_button.isEnabled()
    assert "Put Back" in dialog.message.text() and path.name in dialog.message.text()
    dialog.reject()
    _settle(qtbot, window)


def test_f1_lists_undo_and_redo(qtbot: QtBot, answer_dialog: Answer) -> None:
    from coach_gui.ui.shell import help_dialogs

    window = _open_window(qtbot, answer_dialog)
    keys = dict(help_dialogs.shortcut_rows(window.menu_actions.with_shortcuts()))
    assert (keys["Ctrl+Z"], keys["Ctrl+Shift+Z"]) == ("Undo", "Redo")
    assert "Ctrl+Y" in keys and "Ctrl+Z (in the note list)" in keys
    edit = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Edit")
    assert [a.text() for a in edit.actions() if not a.isSeparator()][:2] == ["&Undo", "&Redo"]
    file_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&File")
    assert "D&eleted notes…" in [a.text() for a in file_menu.actions()]
    _settle(qtbot, window)
