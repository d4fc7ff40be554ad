"""Start the GUI: the QApplication, the one excepthook, the config check, the main window."""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from coach_gui import APP_NAME, __version__
from coach_gui.domain.errors import ConfigError
from coach_gui.ui.kit import tasks, window_state
from coach_gui.ui.kit.button_keys import tell
from coach_gui.ui.kit.failures import install_excepthook, learner_message, set_log_file

if TYPE_CHECKING:
    from coach_gui.operations.cases import UseCases
    from coach_gui.ui.shell.main_window import MainWindow

log = logging.getLogger(__name__)

# The reverse-DNS id: the .desktop file's name, the icon's name, the Wayland app id.
APP_ID = "io.github.coach.Coach"
_ICONS = Path(__file__).resolve().parents[1] / "resources" / "icons"
WELCOME_SEEN_KEY = "welcome/seen"  # QSettings: the welcome was shown once (or skipped)
SMOKE_TIMEOUT_MS = 60_000
_IMPORTED = time.perf_counter()


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
        where = f"The settings file is {error.path}.\n\n" if error.path and error.key else ""
        self.setInformativeText(
            f"{error.learner_text}\n\n{where}Open the file and fix it, then choose Try "
            "again. Or reset it to the defaults: the old file is kept next to it as a .bak copy."
        )
        self.setAccessibleDescription(error.learner_text)
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
    app.setDesktopFileName(APP_ID)  # windows match the menu entry (<APP_ID>.desktop)
    app.setWindowIcon(app_icon())
    tasks.collect_on_gui_thread()  # before any worker or watcher thread starts
    return app


def app_icon() -> QIcon:
    """The app icon from the PNGs shipped in the package (no SVG plugin needed)."""
    icon = QIcon()
    for png in sorted(_ICONS.glob("coach-*.png")):
        icon.addFile(str(png))
    return icon


def open_main_window(*, ask: bool = True) -> MainWindow | None:
    """Build the use cases, asking the learner to fix or reset a bad config, and the
    main window over them; None when they choose to quit or Coach cannot start. With `ask`
    False (--smoke, headless) a problem is printed to stderr instead of asked about."""
    cases = open_use_cases(ask=ask)
    if cases is None:
        return None
    from coach_gui.ui.shell.main_window import MainWindow

    return MainWindow(cases)


def open_use_cases(*, ask: bool = True, parent: QWidget | None = None) -> UseCases | None:
    """The use cases the window is given (built by bootstrap: this is an entry point),
    asking the learner (over `parent`) to fix or reset a bad config; None when they choose
    to quit or Coach cannot start."""
    from coach_gui.bootstrap import build_context, use_cases
    from coach_gui.config import config_path, reset_config

    while True:
        try:
            context = build_context()
        except ConfigError as error:
            log.warning("bad config: %s", error)
            if not ask:
                print(f"coach: {error}", file=sys.stderr)
                return None
            path = Path(error.path) if error.path else config_path()
            choice = ConfigErrorDialog(error, parent).ask()
            if choice is ConfigChoice.OPEN_FILE:
                from coach_gui.ui.shell.help_dialogs import open_or_say

                open_or_say(path, "the settings file", parent)
            elif choice is ConfigChoice.RESET:
                reset_config(path)
            elif choice is ConfigChoice.QUIT:
                return None
            continue
        except Exception as error:  # e.g. the data folder cannot be created
            log.exception("Coach could not start")
            if not ask:
                print(f"coach: {learner_message(error)}", file=sys.stderr)
                return None
            tell(parent, QMessageBox.Icon.Critical, "Coach cannot start", learner_message(error))
            return None
        break
    set_log_file(context.log_file)
    return use_cases(context)


def list_kept(window: MainWindow, then: Callable[[], None]) -> None:
    """After the first paint: the notes as Coach last listed them, on screen and
    searchable at once (ADR 0036), then, once they are painted, `then` (the rest of
    Coach, which reads the files and corrects the list)."""
    from coach_gui.bootstrap import kept_listing

    try:
        kept = kept_listing()
        if kept is not None:
            window.show_kept(kept, then)  # runs `then` once the list is painted
            return
    except Exception:  # it only saves time: Coach opens as it would without it
        log.exception("the kept note listing could not be shown")
    QTimer.singleShot(0, then)


def process_age() -> float:
    """Seconds since this process was created (Linux: from /proc, so interpreter start-up
    and every import count), else since the interpreter imported this module."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
        return time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return time.perf_counter() - _IMPORTED


def maybe_welcome(window: MainWindow) -> None:
    """First run only: the welcome, once; skipping it counts as seen."""
    settings = window_state.window_settings()  # where the window's state is (and tests' is)
    if settings.value(WELCOME_SEEN_KEY, False, type=bool):
        return
    if QSettings().value(WELCOME_SEEN_KEY, False, type=bool):  # kept there before issue 17
        settings.setValue(WELCOME_SEEN_KEY, True)
        return
    settings.setValue(WELCOME_SEEN_KEY, True)
    from coach_gui.ui.shell.welcome import show_welcome

    show_welcome(window)


SOAK_SWITCHES = 2_000
SOAK_VOID_CALLS = 100_000


def _soak(app: QApplication, window: MainWindow, done: Callable[[bool], None]) -> None:
    """`--soak`: End/Home in the note list SOAK_SWITCHES times (each opens a note), one
    key a turn of the event loop as a learner would, then SOAK_VOID_CALLS void calls and
    emits; prints how far None and True moved (ADR 0011) and calls `done(ok)`. What a
    leaking binding drops is handed back after each step, so it is reported, not fatal."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent

    from coach_gui.ui.kit import qt_health

    view = window.note_list.view
    view.setFocus()
    qt_health.settle()
    moved_total = [0, 0]
    step = [0]

    def press() -> None:
        key = Qt.Key.Key_End if step[0] % 2 == 0 else Qt.Key.Key_Home
        with qt_health.counting() as delta:
            for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
                app.sendEvent(view, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier))
            moved = delta()
        moved_total[0] += moved[0]
        moved_total[1] += moved[1]
        qt_health.hand_back(moved)
        step[0] += 1
        QTimer.singleShot(0, press if step[0] < SOAK_SWITCHES else report)

    def report() -> None:
        switched = qt_health.Drift(SOAK_SWITCHES, moved_total[0], moved_total[1])
        calls = qt_health.probe(SOAK_VOID_CALLS)
        print(
            f"coach --smoke --soak: {SOAK_SWITCHES:,} note switches: {switched.describe()}; "
            f"{SOAK_VOID_CALLS:,} void calls and emits: {calls.describe()}",
            flush=True,
        )
        done((switched.ok and calls.ok) or calls.moot)

    QTimer.singleShot(0, press)


def _smoke(app: QApplication, window: MainWindow, *, soak: bool = False) -> int:
    """`coach --smoke`: open as `coach` does (the frame, then the rest), wait for the first
    load of the notes, print the time to shown and exit 0 (1 when the notes never arrive,
    2 when the config is bad). With `soak`, then switch notes and make void calls, and
    exit 1 if the reference counts of None or True move."""
    shown_at: list[float] = []
    outcome: list[int] = []
    first_listed: list[tuple[float, int]] = []  # when, and how many, first on screen

    def finish(code: int) -> None:
        if outcome:
            return
        outcome.append(code)
        window.close()
        app.quit()

    def notes_shown() -> None:
        first_listed.append((process_age(), window.note_list.model.rowCount()))

    def listed() -> None:
        read_at = process_age()
        shown = shown_at[0] if shown_at else read_at
        listed_at, count = first_listed[0] if first_listed else (read_at, 0)
        print(
            f"coach --smoke: main window shown {shown:.3f} s after process start; "
            f"{count} notes listed at {listed_at:.3f} s; "
            f"{window.note_list.model.rowCount()} read from the files at {read_at:.3f} s; "
            f"{modules_at_show[0]} modules loaded when the window was shown",
            flush=True,
        )
        if soak:
            _soak(app, window, lambda ok: finish(0 if ok else 1))
        else:
            finish(0)

    def timed_out() -> None:
        from coach_gui.ui.kit.failures import log_file

        print(
            f"coach --smoke: the notes were not listed within {SMOKE_TIMEOUT_MS // 1000} s; "
            f"see {log_file()}",
            file=sys.stderr,
            flush=True,
        )
        finish(1)

    def attach() -> None:
        cases = open_use_cases(ask=False)  # a problem is printed, not asked about
        if cases is None:
            finish(2)
        else:
            window.attach(cases)

    window.notes_shown.connect(notes_shown)
    window.notes_listed.connect(listed)
    QTimer.singleShot(SMOKE_TIMEOUT_MS, timed_out)
    window.show()
    shown_at.append(process_age())
    modules_at_show = [len(sys.modules)]  # the first paint's import budget (issue 16)
    window.after_first_paint(lambda: list_kept(window, attach))
    app.exec()
    from coach_gui.ui.kit import tasks

    tasks.wait_for_all(10_000)  # the Ollama check and session recovery end before exit
    return outcome[0] if outcome else 1


def run_gui(argv: list[str], *, smoke: bool = False, soak: bool = False) -> int:
    """`coach` with no sub-command: the desktop app. Returns the process exit code."""
    from coach_gui import paths
    from coach_gui.bootstrap import LOG_FILE_NAME, setup_logging

    app = create_application([a for a in argv if a not in ("--smoke", "--soak")])
    setup_logging(paths.log_dir() / LOG_FILE_NAME)  # before the config, so its errors are kept
    install_excepthook()
    from coach_gui.ui.shell.main_window import MainWindow

    # The frame first (issue 16, ADR 0019): painted before the config, the journal's code
    # and the note files' parser are loaded; the rest joins it once it is on screen.
    window = MainWindow()
    if smoke:
        return leave(_smoke(app, window, soak=soak))
    window.show()
    code = [0]

    def attach() -> None:
        try:
            cases = open_use_cases(parent=window)
            if cases is not None:
                window.attach(cases)
        except Exception as error:  # e.g. a reset config that cannot be written
            log.exception("Coach could not start")
            tell(window, QMessageBox.Icon.Critical, "Coach cannot start", learner_message(error))
            cases = None
        if cases is None:  # the learner chose Quit (a bad config), or Coach cannot start
            code[0] = 2
            window.close()
            return
        QTimer.singleShot(0, lambda: maybe_welcome(window))

    window.after_first_paint(lambda: list_kept(window, attach))
    exit_code = app.exec()
    return leave(code[0] or exit_code)


EXIT_GRACE_MS = 250


def leave(code: int) -> int:
    """After the event loop: cancel what is still in flight and give it EXIT_GRACE_MS.
    A worker still blocked then (a judge call, a keyring that does not answer) would hold
    the process in Qt's pool destructors with no window left, so the process ends here
    instead: every answer was committed when it was submitted and the session is sealed
    as interrupted at the next start (ADR 0012)."""
    from coach_gui.ui.kit import tasks

    if tasks.quiesce(EXIT_GRACE_MS):
        return code
    log.warning("quit with a background call still in flight; it was abandoned")
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
