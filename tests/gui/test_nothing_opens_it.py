"""Issue 33, item 10: *Open config file* (the settings problem at start) and *Open folder*
(Help › Where my data lives) say so when no program could open the file, and where it is.
Before, nothing happened at all. Here no program can: the PATH holds no opener."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from coach_gui.config import config_path
from coach_gui.ui.shell.app import open_main_window
from coach_gui.ui.shell.help_dialogs import DataLocationsDialog


@pytest.fixture
def no_opener(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    empty = tmp_path / "no-programs"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no xdg-open, no file manager
    yield


def answer_in_turn(buttons: list[str], said: list[tuple[str, str]]) -> None:
    """Click each button in turn, each on the next modal dialog that shows."""
    seen: list[QWidget] = []

    def look(tries_left: int) -> None:
        modal = QApplication.activeModalWidget()
        if modal is None or (seen and modal is seen[-1]) or not buttons:
            if buttons and tries_left:
                QTimer.singleShot(10, lambda: look(tries_left - 1))
            return
        seen.append(modal)
        if isinstance(modal, QMessageBox):
            said.append((modal.windowTitle(), modal.text() + " " + modal.informativeText()))
        wanted = buttons.pop(0)
        for button in modal.findChildren(QAbstractButton):
            if button.isVisible() and button.text().replace("&", "") == wanted:
                QTimer.singleShot(0, button.click)
                break
        else:
            modal.close()
        QTimer.singleShot(10, lambda: look(1000))

    QTimer.singleShot(0, lambda: look(1000))


def test_open_config_file_says_when_nothing_can_open_it(no_opener: None) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"judge": {"enabeld": true}}', encoding="utf-8")
    said: list[tuple[str, str]] = []
    answer_in_turn(["Open config file", "OK", "Quit"], said)
    assert open_main_window() is None
    titles = [title for title, _text in said]
    assert titles == [
        "Coach cannot read its settings",
        "Nothing could open it",
        "Coach cannot read its settings",
    ]
    told = said[1][1]
    assert "No program on this computer could open the settings file" in told
    assert str(path) in told


def test_open_folder_says_when_nothing_can_open_it(qtbot: QtBot, no_opener: None) -> None:
    from test_help_menu import open_window

    window = open_window(qtbot)
    window.menu_actions.locations.trigger()
    dialog = next(d for d in window.findChildren(DataLocationsDialog) if d.isVisible())
    said: list[tuple[str, str]] = []
    answer_in_turn(["OK"], said)
    dialog.open_buttons[0].click()
    ((title, told),) = said
    assert title == "Nothing could open it"
    assert window.cases.notes.location in told
    dialog.close()
