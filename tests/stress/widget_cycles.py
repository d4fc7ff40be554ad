"""Widgets left in garbage cycles while workers allocate, as a window's evening leaves
them: the app's collector must free them on the GUI thread. Run as a process of its own
(`python -m stress.widget_cycles SECONDS`): a widget freed on a worker crashes Qt, and
the caller sees that as the exit status. Prints what happened as one JSON line."""

from __future__ import annotations

import faulthandler
import gc
import json
import sys
import threading
import time
import weakref

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from coach_gui.ui.app import create_application
from coach_gui.ui.tasks import Task, TaskProgress, pending_tasks, wait_for_all


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
    gui = threading.get_ident()
    on_thread = {"gui": 0, "elsewhere": 0}

    def counted(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            on_thread["gui" if threading.get_ident() == gui else "elsewhere"] += 1

    gc.callbacks.append(counted)
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
    gc.callbacks.remove(counted)
    print(
        json.dumps(
            {
                "widgets": len(freed),
                "left": sum(r() is not None for r in freed),
                "churned": churned[0],
                "collections_on_gui": on_thread["gui"],
                "collections_elsewhere": on_thread["elsewhere"],
                "automatic_collector_on": gc.isenabled(),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(float(sys.argv[1])))
