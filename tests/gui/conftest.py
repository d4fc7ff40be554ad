"""GUI tests drive the real widgets offscreen (pytest-qt). Each test gets its own window
state file, answers modal dialogs the way a person would (by clicking a button), and
fails if it leaves a background task behind."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox, QWidget

from coach_gui.ui.kit import tasks


@pytest.fixture(autouse=True)
def window_state_in_tmp(tmp_path: Path) -> Iterator[Path]:
    """QSettings (geometry, last note) go to this test's own folder."""
    folder = tmp_path / "qsettings"
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(folder))
    # And the platform store (read once for the Welcome's old seen mark): never the
    # developer's own ~/.config.
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(folder))
    yield folder


@pytest.fixture(autouse=True)
def collector_on_gui_thread(qapp: QApplication) -> None:
    """As in the app: Python's cyclic collector runs on the GUI thread only, so a worker
    never frees a widget (tests/conftest.py gives the collector back after these tests)."""
    tasks.collect_on_gui_thread()


@pytest.fixture(autouse=True)
def no_task_left_running(qapp: QApplication) -> Iterator[None]:
    """Like napari's: a test that leaves a worker running (or its result undelivered)
    fails, and the worker is drained so the next test starts clean."""
    yield
    left = tasks.pending_tasks()
    if left:
        tasks.wait_for_all(10_000)
        for _ in range(20):
            qapp.processEvents()
        pytest.fail(f"test left background tasks running: {left}")


@dataclass
class DialogAnswer:
    """What the answered dialog said, filled in when it was answered."""

    button: str
    title: str = ""
    text: str = ""
    informative: str = ""
    answered: bool = False
    buttons: list[str] = field(default_factory=list)
    # Set when the dialog did not come after all: the answer stops waiting, so it cannot
    # close another test's dialog (it did: the next test's "Restore as…" box was closed).
    disarmed: bool = False


def _click_when_shown(answer: DialogAnswer, tries_left: int) -> None:
    if answer.disarmed:
        return
    modal = QApplication.activeModalWidget()
    if modal is None:
        if tries_left > 0:
            QTimer.singleShot(10, lambda: _click_when_shown(answer, tries_left - 1))
        return
    answer.title = modal.windowTitle()
    if isinstance(modal, QMessageBox):
        answer.text, answer.informative = modal.text(), modal.informativeText()
    buttons = modal.findChildren(QAbstractButton)
    answer.buttons = [b.text().replace("&", "") for b in buttons if b.isVisible()]
    for button in buttons:
        if button.isVisible() and button.text().replace("&", "") == answer.button:
            answer.answered = True
            button.click()
            return
    modal.close()  # the button is missing: close it so the test fails instead of hanging


@pytest.fixture
def answer_dialog() -> Callable[[str], DialogAnswer]:
    """`answer = answer_dialog("Discard")` before the action that opens a modal dialog:
    the dialog's button with that text is clicked as soon as the dialog shows."""

    def arm(button: str) -> DialogAnswer:
        answer = DialogAnswer(button)
        QTimer.singleShot(0, lambda: _click_when_shown(answer, 500))
        return answer

    return arm


def accessible_name(widget: QWidget) -> str:
    from PySide6.QtGui import QAccessible

    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Text.Name) if interface is not None else ""


@pytest.fixture
def unnamed_controls() -> Callable[[QWidget], list[str]]:
    """Controls a screen reader could reach but would have no name to read out."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QAbstractSpinBox, QComboBox

    def find(root: QWidget) -> list[str]:
        missing = []
        for widget in [root, *root.findChildren(QWidget)]:
            if widget.focusPolicy() == Qt.FocusPolicy.NoFocus or not widget.isVisibleTo(root):
                continue
            if isinstance(widget.parentWidget(), (QAbstractSpinBox, QComboBox)):
                continue  # the text field inside a spin box: screen readers name the box
            if not accessible_name(widget).strip():
                missing.append(f"{type(widget).__name__} {widget.objectName()!r}")
        return missing

    return find
