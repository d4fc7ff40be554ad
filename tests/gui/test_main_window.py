"""The main window on the real sample knowledge base: create, edit, reorder, save,
search, delete, and the unsaved-changes guard, driven through the widgets."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLineEdit
from pytestqt.qtbot import QtBot

from coach_gui.adapters import front_matter
from coach_gui.bootstrap import build_cases, build_context, use_cases
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.shell.main_window import MainWindow

Answer = Callable[[str], Any]  # the answer_dialog fixture (tests/gui/conftest.py)


@pytest.fixture
def window(qtbot: QtBot, answer_dialog: Answer) -> Iterator[MainWindow]:
    def discard_edits(w: MainWindow) -> None:
        if w.isVisible() and w.editor.is_dirty():  # pytest-qt closes the window after the test
            answer_dialog("Discard")

    win = MainWindow(build_cases())
    qtbot.addWidget(win, before_close_func=discard_edits)
    with qtbot.waitSignal(win.notes_listed, timeout=10_000):
        win.show()
    qtbot.waitExposed(win)
    qtbot.waitUntil(lambda: pending_tasks() == [])  # the search index is ready
    win.activateWindow()
    yield win


def kb(window: MainWindow) -> Path:
    return Path(window.cases.notes.location)


def titles(window: MainWindow) -> list[str]:
    model = window.note_list.model
    return [model.entry(row).note.title for row in range(model.rowCount())]


def click_note(qtbot: QtBot, window: MainWindow, title: str) -> None:
    row = titles(window).index(title)
    view = window.note_list.view
    rect = view.visualRect(window.note_list.model.index(row))
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def open_note(qtbot: QtBot, window: MainWindow, title: str) -> Path:
    click_note(qtbot, window, title)
    assert window.editor.title_edit.text() == title
    file_name = window.editor.file_name()
    assert file_name is not None
    return kb(window) / file_name


def press(
    qtbot: QtBot, widget: Any, key: Qt.Key, modifier: Any = Qt.KeyboardModifier.NoModifier
) -> None:
    qtbot.keyClick(widget, key, modifier)


def type_into_item_editor(qtbot: QtBot, text: str) -> None:
    """Type into the in-place editor of a list item, replacing its text, then Enter."""
    line = QApplication.focusWidget()
    assert isinstance(line, QLineEdit), f"no item editor has focus ({line!r})"
    line.selectAll()
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Return)  # commits on the next turn of the event loop


def wait_saved(qtbot: QtBot, window: MainWindow) -> None:
    qtbot.waitUntil(lambda: not window.editor.is_saving() and not window.editor.is_dirty())
    qtbot.waitUntil(lambda: pending_tasks() == [])  # the search index catches up too


def test_window_lists_the_sample_notes_and_says_where_they_live(window: MainWindow) -> None:
    on_disk = sorted(kb(window).glob("*.md"))
    assert "Coach" in window.windowTitle()
    assert len(titles(window)) == len(on_disk) >= 6
    assert titles(window) == sorted(titles(window), key=str.casefold)
    assert str(kb(window)) in window.where_label.text()
    assert f"{len(on_disk)} notes" in window.count_label.text()
    assert "Select a note" in window.editor.empty_label.text()


def test_a_new_note_is_written_to_a_file_named_after_its_title(
    qtbot: QtBot, window: MainWindow
) -> None:
    before = len(titles(window))
    press(qtbot, window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    editor = window.editor
    assert editor.has_note() and editor.title_edit.hasFocus()
    qtbot.keyClicks(editor.title_edit, "Habits of attention")
    qtbot.keyClicks(editor.source_edit, "William James, Principles of Psychology, ch. XI")
    qtbot.keyClicks(editor.tags_edit, "attention, habit ,")
    for text in ("Attention is selective.", "Effort keeps attention on a dull object."):
        qtbot.mouseClick(editor.assertions.add_button, Qt.MouseButton.LeftButton)
        type_into_item_editor(qtbot, text)
        qtbot.waitUntil(lambda text=text: text in editor.assertions.assertions())
    for line in ("# Attention", "", "What we attend to becomes our experience."):
        if line != "# Attention":
            qtbot.keyClick(editor.body_edit, Qt.Key.Key_Return)
        qtbot.keyClicks(editor.body_edit, line)
    assert window.isWindowModified()

    press(qtbot, window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    wait_saved(qtbot, window)

    path = kb(window) / "Habits of attention.md"  # the title itself (issue 14)
    note = front_matter.parse(path.read_bytes()).note
    assert note.title == "Habits of attention"
    assert note.source == "William James, Principles of Psychology, ch. XI"
    assert note.tags == ("attention", "habit")
    assert note.core_assertions == (
        "Attention is selective.",
        "Effort keeps attention on a dull object.",
    )
    assert note.body == "# Attention\n\nWhat we attend to becomes our experience."
    assert len(titles(window)) == before + 1
    assert window.note_list.current_note_id() == note.id
    assert not window.isWindowModified()
    assert editor.file_name() == "Habits of attention.md"


def test_assertions_are_edited_in_place_reordered_and_removed(
    qtbot: QtBot, window: MainWindow
) -> None:
    path = open_note(qtbot, window, "Natural selection")
    original = front_matter.parse(path.read_bytes())
    items = list(original.note.core_assertions)
    assertions = window.editor.assertions.list

    assertions.setFocus()
    assertions.setCurrentRow(2)
    press(qtbot, assertions, Qt.Key.Key_Up, Qt.KeyboardModifier.AltModifier)  # 3rd → 2nd
    assert assertions.currentRow() == 1
    items[1], items[2] = items[2], items[1]

    assertions.setCurrentRow(0)
    press(qtbot, assertions, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)  # 1st → 2nd
    items[0], items[1] = items[1], items[0]

    assertions.setCurrentRow(len(items) - 1)
    press(qtbot, assertions, Qt.Key.Key_Delete)
    del items[-1]

    assertions.setCurrentRow(0)
    press(qtbot, assertions, Qt.Key.Key_F2)  # edit in place
    type_into_item_editor(qtbot, "Selection keeps useful variations and removes harmful ones.")
    items[0] = "Selection keeps useful variations and removes harmful ones."
    qtbot.waitUntil(lambda: window.editor.assertions.assertions() == tuple(items))

    assert window.editor.assertions.assertions() == tuple(items)
    assert window.isWindowModified()
    press(qtbot, window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    wait_saved(qtbot, window)

    saved = front_matter.parse(path.read_bytes())
    assert saved.note.core_assertions == tuple(items)
    assert saved.note.body == original.note.body
    assert saved.note.title == original.note.title
    assert path.read_bytes().endswith(original.note.body.encode())  # body bytes untouched


def test_opening_and_saving_without_edits_leaves_the_file_byte_identical(
    qtbot: QtBot, window: MainWindow
) -> None:
    path = open_note(qtbot, window, "Sexual selection")
    before = path.read_bytes()
    assert not window.menu_actions.save.isEnabled()
    assert window.editor.save()  # even a forced save writes nothing new
    qtbot.waitUntil(lambda: not window.editor.is_saving())
    assert path.read_bytes() == before


def test_a_note_without_a_title_is_not_saved_and_says_why(qtbot: QtBot, window: MainWindow) -> None:
    path = open_note(qtbot, window, "Sexual selection")
    before = path.read_bytes()
    window.editor.title_edit.clear()
    press(qtbot, window, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    assert window.editor.problem_label.isVisible()
    assert "needs a title" in window.editor.problem_label.text()
    assert window.editor.title_edit.hasFocus()
    assert path.read_bytes() == before
    qtbot.keyClicks(window.editor.title_edit, "S")
    assert not window.editor.problem_label.isVisible()


def test_search_filters_the_list_as_you_type(qtbot: QtBot, window: MainWindow) -> None:
    everything = titles(window)
    press(qtbot, window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    search = window.note_list.search_box
    assert search.hasFocus()
    counts = []
    for char in "fossil":
        qtbot.keyClicks(search, char)
        counts.append(len(titles(window)))
    assert counts == sorted(counts, reverse=True) and counts[-1] < len(everything)
    assert titles(window)[0] == "The imperfection of the geological record"
    qtbot.keyClicks(search, " zebra-unicorn")
    assert titles(window) == []
    assert "No notes match" in window.note_list.placeholder.text()
    press(qtbot, search, Qt.Key.Key_Escape)
    assert search.text() == "" and titles(window) == everything


def test_delete_asks_first_then_moves_the_file_to_the_trash(
    qtbot: QtBot, window: MainWindow, answer_dialog: Answer
) -> None:
    path = open_note(qtbot, window, "Divergence of character")
    trash = Path(os.environ["XDG_DATA_HOME"]) / "Trash" / "files"  # the system trash

    answer = answer_dialog("Cancel")
    window.menu_actions.delete.trigger()
    assert answer.answered and path.exists()

    answer = answer_dialog("Move to trash")
    window.menu_actions.delete.trigger()
    assert answer.answered
    assert "the system trash" in answer.informative and "restore" in answer.informative
    qtbot.waitUntil(lambda: not path.exists())
    assert (trash / path.name).is_file()
    qtbot.waitUntil(lambda: "Divergence of character" not in titles(window))
    assert not window.editor.has_note()
    assert "trash" in window.statusBar().currentMessage()


def test_switching_notes_with_unsaved_edits_asks_first(
    qtbot: QtBot, window: MainWindow, answer_dialog: Answer
) -> None:
    path = open_note(qtbot, window, "Natural selection")
    before = path.read_bytes()
    qtbot.keyClicks(window.editor.title_edit, " (revised)")

    answer = answer_dialog("Cancel")
    click_note(qtbot, window, "Sexual selection")
    assert answer.answered and "Natural selection (revised)" in answer.text
    assert window.editor.title_edit.text() == "Natural selection (revised)"
    assert window.note_list.view.currentIndex().data() == "Natural selection"

    answer = answer_dialog("Discard")
    click_note(qtbot, window, "Sexual selection")
    assert answer.answered and window.editor.title_edit.text() == "Sexual selection"
    assert path.read_bytes() == before

    open_note_path = open_note(qtbot, window, "Natural selection")
    qtbot.keyClicks(window.editor.title_edit, " (revised)")
    answer = answer_dialog("Save")
    click_note(qtbot, window, "Sexual selection")
    assert answer.answered
    qtbot.waitUntil(lambda: window.editor.title_edit.text() == "Sexual selection")
    assert (
        front_matter.parse(open_note_path.read_bytes()).note.title == "Natural selection (revised)"
    )


def test_closing_with_unsaved_edits_asks_first(
    qtbot: QtBot, window: MainWindow, answer_dialog: Answer
) -> None:
    path = open_note(qtbot, window, "Sexual selection")
    window.editor.body_edit.appendPlainText("One more line.")

    answer = answer_dialog("Cancel")
    window.close()
    assert answer.answered and window.isVisible()

    answer = answer_dialog("Save")
    window.close()
    assert answer.answered
    qtbot.waitUntil(lambda: not window.isVisible())
    assert front_matter.parse(path.read_bytes()).note.body.endswith("One more line.")
    # Saving re-indexes the notes for search in the background; on a loaded machine that
    # can outlast the close. Let it finish (the app would simply exit).
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=10_000)


def test_unreadable_files_are_listed_and_never_overwritten(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    context = build_context()
    folder = Path(context.notes.location)
    bad_yaml = folder / "broken-yaml.md"
    bad_yaml.write_bytes(b"---\ntitle: [unclosed\n---\nbody\n")
    binary = folder / "picture.md"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    win = MainWindow(use_cases(context))
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.notes_listed, timeout=10_000):
        win.show()

    pane = win.note_list
    assert pane.broken_button.isVisible()
    assert pane.broken_button.text() == "2 files could not be read"
    assert "2 unreadable" in win.count_label.text()
    qtbot.mouseClick(pane.broken_button, Qt.MouseButton.LeftButton)
    assert pane.broken_list.isVisible()
    rows = [pane.broken_list.item(i).text() for i in range(pane.broken_list.count())]
    assert any(r.startswith("broken-yaml.md — ") and "YAML" in r for r in rows)
    assert any(r.startswith("picture.md — ") and "binary" in r for r in rows)
    assert bad_yaml.read_bytes() == b"---\ntitle: [unclosed\n---\nbody\n"
    assert binary.read_bytes() == b"\x89PNG\r\n\x1a\n\x00\x00"
    win.close()


def test_a_bomb_a_pipe_and_a_device_link_are_listed_as_unreadable_in_the_window(
    qtbot: QtBot,
) -> None:
    """Issue 34 item 3: the window lists them like a note that does not parse, and opens."""
    from shots import save_png

    context = build_context()
    folder = Path(context.notes.location)
    levels = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    levels += [f"a{n}: &a{n} [" + ",".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 9)]
    (folder / "laughs.md").write_text("---\ntitle: Laughs\n" + "\n".join(levels) + "\n---\n")
    os.mkfifo(folder / "pipe.md")
    (folder / "zero.md").symlink_to("/dev/zero")
    win = MainWindow(use_cases(context))
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.notes_listed, timeout=20_000):
        win.show()
    pane = win.note_list
    assert pane.broken_button.text() == "3 files could not be read"
    qtbot.mouseClick(pane.broken_button, Qt.MouseButton.LeftButton)
    rows = [pane.broken_list.item(i).text() for i in range(pane.broken_list.count())]
    assert any(r.startswith("laughs.md — ") and "YAML aliases" in r for r in rows)
    assert any(r.startswith("pipe.md — ") and "a pipe" in r for r in rows)
    assert any(r.startswith("zero.md — ") and "a device" in r for r in rows)
    assert pane.view.model().rowCount() > 0  # the other notes are there as before
    save_png(win, "unreadable-notes.png")
    win.close()


def test_window_size_splitter_and_last_note_are_remembered(
    qtbot: QtBot, window: MainWindow
) -> None:
    open_note(qtbot, window, "Sexual selection")
    window.resize(700, 540)  # within the offscreen screen (800x800), above the window's least
    window.splitter.setSizes([250, 450])
    sizes = window.splitter.sizes()
    window.close()

    again = MainWindow(build_cases())
    qtbot.addWidget(again)
    with qtbot.waitSignal(again.notes_listed, timeout=10_000):
        again.show()
    assert (again.width(), again.height()) == (700, 540)
    assert again.splitter.sizes() == sizes
    assert again.editor.title_edit.text() == "Sexual selection"
    assert again.note_list.view.currentIndex().data() == "Sexual selection"
    again.close()


def test_every_control_has_a_name_for_screen_readers(
    qtbot: QtBot, window: MainWindow, unnamed_controls: Callable[..., list[str]]
) -> None:
    open_note(qtbot, window, "Natural selection")
    assert unnamed_controls(window) == []


def test_menus_have_mnemonics_and_the_documented_shortcuts(window: MainWindow) -> None:
    menus = [a.text() for a in window.menuBar().actions()]
    assert menus == ["&File", "&Edit", "Sched&ule", "&Help"]
    keys = {a.text(): a.shortcut().toString() for a in window.menu_actions.with_shortcuts()}
    assert keys["&Undo review"] == "Ctrl+Alt+Z"  # not Ctrl+Z: Edit › Undo keeps it
    assert keys["Re&do review"] == "Ctrl+Alt+Shift+Z"
    assert keys["&New note"] == "Ctrl+N"
    assert keys["&Save"] == "Ctrl+S"
    assert keys["Se&ttings…"] == "Ctrl+,"
    assert keys["&Quit"] == "Ctrl+Q"
    assert keys["&Find note"] == "Ctrl+F"
    assert keys["&Fit schedule to my history…"] == "Ctrl+Shift+O"
    assert all(
        "&" in a.text()
        for m in window.menuBar().actions()
        for a in m.menu().actions()
        if not a.isSeparator()
    )
