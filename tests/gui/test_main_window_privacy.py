"""The privacy switches and the Sent to judge view, as the main window offers them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from coach_gui.bootstrap import build_context
from coach_gui.config import config_path
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome, tier2_payload
from coach_gui.ui.main_window import MainWindow

Answer = Callable[[str], Any]
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def _window(qtbot: QtBot) -> MainWindow:
    window = MainWindow(build_context())
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        pass
    return window


def test_switching_the_judge_off_from_the_toolbar_is_saved_and_followed(qtbot: QtBot) -> None:
    window = _window(qtbot)
    assert window.privacy.judge_action in window.findChildren(type(window.privacy.judge_action))
    with qtbot.waitSignal(window.privacy.saved, timeout=5_000):
        qtbot.keyClick(window, Qt.Key.Key_J, CTRL_SHIFT)
    assert window.context.config.judge.enabled is False  # the next session follows it
    on_disk = json.loads(config_path().read_text(encoding="utf-8"))
    assert on_disk["judge"]["enabled"] is False
    label = window.privacy.status_label()
    assert "nothing leaves this computer" in label.text()  # type: ignore[attr-defined]
    assert not window.privacy.assertions_action.isEnabled()


def test_ctrl_3_shows_every_request_sent_to_the_judge(qtbot: QtBot) -> None:
    context = build_context()
    from coach_gui.adapters.journal.outbox import SqliteOutbox

    outbox = SqliteOutbox(context.journal)
    payload = tier2_payload([{"challenge": "Why?", "answer": "Because."}], allow_assertions=False)
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
