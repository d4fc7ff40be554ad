"""The sweep of issue 33 (waits with no Cancel): reading a notes folder before it is
offered takes seconds for a large vault, and nothing showed meanwhile. Now the wait is
shown (past half a second) with Cancel, which drops the reading and changes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from fakes.vaults import obsidian_vault
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton
from pytestqt.qtbot import QtBot
from test_notes_folder_remembered import WAIT_MS, opened_window, settle, when_shown

from coach_gui.ui.kit import tasks
from coach_gui.ui.settings import notes_folder
from coach_gui.ui.settings.notes_folder import NotesFolderChooser


def test_reading_a_folder_shows_its_wait_and_cancel_changes_nothing(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(notes_folder, "READING_SHOWN_AFTER_MS", 0)  # shown at once here
    vault = obsidian_vault(tmp_path / "Big vault", notes=200)
    window = opened_window(qtbot)
    before = window.cases.notes.location
    chooser = NotesFolderChooser(
        window, window.cases.notes, window.config_owner, window._notes_folder_changed
    )

    chooser.look_at(vault.root)
    reading = chooser.reading
    assert reading is not None and reading.labelText().startswith("Reading ")
    (cancel,) = reading.findChildren(QPushButton)
    assert cancel.text() == "&Cancel"
    cancel.click()  # before the reading could end
    assert tasks.wait_for_all(WAIT_MS)
    qtbot.wait(100)  # anything the reading would have shown, shown
    assert QApplication.activeModalWidget() is None  # no "Use this folder?"
    assert window.cases.notes.location == before

    # Not cancelled: the wait ends with the question, and goes.
    asked = when_shown(QMessageBox, lambda box: box.reject())
    chooser.look_at(vault.root)
    second = chooser.reading
    assert second is not None
    qtbot.waitUntil(lambda: bool(asked), timeout=WAIT_MS)
    assert window.cases.notes.location == before  # the question was declined
    window.close()
    settle(qtbot)
