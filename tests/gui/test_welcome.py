"""The first-run welcome, end to end against the fake Ollama: it says what stays local and
what may be sent, shows the Ollama check, offers and runs the model download, saves the
privacy switches to the config file, stores a key in the keyring, can be skipped, opens
once on first run, and again from Help > Welcome…."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini
from fakes.gemini_server import Fault as GeminiFault
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama, Fault
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot
from shots import SHOTS
from visible_text import assert_learner_words

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import build_cases
from coach_gui.config import config_path, load_config, save_config
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.kit.window_state import window_settings
from coach_gui.ui.practice.model_download import ModelDownloadDialog
from coach_gui.ui.shell.app import WELCOME_SEEN_KEY, maybe_welcome
from coach_gui.ui.shell.main_window import MainWindow
from coach_gui.ui.shell.welcome import WelcomeDialog

WAIT_MS = 10_000
KEY = "AIzaSy-welcome-test-key-0123456789"


def write_config(ollama_url: str) -> None:
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    config = {
        "tier1": {"ollamaUrl": ollama_url, "model": DEFAULT_MODEL},
        "judge": {"enabled": False},  # the learner chooses in the welcome
    }
    path.write_text(json.dumps(config), encoding="utf-8")


@pytest.fixture
def ollama_without_model() -> Iterator[FakeOllama]:
    with FakeOllama(models=[], pull_steps=3) as ollama:
        write_config(ollama.url)
        yield ollama


def open_window(qtbot: QtBot) -> MainWindow:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    return window


def shown_welcome(window: MainWindow) -> WelcomeDialog | None:
    shown = [d for d in window.findChildren(WelcomeDialog) if d.isVisible()]
    return shown[-1] if shown else None


def open_welcome_from_help(qtbot: QtBot, window: MainWindow) -> WelcomeDialog:
    help_menu = next(m for m in window.menuBar().actions() if m.text() == "&Help").menu()
    assert window.menu_actions.welcome in help_menu.actions()
    window.menu_actions.welcome.trigger()
    qtbot.waitUntil(lambda: shown_welcome(window) is not None, timeout=WAIT_MS)
    dialog = shown_welcome(window)
    assert dialog is not None
    qtbot.waitUntil(lambda: not dialog.key_section.status_label.text().startswith("Checking"))
    return dialog


def test_the_welcome_walks_through_ollama_the_model_privacy_and_the_key(
    qtbot: QtBot, ollama_without_model: FakeOllama
) -> None:
    window = open_window(qtbot)
    dialog = open_welcome_from_help(qtbot, window)

    said = dialog.privacy_label.text()
    assert "Stays on this computer, always:</b> your notes, your answers, your practice" in said
    assert "each challenge and your answer go to Google Gemini" in said
    assert "Never the note's text" in said
    assert "Offline: nothing leaves this computer" in said  # as configured

    qtbot.waitUntil(lambda: "not downloaded yet" in dialog.tier1_label.text(), timeout=WAIT_MS)
    assert DEFAULT_MODEL in dialog.tier1_label.text()
    assert dialog.download_button.isVisible()
    assert assert_learner_words(step="the welcome, model missing") > 30
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)  # let layouts settle before the grab
    assert dialog.grab().save(str(SHOTS / "welcome.png"), "PNG")

    with qtbot.waitSignal(dialog.model_downloaded, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.download_button, Qt.MouseButton.LeftButton)
    assert [r.body["model"] for r in ollama_without_model.requests_to("/api/pull")] == [
        DEFAULT_MODEL
    ]
    qtbot.waitUntil(lambda: dialog.tier1_label.text().startswith("Ready"), timeout=WAIT_MS)
    assert not dialog.download_button.isVisible()
    qtbot.waitUntil(lambda: window.views.tier1_status.text() == DEFAULT_MODEL, timeout=WAIT_MS)

    assert not dialog.assertions_box.isEnabled()  # nothing to send while the judge is off
    with qtbot.waitSignal(window.privacy.saved, timeout=WAIT_MS):
        dialog.judge_box.click()  # as a click on the box or Space does
    assert load_config(config_path()).judge.enabled
    assert window.privacy.judge_action.isChecked()  # the toolbar switch follows
    # On, but no key is stored yet: nothing can be sent, and the welcome says so.
    assert "the judge is on, but no key is stored" in dialog.privacy_label.text()
    include_before = load_config(config_path()).judge.include_assertions
    with qtbot.waitSignal(window.privacy.saved, timeout=WAIT_MS):
        dialog.assertions_box.click()
    assert load_config(config_path()).judge.include_assertions is not include_before
    assert dialog.assertions_box.isChecked() is not include_before
    assert window.cases.settings.config.judge.include_assertions is not include_before

    section = dialog.key_section
    section.key_field.setFocus()
    qtbot.keyClicks(section.key_field, KEY)
    with qtbot.waitSignal(section.status_loaded, timeout=WAIT_MS):
        qtbot.mouseClick(section.save_button, Qt.MouseButton.LeftButton)
    assert KeyStore().get() == KEY
    assert section.key_field.text() == ""

    qtbot.mouseClick(dialog.start_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert dialog.result() == WelcomeDialog.DialogCode.Accepted


def test_without_ollama_the_welcome_says_so_and_offers_no_download(
    qtbot: QtBot, unnamed_controls: Callable[[QWidget], list[str]]
) -> None:
    write_config("http://127.0.0.1:9")  # loopback, nothing listening
    window = open_window(qtbot)
    dialog = open_welcome_from_help(qtbot, window)
    assert unnamed_controls(dialog) == []
    qtbot.waitUntil(lambda: "not running here" in dialog.tier1_label.text(), timeout=WAIT_MS)
    assert "install Ollama from ollama.com" in dialog.tier1_label.text()
    assert not dialog.download_button.isVisible()
    assert_learner_words(step="the welcome, Ollama not running")
    assert not [w for w in QApplication.topLevelWidgets() if isinstance(w, ModelDownloadDialog)]
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()


def test_a_web_page_at_ollamas_address_is_told_in_words(qtbot: QtBot) -> None:
    """Found in use: a router's page answering at Ollama's address was pasted, markup and
    all, into the download's error; now a sentence says what happened (the log has the
    page)."""
    with FakeOllama(models=[], pull_steps=3) as ollama:
        write_config(ollama.url)
        window = open_window(qtbot)
        dialog = open_welcome_from_help(qtbot, window)
        qtbot.waitUntil(lambda: dialog.download_button.isVisible(), timeout=WAIT_MS)
        ollama.inject(Fault.WEB_PAGE, path="/api/pull", times=None)
        qtbot.mouseClick(dialog.download_button, Qt.MouseButton.LeftButton)
        download = next(d for d in dialog.findChildren(ModelDownloadDialog) if d.isVisible())
        qtbot.waitUntil(lambda: download.error_line.isVisible(), timeout=WAIT_MS)
        said = download.error_line.text()
        assert said.startswith("Ollama sent a reply Coach cannot read"), said
        assert "Router" not in said and "<" not in said
        assert_learner_words(step="a web page answering a download")
        download.close()

        ollama.inject(Fault.WEB_PAGE, path="/api/version", times=None)
        qtbot.mouseClick(dialog.check_button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: "not running here" in dialog.tier1_label.text(), timeout=WAIT_MS)
        assert "cannot read" in dialog.tier1_label.text()
        assert_learner_words(step="a web page answering the check")
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def test_a_failed_test_connection_in_the_welcome_is_a_plain_sentence(qtbot: QtBot) -> None:
    """Found in use: a Wi-Fi sign-in page answering for Google was pasted into the
    Welcome; the test's result is a sentence, and the page is shown nowhere."""
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        write_config(ollama.url)
        config = load_config(config_path()).with_changes({"judge.baseUrl": gemini.url})
        save_config(config, config_path())
        KeyStore().set(KEY)
        gemini.inject(GeminiFault.SIGN_IN_PAGE, times=None)
        window = open_window(qtbot)
        dialog = open_welcome_from_help(qtbot, window)
        section = dialog.key_section
        with qtbot.waitSignal(section.connection_tested, timeout=WAIT_MS) as tested:
            qtbot.mouseClick(section.test_button, Qt.MouseButton.LeftButton)
        assert tested.args == [False]
        said = section.result_label.text()
        assert said.startswith("Something other than Gemini answered"), said
        assert "CafeNet" not in said
        assert_learner_words(step="the Welcome's test answered by a sign-in page")
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def test_skipping_changes_nothing(qtbot: QtBot, ollama_without_model: FakeOllama) -> None:
    window = open_window(qtbot)
    before = Path(os.environ["COACH_CONFIG"]).read_text(encoding="utf-8")
    dialog = open_welcome_from_help(qtbot, window)
    qtbot.waitUntil(lambda: dialog.download_button.isVisible(), timeout=WAIT_MS)
    qtbot.mouseClick(dialog.skip_button, Qt.MouseButton.LeftButton)
    assert not dialog.isVisible()
    assert dialog.result() == WelcomeDialog.DialogCode.Rejected
    assert Path(os.environ["COACH_CONFIG"]).read_text(encoding="utf-8") == before
    assert KeyStore().get() is None
    assert ollama_without_model.requests_to("/api/pull") == []


def test_the_welcome_opens_on_the_first_run_only(
    qtbot: QtBot, ollama_without_model: FakeOllama
) -> None:
    window = open_window(qtbot)
    assert shown_welcome(window) is None  # building the window alone never shows it
    maybe_welcome(window)
    dialog = shown_welcome(window)
    assert dialog is not None
    qtbot.waitUntil(lambda: dialog.download_button.isVisible(), timeout=WAIT_MS)
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    # Kept where the window's own state is (the test's folder), not in the native store.
    assert window_settings().value(WELCOME_SEEN_KEY, False, type=bool)

    maybe_welcome(window)  # the next start
    assert shown_welcome(window) is None


def test_on_first_run_the_welcome_and_the_status_bar_say_what_the_judge_will_do_now(
    qtbot: QtBot,
) -> None:
    """The judge is on by default, yet with no Gemini key nothing can be sent: the welcome
    and the status bar say so, and agree with each other as the key and the switch change."""
    from coach_gui.ui.settings.privacy_controls import (
        NO_KEY_TEXT,
        OFFLINE_TEXT,
        WITH_ASSERTIONS_TEXT,
    )

    with FakeOllama() as ollama:
        path = Path(os.environ["COACH_CONFIG"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"tier1": {"ollamaUrl": ollama.url}}), encoding="utf-8")
        window = open_window(qtbot)
        status = window.privacy.status_label()
        qtbot.waitUntil(lambda: status.text() == NO_KEY_TEXT, timeout=WAIT_MS)
        assert window.cases.settings.config.judge.enabled  # on, as on every first run
        assert "kept unjudged until a key is set" in status.text()
        assert "Gemini" not in status.text().replace("No Gemini key", "")  # nothing "sent to"

        dialog = open_welcome_from_help(qtbot, window)
        said = dialog.privacy_label.text()
        assert "only if you switch the judge on" not in said  # it is on
        assert "Sent once you set a Gemini key:</b> the judge is on, but no key" in said
        assert "nothing is sent and your answers are kept unjudged" in said
        assert f"<b>Now:</b> {NO_KEY_TEXT}." in said

        section = dialog.key_section
        section.key_field.setFocus()
        qtbot.keyClicks(section.key_field, KEY)
        with qtbot.waitSignal(window.privacy.key_changed, timeout=WAIT_MS):
            qtbot.mouseClick(section.save_button, Qt.MouseButton.LeftButton)
        assert status.text() == WITH_ASSERTIONS_TEXT
        said = dialog.privacy_label.text()
        assert "Sent each time an answer is judged (the judge is on):</b> each challenge" in said
        assert "with the note's core assertions, because <i>Send core assertions</i> is on" in said
        assert f"<b>Now:</b> {WITH_ASSERTIONS_TEXT}." in said

        with qtbot.waitSignal(window.privacy.saved, timeout=WAIT_MS):
            dialog.judge_box.click()
        said = dialog.privacy_label.text()
        assert status.text() == OFFLINE_TEXT
        assert "May be sent, only if you switch the judge on:</b>" in said
        assert f"<b>Now:</b> {OFFLINE_TEXT}." in said
        qtbot.waitUntil(lambda: dialog.tier1_label.text().startswith("Ready"), timeout=WAIT_MS)
        dialog.reject()


def test_the_judge_on_this_computer_needs_no_key_and_says_nothing_leaves(qtbot: QtBot) -> None:
    from coach_gui.ui.settings.privacy_controls import LOCAL_TEXT

    with FakeOllama() as ollama:
        path = Path(os.environ["COACH_CONFIG"])
        path.parent.mkdir(parents=True, exist_ok=True)
        config = {"tier1": {"ollamaUrl": ollama.url}, "judge": {"provider": "local"}}
        path.write_text(json.dumps(config), encoding="utf-8")
        window = open_window(qtbot)
        dialog = open_welcome_from_help(qtbot, window)  # it reads the keyring: no key
        qtbot.waitUntil(lambda: window.privacy.key_stored is False, timeout=WAIT_MS)
        assert window.privacy.status_label().text() == LOCAL_TEXT
        assert "no key" not in window.privacy.judge_action.toolTip().lower()
        assert "<b>Nothing leaves this computer.</b>" in dialog.privacy_label.text()
        assert "Gemini key" not in dialog.privacy_label.text()
        qtbot.waitUntil(lambda: dialog.tier1_label.text().startswith("Ready"), timeout=WAIT_MS)
        dialog.reject()
