"""The check the end-to-end tests run on what is on screen: it catches each kind of
machine text, lets the learner's words through, and names the widget when it fails."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget
from pytestqt.qtbot import QtBot
from visible_text import assert_learner_words, problems_in


@pytest.mark.parametrize(
    "text",
    [
        "because judge.includeAssertions is on now",
        "raise tier1.readTimeoutSeconds in Settings",
        "Coach could not reach the judge (ConnectError: [Errno 111] Connection refused).",
        "json.decoder.JSONDecodeError: Expecting value",
        "Traceback (most recent call last):",
        "<!DOCTYPE html><html><body>Sign in to the Wi-Fi</body></html>",
        "A key is stored in fakes.keyring_backend.FileKeyring.",
        "the keyring backend keyring.backends.SecretService.Keyring is locked",
        "the keyring ChainerBackend is not available",
        "1 sessions listed",
        "Practise 1 notes",
    ],
)
def test_machine_text_is_caught(text: str) -> None:
    assert problems_in(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Settings saved to /home/me/.config/coach/coach.config.json",
        "Install Ollama from ollama.com, start it, then check again.",
        "Get a key at https://aistudio.google.com/apikey.",
        "Moved natural-selection.md to the trash: /home/me/kb-trash",
        "Error: the judge did not answer within 30 s.",
        "1 session listed",
        "2 sessions listed",
        "1 of 3 answers passed",
        "0.1 seconds",
        "Ready: challenges are written on this computer by llama3.2:3b.",
        "the Secret Service keyring (GNOME Keyring)",
        "1 pass, 2 need work",
        "e.g. qwen2.5:7b, i.e. a model",
    ],
)
def test_the_learners_words_pass(text: str) -> None:
    assert problems_in(text) == [], text


def test_a_failure_names_the_widget_and_quotes_the_text(qtbot: QtBot) -> None:
    host = QWidget()
    host.setWindowTitle("Somewhere")
    label = QLabel("Could not connect (ConnectError)", host)
    label.setAccessibleName("Connection result")
    QVBoxLayout(host).addWidget(label)
    qtbot.addWidget(host)
    host.show()
    with pytest.raises(AssertionError) as caught:
        assert_learner_words(step="the test")
    said = str(caught.value)
    assert "At the test" in said and "QLabel “Connection result” in “Somewhere”" in said
    assert "an exception class name (ConnectError)" in said
    assert "'Could not connect (ConnectError)'" in said
    label.setText("Coach could not connect. Check that Ollama is running.")
    assert assert_learner_words() > 0
