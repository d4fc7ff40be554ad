"""Writes the screenshots a person looks at (and the README shows): the main window with
a sample note open, and the Settings dialog."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from shots import save_png

from coach_gui.bootstrap import build_cases
from coach_gui.ui.shell.main_window import MainWindow


def test_screenshot_of_the_main_window_with_a_note_open(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "learner"  # the status bar shows the folder as a learner sees it
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("COACH_HOME", str(home / ".local" / "share" / "coach"))
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.resize(1180, 760)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    model = window.note_list.model
    row = next(
        r for r in range(model.rowCount()) if model.entry(r).note.title == "Natural selection"
    )
    view = window.note_list.view
    qtbot.mouseClick(
        view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(model.index(row)).center()
    )
    window.editor.assertions.list.setCurrentRow(1)
    window.editor.body_tabs.setCurrentWidget(window.editor.preview)
    qtbot.wait(50)  # let layouts settle before the grab

    path = save_png(window, "main-window.png")
    assert window.editor.title_edit.text() == "Natural selection"
    assert window.where_label.text() == "Notes in ~/.local/share/coach/kb"
    assert path.stat().st_size > 20_000  # a real picture, not an empty frame
