"""The background task helper: results arrive on the GUI thread, failures reach the
learner, cancelled work delivers nothing, and writes happen one at a time in order."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import shiboken6
from PySide6.QtCore import QThread
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from coach_gui.domain.errors import NoteError
from coach_gui.ui.kit import tasks
from coach_gui.ui.kit.tasks import (
    Lane,
    ProgressUpdate,
    Task,
    TaskCancelled,
    TaskProgress,
    pending_tasks,
)


def _gui_thread() -> QThread:
    app = QApplication.instance()
    assert app is not None
    return app.thread()


def test_op_runs_off_the_gui_thread_and_success_runs_on_it(qtbot: QtBot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    seen: dict[str, object] = {}

    def op(_progress: TaskProgress) -> int:
        seen["op_on_gui_thread"] = QThread.currentThread() is _gui_thread()
        return 42

    def success(value: int) -> None:
        seen["value"] = value
        seen["success_on_gui_thread"] = QThread.currentThread() is _gui_thread()

    Task(parent, op=op, success=success).run()
    qtbot.waitUntil(lambda: "value" in seen)
    assert seen == {"op_on_gui_thread": False, "value": 42, "success_on_gui_thread": True}
    assert pending_tasks() == []


def test_progress_reaches_the_gui_in_order(qtbot: QtBot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    updates: list[ProgressUpdate] = []
    finished: list[str] = []

    def op(progress: TaskProgress) -> str:
        for i in range(3):
            progress(i + 1, 3, f"step {i + 1}")
        return "done"

    Task(parent, op=op, success=finished.append, progress=updates.append).run()
    qtbot.waitUntil(lambda: finished == ["done"])
    assert [(u.done, u.total, u.text) for u in updates] == [
        (1, 3, "step 1"),
        (2, 3, "step 2"),
        (3, 3, "step 3"),
    ]


def test_a_failure_without_handler_is_shown_in_the_learners_words(qtbot: QtBot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()

    def op(_progress: TaskProgress) -> None:
        raise NoteError("Could not save x.md: disk full. Free some space, then save again.")

    Task(parent, op=op, success=lambda _r: None).run()

    def box() -> QMessageBox | None:
        found = [w for w in parent.findChildren(QMessageBox) if w.isVisible()]
        return found[0] if found else None

    qtbot.waitUntil(lambda: box() is not None)
    shown = box()
    assert shown is not None
    assert "disk full. Free some space" in shown.informativeText()
    shown.close()


def test_an_unexpected_failure_shows_a_calm_message_and_the_log_location(qtbot: QtBot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    parent.show()
    handled: list[Exception] = []

    def op(_progress: TaskProgress) -> None:
        raise KeyError("internal detail")

    Task(parent, op=op, success=lambda _r: None).run()
    qtbot.waitUntil(lambda: any(w.isVisible() for w in parent.findChildren(QMessageBox)))
    shown = next(w for w in parent.findChildren(QMessageBox) if w.isVisible())
    assert "log file" in shown.informativeText()
    assert "internal detail" not in shown.informativeText()  # no internals on screen
    shown.close()

    Task(parent, op=op, success=lambda _r: None, failure=handled.append).run()
    qtbot.waitUntil(lambda: len(handled) == 1)
    assert isinstance(handled[0], KeyError)


def test_a_cancelled_task_delivers_nothing(qtbot: QtBot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    started, release = threading.Event(), threading.Event()
    delivered: list[object] = []

    def op(progress: TaskProgress) -> str:
        started.set()
        release.wait(5)
        progress.check()  # a long op checks between steps
        return "late result"

    task = Task(parent, op=op, success=delivered.append, failure=delivered.append).run()
    assert started.wait(5)
    task.cancel()
    release.set()
    qtbot.waitUntil(lambda: task.done)
    assert delivered == []


def test_writes_run_one_at_a_time_in_submission_order(qtbot: QtBot) -> None:
    parent = QWidget()
    qtbot.addWidget(parent)
    log: list[str] = []
    running = [0]
    overlap = [False]

    def write(n: int) -> str:
        running[0] += 1
        overlap[0] = overlap[0] or running[0] > 1
        time.sleep(0.01)
        log.append(f"write {n}")
        running[0] -= 1
        return f"write {n}"

    delivered: list[str] = []
    for n in range(5):
        Task(
            parent,
            op=lambda _p, n=n: write(n),
            success=delivered.append,
            lane=Lane.WRITER,
        ).run()
    qtbot.waitUntil(lambda: len(delivered) == 5)
    assert log == [f"write {n}" for n in range(5)]
    assert delivered == log
    assert not overlap[0]


def test_nothing_is_delivered_to_a_closed_window(qtbot: QtBot) -> None:
    parent = QWidget()
    release = threading.Event()
    delivered: list[str] = []
    task = Task(parent, op=lambda _p: release.wait(5) and "x", success=delivered.append).run()
    parent.deleteLater()
    qtbot.waitUntil(lambda: not _alive(parent))
    release.set()
    qtbot.waitUntil(lambda: task.done)
    assert delivered == []


def _alive(widget: QWidget) -> bool:
    import shiboken6

    return shiboken6.isValid(widget)


def test_quitting_skips_a_registered_pool_whose_owner_was_deleted(qapp: QApplication) -> None:
    """A practice pane deleted earlier (a window closed) leaves its pool registered; quitting
    must not trip over the deleted C++ object (found by the soak in the full suite)."""
    import shiboken6
    from PySide6.QtCore import QObject, QThreadPool

    owner = QObject()
    pool = QThreadPool(owner)
    tasks.register_pool(pool)
    shiboken6.delete(owner)
    assert not shiboken6.isValid(pool)
    assert tasks.quiesce(100) is True


def test_quitting_never_cancels_or_abandons_a_write_of_learner_data(
    qtbot: QtBot, qapp: QApplication
) -> None:
    """Found in review: quiesce cancelled queued writer tasks (a config save queued after
    the window's last wait never ran) and gave a running one only 250 ms."""
    owner = QWidget()
    qtbot.addWidget(owner)
    written: list[str] = []

    def slow_write(_progress: TaskProgress) -> None:
        time.sleep(0.4)
        written.append("first")

    Task(owner, op=slow_write, success=lambda _r: None, lane=Lane.WRITER, name="w1").run()
    Task(owner, op=lambda _p: written.append("queued"), success=lambda _r: None,
         lane=Lane.WRITER, name="w2").run()  # fmt: skip
    assert tasks.durable_in_flight() == 2
    assert tasks.quiesce(50) is True
    assert written == ["first", "queued"]  # both ran, in order, though the grace was 50 ms
    assert tasks.durable_in_flight() == 0
    qtbot.waitUntil(lambda: pending_tasks() == [])


def test_an_ordered_lane_runs_its_tasks_one_at_a_time_in_order(qtbot: QtBot) -> None:
    """The practice pane's lane (issue 15: one worker system): a session's calls reach it
    one at a time and in the order they were queued, on one thread that is not the GUI's."""
    owner = QWidget()
    qtbot.addWidget(owner)
    lane = tasks.OrderedLane(owner, "test-ordered")
    running, overlaps, order, threads = [0], [], [], set()
    lock = threading.Lock()

    def job(number: int) -> int:
        with lock:
            running[0] += 1
            overlaps.append(running[0])
        threads.add(threading.get_ident())
        time.sleep(0.005 * (5 - number))  # later ones are quicker: order is not by speed
        with lock:
            running[0] -= 1
        return number

    for number in range(5):
        Task(owner, lambda _p, n=number: job(n), order.append, lane=lane, name="o").run()
    qtbot.waitUntil(lambda: len(order) == 5)
    assert order == [0, 1, 2, 3, 4]
    assert max(overlaps) == 1
    assert len(threads) == 1 and threading.get_ident() not in threads
    assert pending_tasks() == []


def test_quitting_lets_an_ordered_lane_finish_what_is_queued(
    qtbot: QtBot, qapp: QApplication
) -> None:
    """A session's seal queued behind its other calls still runs when the window quits
    (it was cancelled unstarted when the pane's jobs first became tasks)."""
    owner = QWidget()
    qtbot.addWidget(owner)
    lane = tasks.OrderedLane(owner, "test-quit")
    ran: list[str] = []
    Task(owner, lambda _p: (time.sleep(0.1), ran.append("call")), _ignore, lane=lane).run()
    Task(owner, lambda _p: ran.append("seal"), _ignore, lane=lane).run()
    assert tasks.quiesce(2000) is True
    assert ran == ["call", "seal"]
    qtbot.waitUntil(lambda: pending_tasks() == [])


def test_latest_keeps_only_the_newest_value_and_wakes_the_gui_once() -> None:
    latest: tasks.Latest[str] = tasks.Latest()
    wakes = [latest.put(text) for text in ("a", "ab", "abc")]
    assert wakes == [True, False, False]  # one wake-up waits in the queue at a time
    assert latest.take() == "abc"
    assert latest.take() is None
    assert latest.put("abcd") is True  # taken: the next value wakes the GUI again


def _ignore(_result: object) -> None:
    pass


_freed_on: list[int] = []  # the thread each _Receiver was freed on


class _Receiver:
    """A task's receiver that notes the thread it is freed on."""

    def take(self, _result: object) -> None:
        pass

    def __del__(self) -> None:
        _freed_on.append(threading.get_ident())


def _op_holding(tracker: _Receiver, outcome: str) -> Callable[[TaskProgress], None]:
    def op(_progress: TaskProgress) -> None:
        assert tracker is not None  # the op's closure holds the tracker, as an op's does
        if outcome == "failed":
            raise NoteError("Could not read x.md. Check the file, then try again.")
        if outcome == "cancelled":
            raise TaskCancelled

    return op


@pytest.mark.parametrize("outcome", ["succeeded", "failed", "cancelled"])
def test_a_delivered_task_lets_go_of_what_it_holds_on_the_gui_thread(
    qtbot: QtBot, qapp: QApplication, monkeypatch: pytest.MonkeyPatch, outcome: str
) -> None:
    """The pool's runnable holds a task until its worker is done with it, at times after
    the result was delivered; each task's signals object kept it in a cycle; a failure's
    traceback holds the op's frames (and its closure) on the worker till it lets go: what
    a task held was freed on whatever thread let go last, or the collector ran (a widget
    freed off the GUI thread can crash Qt). Now all of it is freed as the task delivers,
    on the GUI thread, with no collection needed."""
    owner = QWidget()
    qtbot.addWidget(owner)
    _freed_on.clear()
    failures: list[str] = []
    tasks.collect_automatically()  # the collector stays out of it: nothing may need it
    monkeypatch.setattr(tasks, "collect_on_gui_thread", lambda: None)  # (Task.run calls it)
    gc.disable()
    try:
        for _ in range(200):  # one at a time, the GUI waiting for each: it delivers at once
            task = Task(
                owner,
                op=_op_holding(_Receiver(), outcome),
                success=_Receiver().take,
                failure=lambda error: failures.append(type(error).__name__),
            ).run()
            while not task.done:
                qapp.processEvents()
        assert tasks.wait_for_all(5000)
        assert failures == (["NoteError"] * 200 if outcome == "failed" else [])
        assert len(_freed_on) == 400  # every op's tracker and every callback's
    finally:
        monkeypatch.undo()
        tasks.collect_on_gui_thread()
    assert set(_freed_on) == {threading.get_ident()}


def test_a_review_whose_session_is_gone_is_not_sent_and_frees_its_worker(
    qtbot: QtBot, qapp: QApplication
) -> None:
    """The judge's worker asks the learner through the session's gate; if the session
    (and its gate) is deleted before the question reaches the GUI thread, the worker used
    to emit on a deleted object (or wait for ever): now the payload is not sent."""
    from coach_gui.domain.tier2 import Tier2Item, Tier2Payload
    from coach_gui.ui.practice.payload_review import SESSION_ENDED, ReviewGate

    owner = QWidget()
    gate = ReviewGate("gemini-test", owner)
    asked: list[object] = []
    gate.asked.connect(asked.append)
    payload = Tier2Payload(items=(Tier2Item(challenge="Why?", answer="Because."),))
    answer: list[str | None] = []
    review = gate.review  # the worker holds the gate, as the judge's worker does
    worker = threading.Thread(target=lambda: answer.append(review(payload)), daemon=True)
    worker.start()  # it queues its question for the GUI thread, which is busy here
    worker.join(0.2)
    shiboken6.delete(owner)  # the session's pane is gone, the gate with it
    del gate
    qtbot.waitUntil(lambda: answer != [], timeout=5000)
    worker.join(5)
    assert answer == [SESSION_ENDED] and asked == []


def test_widgets_in_garbage_cycles_are_freed_on_the_gui_thread_while_workers_allocate(
    tmp_path: Path,
) -> None:
    """CI crashed in a window's test, inside a worker's emit: the worker's allocations had
    made a collection due, and the collector, running on that thread, freed a closed
    window's widgets there. The scenario runs in a process of its own (without Coach's
    collector on the GUI thread it dies of a segmentation fault within a second)."""
    tests = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "stress.widget_cycles", "3"],
        cwd=tests,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["widgets"] > 20 and seen["left"] == 0, seen  # every one freed
    assert seen["churned"] > 100_000, seen  # the workers did allocate
    assert seen["collections_on_gui"] > 0 and seen["collections_elsewhere"] == 0, seen
    assert seen["automatic_collector_on"] is False, seen


def test_collections_come_due_by_the_collectors_own_counts() -> None:
    due = tasks._due
    assert due((10, 0, 0), (700, 10, 10)) is None
    assert due((701, 0, 0), (700, 10, 10)) == 0
    assert due((701, 11, 0), (700, 10, 10)) == 1
    assert due((701, 11, 11), (700, 10, 10)) == 2
    assert due((5, 0, 11), (700, 10, 10)) == 2  # the oldest due generation, as CPython picks
    assert due((10_000, 50, 50), (0, 10, 10)) is None  # a threshold of 0: collecting is off
    # A full collection not allowed yet: the younger generation that is due, if any.
    assert due((701, 11, 11), (700, 10, 10), full=False) == 1
    assert due((701, 0, 11), (700, 10, 10), full=False) == 0
    assert due((5, 0, 11), (700, 10, 10), full=False) is None
