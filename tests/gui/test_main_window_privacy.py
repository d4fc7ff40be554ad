"""The privacy switches and the Sent to judge view, as the main window offers them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from coach_gui.bootstrap import build_cases, build_context
from coach_gui.config import Config, config_path, save_config
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome, tier2_payload
from coach_gui.operations.tier1 import Tier1State
from coach_gui.ui.shell.main_window import MainWindow

Answer = Callable[[str], Any]
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _window(qtbot: QtBot, *, judge: bool = True) -> MainWindow:
    if not judge:
        save_config(Config().with_changes({"judge.enabled": False}), config_path())
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        pass
    # What start-up asks in the background has answered: the Ollama check and the keyring.
    qtbot.waitUntil(
        lambda: window.views.tier1_status.status.state is not Tier1State.CHECKING,
        timeout=10_000,
    )
    if judge:
        qtbot.waitUntil(lambda: window.privacy.key_stored is not None, timeout=10_000)
    return window


def test_switching_the_judge_off_from_the_toolbar_is_saved_and_followed(qtbot: QtBot) -> None:
    window = _window(qtbot)
    assert window.privacy.judge_action in window.findChildren(type(window.privacy.judge_action))
    with qtbot.waitSignal(window.privacy.saved, timeout=5_000):
        qtbot.keyClick(window, Qt.Key.Key_J, CTRL_SHIFT)
    assert window.cases.settings.config.judge.enabled is False  # the next session follows it
    on_disk = json.loads(config_path().read_text(encoding="utf-8"))
    assert on_disk["judge"]["enabled"] is False
    label = window.privacy.status_label()
    assert "nothing leaves this computer" in label.text()  # type: ignore[attr-defined]
    assert not window.privacy.assertions_action.isEnabled()


def test_ctrl_3_shows_every_request_sent_to_the_judge(qtbot: QtBot) -> None:
    context = build_context()
    from coach_gui.adapters.journal.outbox import SqliteOutbox

    outbox = SqliteOutbox(context.journal)
    payload = tier2_payload([{"challenge": "Why?", "answer": "Because."}], include_assertions=False)
    row = outbox.record_sent(
        OutboxEntry(model="gemini-2.5-flash", payload=payload.canonical(), request_body="{}")
    )
    outbox.record_outcome(
        row, OutboxOutcome(status="ok", response="{}", tokens_in=5, tokens_out=3, latency_ms=7)
    )
    context.close()
    window = _window(qtbot)
    with qtbot.waitSignal(window.views.sent.loaded, timeout=5_000) as loaded:
        qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)
    assert window.views.stack.currentWidget() is window.views.sent
    assert loaded.args == [1]
    assert window.menu_actions.show_sent.isChecked()


def test_with_no_key_the_status_line_says_answers_wait_until_a_key_is_set_in_settings(
    qtbot: QtBot,
) -> None:
    """The judge is on by default; until a Gemini key is stored nothing can be sent, and
    the status bar says so. A key stored in Settings (even if Settings is then cancelled,
    the key is kept in the keyring) puts the usual words back."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from coach_gui.ui.settings.privacy_controls import NO_KEY_TEXT, WITH_ASSERTIONS_TEXT
    from coach_gui.ui.settings.settings_dialog import SettingsDialog

    window = _window(qtbot)
    label = window.privacy.status_label()
    assert label.text() == NO_KEY_TEXT  # type: ignore[attr-defined]
    assert "no Gemini key is stored, so nothing is sent" in window.privacy.judge_action.toolTip()
    stored: list[str] = []

    def store_a_key(tries: int = 300) -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, SettingsDialog) or dialog.key_section is None:
            if tries:
                QTimer.singleShot(10, lambda: store_a_key(tries - 1))
            return
        section = dialog.key_section
        qtbot.waitUntil(lambda: section.key_field.isEnabled(), timeout=10_000)
        qtbot.keyClicks(section.key_field, "AIzaSy-settings-test-key-0123456789")
        with qtbot.waitSignal(window.privacy.key_changed, timeout=10_000):
            qtbot.mouseClick(section.save_button, Qt.MouseButton.LeftButton)
        stored.append(label.text())  # type: ignore[attr-defined]
        dialog.reject()

    QTimer.singleShot(0, store_a_key)
    window.open_settings()
    assert stored == [WITH_ASSERTIONS_TEXT]
    assert label.text() == WITH_ASSERTIONS_TEXT  # type: ignore[attr-defined]


def test_switching_the_judge_on_with_no_key_says_answers_wait_for_one(qtbot: QtBot) -> None:
    from coach_gui.ui.settings.privacy_controls import NO_KEY_TEXT, OFFLINE_TEXT

    window = _window(qtbot, judge=False)
    label = window.privacy.status_label()
    assert label.text() == OFFLINE_TEXT  # type: ignore[attr-defined]
    assert window.privacy.key_stored is None  # off: the keyring was not asked
    with qtbot.waitSignals([window.privacy.key_changed, window.privacy.saved], timeout=5_000):
        qtbot.keyClick(window, Qt.Key.Key_J, CTRL_SHIFT)
    assert label.text() == NO_KEY_TEXT  # type: ignore[attr-defined]
