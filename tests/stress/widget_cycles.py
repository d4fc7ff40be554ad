"""Widgets left in garbage cycles while workers allocate, as a window's evening leaves
them: the app's collector must free them on the GUI thread. Run as a process of its own
(`python -m stress.widget_cycles SECONDS`): a widget freed on a worker crashes Qt, and
the caller sees that as the exit status. Prints what happened as one JSON line."""

from __future__ import annotations

import faulthandler
import gc
import json
import sys
import time
import weakref

from PySide6.QtWidgets import QApplication, QLabel, QVBoxLayout, QWidget

from coach_gui.ui.kit.tasks import Task, TaskProgress, pending_tasks, wait_for_all
from coach_gui.ui.shell.app import create_application
from stress.gc_threads import collections_by_thread


class _Cyclic(QWidget):
    """A top-level widget (Python owns it) that refers to itself: only the collector
    frees it."""

    def __init__(self) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        for i in range(8):
            layout.addWidget(QLabel(f"line {i}"))
        self.itself = self


def _churn(_progress: TaskProgress) -> int:
    """A worker's allocations, enough to make a collection due many times over."""
    made = 0
    end = time.monotonic() + 0.02
    while time.monotonic() < end:
        cycle: list[object] = []
        cycle.append(cycle)
        made += 1
    return made


def main(seconds: float) -> int:
    faulthandler.enable()
    app = create_application([])
    with collections_by_thread() as on_thread:
        churned, freed = _evening(app, seconds)
    print(
        json.dumps(
            {
                "widgets": len(freed),
                "left": sum(r() is not None for r in freed),
                "churned": churned,
                "collections_on_gui": on_thread["gui"],
                "collections_elsewhere": on_thread["elsewhere"],
                "automatic_collector_on": gc.isenabled(),
            }
        )
    )
    return 0


def _evening(app: QApplication, seconds: float) -> tuple[int, list[weakref.ref[_Cyclic]]]:
    """Widget cycles made and dropped for `seconds` while two workers churn; then wait
    (up to 10 s) for every one to be freed. Returns what the workers made, and the
    widgets' weak references."""
    holder = QWidget()  # the tasks' parent
    running = [True]
    churned = [0]

    def again(made: int) -> None:
        churned[0] += made
        if running[0]:
            Task(holder, op=_churn, success=again).run()

    for _ in range(2):
        Task(holder, op=_churn, success=again).run()
    freed: list[weakref.ref[_Cyclic]] = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        freed.append(weakref.ref(_Cyclic()))
        app.processEvents()
    running[0] = False
    wait_for_all(10_000)
    deadline = time.monotonic() + 10
    while (pending_tasks() or any(r() is not None for r in freed)) and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)
    return churned[0], freed


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1])))
