"""Screenshots of a practice session as a thread, light and dark, at 1.0x and 1.5x, in a
1024x640 window: `python bench/shots_thread.py [folder]` (default /tmp/thread-shots).
A real practice pane and app context against loopback fakes of Ollama and Gemini, with
follow-ups on: the first answer misses a key point and gets one wrong, its follow-up
passes. Three pictures each: answering the follow-up (the judged answer above it), after
the follow-up is judged, and the end of the session (the missed key points)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

KEY = "AIzaSyBench-shots-0123456789abcdefghij"
FIRST = "Why can a process that only keeps or removes traits still produce new kinds?"
FOLLOW_UP = "You said differences get kept: where do new differences come from?"
ANSWER = (
    "Useful differences that are inherited get kept, because those who have them leave more "
    "young. Over many generations the slight advantages add up. It happens quickly, within a "
    "few generations."
)
FOLLOW_ANSWER = "Offspring vary a little from their parents, and some of that is inherited."


def shoot(folder: Path, scale: str) -> None:
    from shots_preview import practice_pane, sandbox, until

    sandbox(scale)
    from fakes.gemini_server import cites, prompt_items
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication
    from shots_preview import _palette

    from coach_gui.ui.practice.practice_pane import Phase

    app = QApplication([])
    app.setStyle("Fusion")
    first = cites(
        {0: ["Useful differences that are inherited get kept"], 1: [], 2: ["leave more young"],
         3: ["slight advantages add up", "It happens quickly"], 4: ["leave more young"]},
        status={1: "unexplained", 3: "wrong"},
    )  # fmt: skip
    later = cites({n: ["Offspring vary a little"] for n in range(5)})

    def judge(request: object) -> str:
        (item,) = prompt_items(request)  # type: ignore[arg-type]
        return first(request) if item.answer == ANSWER else later(request)  # type: ignore[arg-type]

    for theme in os.environ.get("SHOTS_THEMES", "light dark").split():
        app.setPalette(_palette(theme == "dark", QPalette, QColor))
        with practice_pane((FIRST, FOLLOW_UP), judge, key=KEY, follow_ups=True,
                           size=(1024, 640)) as pane:  # fmt: skip
            until(app, lambda p=pane: p.phase is Phase.ANSWERING)
            pane.view.answer_box.setPlainText(ANSWER)
            pane.view.submit_button.click()
            until(app, lambda p=pane: p.phase is Phase.ANSWERING)
            pane.view.answer_box.setPlainText("Offspring vary a little")
            _save(app, pane, folder / f"thread-follow-up-{theme}-{scale}x.png")
            pane.view.answer_box.setPlainText(FOLLOW_ANSWER)
            pane.view.submit_button.click()
            until(app, lambda p=pane: p.phase is Phase.ANSWERED)
            _save(app, pane, folder / f"thread-judged-{theme}-{scale}x.png")
            pane.view.next_button.click()
            until(app, lambda p=pane: p.phase is Phase.FINISHED)
            _save(app, pane, folder / f"thread-summary-{theme}-{scale}x.png")


def _save(app: object, pane: object, out: Path) -> None:
    for _ in range(5):
        app.processEvents()  # type: ignore[attr-defined]
        time.sleep(0.05)
    pane.grab().save(str(out))  # type: ignore[attr-defined]
    print(out)


def main() -> None:
    from shots_preview import at_each_scale

    at_each_scale(__file__, shoot, "/tmp/thread-shots")


if __name__ == "__main__":
    main()
