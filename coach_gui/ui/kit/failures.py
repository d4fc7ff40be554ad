"""How errors reach the learner: one dialog, the message in their words, the details in
the log file (never a traceback on screen)."""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from pathlib import Path
from types import TracebackType

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from coach_gui import paths
from coach_gui.domain.errors import CoachError
from coach_gui.ui.kit.button_keys import with_mnemonics

log = logging.getLogger(__name__)

_state: dict[str, object] = {"log_file": None, "open_box": None}
_parentless: set[QMessageBox] = set()  # a box without a parent lives as long as we hold it


def set_log_file(path: Path) -> None:
    _state["log_file"] = path


def log_file() -> Path:
    configured = _state["log_file"]
    return configured if isinstance(configured, Path) else paths.log_dir() / "coach.log"


def learner_message(error: BaseException) -> str:
    """What the learner reads: our own message for a CoachError (a setting named as
    Settings names it, never by its key), else a calm generic one."""
    if isinstance(error, CoachError):
        return error.learner_text
    _log_unexpected(error)  # what the message promises
    return (
        "Coach hit an unexpected problem and could not finish what it was doing. "
        "Notes already saved are safe on disk.\n\n"
        f"The details were written to the log file:\n{log_file()}\n\n"
        "If it happens again, please report it and attach that file."
    )


def _log_unexpected(error: BaseException) -> None:
    """Log an unexpected error with its traceback, once however often it is shown."""
    if getattr(error, "_coach_logged", False):
        return
    log.error("unexpected error", exc_info=(type(error), error, error.__traceback__))
    with contextlib.suppress(AttributeError, TypeError):  # (an exception without a __dict__)
        error._coach_logged = True  # type: ignore[attr-defined]


def show_failure(parent: QWidget | None, error: BaseException) -> QMessageBox | None:
    """Show `error` in a window-modal message box that does not block the caller.

    Unexpected errors are logged with their traceback; while one such box is open,
    further unexpected errors are only logged, so a failing loop cannot flood the screen.
    """
    expected = isinstance(error, CoachError)
    if expected:
        log.info("shown to the learner: %s", error)
    else:
        _log_unexpected(error)
        previous = _state["open_box"]
        if (
            isinstance(previous, QMessageBox)
            and shiboken6.isValid(previous)
            and previous.isVisible()
        ):
            return None
    if QApplication.instance() is None:
        return None
    if parent is not None and not shiboken6.isValid(parent):
        parent = None
    box = QMessageBox(parent)
    box.setObjectName("failureDialog")
    box.setWindowTitle("Coach")
    box.setIcon(QMessageBox.Icon.Warning if expected else QMessageBox.Icon.Critical)
    box.setText("That did not work." if expected else "Something went wrong inside Coach.")
    box.setInformativeText(learner_message(error))
    box.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    with_mnemonics(box)
    box.setAccessibleName("Error message")
    box.setAccessibleDescription(learner_message(error))
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    if not expected:
        _state["open_box"] = box
    if parent is None:
        _parentless.add(box)
        box.finished.connect(lambda _result: _parentless.discard(box))
    box.open()
    return box


def _excepthook(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        app = QApplication.instance()
        if app is not None:
            app.quit()
        return
    if error.__traceback__ is None:
        error = error.with_traceback(tb)
    show_failure(QApplication.activeWindow(), error)


def _thread_excepthook(args: threading.ExceptHookArgs) -> None:
    # Widgets belong to the GUI thread: from any other thread, log only.
    log.error(
        "uncaught error in thread %s",
        args.thread.name if args.thread else "?",
        exc_info=(args.exc_type, args.exc_value, args.exc_traceback),  # type: ignore[arg-type]
    )


def install_excepthook() -> None:
    """Route every uncaught error to `show_failure` (GUI thread) or the log (others)."""
    sys.excepthook = _excepthook
    threading.excepthook = _thread_excepthook
