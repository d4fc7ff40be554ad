"""Search as you type over 10,000 notes, measured on the real widget path.

Opens the real main window on a knowledge base of generated notes, waits until the notes
are listed and the search index is built, then types queries into the search box one
letter at a time (QTest key events). Each keystroke is timed from the key press to the
end of the event processing it causes: the search, the list model reset and the repaint
of the visible rows.

    python bench/bench_search.py [--notes 10000]

Target (issue 2): ≤ 30 ms per keystroke. Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_startup import make_notes

QUERIES = ("natural selection", "struggle", "variation under", "species isl")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=10_000)
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="coach-bench-") as tmp:
        root = Path(tmp)
        os.environ.update(
            COACH_HOME=str(root / "home"),
            COACH_CONFIG=str(root / "config" / "coach.config.json"),
            XDG_CONFIG_HOME=str(root / "xdg-config"),
        )
        make_notes(root / "home" / "kb", args.notes)
        run(args.notes)


def run(count: int) -> None:
    from PySide6.QtCore import QEventLoop, Qt, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from coach_gui.bootstrap import build_cases
    from coach_gui.ui.kit.tasks import wait_for_all
    from coach_gui.ui.shell.main_window import MainWindow

    app = QApplication(["coach-bench"])
    window = MainWindow(build_cases())
    window.resize(1120, 720)
    ready = QEventLoop()
    window.search_ready.connect(ready.quit)
    started = time.perf_counter()
    window.show()
    QTimer.singleShot(120_000, ready.quit)
    ready.exec()
    listed = window.note_list.model.rowCount()
    print(
        f"{listed} notes listed and indexed in {time.perf_counter() - started:.2f} s; "
        f"{os.cpu_count()} CPUs, offscreen Qt"
    )
    box = window.note_list.search_box
    box.setFocus()
    per_key: list[float] = []
    for query in QUERIES:
        box.clear()
        app.processEvents()
        row = []
        for char in query:
            t = time.perf_counter()
            QTest.keyClick(box, char)
            app.processEvents()  # the model reset, layout and repaint happen here
            row.append((time.perf_counter() - t) * 1000)
        per_key.extend(row)
        shown = window.note_list.model.rowCount()
        print(
            f"  {query!r:22} {shown:>5} matches; per keystroke ms: "
            + " ".join(f"{ms:.0f}" for ms in row)
        )
    QTest.keyClick(box, Qt.Key.Key_Escape)
    search_only = replay_search_only(window)
    per_key.sort()
    p95 = per_key[int(len(per_key) * 0.95) - 1]
    print(
        f"per keystroke over {count} notes: median {statistics.median(per_key):.1f} ms, "
        f"p95 {p95:.1f} ms, max {per_key[-1]:.1f} ms ({len(per_key)} keystrokes)"
    )
    search_only.sort()
    print(
        f"  of which the search itself (NoteSearchIndex.search, same keystrokes): median "
        f"{statistics.median(search_only):.1f} ms, max {search_only[-1]:.1f} ms"
    )
    window.close()
    wait_for_all(10_000)


def replay_search_only(window: object) -> list[float]:
    """The same keystrokes against a fresh index, timing only the domain search."""
    from coach_gui.domain.notes import NoteSearchIndex

    pane = window.note_list  # type: ignore[attr-defined]
    index = NoteSearchIndex(pane._notes)
    times = []
    for query in QUERIES:
        index.search("")
        for end in range(1, len(query) + 1):
            t = time.perf_counter()
            index.search(query[:end])
            times.append((time.perf_counter() - t) * 1000)
    return times


if __name__ == "__main__":
    main()
