"""Finding a running model server from the Welcome and from Settings (issue 31), against
loopback fakes standing where LM Studio, llama.cpp and Ollama listen: the search runs off
the GUI thread, names each server with its models, says what to do for one that cannot be
used yet, and choosing one points Coach at it (Welcome: saved at once; Settings: on OK).
Screenshots, light and dark, go to SHOTS (and /work/shots/31 when COACH_SHOTS_31 is set)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.coach_files import write_config
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QScrollArea, QWidget
from pytestqt.qtbot import QtBot
from shots import SHOTS
from visible_text import assert_learner_words

from coach_gui.bootstrap import build_context, use_cases
from coach_gui.config import config_path, load_config
from coach_gui.domain.local_servers import DEFAULT_CANDIDATES, Candidate
from coach_gui.operations.tier1 import Tier1State
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.settings_dialog import SettingsDialog
from coach_gui.ui.shell.main_window import MainWindow
from coach_gui.ui.shell.welcome import WelcomeDialog, show_welcome

WAIT_MS = 10_000
LM_MODELS = ["qwen2.5-7b-instruct", "gemma-3-4b"]


def _at(name: str, url: str) -> Candidate:
    known = next(c for c in DEFAULT_CANDIDATES if c.name == name)
    return Candidate(known.name, url, known.wire, known.load_a_model)


@pytest.fixture
def servers() -> Iterator[tuple[Candidate, ...]]:
    """LM Studio with two models, llama.cpp with none loaded; Ollama is not running."""
    with (
        FakeOllama(wire="openai", models=list(LM_MODELS)) as lm_studio,
        FakeOllama(wire="openai", models=[]) as llama_cpp,
        FakeOllama() as stopped,
    ):
        stopped_url = stopped.url
        stopped.__exit__(None, None, None)
        write_config({"tier1": {"ollamaUrl": stopped_url, "model": DEFAULT_MODEL},
                      "judge": {"enabled": False}})  # fmt: skip
        yield (_at("Ollama", stopped_url), _at("LM Studio", lm_studio.url),
               _at("llama.cpp", llama_cpp.url))  # fmt: skip


def _dark(widget: QWidget) -> None:
    palette = QPalette(QApplication.palette())
    for role, colour in ((QPalette.ColorRole.Base, "#1e1e1e"),
                         (QPalette.ColorRole.Window, "#2b2b2b"),
                         (QPalette.ColorRole.Button, "#3a3a3a"),
                         (QPalette.ColorRole.AlternateBase, "#262626"),
                         (QPalette.ColorRole.Text, "#eeeeee"),
                         (QPalette.ColorRole.WindowText, "#eeeeee"),
                         (QPalette.ColorRole.ButtonText, "#eeeeee")):  # fmt: skip
        palette.setColor(role, QColor(colour))
    widget.setPalette(palette)
    for child in widget.findChildren(QWidget):
        child.setPalette(palette)


def _shoot(qtbot: QtBot, widget: QWidget, name: str) -> None:
    qtbot.wait(50)  # let layouts settle before the grab
    assert widget.grab().save(str(SHOTS / name), "PNG")
    extra = os.environ.get("COACH_SHOTS_31")
    if extra:
        Path(extra).mkdir(parents=True, exist_ok=True)
        assert widget.grab().save(str(Path(extra) / name), "PNG")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_welcome_finds_lm_studio_and_uses_it(
    qtbot: QtBot, servers: tuple[Candidate, ...], dark: bool
) -> None:
    context = build_context()
    context.server_candidates = servers
    window = MainWindow(use_cases(context))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    dialog: WelcomeDialog = show_welcome(window)
    if dark:
        _dark(dialog)
    finder = dialog.server_finder
    qtbot.waitUntil(lambda: "not running" in dialog.tier1_label.text(), timeout=WAIT_MS)

    with qtbot.waitSignal(finder.searched, timeout=WAIT_MS):
        qtbot.mouseClick(finder.find_button, Qt.MouseButton.LeftButton)
    lines = [finder.server_list.item(n).text() for n in range(finder.server_list.count())]
    assert len(lines) == 2  # Ollama is not running: not listed
    assert lines[0].startswith("LM Studio at http://127.0.0.1:") and "2 models" in lines[0]
    assert lines[1].startswith("llama.cpp is running at") and "no model is loaded" in lines[1]
    assert finder.status_label.text().startswith("Found LM Studio.")
    assert [finder.model_box.itemText(n) for n in range(finder.model_box.count())] == LM_MODELS
    assert assert_learner_words(step="the welcome, servers found") > 30
    _shoot(qtbot, dialog, f"welcome-servers-{'dark' if dark else 'light'}.png")

    finder.model_box.setCurrentIndex(1)
    judge_was = window.cases.settings.config.judge.enabled
    with qtbot.waitSignal(dialog.server_saved, timeout=WAIT_MS):
        qtbot.mouseClick(finder.use_button, Qt.MouseButton.LeftButton)
        # The judge switch flipped while the choice is being saved: the Welcome wrote its
        # own copy of the config and put the switch back, on disk and on screen (ADR 0030).
        window.privacy.judge_action.trigger()
    qtbot.waitUntil(lambda: not window.config_owner.writing, timeout=WAIT_MS)
    saved_config = load_config(config_path())
    saved = saved_config.tier1
    assert (saved.server, saved.url, saved.model) == ("openai", servers[1].url, LM_MODELS[1])
    assert saved_config.judge.enabled is (not judge_was)
    assert window.cases.settings.config.judge.enabled is (not judge_was)
    assert window.cases.settings.config.tier1.server == "openai"
    qtbot.waitUntil(lambda: dialog.tier1_label.text().startswith("Ready"), timeout=WAIT_MS)
    assert LM_MODELS[1] in dialog.tier1_label.text()
    qtbot.waitUntil(
        lambda: window.views.tier1_status.status.state is Tier1State.READY, timeout=WAIT_MS
    )
    dialog.reject()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_settings_finds_a_server_and_fills_in_the_local_model_fields(
    qtbot: QtBot, servers: tuple[Candidate, ...], dark: bool
) -> None:
    context = build_context()
    context.server_candidates = servers
    dialog = SettingsDialog(ConfigOwner(context), server_finder=context.find_local_servers)
    qtbot.addWidget(dialog)
    dialog.show()
    if dark:
        _dark(dialog)
    finder = dialog.server_finder
    assert finder is not None
    with qtbot.waitSignal(finder.searched, timeout=WAIT_MS):
        qtbot.mouseClick(finder.find_button, Qt.MouseButton.LeftButton)
    assert finder.server_list.count() == 2
    dialog.resize(1400, 960)  # two columns: the Local model group whole in the picture
    qtbot.wait(50)
    scroll = dialog.findChild(QScrollArea)
    if scroll is not None:
        scroll.ensureWidgetVisible(finder.use_button, 0, 0)
    _shoot(qtbot, dialog, f"settings-servers-{'dark' if dark else 'light'}.png")

    qtbot.mouseClick(finder.use_button, Qt.MouseButton.LeftButton)
    assert dialog.tier1_server.currentData() == "openai"
    assert (dialog.ollama_url.text(), dialog.tier1_model.text()) == (servers[1].url, LM_MODELS[0])
    assert load_config(config_path()).tier1.server == "ollama"  # nothing saved before OK
    with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
        qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    saved = load_config(config_path()).tier1
    assert (saved.server, saved.url, saved.model) == ("openai", servers[1].url, LM_MODELS[0])


def test_with_no_server_running_the_finder_says_what_to_do(qtbot: QtBot) -> None:
    with FakeOllama() as gone:
        url = gone.url
    context = build_context()
    context.server_candidates = (_at("Ollama", url), _at("Jan", url))
    dialog = SettingsDialog(ConfigOwner(context), server_finder=context.find_local_servers)
    qtbot.addWidget(dialog)
    finder = dialog.server_finder
    assert finder is not None
    with qtbot.waitSignal(finder.searched, timeout=WAIT_MS):
        finder.find_button.click()
    assert finder.status_label.text().startswith("No model server is running on this computer")
    assert not finder.use_button.isVisible() and not finder.server_list.isVisible()
