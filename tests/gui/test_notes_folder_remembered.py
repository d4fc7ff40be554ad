"""Issue 33, item 1: the chosen notes folder is remembered, whatever is switched after it.

The learner opens their vault from File › Open notes folder… with the keyboard, flips every
switch in the toolbar and in Settings, closes Coach and starts it again: their vault is
still the one open (in the settings file, in the status bar and in Settings). Before, a
toolbar switch wrote back its own copy of the settings, made before the folder was chosen,
and the next start opened the sample notes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from fakes.vaults import obsidian_vault
from mnemonics import activate
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QFileDialog, QLineEdit, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from coach_gui.bootstrap import build_cases
from coach_gui.config import config_path
from coach_gui.operations.tier1 import Tier1State
from coach_gui.ui.kit import tasks
from coach_gui.ui.settings.settings_dialog import SettingsDialog
from coach_gui.ui.shell.main_window import MainWindow

ALT = Qt.KeyboardModifier.AltModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
WAIT_MS = 15_000


def when_shown(kind: type[QWidget], act: Callable[[QWidget], None]) -> list[bool]:
    """Before the key that opens a modal dialog of `kind`: `act` on it once it shows."""
    done: list[bool] = []

    def look(tries_left: int) -> None:
        modal = QApplication.activeModalWidget()
        if not isinstance(modal, kind) or not modal.isVisible():
            if tries_left:
                QTimer.singleShot(10, lambda: look(tries_left - 1))
            return
        activate(modal)
        act(modal)
        done.append(True)

    QTimer.singleShot(0, lambda: look(1000))
    return done


def opened_window(qtbot: QtBot) -> MainWindow:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        pass
    qtbot.waitUntil(
        lambda: window.views.tier1_status.status.state is not Tier1State.CHECKING,
        timeout=WAIT_MS,
    )
    assert activate(window)
    return window


def settle(qtbot: QtBot) -> None:
    """Every write asked for so far is on disk."""
    assert tasks.wait_for_writes(WAIT_MS)
    qtbot.wait(50)  # their success, delivered on this thread
    assert tasks.wait_for_writes(WAIT_MS)


def type_folder(folder: Path) -> Callable[[QWidget], None]:
    def act(dialog: QWidget) -> None:
        name = dialog.findChild(QLineEdit, "fileNameEdit")
        assert name is not None
        name.setFocus()
        QTest.keyClick(name, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
        QTest.keyClicks(name, str(folder))
        QTest.keyClick(name, Qt.Key.Key_Return)

    return act


def use_this_folder(box: QWidget) -> None:
    QTest.keyClick(box, Qt.Key.Key_U, ALT)


def test_the_chosen_folder_survives_every_switch_and_a_restart(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = obsidian_vault(tmp_path / "My vault", notes=24)
    window = opened_window(qtbot)
    assert "sample" in window.cases.notes.location.lower() or str(vault.root) not in (
        window.where_label.text()
    )

    # File › Open notes folder… → the folder, typed → Use this folder.
    picked = when_shown(QFileDialog, type_folder(vault.root))
    used = when_shown(QMessageBox, use_this_folder)
    QTest.keyClick(window, Qt.Key.Key_F, ALT)
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is not None, timeout=WAIT_MS)
    QTest.keyClick(QApplication.activePopupWidget(), Qt.Key.Key_F)
    qtbot.waitUntil(lambda: bool(picked) and bool(used), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: window.cases.notes.location == str(vault.root), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "24 notes" in window.count_label.text(), timeout=WAIT_MS)
    settle(qtbot)

    # Every toolbar switch, both ways.
    activate(window)
    for key in (Qt.Key.Key_A, Qt.Key.Key_J, Qt.Key.Key_J, Qt.Key.Key_A):
        QTest.keyClick(window, key, CTRL_SHIFT)
        settle(qtbot)
    judge = window.cases.settings.config.judge
    assert judge.enabled and judge.include_assertions  # each went off and on again

    # Every switch in Settings, then OK.
    def flip_every_switch(dialog: QWidget) -> None:
        for letter in (Qt.Key.Key_F, Qt.Key.Key_J, Qt.Key.Key_J, Qt.Key.Key_A, Qt.Key.Key_B):
            QTest.keyClick(dialog, letter, ALT)
            QTest.qWait(250)  # a mnemonic clicks a moment later (animateClick)
        QTest.keyClick(dialog, Qt.Key.Key_Return)

    flipped = when_shown(SettingsDialog, flip_every_switch)
    QTest.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: bool(flipped), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is None, timeout=WAIT_MS)
    settle(qtbot)
    judge = window.cases.settings.config.judge
    assert judge.enabled and not judge.include_assertions and judge.review_payloads
    assert not window.cases.settings.config.tier1.follow_ups
    window.close()
    settle(qtbot)

    on_disk = json.loads(config_path().read_text(encoding="utf-8"))
    assert on_disk["kb"]["path"] == str(vault.root)
    assert on_disk["judge"]["includeAssertions"] is False  # the switches were kept too
    assert on_disk["judge"]["reviewPayloads"] is True

    again = opened_window(qtbot)
    assert again.cases.notes.location == str(vault.root)
    assert again.where_label.toolTip() == str(vault.root)
    assert "24 notes" in again.count_label.text()
    seen: list[str] = []

    def read_and_close(dialog: QWidget) -> None:
        assert isinstance(dialog, SettingsDialog)
        seen.append(dialog.notes_folder.text())
        QTest.keyClick(dialog, Qt.Key.Key_Escape)

    read = when_shown(SettingsDialog, read_and_close)
    QTest.keyClick(again, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: bool(read), timeout=WAIT_MS)
    assert seen == [f"Your notes are read from {vault.root}."]
    again.close()
    settle(qtbot)
