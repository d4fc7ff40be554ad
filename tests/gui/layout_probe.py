"""Every view of the real main window and its dialogs, over a journal a learner would
have after a few days (judged sessions with gaps, one kept unjudged, an eval report),
recorded through `coach practice` and `coach eval` against loopback fakes of Ollama and
Gemini. `walk` shows each in turn and hands it to a visitor: the layout tests collect
`layout_faults` (tests/gui/test_layout_scaling.py), bench/shots_views.py saves pictures.

Run on its own at a scale, it prints what it found as JSON (Qt reads QT_SCALE_FACTOR when
it starts, so each scale is a process of its own):

    QT_SCALE_FACTOR=1.5 python tests/gui/layout_probe.py [FOLDER]

(FOLDER: where Coach's files go, a new temporary folder if not given.)
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication, QWidget

KEY = "AIzaSyLayout-probe-0123456789abcdefghij"
ANSWERS = [
    "Useful differences that are inherited get kept, because those who have them leave more young.",
    "It happens quickly, within a few generations.",
    "Slight advantages add up over many generations, because selection keeps them.",
]
# The window's sizes: the smallest it must hold at, and a small laptop's at 1.5x (a
# 1280x1024 screen), at which the views used to hide behind the toolbar's chevron.
SIZES = {"1024x640": (1024, 640), "800x600": (800, 600)}
# The end-of-session summary must not grow the window past a 1440x900 screen at 1.5x
# (960x600 logical pixels, less openbox's title bar): issue 33, item 8.
SUMMARY_SCREEN = (960, 560)
Visit = Callable[[str, "QWidget"], None]


def isolate(home: Path) -> None:
    """Coach's files, config and keyring in `home`, never the user's."""
    home.mkdir(parents=True, exist_ok=True)
    os.environ["COACH_HOME"] = str(home / "home")
    os.environ["COACH_CONFIG"] = str(home / "coach.config.json")
    os.environ["COACH_TEST_KEYRING"] = str(home / "keys.json")
    os.environ["PYTHON_KEYRING_BACKEND"] = "fakes.keyring_backend.FileKeyring"


def offscreen_screen(folder: Path, logical: tuple[int, int] = (1280, 800)) -> None:
    """Offscreen, a screen of `logical` pixels at QT_SCALE_FACTOR (a laptop's), not the
    plugin's 800x800 pixels, which at 2x leaves dialogs 400 pixels to open in. Before Qt
    starts; with another platform (xcb under Xvfb), its own screen."""
    platform = os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    if platform != "offscreen":
        return
    scale = float(os.environ.get("QT_SCALE_FACTOR") or 1)
    width, height = (round(side * scale) for side in logical)
    screen = {"name": "probe", "x": 0, "y": 0, "width": width, "height": height,
              "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}  # fmt: skip
    config = folder / "offscreen.json"
    config.write_text(json.dumps({"screens": [screen]}), encoding="utf-8")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={config}"


def populate(ollama_url: str, gemini_url: str) -> None:
    """Judged sessions with gaps on three notes, one session kept unjudged, an eval report."""
    from coach_gui.adapters.secrets import KeyStore
    from coach_gui.cli import main

    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({
        "tier1": {"ollamaUrl": ollama_url, "followUps": False, "challengesPerSession": 3},
        "judge": {"baseUrl": gemini_url, "maxRetries": 0},
    }), encoding="utf-8")  # fmt: skip
    KeyStore().set(KEY)
    answers = Path(os.environ["COACH_HOME"]).parent / "answers.json"
    answers.write_text(json.dumps(ANSWERS), encoding="utf-8")
    runs = [("natural-selection", "on"), ("natural-selection", "on"),
            ("struggle-for-existence", "on"), ("sexual-selection", "off")]  # fmt: skip
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for note, judge in runs:
            argv = ["practice", note, "--answers", str(answers), "--judge", judge, "--json"]
            assert main(argv) == 0, argv
        assert main(["eval", "--last", "2", "--repeats", "2", "--json"]) == 0


@contextlib.contextmanager
def fakes() -> Iterator[tuple[str, str]]:
    """Loopback Ollama and Gemini, the judge citing the answer for some key points and
    calling others wrong or unexplained: gaps of every kind."""
    from fakes.gemini_server import FakeGemini, cites
    from fakes.ollama_server import FakeOllama

    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        for n in range(60):
            ollama.queue_challenge(f"Why would a change by natural selection take so long? ({n})")
        gemini.reply_for = cites({0: ["Useful differences that are inherited get kept"]},
                                 status={1: "wrong", 3: "unexplained"})  # fmt: skip
        yield ollama.url, gemini.url


def settle(app: QApplication, seconds: float = 0.2, timeout: float = 20.0) -> None:
    """Until no background task is left, then a little longer for the layouts."""
    from coach_gui.ui.kit import tasks

    deadline = time.monotonic() + timeout
    while tasks.pending_tasks() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.01)


def _answer_box(window: QWidget) -> QWidget | None:
    """The practice pane's box the learner types in (as a person finds it: the editable
    text box on screen), whatever the pane is built of."""
    from PySide6.QtWidgets import QPlainTextEdit, QTextEdit

    boxes = [
        box
        for kind in (QPlainTextEdit, QTextEdit)
        for box in window.practice.findChildren(kind)  # type: ignore[attr-defined]
        if box.isVisible() and not box.isReadOnly()
    ]
    return boxes[-1] if boxes else None


def walk_views(app: QApplication, size: tuple[int, int] | None, visit: Visit) -> None:
    """The main window (at `size`, or its first-run size) on each view: Today, Notes,
    Practice (before a session, answering, judged, the session's summary), Sent to judge,
    Sessions, Gaps by note, Judge consistency (a past report shown) and Statistics."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from coach_gui.bootstrap import build_cases
    from coach_gui.ui.kit import window_state
    from coach_gui.ui.shell.main_window import MainWindow

    window_state.window_settings().clear()  # each window opens at its first-run size
    window = MainWindow(build_cases())
    if size is not None:
        window.resize(*size)
    window.show()
    deadline = time.monotonic() + 20
    while window.note_list.model.rowCount() == 0 and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    window.open_note(next(n.id for n in window.notes() if n.title == "Natural selection"))
    settle(app)
    for view, action in zip(
        ("today", "notes", "practice", "sent", "sessions", "evals", "stats"),
        window.menu_actions.views(),
        strict=True,
    ):
        action.trigger()
        settle(app)
        if view == "practice":
            visit("practice-idle", window)
            window.views.practise_open_note()
            settle(app)
            box = _answer_box(window)
            if box is not None:
                QTest.keyClicks(box, ANSWERS[1])
                settle(app)
                visit("practice-answering", window)
                QTest.keyClick(box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
                settle(app)
        if view == "practice":
            visit(view, window)  # judged
            window.practice.finish()  # the summary, its missed key points listed
            settle(app)
            view = "practice-summary"
        if view == "evals" and window.views.evals.history.count():
            window.views.evals.history.setCurrentRow(0)  # the past report, shown
            settle(app)
        visit(view, window)
        if view == "sessions":
            sessions = window.views.sessions
            sessions.tabs.setCurrentWidget(sessions.gap_board)
            settle(app)
            visit("gaps", window)
            sessions.tabs.setCurrentIndex(0)
    window.practice.shutdown(5000)
    window.close()
    settle(app)
    window.deleteLater()
    settle(app, 0.05)


def walk_dialogs(app: QApplication, visit: Visit) -> None:
    """Settings, the Welcome, the payload review, Keyboard shortcuts, Where my data lives,
    the privacy summary and the model download, each over the main window."""
    from coach_gui.bootstrap import build_context, use_cases
    from coach_gui.domain.tier2 import tier2_payload
    from coach_gui.ui.practice.model_download import ModelDownloadDialog
    from coach_gui.ui.practice.payload_review import PayloadReviewDialog, PendingReview
    from coach_gui.ui.settings.settings_dialog import SettingsDialog
    from coach_gui.ui.shell import help_dialogs
    from coach_gui.ui.shell.help_dialogs import PRACTICE_KEYS
    from coach_gui.ui.shell.main_window import MainWindow
    from coach_gui.ui.shell.welcome import WelcomeDialog

    context = build_context()
    cases = use_cases(context)
    window = MainWindow(cases)
    window.show()
    settle(app)
    note = next(e.note for e in context.notes.load().notes if e.note.title == "Natural selection")
    payload = tier2_payload(
        [{"challenge": "Why would a change by natural selection take so long?",
          "answer": ANSWERS[0], "core_assertions": list(note.core_assertions)}],
        include_assertions=True,
    )  # fmt: skip
    keys = [*window.menu_actions.with_shortcuts(), *window.privacy.actions()]
    dialogs: dict[str, Callable[[], QWidget]] = {
        "settings": lambda: SettingsDialog(
            window.config_owner, window, keys=context.gemini_keys(),
        ),
        "welcome": lambda: WelcomeDialog(cases, window.privacy, window),
        "payload-review": lambda: PayloadReviewDialog(
            PendingReview(payload, "gemini-2.5-flash"), window
        ),
        "shortcuts": lambda: help_dialogs.ShortcutsDialog(
            [*help_dialogs.shortcut_rows(keys), *PRACTICE_KEYS], window
        ),
        "data-locations": lambda: help_dialogs.show_data_locations(
            window, cases.settings.places()
        ),
        "privacy-summary": lambda: help_dialogs.show_privacy_summary(window, window.privacy),
        "model-download": lambda: ModelDownloadDialog.for_server(
            cases.practice.local_server, window
        ),
    }  # fmt: skip
    for name, build in dialogs.items():
        dialog = build()
        dialog.show()
        settle(app)
        visit(f"dialog-{name}", dialog)
        dialog.reject()  # type: ignore[attr-defined]
        settle(app, 0.05)
    window.close()
    settle(app)
    window.deleteLater()
    settle(app, 0.05)


def probe(app: QApplication) -> dict[str, list[str]]:
    """What `layout_faults` finds in each view at each of SIZES and in each dialog, and
    whether each fits 1024x640: {name: faults} (an empty list: it holds)."""
    from layout_faults import fits, layout_faults

    found: dict[str, list[str]] = {}

    def collect(tag: str) -> Visit:
        def visit(name: str, widget: QWidget) -> None:
            faults = layout_faults(widget)
            too_big = fits(widget, 1024, 640)
            if name == "practice-summary":  # a 1440x900 screen at 1.5x, less a title bar
                too_big = too_big or fits(widget, *SUMMARY_SCREEN)
            found[f"{name}{tag}"] = [*faults, too_big] if too_big else faults

        return visit

    for size_name, size in SIZES.items():
        walk_views(app, size, collect(f" at {size_name}"))
    walk_dialogs(app, collect(""))
    return found


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # this checkout's coach_gui
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the fakes
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    isolate(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="layout-")))
    offscreen_screen(Path(os.environ["COACH_HOME"]).parent)
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    QSettings.setPath(
        QSettings.Format.IniFormat,
        QSettings.Scope.UserScope,
        str(Path(os.environ["COACH_HOME"]).parent / "qsettings"),
    )
    app = QApplication([])
    with fakes() as (ollama, gemini):
        populate(ollama, gemini)
        found = probe(app)
    print(json.dumps({"scale": os.environ.get("QT_SCALE_FACTOR", "1"), "found": found}))


if __name__ == "__main__":
    main()
