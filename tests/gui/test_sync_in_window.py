"""Issue 20 in the window: Settings › Sync chooses the folder (explained, never a key),
and the window syncs on a worker when it opens, shows the status line, and reads the
other computer's sessions in."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
import yaml
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QLabel
from pytestqt.qtbot import QtBot

from coach_gui import paths
from coach_gui.bootstrap import build_cases, build_context, use_cases
from coach_gui.cli import main
from coach_gui.config import Config, config_path, load_config, save_config
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.settings_dialog import SettingsDialog
from coach_gui.ui.shell.main_window import MainWindow

NOTE = {"id": "note1", "title": "Natural selection", "core_assertions": ["A.", "B."]}


def _notes(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "natural-selection.md").write_text(
        "---\n" + yaml.safe_dump(NOTE) + "---\nBody.\n", encoding="utf-8"
    )
    return folder


def test_settings_choose_the_sync_folder_and_say_what_goes_there(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = config_path()
    save_config(Config(), path)
    dialog = SettingsDialog(ConfigOwner.of(load_config(path), path))
    qtbot.addWidget(dialog)
    dialog.show()
    labels = "\n".join(w.text() for w in dialog.findChildren(QLabel) if w.isVisible())
    assert "Never a key" in labels and "only through your sync tool" in labels
    assert "the note's title and id" in labels and "paired" in labels  # (issue 34)
    assert dialog.sync_folder.text() == "" and dialog.ok_button.isEnabled()

    qtbot.keyClicks(dialog.sync_folder, "Sync/coach")
    assert not dialog.ok_button.isEnabled()
    assert dialog.problem_label.text().startswith("Sync folder: must be the full path")
    assert "sync.folder" not in dialog.problem_label.text()

    dialog.sync_folder.clear()
    qtbot.keyClicks(dialog.sync_folder, str(tmp_path / "Sync"))
    assert dialog.ok_button.isEnabled()
    with qtbot.waitSignal(dialog.accepted, timeout=5000):
        dialog.ok_button.click()
    assert json.loads(path.read_text())["sync"]["folder"] == str(tmp_path / "Sync")

    again = SettingsDialog(ConfigOwner.of(load_config(path), path))
    qtbot.addWidget(again)
    assert again.sync_folder.text() == str(tmp_path / "Sync")
    again.sync_folder.clear()  # empty: sync is off again
    with qtbot.waitSignal(again.accepted, timeout=5000):
        again.ok_button.click()
    assert json.loads(path.read_text())["sync"]["folder"] is None


def _other_computer(tmp_path: Path, shared: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another computer practises offline and syncs into `shared`."""
    saved = {k: os.environ[k] for k in ("COACH_HOME", "COACH_CONFIG", "COACH_TEST_KEYRING")}
    other = tmp_path / "other"
    monkeypatch.setenv("COACH_HOME", str(other / "home"))
    monkeypatch.setenv("COACH_CONFIG", str(other / "coach.config.json"))
    monkeypatch.setenv("COACH_TEST_KEYRING", str(other / "keys.json"))
    notes = _notes(other / "notes")
    (other / "coach.config.json").write_text(
        json.dumps({"kb": {"path": str(notes)}, "sync": {"folder": str(shared)}})
    )
    answers = other / "answers.json"
    answers.write_text(json.dumps(["Because it is slow.", "No idea."]))
    argv = ["practice", "natural-selection", "--answers", str(answers), "--judge", "off"]
    assert main([*argv, "--json"]) == 0
    assert main(["sync"]) == 0
    for key, value in saved.items():
        monkeypatch.setenv(key, value)


def test_the_window_syncs_on_a_worker_when_it_opens_and_shows_the_status(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    shared = tmp_path / "Sync"
    shared.mkdir()
    _other_computer(tmp_path, shared, monkeypatch)
    capsys.readouterr()
    notes = _notes(tmp_path / "notes")
    save_config(Config().with_changes({"kb.path": str(notes), "sync.folder": str(shared)}))

    import coach_gui.operations.sync as sync_operation

    threads: list[threading.Thread] = []
    real = sync_operation.sync

    def on_which_thread(app: Any, **options: Any) -> Any:  # the real sync, noting where
        threads.append(threading.current_thread())
        return real(app, **options)

    monkeypatch.setattr(sync_operation, "sync", on_which_thread)
    context = build_context()
    window = MainWindow(use_cases(context))
    qtbot.addWidget(window)
    window.show()
    status = window.sync_status
    # The other computer is not paired yet: the window asks, showing both fingerprints,
    # and nothing of it comes in before the learner says yes (issue 34).
    qtbot.waitUntil(lambda: status.pairing is not None, timeout=15_000)
    dialog = status.pairing
    assert dialog is not None and "waits to be paired" in status.text()
    assert len(context.traces().session_ids()) == 0
    assert dialog.later_button.isDefault()
    own = sync_operation.own_fingerprint(context)
    texts = "\n".join(label.text() for label in dialog.findChildren(QLabel))
    assert dialog.waiting.fingerprint in texts and own in texts
    dialog.pair_button.click()
    qtbot.waitUntil(lambda: "new from them" in status.text(), timeout=15_000)
    assert status.isVisible()
    assert "1 other computer" in status.text() and "6 new from them" in status.text()
    assert "Brought in" in status.toolTip() and str(shared) in status.toolTip()
    assert threads and threads[0] is not threading.main_thread()
    assert len(context.traces().session_ids()) == 1  # the other computer's session, here
    # Settings › Sync shows this computer's fingerprint, to compare on the other one.
    shown: list[str] = []

    def read_it() -> None:
        settings = next(w for w in window.findChildren(SettingsDialog) if w.isVisible())
        label = settings.fingerprint_label
        shown.append("" if label is None else label.text())
        settings.reject()

    QTimer.singleShot(0, read_it)
    window.open_settings()
    assert shown and own in shown[0]
    window.close()


def test_a_missing_sync_folder_is_said_in_the_status_line_not_in_a_dialog(
    qtbot: QtBot, tmp_path: Path
) -> None:
    notes = _notes(tmp_path / "notes")
    gone = tmp_path / "unplugged drive" / "Sync"
    save_config(Config().with_changes({"kb.path": str(notes), "sync.folder": str(gone)}))
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.show()
    status = window.sync_status
    qtbot.waitUntil(lambda: status.text() == "Not synced", timeout=15_000)
    assert "is not there" in status.toolTip() and "Settings › Sync" in status.toolTip()
    window.close()


def test_a_session_ended_in_the_window_goes_to_the_sync_folder(
    qtbot: QtBot, tmp_path: Path, answer_dialog: Any
) -> None:
    from fakes.gemini_server import FakeGemini
    from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
    from test_main_window_practice import KEY, answer, open_note, open_window

    from coach_gui.adapters.secrets import KeyStore
    from coach_gui.ui.practice.practice_pane import Phase

    shared = tmp_path / "Sync"
    shared.mkdir()
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        ollama.queue_challenge("Why can a process that only keeps traits still make new kinds?")
        settings = {
            "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": False,
                      "challengesPerSession": 1},
            "judge": {"baseUrl": gemini.url, "maxRetries": 0},
            "sync": {"folder": str(shared)},
        }  # fmt: skip
        config_path().parent.mkdir(parents=True, exist_ok=True)
        config_path().write_text(json.dumps(settings), encoding="utf-8")
        KeyStore().set(KEY)
        window = open_window(qtbot, answer_dialog)
        status = window.sync_status
        qtbot.waitUntil(lambda: status.text().startswith("Synced"), timeout=15_000)
        assert "0 other computers" in status.text()
        open_note(qtbot, window, "Natural selection")
        window.menu_actions.practise.trigger()
        answer(qtbot, window, "Useful inherited differences are kept and add up.")
        qtbot.waitUntil(lambda: window.practice.phase is Phase.ANSWERED, timeout=15_000)
        window.practice.finish()
        qtbot.waitUntil(lambda: window.practice.phase is Phase.FINISHED, timeout=15_000)
        device = json.loads((paths.data_dir() / "sync-device.json").read_text())
        own = shared / device["device_id"]
        qtbot.waitUntil(lambda: any(own.glob("*.jsonl")), timeout=15_000)
        qtbot.waitUntil(lambda: status.text().startswith("Synced"), timeout=15_000)
        (segment,) = own.glob("*.jsonl")
        kinds = [json.loads(line).get("kind") for line in segment.read_text().splitlines()]
        assert {"session", "attempt", "verdict", "outbox", "trace"} <= set(kinds)
        # No key goes there: neither the Gemini key, the key that signs the trace log, nor
        # the private half of this computer's sync key (issue 34).
        secrets = json.loads(Path(os.environ["COACH_TEST_KEYRING"]).read_text()).values()
        assert len(secrets) == 3 and not any(secret in segment.read_text() for secret in secrets)
        window.close()


def test_not_now_imports_nothing_and_the_window_does_not_ask_again(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    shared = tmp_path / "Sync"
    shared.mkdir()
    _other_computer(tmp_path, shared, monkeypatch)
    notes = _notes(tmp_path / "notes")
    save_config(Config().with_changes({"kb.path": str(notes), "sync.folder": str(shared)}))
    context = build_context()
    window = MainWindow(use_cases(context))
    qtbot.addWidget(window)
    window.show()
    status = window.sync_status
    qtbot.waitUntil(lambda: status.pairing is not None, timeout=15_000)
    dialog = status.pairing
    assert dialog is not None
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # the default: Not now
    qtbot.waitUntil(lambda: status.pairing is None, timeout=5_000)
    status.run()
    qtbot.waitUntil(lambda: status.text().startswith("Synced"), timeout=15_000)
    assert status.pairing is None and len(context.traces().session_ids()) == 0
    assert "Waiting to be paired" in status.toolTip()
    window.close()


def test_where_my_data_lives_names_the_sync_folder_and_that_it_leaves(
    qtbot: QtBot, tmp_path: Path
) -> None:
    from coach_gui.ui.shell.help_dialogs import DataLocationsDialog

    shared = tmp_path / "Sync"
    shared.mkdir()
    save_config(Config().with_changes({"sync.folder": str(shared)}))
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    qtbot.waitUntil(lambda: window.sync_status.text().startswith("Synced"), timeout=15_000)
    window.menu_actions.locations.trigger()
    dialog = next(d for d in window.findChildren(DataLocationsDialog) if d.isVisible())
    assert dialog.path_labels[-1].text() == str(shared)
    texts = "\n".join(label.text() for label in dialog.findChildren(QLabel))
    assert "only through your own sync tool" in texts
    # What the folder holds, said truthfully, and this computer's fingerprint (issue 34).
    said = dialog.sync_label.text()
    assert "the note's title and id" in said and "key points" in said
    assert "\u201cSend core assertions\u201d off" in said and "this computer's name" in said
    fingerprint = window.sync_status.fingerprint
    assert fingerprint and fingerprint in said
    dialog.close()
    window.close()


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_pairing_question_reads_in_light_and_dark(qtbot: QtBot, dark: bool) -> None:
    from PySide6.QtGui import QColor, QPalette
    from shots import save_png

    from coach_gui.domain.sync_pairing import Waiting
    from coach_gui.ui.shell.pairing_dialog import PairingDialog

    waiting = Waiting("ab" * 16, "desktop-\x1b[2J", "K3QF-2MZA-7YHD-RW4C-PB6N", False)
    dialog = PairingDialog(waiting, "T7LM-Q2XC-94HA-ZE3K-MV8D")
    qtbot.addWidget(dialog)
    if dark:
        palette = dialog.palette()
        for role, colour in ((QPalette.ColorRole.Window, "#2b2b2b"),
                             (QPalette.ColorRole.WindowText, "#eeeeee"),
                             (QPalette.ColorRole.Button, "#3a3a3a"),
                             (QPalette.ColorRole.ButtonText, "#eeeeee")):  # fmt: skip
            palette.setColor(role, QColor(colour))
        dialog.setPalette(palette)
    dialog.show()
    qtbot.waitExposed(dialog)
    texts = "\n".join(label.text() for label in dialog.findChildren(QLabel))
    assert "\x1b" not in texts and "\\x1b[2J" in texts  # the name, escaped
    assert "`" not in texts and "\u201ccoach sync\u201d" in texts  # words, not markup
    assert dialog.fingerprint.text() == "K3QF-2MZA-7YHD-RW4C-PB6N"
    assert dialog.later_button.isDefault() and not dialog.pair_button.isDefault()
    save_png(dialog, f"pairing-{'dark' if dark else 'light'}.png")
    dialog.reject()


def test_the_pairing_question_for_a_forgotten_computer_says_it_was_forgotten(
    qtbot: QtBot,
) -> None:
    from coach_gui.domain.sync_pairing import Waiting
    from coach_gui.ui.shell.pairing_dialog import PairingDialog

    waiting = Waiting("ab" * 16, "desktop", "K3QF-2MZA-7YHD-RW4C-PB6N", True, forgotten=True)
    dialog = PairingDialog(waiting, "T7LM-Q2XC-94HA-ZE3K-MV8D")
    qtbot.addWidget(dialog)
    texts = "\n".join(label.text() for label in dialog.findChildren(QLabel))
    assert "You forgot this computer here" in texts
    assert "before Coach paired computers" not in texts
    dialog.reject()


def test_not_now_is_not_followed_by_a_question_for_every_folder_someone_planted(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Anyone who can write into the folder can make many "computers": Not now ends the
    questions for this run (they stay listed), rather than asking about each in turn."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from coach_gui.domain.sync_pairing import KEY_FILE, key_file_bytes

    shared = tmp_path / "Sync"
    shared.mkdir()
    for n in range(5):
        device = f"{n:032x}"
        (shared / device).mkdir()
        key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        (shared / device / KEY_FILE).write_bytes(key_file_bytes(device, f"planted {n}", key))
    notes = _notes(tmp_path / "notes")
    save_config(Config().with_changes({"kb.path": str(notes), "sync.folder": str(shared)}))
    context = build_context()
    window = MainWindow(use_cases(context))
    qtbot.addWidget(window)
    window.show()
    status = window.sync_status
    qtbot.waitUntil(lambda: status.pairing is not None, timeout=15_000)
    dialog = status.pairing
    assert dialog is not None
    qtbot.keyClick(dialog, Qt.Key.Key_Return)  # Not now
    qtbot.wait(300)
    assert status.pairing is None
    assert status.toolTip().count("Waiting to be paired") == 5
    window.close()


def test_a_pair_that_fails_is_said_in_a_message_not_only_in_the_tooltip(
    qtbot: QtBot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from coach_gui.domain.sync_pairing import KEY_FILE, key_file_bytes

    shared = tmp_path / "Sync"
    device = "c" * 32
    (shared / device).mkdir(parents=True)
    key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    (shared / device / KEY_FILE).write_bytes(key_file_bytes(device, "desktop", key))
    notes = _notes(tmp_path / "notes")
    save_config(Config().with_changes({"kb.path": str(notes), "sync.folder": str(shared)}))
    context = build_context()
    window = MainWindow(use_cases(context))
    qtbot.addWidget(window)
    window.show()
    status = window.sync_status
    qtbot.waitUntil(lambda: status.pairing is not None, timeout=15_000)
    dialog = status.pairing
    assert dialog is not None
    (shared / device / KEY_FILE).unlink()  # the sync tool took it away meanwhile
    dialog.pair_button.click()
    qtbot.waitUntil(lambda: getattr(status, "pair_failure", None) is not None, timeout=15_000)
    message = status.pair_failure
    assert message is not None and message.isVisible()
    said = message.text()
    assert "desktop" in said and "was not paired" in said
    assert "Check it on the other computer" in said  # what to do
    assert "Traceback" not in said and "SyncError" not in said
    assert "Not paired" in status.text()
    message.accept()
    window.close()
