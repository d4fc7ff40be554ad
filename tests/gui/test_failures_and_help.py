"""Uncaught errors reach the learner as a message (details in the log, never on screen),
and Help lists every shortcut."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QTableWidget
from pytestqt.qtbot import QtBot
from visible_text import assert_learner_words

from coach_gui.bootstrap import build_cases
from coach_gui.domain.errors import JournalError
from coach_gui.ui.kit import failures
from coach_gui.ui.shell.main_window import MainWindow

Answer = Callable[[str], Any]  # the answer_dialog fixture (tests/gui/conftest.py)


@pytest.fixture
def hook(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """The app's excepthook, installed for one test; the log goes to a file we can read."""
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr("threading.excepthook", __import__("threading").excepthook)
    log_file = tmp_path / "coach.log"
    handler = logging.FileHandler(log_file, encoding="utf-8")
    logging.getLogger().addHandler(handler)
    failures.set_log_file(log_file)
    failures.install_excepthook()
    yield log_file
    logging.getLogger().removeHandler(handler)
    handler.close()
    for box in QApplication.topLevelWidgets():
        if isinstance(box, QMessageBox):
            box.close()


def raise_and_hook(error: Exception) -> None:
    try:
        raise error
    except Exception:
        sys.excepthook(*sys.exc_info())  # what Python does with an uncaught error


def visible_box() -> QMessageBox | None:
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
    shown = [b for b in boxes if b.isVisible()]
    return shown[-1] if shown else None


def test_an_unexpected_error_shows_a_message_and_logs_the_traceback(
    qtbot: QtBot, hook: Path
) -> None:
    raise_and_hook(ZeroDivisionError("secret internals"))
    qtbot.waitUntil(lambda: visible_box() is not None)
    box = visible_box()
    assert box is not None
    assert "Something went wrong" in box.text()
    assert str(hook) in box.informativeText()
    assert "secret internals" not in box.informativeText()
    assert "Traceback" not in box.informativeText()
    assert_learner_words(step="an unexpected error")  # no ZeroDivisionError on screen
    logged = hook.read_text(encoding="utf-8")
    assert "ZeroDivisionError: secret internals" in logged and "Traceback" in logged


def test_one_of_our_errors_is_shown_in_its_own_words(qtbot: QtBot, hook: Path) -> None:
    raise_and_hook(JournalError("The journal is locked by another Coach; close it and retry."))
    qtbot.waitUntil(lambda: visible_box() is not None)
    box = visible_box()
    assert box is not None
    assert box.informativeText() == "The journal is locked by another Coach; close it and retry."
    assert_learner_words(step="one of our errors")


def test_a_burst_of_unexpected_errors_opens_one_message(qtbot: QtBot, hook: Path) -> None:
    for n in range(5):
        raise_and_hook(RuntimeError(f"boom {n}"))
    qtbot.waitUntil(lambda: visible_box() is not None)
    boxes = [w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox)]
    assert len([b for b in boxes if b.isVisible()]) == 1
    assert hook.read_text(encoding="utf-8").count("RuntimeError: boom") == 5


def test_help_lists_every_menu_shortcut_and_the_editor_keys(qtbot: QtBot) -> None:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    listed: list[str] = []

    def read_table_then_close() -> None:
        dialog = QApplication.activeModalWidget()
        if dialog is None:
            QTimer.singleShot(10, read_table_then_close)
            return
        table = dialog.findChild(QTableWidget)
        listed.extend(table.item(r, 0).text() for r in range(table.rowCount()))
        dialog.close()

    QTimer.singleShot(0, read_table_then_close)
    window.menu_actions.shortcuts.trigger()  # returns when the dialog closes
    for keys in ("Ctrl+N", "Ctrl+S", "Ctrl+F", "Ctrl+,", "Ctrl+Q", "F5", "F1", "Alt+Up / Alt+Down"):
        assert keys in listed


def test_discarding_a_new_unsaved_note_asks_and_writes_nothing(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    folder = Path(window.cases.notes.location)
    before = sorted(p.name for p in folder.iterdir())
    window.menu_actions.new.trigger()
    qtbot.keyClicks(window.editor.title_edit, "Draft")
    answer = answer_dialog("Discard note")
    window.menu_actions.delete.trigger()
    assert answer.answered and "Discard the new note “Draft”" in answer.text
    assert not window.editor.has_note()
    assert sorted(p.name for p in folder.iterdir()) == before
