"""Issue 33, item 3: Alt+letter of a disabled button (or a letter no control takes) types
nothing into the focused field. Before, Alt+N while *Next* was disabled put an "n" in the
answer, and Alt+S appended "s" to the Ollama address in Settings. Enabled mnemonics and
plain typing work as before."""

from __future__ import annotations

from fakes.gemini_server import FakeGemini
from fakes.ollama_server import FakeOllama
from mnemonics import activate
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot
from test_practice_judged import WAIT_MS, configure, servers  # noqa: F401

from coach_gui.bootstrap import use_cases
from coach_gui.ui.practice.practice_pane import Phase
from coach_gui.ui.settings.settings_dialog import SettingsDialog
from coach_gui.ui.shell.main_window import MainWindow

ALT = Qt.KeyboardModifier.AltModifier


def opened(qtbot: QtBot, ollama: FakeOllama, gemini: FakeGemini) -> MainWindow:
    window = MainWindow(use_cases(configure(ollama, gemini, enabled=False)))
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        pass
    assert activate(window)
    return window


def test_alt_n_with_next_disabled_types_nothing_in_the_answer(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],  # noqa: F811
) -> None:
    window = opened(qtbot, *servers)
    pane = window.practice
    window.views.show_practice()
    pane.start(window.cases.notes.store.load().find("natural-selection").note)  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    box = pane.view.answer_box
    box.setFocus()
    try:
        QTest.keyClicks(box, "Kept")
        assert not pane.view.next_button.isEnabled()  # Alt+N's button, before the answer
        for letter in (Qt.Key.Key_N, Qt.Key.Key_Q, Qt.Key.Key_Z):  # disabled, and nobody's
            QTest.keyClick(box, letter, ALT)
        QTest.keyClicks(box, " here")
        typed = box.toPlainText()
    finally:
        assert pane.shutdown(WAIT_MS)
        qtbot.wait(10)
    assert typed == "Kept here"


def test_alt_s_in_the_ollama_address_types_nothing_and_enabled_mnemonics_work(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],  # noqa: F811
) -> None:
    window = opened(qtbot, *servers)
    seen: list[tuple[str, bool, bool]] = []

    def in_settings() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, SettingsDialog):
            QTimer.singleShot(20, in_settings)
            return
        activate(dialog)
        field = dialog.ollama_url
        field.setFocus()
        field.end(False)
        before = field.text()
        assert dialog.key_section is None or not dialog.key_section.save_button.isEnabled()
        for letter in (Qt.Key.Key_S, Qt.Key.Key_V, Qt.Key.Key_Q):  # Save key is disabled
            QTest.keyClick(field, letter, ALT)
        judge_was = dialog.judge_enabled.isChecked()
        QTest.keyClick(field, Qt.Key.Key_J, ALT)  # an enabled mnemonic: Judge answers
        QTest.qWait(300)  # a mnemonic clicks a moment later
        seen.append(
            (field.text(), field.text() == before, dialog.judge_enabled.isChecked() != judge_was)
        )
        dialog.reject()

    QTimer.singleShot(0, in_settings)
    QTest.keyClick(window, Qt.Key.Key_Comma, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: bool(seen), timeout=WAIT_MS)
    ((text, unchanged, switched),) = seen
    assert unchanged, text
    assert switched


def test_a_letter_typed_with_altgr_or_without_alt_still_types(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QLineEdit

    from coach_gui.ui.kit.alt_keys import guard_alt_letters

    guard_alt_letters()
    host = QWidget()
    qtbot.addWidget(host)
    field = QLineEdit(host)
    host.show()
    field.setFocus()
    QTest.keyClicks(field, "a")
    QTest.keyClick(field, Qt.Key.Key_At, Qt.KeyboardModifier.GroupSwitchModifier)  # AltGr
    assert field.text() == "a@"
