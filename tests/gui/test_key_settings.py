"""The *Gemini API key* section of Settings: the key goes into the OS keyring and is never
shown again; *Test connection* talks to a loopback fake of Gemini; a keyring that would
keep keys in the clear (or none at all) is refused with the reason (DESIGN §1.7)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import keyring
import keyring.backend
import pytest
from fakes.gemini_server import FakeGemini, Fault
from fakes.keyring_backend import FileKeyring
from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget
from pytestqt.qtbot import QtBot
from shots import SHOTS
from visible_text import assert_learner_words

from coach_gui.adapters.gemini import GeminiJudge
from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import AppContext, build_context
from coach_gui.config import Config, config_path, load_config, save_config
from coach_gui.operations.keys import Keys
from coach_gui.ui.kit.screen_fit import screen_room
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.key_settings import GeminiKeySection
from coach_gui.ui.settings.settings_dialog import SettingsDialog

GOOD_KEY = "test-key"
SECRET = "AIzaSy-secret-key-never-shown-0123456789"
_held: list[QWidget] = []


@pytest.fixture(autouse=True)
def hold_widgets() -> Iterator[None]:
    """Keep widgets referenced until pytest-qt has closed and deleted them."""
    yield
    _held.clear()


def every_text(root: QWidget) -> str:
    """Everything a person or a screen reader could read anywhere in `root`."""
    parts: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        parts += [widget.windowTitle(), widget.toolTip(), widget.statusTip()]
        parts += [widget.whatsThis(), widget.accessibleName(), widget.accessibleDescription()]
        for name in ("text", "displayText", "placeholderText", "title", "toPlainText"):
            getter = getattr(widget, name, None)
            value = getter() if callable(getter) else None
            if isinstance(value, str):
                parts.append(value)
    return "\n".join(parts)


def loaded_section(
    qtbot: QtBot, judge_factory: Callable[[], GeminiJudge] | None = None
) -> GeminiKeySection:
    section = GeminiKeySection(Keys(KeyStore(), judge_factory))
    _held.append(section)
    qtbot.addWidget(section)
    with qtbot.waitSignal(section.status_loaded, timeout=5000):
        section.show()
    return section


def save_key(qtbot: QtBot, section: GeminiKeySection, key: str) -> None:
    section.key_field.setFocus()
    qtbot.keyClicks(section.key_field, key)
    with qtbot.waitSignal(section.status_loaded, timeout=5000):
        qtbot.mouseClick(section.save_button, Qt.MouseButton.LeftButton)


@pytest.fixture
def judge_context(tmp_path: Path) -> Iterator[tuple[FakeGemini, AppContext]]:
    """A fake Gemini on loopback and the app's context, configured to use it."""
    with FakeGemini(api_keys={GOOD_KEY}) as gemini:
        save_config(Config().with_changes({"judge.baseUrl": gemini.url}), config_path())
        context = build_context(seed=False)
        try:
            yield gemini, context
        finally:
            context.close()


class RefusedBackend:
    """Swaps in a keyring backend Coach must refuse, and puts the test one back."""

    def __init__(self, backend: keyring.backend.KeyringBackend) -> None:
        self.previous = keyring.get_keyring()
        keyring.set_keyring(backend)

    def restore(self) -> None:
        keyring.set_keyring(self.previous)


class WeakKeyring(FileKeyring):
    priority = 0.5  # type: ignore[assignment]  # keyring itself advises against < 1


def test_a_saved_key_goes_to_the_keyring_and_is_never_shown(qtbot: QtBot) -> None:
    section = loaded_section(qtbot)
    assert section.status_label.text().startswith("No key stored")
    assert section.key_field.echoMode() == section.key_field.EchoMode.Password
    assert not section.save_button.isEnabled() and not section.remove_button.isEnabled()

    section.key_field.setFocus()
    qtbot.keyClicks(section.key_field, SECRET)
    assert section.key_field.displayText() != SECRET  # masked while typed
    assert section.save_button.isEnabled()
    with qtbot.waitSignal(section.status_loaded, timeout=5000):
        qtbot.mouseClick(section.save_button, Qt.MouseButton.LeftButton)

    assert KeyStore().get() == SECRET
    # The test keyring has no name people know: never its class name.
    assert section.status_label.text() == "A key is stored in your OS keyring."
    assert section.result_label.text() == "Key saved in the OS keyring."
    assert_learner_words(step="a key saved")
    assert section.key_field.text() == ""
    assert SECRET not in every_text(section)
    assert section.remove_button.isEnabled() and not section.save_button.isEnabled()


def test_the_stored_key_is_never_put_back_in_the_field(qtbot: QtBot) -> None:
    KeyStore().set(SECRET)
    section = loaded_section(qtbot)
    assert section.status_label.text().startswith("A key is stored in")
    assert section.key_field.text() == ""
    assert SECRET not in every_text(section)


def test_remove_key_deletes_it_from_the_keyring(qtbot: QtBot) -> None:
    KeyStore().set(SECRET)
    section = loaded_section(qtbot)
    with qtbot.waitSignal(section.key_removed, timeout=5000) as removed:
        qtbot.mouseClick(section.remove_button, Qt.MouseButton.LeftButton)
    assert removed.args == [True]
    qtbot.waitUntil(lambda: section.status_label.text().startswith("No key stored"))
    assert KeyStore().get() is None
    assert "Key removed from the OS keyring" in section.result_label.text()
    assert not section.remove_button.isEnabled()


def test_test_connection_with_the_right_key_shows_the_model_and_latency(
    qtbot: QtBot, judge_context: tuple[FakeGemini, AppContext]
) -> None:
    gemini, context = judge_context
    section = loaded_section(qtbot, lambda: context.judge(enabled=True))
    save_key(qtbot, section, GOOD_KEY)
    assert section.test_button.isEnabled()

    section.test_button.setFocus()
    with qtbot.waitSignal(section.connection_tested, timeout=20_000) as tested:
        qtbot.keyClick(section.test_button, Qt.Key.Key_Space)  # keyboard only
    assert tested.args == [True]
    assert section.test_button.hasFocus()  # back where it was, after being disabled
    text = section.result_label.text()
    assert text.startswith("Connected: the key works") and "gemini-2.5-flash" in text
    assert text.rstrip(").").endswith("ms")
    (request,) = gemini.requests
    assert (request.method, request.raw_body) == ("GET", b"")  # no learner data at all
    assert request.header("x-goog-api-key") == GOOD_KEY
    assert GOOD_KEY not in every_text(section)


def test_test_connection_with_a_wrong_key_says_it_is_not_valid(
    qtbot: QtBot, judge_context: tuple[FakeGemini, AppContext]
) -> None:
    _gemini, context = judge_context
    section = loaded_section(qtbot, lambda: context.judge(enabled=True))
    save_key(qtbot, section, SECRET)

    with qtbot.waitSignal(section.connection_tested, timeout=20_000) as tested:
        qtbot.mouseClick(section.test_button, Qt.MouseButton.LeftButton)
    assert tested.args == [False]
    assert section.result_label.text().startswith("Gemini did not accept this key. Paste a key")
    assert SECRET not in every_text(section)
    assert_learner_words(step="a wrong key tested")
    assert section.test_button.isEnabled()  # fix the key and try again


@pytest.mark.parametrize(
    ("fault", "said"),
    [
        (Fault.SIGN_IN_PAGE, "Something other than Gemini answered (a Wi-Fi sign-in page"),
        (Fault.QUOTA, "The key works, but its Gemini quota is used up for now."),
        (Fault.MODEL_NOT_FOUND, "The key works, but the Gemini model “gemini-2.5-flash”"),
        (Fault.SERVER_ERROR, "Gemini had a problem answering. Try the test again"),
    ],
    ids=["sign-in-page", "quota", "no-such-model", "server-error"],
)
def test_a_failed_test_says_why_in_a_plain_sentence(
    qtbot: QtBot, judge_context: tuple[FakeGemini, AppContext], fault: Fault, said: str
) -> None:
    """Found in use: a Wi-Fi sign-in page answering for Google; the test's result is a
    sentence (what came back goes nowhere on screen), never "your answers are kept"."""
    gemini, context = judge_context
    section = loaded_section(qtbot, lambda: context.judge(enabled=True))
    save_key(qtbot, section, GOOD_KEY)
    gemini.inject(fault, times=None)
    with qtbot.waitSignal(section.connection_tested, timeout=20_000) as tested:
        qtbot.mouseClick(section.test_button, Qt.MouseButton.LeftButton)
    assert tested.args == [False]
    shown = section.result_label.text()
    assert shown.startswith(said), shown
    assert "CafeNet" not in shown and "answers are kept" not in shown
    assert_learner_words(step=f"a test answered with {fault.value}")


def test_test_connection_waits_for_a_stored_key(qtbot: QtBot) -> None:
    section = loaded_section(qtbot, lambda: pytest.fail("must not build a judge"))
    assert section.test_button.isVisible() and not section.test_button.isEnabled()
    assert "stored key" in section.test_button.toolTip()


@pytest.mark.parametrize(
    ("backend", "reason"),
    [
        (fail.Keyring(), "no OS keyring is available"),
        (WeakKeyring(), "is not one keyring itself recommends for keys"),
    ],
    ids=["no-keyring", "weak-keyring"],
)
def test_a_refused_keyring_says_why_and_saving_is_disabled(
    qtbot: QtBot, backend: keyring.backend.KeyringBackend, reason: str
) -> None:
    swap = RefusedBackend(backend)
    try:
        section = loaded_section(qtbot, lambda: pytest.fail("must not build a judge"))
        text = section.status_label.text()
        assert reason in text
        assert "Install and unlock an OS keyring" in text
        assert "never keeps keys in a plain-text file" in text
        assert_learner_words(step="a refused keyring")  # no backend's class name
        assert not section.key_field.isEnabled()
        section.key_field.setText(SECRET)  # even if text got in somehow
        assert not section.save_button.isEnabled()
        assert not section.remove_button.isEnabled() and not section.test_button.isEnabled()
        section.save_key()  # the Enter key's route: refused too, no task started
    finally:
        swap.restore()
    assert KeyStore().get() is None  # nothing reached any keyring


def test_settings_shows_the_key_section_only_when_given_a_key_store(
    qtbot: QtBot, unnamed_controls: Callable[[QWidget], list[str]]
) -> None:
    path = config_path()
    save_config(Config(), path)
    plain = SettingsDialog(ConfigOwner.of(load_config(path), path))
    _held.append(plain)
    qtbot.addWidget(plain)
    assert plain.key_section is None

    dialog = SettingsDialog(ConfigOwner.of(load_config(path), path), keys=Keys(KeyStore()))
    _held.append(dialog)
    qtbot.addWidget(dialog)
    section = dialog.key_section
    assert section is not None and not section.test_button.isVisibleTo(dialog)
    with qtbot.waitSignal(section.status_loaded, timeout=5000):
        dialog.show()
    assert unnamed_controls(dialog) == []
    before = path.read_bytes()
    section.key_field.setFocus()
    qtbot.keyClicks(section.key_field, SECRET)
    with qtbot.waitSignal(section.status_loaded, timeout=5000):
        qtbot.keyClick(section.key_field, Qt.Key.Key_Return)  # Enter stores the key...
    qtbot.waitUntil(lambda: pending_tasks() == [])  # a settings save would be done by now
    assert KeyStore().get() == SECRET
    assert dialog.isVisible() and dialog.result() == 0  # ...and does not close Settings
    assert path.read_bytes() == before  # the key is not a setting in the file
    assert SECRET not in path.read_text(encoding="utf-8")
    assert SECRET not in every_text(dialog)


def test_settings_grows_so_a_long_message_is_not_cut_off(
    qtbot: QtBot, judge_context: tuple[FakeGemini, AppContext]
) -> None:
    _gemini, context = judge_context
    KeyStore().set(SECRET)  # not the fake's key: a long "not valid" message comes back
    dialog = SettingsDialog(
        ConfigOwner(context),
        keys=Keys(KeyStore(), lambda: context.judge(enabled=True)),
    )
    _held.append(dialog)
    qtbot.addWidget(dialog)
    section = dialog.key_section
    assert section is not None
    with qtbot.waitSignal(section.status_loaded, timeout=5000):
        dialog.show()
    height = dialog.height()
    with qtbot.waitSignal(section.connection_tested, timeout=20_000):
        qtbot.mouseClick(section.test_button, Qt.MouseButton.LeftButton)
    assert section.result_label.text().startswith("Gemini did not accept this key")
    qtbot.waitUntil(lambda: cut_off(dialog) == [])
    room = screen_room(dialog)  # it grows as far as the screen has room; then the fields scroll
    assert dialog.height() > height or (room is not None and dialog.height() == room.height())


def cut_off(root: QWidget) -> list[str]:
    """Visible wrapped labels shorter than their text needs at their width."""
    return [
        label.text()
        for label in root.findChildren(QLabel)
        if label.wordWrap()
        and label.isVisible()
        and label.height() < label.heightForWidth(label.width())
    ]


class DesktopKeyring(FileKeyring):
    """The test file keyring, named as GNOME's Secret Service backend for the picture."""


DesktopKeyring.__module__ = "keyring.backends.SecretService"
DesktopKeyring.__name__ = DesktopKeyring.__qualname__ = "Keyring"


def test_screenshot_of_settings_with_the_key_section(
    qtbot: QtBot, judge_context: tuple[FakeGemini, AppContext]
) -> None:
    _gemini, context = judge_context
    swap = RefusedBackend(DesktopKeyring())  # accepted: priority 1, an OS-keyring name
    try:
        KeyStore().set(GOOD_KEY)
        dialog = SettingsDialog(
            ConfigOwner(context),
            keys=Keys(context.key_store(), lambda: context.judge(enabled=True)),
        )
        _held.append(dialog)
        qtbot.addWidget(dialog)
        section = dialog.key_section
        assert section is not None
        with qtbot.waitSignal(section.status_loaded, timeout=5000):
            dialog.show()
        with qtbot.waitSignal(section.connection_tested, timeout=20_000):
            qtbot.mouseClick(section.test_button, Qt.MouseButton.LeftButton)
        qtbot.wait(50)  # the dialog's own size, as the learner first sees it
        assert section.status_label.text() == (
            "A key is stored in the Secret Service keyring (GNOME Keyring)."
        )
        SHOTS.mkdir(parents=True, exist_ok=True)
        path = SHOTS / "settings.png"
        assert dialog.grab().save(str(path), "PNG")
        assert path.stat().st_size > 10_000
    finally:
        swap.restore()
    assert json.loads(config_path().read_text(encoding="utf-8"))["judge"]["baseUrl"]
