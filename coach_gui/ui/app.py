"""Start the GUI: the QApplication, the one excepthook, the config check, the main window."""

from __future__ import annotations

import logging
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from coach_gui import APP_NAME, __version__
from coach_gui.domain.errors import ConfigError
from coach_gui.ui.failures import install_excepthook, learner_message, set_log_file

if TYPE_CHECKING:
    from coach_gui.ui.main_window import MainWindow

log = logging.getLogger(__name__)


class ConfigChoice(Enum):
    OPEN_FILE = "open"
    RETRY = "retry"
    RESET = "reset"
    QUIT = "quit"


class ConfigErrorDialog(QMessageBox):
    """Shown when coach.config.json is bad: the one-line message, and the ways out."""

    def __init__(self, error: ConfigError, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Coach cannot read its settings")
        self.setAccessibleName("Settings file problem")
        self.setIcon(QMessageBox.Icon.Warning)
        self.setText("Coach cannot start: its settings file has a problem.")
        self.setInformativeText(
            f"{error}\n\nOpen the file and fix it, then choose Try again. Or reset it to "
            "the defaults: the old file is kept next to it as a .bak copy."
        )
        self.setAccessibleDescription(str(error))
        role = QMessageBox.ButtonRole
        self._choices = {
            self.addButton("&Open config file", role.ActionRole): ConfigChoice.OPEN_FILE,
            self.addButton("&Try again", role.AcceptRole): ConfigChoice.RETRY,
            self.addButton("&Reset to defaults", role.DestructiveRole): ConfigChoice.RESET,
            self.addButton("&Quit", role.RejectRole): ConfigChoice.QUIT,
        }
        for button in self._choices:
            button.setAccessibleName(button.text().replace("&", ""))

    def ask(self) -> ConfigChoice:
        self.exec()
        clicked = self.clickedButton()
        for button, choice in self._choices.items():
            if button is clicked:
                return choice
        return ConfigChoice.QUIT  # the window was closed


def create_application(argv: list[str]) -> QApplication:
    existing = QApplication.instance()
    # Qt reads argv[0] as the program name; `argv` holds only the arguments after it.
    app = existing if isinstance(existing, QApplication) else QApplication(["coach", *argv])
    app.setApplicationName(APP_NAME)
    app.setOrganizationName(APP_NAME)
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("coach")  # windows match the menu entry (coach.desktop)
    return app


def open_main_window() -> MainWindow | None:
    """Build the app context, asking the learner to fix or reset a bad config; None
    when they choose to quit or Coach cannot start."""
    from coach_gui.bootstrap import build_context
    from coach_gui.config import config_path, reset_config

    while True:
        try:
            context = build_context()
        except ConfigError as error:
            log.warning("bad config: %s", error)
            path = Path(error.path) if error.path else config_path()
            choice = ConfigErrorDialog(error).ask()
            if choice is ConfigChoice.OPEN_FILE:
                QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
            elif choice is ConfigChoice.RESET:
                reset_config(path)
            elif choice is ConfigChoice.QUIT:
                return None
            continue
        except Exception as error:  # e.g. the data folder cannot be created
            log.exception("Coach could not start")
            QMessageBox.critical(None, "Coach cannot start", learner_message(error))
            return None
        break
    set_log_file(context.log_file)
    from coach_gui.ui.main_window import MainWindow

    return MainWindow(context)


def run_gui(argv: list[str]) -> int:
    """`coach` with no sub-command: the desktop app. Returns the process exit code."""
    from coach_gui import paths
    from coach_gui.bootstrap import LOG_FILE_NAME, setup_logging

    app = create_application(argv)
    setup_logging(paths.log_dir() / LOG_FILE_NAME)  # before the config, so its errors are kept
    install_excepthook()
    window = open_main_window()
    if window is None:
        return 2
    window.show()
    return app.exec()
