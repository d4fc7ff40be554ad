"""Does the end-of-session summary fit a 1440×900 screen at 1.5× (issue 33, item 8)?

A new user saw the summary grow the window past a 900-pixel-high screen at 1.5× and push
the status bar off it. This opens the real main window on Xvfb (1440×900) under openbox
with QT_SCALE_FACTOR (1.0 and 1.5), maximised or at its default size, light or dark, practises a
three-challenge session whose every answer the judge (a loopback fake) finds gaps in,
finishes it and prints the window's frame against the screen's available area, and
whether the status bar is on the screen. Optionally saves a screenshot of each.

    python bench/check_summary_fit.py [--shots FOLDER]

Prints figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(REPO / "tests" / "gui"), str(REPO / "bench")]
KEY = "fit-key"
CHALLENGES = [
    "Why can a process that only keeps or removes traits still produce new kinds?",
    "How would the work of a pigeon fancier differ from what happens in the wild?",
    "What does selection need before it can act at all, and where does that come from?",
]


def child(maximised: bool, shot: str) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from coach_gui.adapters.secrets import KeyStore
    from coach_gui.ui.practice.practice_view import Phase
    from coach_gui.ui.shell import app as gui

    KeyStore().set(KEY)
    qapp = gui.create_application([])
    if os.environ.get("FIT_THEME") == "dark":
        from PySide6.QtGui import QColor, QPalette
        from shots_preview import _palette

        qapp.setStyle("Fusion")
        qapp.setPalette(_palette(True, QPalette, QColor))
    window = gui.open_main_window(ask=False)
    assert window is not None
    pane = window.views.practice
    answers = [0]

    def report() -> None:
        screen = window.screen().availableGeometry()
        frame = window.frameGeometry()
        bar = window.statusBar()
        bar_bottom = bar.mapToGlobal(bar.rect().bottomLeft()).y()
        print(json.dumps({
            "screen": [screen.width(), screen.height()],
            "frame": [frame.x(), frame.y(), frame.width(), frame.height()],
            "frame_bottom_within_screen": frame.bottom() <= screen.bottom(),
            "status_bar_on_screen": bar.isVisible() and bar_bottom <= screen.bottom(),
            "summary": pane.view.summary.isVisible(),
            "missed_box": pane.view.missed_box.height(),
        }), flush=True)  # fmt: skip
        if shot:
            window.grab().save(shot, "PNG")
        qapp.quit()

    def poll() -> None:
        phase = pane.phase
        if phase is Phase.ANSWERING:
            pane.view.answer_box.setPlainText("Kept differences add up, quickly, it seems.")
            pane.submit()
        elif phase is Phase.ANSWERED:
            answers[0] += 1
            pane.view.next_button.click()
        elif phase is Phase.FINISHED:
            QTimer.singleShot(800, report)
            return
        QTimer.singleShot(50, poll)

    def listed() -> None:
        entry = window.entry_for("natural-selection") or window.note_list.model.entry(0)
        window.views.show_practice()
        pane.start(entry.note)
        poll()

    window.notes_listed.connect(listed)
    QTimer.singleShot(60_000, qapp.quit)
    if maximised:
        window.showMaximized()
    else:
        window.show()
    qapp.exec()
    QApplication.processEvents()
    sys.exit(gui.leave(0))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--shots", type=Path)
    parser.add_argument("--child", nargs=2)
    args = parser.parse_args()
    if args.child:
        child(args.child[0] == "max", args.child[1])
        return

    from bench_quit import window_manager
    from fakes.gemini_server import FakeGemini
    from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
    from test_practice_judged import needs_work

    with (
        tempfile.TemporaryDirectory() as tmp,
        FakeOllama() as ollama,
        FakeGemini(api_keys={KEY}) as gemini,
        window_manager(94) as display,
    ):
        gemini.reply_for = needs_work
        config = Path(tmp) / "coach.config.json"
        config.write_text(json.dumps({
            "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": False,
                      "challengesPerSession": 3},
            "judge": {"enabled": True, "baseUrl": gemini.url, "maxRetries": 0},
        }), "utf-8")  # fmt: skip
        for scale, how, theme in (
            ("1.0", "max", "light"), ("1.0", "default", "dark"),
            ("1.5", "max", "dark"), ("1.5", "default", "light"),
        ):  # fmt: skip
            for text in CHALLENGES:
                ollama.queue_challenge(text)
            env = dict(
                os.environ, QT_QPA_PLATFORM="xcb", DISPLAY=display, QT_SCALE_FACTOR=scale,
                COACH_CONFIG=str(config), COACH_HOME=str(Path(tmp) / f"home-{scale}-{how}"),
                XDG_CONFIG_HOME=str(Path(tmp) / f"xdg-{scale}-{how}"),
                PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]),
                PYTHON_KEYRING_BACKEND="fakes.keyring_backend.FileKeyring",
                COACH_TEST_KEYRING=str(Path(tmp) / "keys.json"), FIT_THEME=theme,
            )  # fmt: skip
            name = f"summary-{scale}x-{how}-{theme}.png"
            shot = str(args.shots / name) if args.shots else ""
            done = subprocess.run(
                [sys.executable, __file__, "--child", how, shot],
                env=env, capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
            print(f"{scale}x {how:<8} {theme:<5}", lines[-1] if lines else done.stderr[-500:])


if __name__ == "__main__":
    main()
