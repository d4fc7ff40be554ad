"""Issue 17, ADR 0024, on the real main window: a restored note never costs another note
its file or its history. The open note that had the restored note's id keeps its edits
under an id of its own, so the Save prompt writes them to its own file; a file that
appears where a note was deleted is listed, and restoring beside it lists both; Ctrl+Z
restores a delete only from the note list; a restore that ends after another notes folder
was opened stays out of it."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot
from test_main_window import open_note
from test_undo import Answer, _configure, _delete_open_note, _open_window, _settle

from coach_gui.ui.kit import tasks
from coach_gui.ui.kit.tasks import Lane, Task
from coach_gui.ui.shell.main_window import MainWindow

CTRL = Qt.KeyboardModifier.ControlModifier
ORIGINAL = b"# Topic\n\nThe original note, with all the learner's words in it.\n"
NEWCOMER = b"# Topic\n\nA new note written in Obsidian at the old place.\n"


def _answer_in_turn(buttons: list[str], seen: list[str]) -> None:
    """Click these message-box buttons, one box after another, as they show."""

    def click(tries: int) -> None:
        box = QApplication.activeModalWidget()
        if isinstance(box, QMessageBox):
            for button in box.buttons():
                if button.text().replace("&", "") == buttons[0]:
                    seen.append(buttons.pop(0))
                    button.click()
                    break
        if buttons and tries:
            QTimer.singleShot(20, lambda: click(tries - 1))

    QTimer.singleShot(0, lambda: click(1000))


def _vault(tmp_path: Path) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Topic.md").write_bytes(ORIGINAL)
    (vault / "Other.md").write_bytes(b"# Other\n\nSomething else entirely, long enough.\n")
    _configure(vault)
    return vault


def _id_of(window: MainWindow, file_name: str) -> str:
    return next(e.note.id for e in window.listing.entries.values() if e.file_name == file_name)


def _listed(window: MainWindow) -> dict[str, str]:
    return {e.file_name: e.note.id for e in window.listing.entries.values()}


def _reload(qtbot: QtBot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.listing.load()
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [], timeout=10_000)


def test_the_save_prompt_after_a_restore_saves_the_open_note_to_its_own_file(
    qtbot: QtBot, answer_dialog: Answer, tmp_path: Path
) -> None:
    vault = _vault(tmp_path)
    window = _open_window(qtbot, answer_dialog)
    topic = _id_of(window, "Topic.md")
    window.open_note(topic)
    _delete_open_note(qtbot, window, answer_dialog)
    (vault / "Topic.md").write_bytes(NEWCOMER)  # written in Obsidian at the old place
    _reload(qtbot, window)
    assert _id_of(window, "Topic.md") == topic  # its path derives the deleted note's id
    window.open_note(topic)
    window.editor.title_edit.setText("Topic, edited")  # an unsaved edit of the newcomer
    assert window.editor.is_dirty()

    seen: list[str] = []
    _answer_in_turn(["Restore as “Topic (restored).md”", "Save"], seen)
    window.window_undo.undo_delete()
    beside = vault / "Topic (restored).md"
    qtbot.waitUntil(lambda: window.editor.file_name() == beside.name, timeout=10_000)
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [], timeout=10_000)
    assert seen == ["Restore as “Topic (restored).md”", "Save"]
    assert beside.read_bytes() == ORIGINAL  # the restored note, as it was deleted
    assert b"title: Topic, edited" in (vault / "Topic.md").read_bytes()  # the edit, in its file
    assert NEWCOMER.split(b"\n", 2)[2] in (vault / "Topic.md").read_bytes()
    assert window.editor.current_note_id() == topic  # the history stays with the restored note
    assert window.editor.title_edit.text() == "Topic (restored)"  # titled by its file
    listed = _listed(window)
    assert listed[beside.name] == topic and listed["Topic.md"] != topic
    _reload(qtbot, window)
    assert _listed(window) == listed
    _settle(qtbot, window)


def test_a_newcomer_where_a_note_was_deleted_is_listed_and_both_stay_after_restore(
    qtbot: QtBot, answer_dialog: Answer, tmp_path: Path
) -> None:
    vault = _vault(tmp_path)
    window = _open_window(qtbot, answer_dialog)
    topic = _id_of(window, "Topic.md")
    window.open_note(topic)
    _delete_open_note(qtbot, window, answer_dialog)
    (vault / "Topic.md").write_bytes(NEWCOMER)
    qtbot.waitUntil(lambda: "Topic.md" in _listed(window), timeout=10_000)  # the watcher saw it
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [], timeout=10_000)

    seen: list[str] = []
    _answer_in_turn(["Restore as “Topic (restored).md”"], seen)
    window.window_undo.undo_delete()
    qtbot.waitUntil(lambda: window.editor.file_name() == "Topic (restored).md", timeout=10_000)
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [], timeout=10_000)
    _reload(qtbot, window)  # F5
    listed = _listed(window)
    assert set(listed) == {"Topic.md", "Topic (restored).md", "Other.md"}
    assert listed["Topic (restored).md"] == topic and listed["Topic.md"] != topic
    assert (vault / "Topic (restored).md").read_bytes() == ORIGINAL
    assert (vault / "Topic.md").read_bytes() == NEWCOMER
    _settle(qtbot, window)


def test_ctrl_z_restores_a_delete_only_from_the_note_list(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    window = _open_window(qtbot, answer_dialog)
    path = open_note(qtbot, window, "Sexual selection")
    _delete_open_note(qtbot, window, answer_dialog)
    open_note(qtbot, window, "Natural selection")  # another note, nothing to undo in it
    listed = window.editor.assertions.list
    window.activateWindow()
    listed.setFocus()
    qtbot.waitUntil(listed.hasFocus)
    qtbot.keyClick(listed, Qt.Key.Key_Z, CTRL)
    assert window.statusBar().currentMessage() == "Nothing to undo here."
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [])
    assert not path.exists()  # still in the trash

    window.note_list.view.setFocus()
    qtbot.waitUntil(window.note_list.view.hasFocus)
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_Z, CTRL)
    qtbot.waitUntil(path.exists, timeout=10_000)
    qtbot.waitUntil(lambda: window.editor.title_edit.text() == "Sexual selection")
    _settle(qtbot, window)


def test_a_restore_that_ends_after_another_folder_opened_stays_out_of_it(
    qtbot: QtBot, answer_dialog: Answer, tmp_path: Path
) -> None:
    vault = _vault(tmp_path)
    window = _open_window(qtbot, answer_dialog)
    window.open_note(_id_of(window, "Topic.md"))
    _delete_open_note(qtbot, window, answer_dialog)
    other = tmp_path / "other vault"
    other.mkdir()
    (other / "Elsewhere.md").write_bytes(b"# Elsewhere\n\nA note of the other folder.\n")

    release = threading.Event()  # a write still running: the restore waits behind it
    Task(
        window,
        op=lambda _p: release.wait(10),
        success=lambda _r: None,
        lane=Lane.WRITER,
        name="slow write",
    ).run()
    window.window_undo.undo_delete()
    window.cases.notes.open_folder(other)  # what File › Open notes folder… does
    window._notes_folder_changed()
    release.set()
    qtbot.waitUntil(lambda: (vault / "Topic.md").exists(), timeout=10_000)
    qtbot.waitUntil(
        lambda: tasks.pending_tasks() == [] and not window.listing.loading, timeout=10_000
    )
    assert set(_listed(window)) == {"Elsewhere.md"}  # the new folder, and only it
    assert not window.editor.has_note()
    assert "notes folder open before" in window.statusBar().currentMessage()
    _settle(qtbot, window)
