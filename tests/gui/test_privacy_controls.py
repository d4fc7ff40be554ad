"""The toolbar privacy switches: judge on/off and *Send core assertions to the judge*,
written to coach.config.json at once, and a status line that says what leaves the
computer (DESIGN §1.2, §1.8)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMainWindow, QToolBar, QToolButton
from pytestqt.qtbot import QtBot

from coach_gui.config import Config, config_path, load_config, save_config
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.privacy_controls import (
    OFFLINE_TEXT,
    WITH_ASSERTIONS_TEXT,
    WITHOUT_ASSERTIONS_TEXT,
    PrivacyControls,
)

Answer = Callable[[str], Any]  # the answer_dialog fixture (tests/gui/conftest.py)


class Host:
    """A main window with the switches in its toolbar and the label in its status bar,
    as the app wires them."""

    def __init__(self, qtbot: QtBot, config: Config, path: Path) -> None:
        self.window = QMainWindow()
        qtbot.addWidget(self.window)
        self.owner = ConfigOwner.of(config, path, self.window)
        self.controls = PrivacyControls(self.owner, self.window)
        self.toolbar = QToolBar("Privacy", self.window)
        self.toolbar.addActions(self.controls.actions())
        self.window.addToolBar(self.toolbar)
        self.window.statusBar().addPermanentWidget(self.controls.status_label())
        self.changes: list[Config] = []
        self.controls.config_changed.connect(self.changes.append)
        self.window.show()
        qtbot.waitExposed(self.window)

    def button(self, action: QAction) -> QToolButton:
        button = self.toolbar.widgetForAction(action)
        assert isinstance(button, QToolButton)
        return button

    @property
    def label_text(self) -> str:
        return self.controls.status_label().text()


def flip(qtbot: QtBot, host: Host, action: QAction) -> None:
    """Click the switch's toolbar button and wait until the change is in the file."""
    with qtbot.waitSignal(host.controls.saved, timeout=5000):
        qtbot.mouseClick(host.button(action), Qt.MouseButton.LeftButton)


def on_disk() -> dict[str, Any]:
    return dict(json.loads(config_path().read_text(encoding="utf-8"))["judge"])


def saved_host(qtbot: QtBot, config: Config | None = None) -> Host:
    path = config_path()
    save_config(config or Config(), path)
    return Host(qtbot, load_config(path), path)


def test_the_status_line_says_what_leaves_the_computer_in_each_state(qtbot: QtBot) -> None:
    host = saved_host(qtbot)
    judge, assertions = host.controls.actions()
    assert judge.isChecked() and assertions.isChecked()
    assert host.label_text == WITH_ASSERTIONS_TEXT
    assert "core assertions" in judge.toolTip()
    assert host.button(judge).text() == "Judge: on"
    assert host.button(assertions).text() == "Send core assertions: on"

    flip(qtbot, host, assertions)
    assert on_disk()["includeAssertions"] is False
    assert host.label_text == WITHOUT_ASSERTIONS_TEXT
    assert "only each challenge and your answer" in assertions.toolTip()
    assert host.button(assertions).text() == "Send core assertions: off"

    flip(qtbot, host, judge)
    assert on_disk()["enabled"] is False
    assert host.label_text == OFFLINE_TEXT == "Offline: nothing leaves this computer"
    assert "nothing leaves this computer" in judge.toolTip()
    assert host.button(judge).text() == "Judge: off"
    assert [(c.judge.enabled, c.judge.include_assertions) for c in host.changes] == [
        (True, False),
        (False, False),
    ]
    assert host.controls.config == load_config(config_path())


def test_the_assertions_switch_is_disabled_while_the_judge_is_off(qtbot: QtBot) -> None:
    host = saved_host(qtbot, Config().with_changes({"judge.enabled": False}))
    judge, assertions = host.controls.actions()
    assert host.label_text == OFFLINE_TEXT
    assert not assertions.isEnabled() and not host.button(assertions).isEnabled()
    assert "The judge is off, so nothing is sent" in assertions.toolTip()

    qtbot.mouseClick(host.button(assertions), Qt.MouseButton.LeftButton)  # disabled: no effect
    assert assertions.isChecked() and host.changes == []

    flip(qtbot, host, judge)
    assert on_disk()["enabled"] is True
    assert assertions.isEnabled() and host.button(assertions).isEnabled()
    assert host.label_text == WITH_ASSERTIONS_TEXT


def test_the_keyboard_shortcuts_flip_the_switches(qtbot: QtBot) -> None:
    host = saved_host(qtbot)
    with qtbot.waitActive(host.window):
        host.window.activateWindow()
    judge, assertions = host.controls.actions()
    assert judge.shortcut().toString() == "Ctrl+Shift+J"
    assert assertions.shortcut().toString() == "Ctrl+Shift+A"
    ctrl_shift = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier

    with qtbot.waitSignal(host.controls.saved, timeout=5000):
        qtbot.keyClick(host.window, Qt.Key.Key_A, ctrl_shift)
    assert on_disk()["includeAssertions"] is False
    with qtbot.waitSignal(host.controls.saved, timeout=5000):
        qtbot.keyClick(host.window, Qt.Key.Key_J, ctrl_shift)
    assert on_disk()["enabled"] is False
    assert host.label_text == OFFLINE_TEXT


def test_quick_toggles_all_reach_the_file_in_order(qtbot: QtBot) -> None:
    host = saved_host(qtbot)
    judge = host.controls.judge_action
    with qtbot.waitSignal(host.controls.saved, timeout=5000) as saved:
        for _ in range(5):  # an odd number of flips: the judge ends up off
            judge.trigger()
    assert saved.args[0].judge.enabled is False and on_disk()["enabled"] is False
    assert not host.controls.saving
    assert not judge.isChecked() and host.label_text == OFFLINE_TEXT


def test_a_failed_write_puts_the_switch_back_and_says_why(
    qtbot: QtBot, tmp_path: Path, answer_dialog: Answer
) -> None:
    blocked = tmp_path / "not-a-file.json"  # a folder where the config file should be
    blocked.mkdir()
    (blocked / "keep").write_text("x", encoding="utf-8")
    host = Host(qtbot, Config(), blocked)
    judge = host.controls.judge_action

    answer = answer_dialog("OK")
    qtbot.mouseClick(host.button(judge), Qt.MouseButton.LeftButton)
    assert host.label_text == OFFLINE_TEXT  # in effect at once, before the write
    qtbot.waitUntil(lambda: answer.answered, timeout=5000)

    assert judge.isChecked() and host.label_text == WITH_ASSERTIONS_TEXT
    assert "could not be saved" in answer.informative
    assert "switch was put back" in answer.informative
    assert [c.judge.enabled for c in host.changes] == [False, True]
    assert host.controls.config.judge.enabled is True


def test_settings_changes_show_on_the_switches(qtbot: QtBot) -> None:
    host = saved_host(qtbot)
    with qtbot.waitSignal(host.controls.saved, timeout=5000):
        changed = host.owner.update({"judge.includeAssertions": False})  # as Settings does
    assert host.label_text == WITHOUT_ASSERTIONS_TEXT
    assert not host.controls.assertions_action.isChecked()
    assert host.changes == [changed]
    assert on_disk()["includeAssertions"] is False


def test_the_switches_have_names_and_descriptions_for_screen_readers(qtbot: QtBot) -> None:
    host = saved_host(qtbot)
    label = host.controls.status_label()
    assert label.accessibleName() == "What leaves this computer"
    assert label.accessibleDescription() == WITH_ASSERTIONS_TEXT
    for action in host.controls.actions():
        assert "&" in action.text()  # a mnemonic for menus
        assert action.toolTip() and action.statusTip() == action.toolTip()
        assert host.button(action).accessibleName() or action.iconText()
