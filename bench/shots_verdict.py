"""Screenshots of the practice pane after a judged answer, with each key point's evidence
marked, light and dark, at 1.0x and 1.5x: `python bench/shots_verdict.py [folder]`
(default /tmp/verdict-shots). A real practice pane and app context against loopback fakes
of Ollama and Gemini (the judge cites real words for some key points, words the learner
never wrote for one, and calls one wrong). Each scale is its own process, since
QT_SCALE_FACTOR is read when Qt starts; QT_QPA_PLATFORM is left as given (offscreen if
unset), so it runs under Xvfb too."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))

KEY = "AIzaSyBench-shots-0123456789abcdefghij"
ANSWER = (
    "Useful differences that are inherited get kept, because those who have them leave more "
    "young. Over many generations the slight advantages add up, so a big change takes a very "
    "long time. It happens quickly, within a few generations."
)


def shoot(folder: Path, scale: str) -> None:
    from shots_preview import practice_pane, sandbox, until

    sandbox(scale)
    from fakes.gemini_server import cites
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication
    from shots_preview import _palette

    from coach_gui.ui.practice.practice_pane import Phase

    app = QApplication([])
    app.setStyle("Fusion")
    spans = {0: ["Useful differences that are inherited get kept"],
             1: ["selection only acts on variation that already exists"],
             2: [], 3: ["slight advantages add up", "It happens quickly"],
             4: ["leave more young"]}  # fmt: skip
    for theme in os.environ.get("SHOTS_THEMES", "light dark").split():
        app.setPalette(_palette(theme == "dark", QPalette, QColor))
        challenge = "Why can a process that only keeps or removes traits still produce new kinds?"
        reply = cites(spans, status={2: "unexplained", 3: "wrong"})
        with practice_pane((challenge,), reply, key=KEY, follow_ups=False,
                           size=(900, 820)) as pane:  # fmt: skip
            until(app, lambda p=pane: p.phase is Phase.ANSWERING)
            pane.view.answer_box.setPlainText(ANSWER)
            pane.view.submit_button.click()
            until(app, lambda p=pane: p.phase is Phase.ANSWERED)
            for _ in range(5):
                app.processEvents()
                time.sleep(0.05)
            out = folder / f"practice-evidence-{theme}-{scale}x.png"
            pane.grab().save(str(out))
            print(out)


def main() -> None:
    from shots_preview import at_each_scale

    at_each_scale(__file__, shoot, "/tmp/verdict-shots")


if __name__ == "__main__":
    main()
