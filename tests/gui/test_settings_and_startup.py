"""The Settings dialog validates as you type and saves coach.config.json; a bad config
at start-up is explained, and can be reset to the defaults."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGroupBox, QLabel
from pytestqt.qtbot import QtBot

from coach_gui.config import Config, config_path, load_config, save_config
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.settings_dialog import SettingsDialog
from coach_gui.ui.shell.app import open_main_window
from coach_gui.ui.shell.main_window import MainWindow

Answer = Callable[[str], Any]  # the answer_dialog fixture (tests/gui/conftest.py)


def make_dialog(qtbot: QtBot) -> SettingsDialog:
    path = config_path()
    save_config(Config(), path)
    dialog = SettingsDialog(ConfigOwner.of(load_config(path), path))
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def test_a_remote_ollama_address_is_refused_inline_and_save_is_disabled(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    assert dialog.ok_button.isEnabled() and not dialog.problem_label.isVisible()

    dialog.ollama_url.selectAll()
    qtbot.keyClicks(dialog.ollama_url, "http://ollama.example.com:11434")
    assert not dialog.ok_button.isEnabled()
    assert dialog.problem_label.isVisible()
    assert dialog.problem_label.text().startswith("Local server address: ")
    assert "must run on this computer" in dialog.problem_label.text()

    dialog.ollama_url.selectAll()
    qtbot.keyClicks(dialog.ollama_url, "http://localhost:11434")
    assert dialog.ok_button.isEnabled() and not dialog.problem_label.isVisible()

    dialog.judge_model.clear()
    assert not dialog.ok_button.isEnabled()
    assert dialog.problem_label.text().startswith("Gemini model: ")


def test_saved_settings_land_in_the_config_file(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    qtbot.mouseClick(dialog.include_assertions, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.judge_enabled, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(dialog.review_payloads, Qt.MouseButton.LeftButton)
    dialog.tier1_model.selectAll()
    qtbot.keyClicks(dialog.tier1_model, "qwen2.5:3b")
    dialog.judge_timeout.setValue(45)
    dialog.max_shared_words.setValue(8)

    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    on_disk = json.loads(config_path().read_text(encoding="utf-8"))
    assert on_disk["judge"]["includeAssertions"] is False
    assert on_disk["judge"]["enabled"] is False
    assert on_disk["judge"]["reviewPayloads"] is True
    assert on_disk["judge"]["timeoutSeconds"] == 45
    assert on_disk["tier1"]["model"] == "qwen2.5:3b"
    assert on_disk["noQuote"]["maxSharedWords"] == 8
    assert dialog.config == load_config(config_path())


def test_the_judge_can_be_moved_to_this_computer_from_settings(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    assert dialog.judge_provider.currentData() == "gemini"
    dialog.judge_provider.setFocus()
    qtbot.keyClick(dialog.judge_provider, Qt.Key.Key_Down)  # as the learner picks it
    assert dialog.judge_provider.currentData() == "local"
    assert dialog.judge_provider.currentText() == "This computer (Ollama)"
    assert dialog.local_judge_model.isEnabled() and not dialog.judge_model.isEnabled()
    dialog.local_judge_model.selectAll()
    qtbot.keyClicks(dialog.local_judge_model, "llama3.1:8b")
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    on_disk = json.loads(config_path().read_text(encoding="utf-8"))
    assert (on_disk["judge"]["provider"], on_disk["judge"]["localModel"]) == (
        "local",
        "llama3.1:8b",
    )
    again = SettingsDialog(ConfigOwner.of(load_config(config_path()), config_path()))
    qtbot.addWidget(again)
    assert again.judge_provider.currentData() == "local"  # shown as saved


def test_cancel_leaves_the_config_file_alone(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    before = config_path().read_bytes()
    qtbot.mouseClick(dialog.judge_enabled, Qt.MouseButton.LeftButton)
    dialog.reject()
    assert config_path().read_bytes() == before


def test_every_settings_control_has_a_name_for_screen_readers(
    qtbot: QtBot, unnamed_controls: Callable[..., list[str]]
) -> None:
    dialog = make_dialog(qtbot)
    assert unnamed_controls(dialog) == []


def test_a_bad_config_at_start_can_be_reset_to_the_defaults(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    bad = b'{"judge": {"enabeld": true}}\n'
    path.write_bytes(bad)

    answer = answer_dialog("Reset to defaults")
    window = open_main_window()
    assert answer.answered
    said = answer.informative  # in the learner's words: the log file names the entry
    assert "an entry Coach does not know in its Judge part" in said and "enabeld" not in said
    assert {"Open config file", "Try again", "Reset to defaults", "Quit"} <= set(answer.buttons)
    assert isinstance(window, MainWindow)
    qtbot.addWidget(window)
    assert load_config(path) == Config()
    assert path.with_suffix(".json.bak").read_bytes() == bad


def test_quitting_at_a_bad_config_opens_no_window(answer_dialog: Answer) -> None:
    path = config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"tier1": {"ollamaUrl": "http://10.0.0.5:11434"}}', encoding="utf-8")
    answer = answer_dialog("Quit")
    assert open_main_window() is None
    assert answer.answered
    assert "Local server address: Ollama must run on this computer" in answer.informative
    assert "tier1.ollamaUrl" not in answer.informative and str(path) in answer.informative
    assert "10.0.0.5" in path.read_text(encoding="utf-8")  # left for the learner to fix


def test_settings_open_from_the_main_window_with_ctrl_comma(
    qtbot: QtBot, answer_dialog: Answer
) -> None:
    window = open_main_window()
    assert window is not None
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    window.activateWindow()
    answer = answer_dialog("Cancel")
    qtbot.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    assert answer.answered and answer.title == "Settings — Coach"


def _visible_text(dialog: SettingsDialog) -> str:
    from PySide6.QtWidgets import QAbstractButton

    texts = [w.text() for w in dialog.findChildren(QLabel) if w.isVisible()]
    texts += [w.text() for w in dialog.findChildren(QAbstractButton) if w.isVisible()]
    return "\n".join(texts)


def test_practice_settings_are_typed_and_saved_with_what_they_mean(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    assert dialog.challenges_per_session.value() == 3
    assert dialog.follow_ups.isChecked()
    assert dialog.desired_retention.value() == 0.9
    shown = _visible_text(dialog)
    assert "Higher means more reviews" in shown and "not counting follow-ups" in shown
    assert "Notes (your knowledge base)" in {b.title() for b in dialog.findChildren(QGroupBox)}

    dialog.challenges_per_session.setFocus()
    dialog.challenges_per_session.selectAll()
    qtbot.keyClicks(dialog.challenges_per_session, "5")
    qtbot.mouseClick(dialog.follow_ups, Qt.MouseButton.LeftButton)
    dialog.desired_retention.setFocus()
    dialog.desired_retention.selectAll()
    qtbot.keyClicks(dialog.desired_retention, "0.85")
    assert dialog.ok_button.isEnabled()
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)

    on_disk = json.loads(config_path().read_text(encoding="utf-8"))
    assert on_disk["tier1"]["challengesPerSession"] == 5
    assert on_disk["tier1"]["followUps"] is False
    assert on_disk["schedule"]["desiredRetention"] == 0.85
    assert dialog.config == load_config(config_path())


def test_a_retention_out_of_range_is_explained_beside_it_and_save_waits(qtbot: QtBot) -> None:
    dialog = make_dialog(qtbot)
    about = next(
        label
        for label in dialog.findChildren(QLabel)
        if label.accessibleName() == "About Desired retention"
    )
    dialog.desired_retention.setFocus()
    dialog.desired_retention.selectAll()
    qtbot.keyClicks(dialog.desired_retention, "0.5")  # on its way to 0.50: not one it takes

    assert not dialog.ok_button.isEnabled()
    assert about.text() == (
        "Type a number between 0.70 and 0.99 (0.90 is the default). Higher means more reviews."
    )
    assert dialog.problem_label.isVisible()
    assert dialog.problem_label.text().startswith("Desired retention: type a number between")
    shown = _visible_text(dialog)
    assert "desiredRetention" not in shown and "schedule." not in shown

    qtbot.keyClicks(dialog.desired_retention, "\b\b\b0.75")
    assert dialog.desired_retention.value() == 0.75
    assert dialog.ok_button.isEnabled() and not dialog.problem_label.isVisible()
    assert about.text().startswith("Between 0.70 and 0.99: the chance you still recall")

    dialog.challenges_per_session.setFocus()
    dialog.challenges_per_session.selectAll()
    qtbot.keyClicks(dialog.challenges_per_session, "\b")  # emptied: no number at all
    assert not dialog.ok_button.isEnabled()
    assert dialog.problem_label.text() == (
        "Challenges per session: type a whole number from 1 to 20."
    )


def test_the_new_settings_have_mnemonics_no_other_control_uses(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QAbstractButton

    dialog = make_dialog(qtbot)

    def mnemonic(text: str) -> str | None:
        at = text.replace("&&", "").find("&")
        return text.replace("&&", "")[at + 1].lower() if at >= 0 else None

    keys = [mnemonic(w.text()) for w in dialog.findChildren(QLabel) if w.buddy() is not None]
    keys += [mnemonic(w.text()) for w in dialog.findChildren(QAbstractButton)]
    labels = {w.buddy(): w for w in dialog.findChildren(QLabel) if w.buddy() is not None}
    mine = [
        mnemonic(labels[dialog.challenges_per_session].text()),
        mnemonic(dialog.follow_ups.text()),
        mnemonic(labels[dialog.desired_retention].text()),
    ]
    assert mine == ["h", "f", "e"]
    assert all(keys.count(key) == 1 for key in mine)
    assert "s" not in mine  # Alt+S is Save's
