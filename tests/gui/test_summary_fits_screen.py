"""The end of a session on a small screen (issue 33, item 8): at 1.5x on a 1440x900 screen
a window has 960x600 logical pixels, less the window manager's title bar; a new user saw
the session summary grow the window past it and push the status bar off the screen. Here a
session misses every one of a note's twelve long key points, and the real main window,
960x560, must keep its size with the summary, the buttons and the status bar inside it;
the missed key points scroll in their own box. (QT_SCALE_FACTOR scales every size alike, so
the logical sizes here are those of 1.5x; tests/gui/layout_probe.py also checks the
summary at 1.5x and 2.0x in a process of their own.)"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from fakes.gemini_server import FakeGemini, RecordedRequest, verdict_json
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import build_cases
from coach_gui.ui.practice.practice_view import Phase
from coach_gui.ui.shell.main_window import MainWindow

KEY = "test-key"
SCREEN = (960, 560)  # 1440x900 at 1.5x, less a title bar
ASSERTIONS = [
    f"Key point {n}: a variation that is useful to its owner in the struggle for life tends "
    f"to be kept and inherited, and over many generations such variations add up ({n})."
    for n in range(1, 13)
]
WAIT_MS = 15_000


def _vault(folder: Path) -> Path:
    folder.mkdir()
    listed = "\n".join(f"  - {text}" for text in ASSERTIONS)
    (folder / "Many key points.md").write_text(
        f"---\ncore_assertions:\n{listed}\n---\n\n# Many key points\n\nA long note.\n",
        encoding="utf-8",
    )
    return folder


def _every_key_point_missed(request: RecordedRequest) -> str:
    """Every key point unexplained; the first said explained with words the answer does not
    hold, which Coach counts as unexplained, the judge having cited nothing of the answer."""
    reply = json.loads(verdict_json(request, lambda _item: False))
    first = reply["items"][0]["assessments"][0]
    first.update(status="explained", evidence=["words the answer does not hold"], reason="")
    return json.dumps(reply)


def _inside(widget: QWidget, window: QWidget) -> bool:
    top_left = widget.mapTo(window, QPoint(0, 0))
    return window.rect().contains(QRect(top_left, widget.size()))


def test_a_summary_missing_every_key_point_keeps_the_window_on_a_small_screen(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        ollama.queue_challenge("Why do useful variations add up over many generations?")
        gemini.reply_for = _every_key_point_missed
        KeyStore().set(KEY)
        config = Path(os.environ["COACH_CONFIG"])
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({
            "kb": {"path": str(_vault(tmp_path / "vault"))},
            "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": False,
                      "challengesPerSession": 1},
            "judge": {"enabled": True, "includeAssertions": True, "baseUrl": gemini.url,
                      "maxRetries": 0},
        }), encoding="utf-8")  # fmt: skip
        window = MainWindow(build_cases())
        qtbot.addWidget(window)
        window.resize(*SCREEN)
        with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
            window.show()
        qtbot.waitExposed(window)
        pane = window.practice
        window.open_note(window.notes()[0].id)
        qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)  # Practise
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
        qtbot.keyClicks(pane.view.answer_box, "Useful ones are kept, I think.")
        qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
        with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS) as finished:
            qtbot.keyClick(pane.view.next_button, Qt.Key.Key_Space)  # the last: the summary
        assert len(finished.args[0].missed) == len(ASSERTIONS)
        qtbot.wait(200)  # the layouts settle

        view = pane.view
        assert view.summary.isVisible() and view.missed_box.isVisible()
        assert window.size().toTuple() == SCREEN  # not grown past the screen
        hint = window.minimumSizeHint()
        assert hint.height() <= SCREEN[1], f"the window needs {hint.height()} px"
        for shown in (view.summary_label, view.practise_missed_button, view.again_button):
            assert shown.isVisible() and _inside(shown, window), shown.text()
        bar = window.statusBar()
        assert bar.isVisible() and _inside(bar, window)
        # Every missed key point is listed, in its own scrolling box.
        assert all(text in view.missed_label.text() for text in ASSERTIONS)
        why = re.findall(r"<br>(.)", view.missed_label.text())  # each reason, on its own line
        assert len(why) == len(ASSERTIONS) and all(first.isupper() for first in why), why
        assert view.missed_box.height() < view.missed_label.sizeHint().height()
        assert view.missed_box.verticalScrollBar().maximum() > 0
        assert pane.shutdown(WAIT_MS)
        window.close()
