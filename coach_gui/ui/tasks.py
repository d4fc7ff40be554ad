"""Background work in Anki's QueryOp style: the GUI thread never waits on disk or network.

    Task(self, op=lambda progress: store.load(), success=self._show_notes).run()

`op` runs on a worker thread and gets plain data only (never a widget); `success`,
`failure` and `progress` run on the GUI thread. Writes go to the `WRITER` lane, a
single-thread pool, so they happen one at a time and in order; everything else goes to
the `GENERAL` lane, unless its owner has an `OrderedLane` of its own (the practice pane:
a session's calls run one at a time, in order, and a long generation never holds up note
saves). A task whose parent widget is gone delivers nothing. This is the one worker
system: every background job in the window is a Task.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QThreadPool, Signal, Slot

log = logging.getLogger(__name__)

T = TypeVar("T")


class Lane(Enum):
    GENERAL = "general"  # reads, searches, anything that may run side by side
    WRITER = "writer"  # note files, config, journal: one writer, in submission order


@dataclass(frozen=True)
class ProgressUpdate:
    done: int
    total: int | None = None  # None while the total is not known yet
    text: str = ""


class TaskCancelled(Exception):
    """Raised inside `op` (by `TaskProgress.check`) to stop a cancelled task early."""


class TaskProgress:
    """Handed to `op` on the worker thread: report progress, and notice a cancel."""

    def __init__(self, emit: Callable[[ProgressUpdate], None], cancel_flag: threading.Event):
        self._emit = emit
        self._cancel_flag = cancel_flag

    def wake(self) -> None:
        """Call the task's `progress` on the GUI thread, without checking for a cancel:
        the op keeps its latest value in a `Latest`, which the GUI reads then."""
        self._emit(ProgressUpdate(0))

    @property
    def cancelled(self) -> bool:
        return self._cancel_flag.is_set()

    def check(self) -> None:
        """Stop here (raise TaskCancelled) if the learner cancelled the task."""
        if self._cancel_flag.is_set():
            raise TaskCancelled

    def __call__(self, done: int, total: int | None = None, text: str = "") -> None:
        self.check()
        self._emit(ProgressUpdate(done, total, text))


class _TaskSignals(QObject):
    """Created on the GUI thread, so the worker's emits are delivered there (queued)."""

    succeeded = Signal(object)
    failed = Signal(object)
    progressed = Signal(object)
    cancelled = Signal()

    def __init__(self, task: Task[Any]) -> None:
        super().__init__()
        self._task = task
        self.succeeded.connect(self._on_succeeded)
        self.failed.connect(self._on_failed)
        self.progressed.connect(self._on_progressed)
        self.cancelled.connect(self._on_cancelled)

    @Slot(object)
    def _on_succeeded(self, result: object) -> None:
        self._task._deliver_success(result)

    @Slot(object)
    def _on_failed(self, error: object) -> None:
        self._task._deliver_failure(error)  # type: ignore[arg-type]

    @Slot(object)
    def _on_progressed(self, update: object) -> None:
        self._task._deliver_progress(update)  # type: ignore[arg-type]

    @Slot()
    def _on_cancelled(self) -> None:
        self._task._finish()


class Latest(Generic[T]):
    """A worker's latest value for the GUI (streamed text, download progress): only the
    newest is kept, and `put` says when the GUI must be woken, so at most one wake-up
    waits in the GUI's event queue however fast the values come."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value: T | None = None
        self._waiting = False

    def put(self, value: T) -> bool:
        """Worker thread: keep `value`; True when the GUI must be woken."""
        with self._lock:
            waiting, self._waiting = self._waiting, True
            self._value = value
        return not waiting

    def take(self) -> T | None:
        """GUI thread: the latest value (None if it was taken already)."""
        with self._lock:
            value, self._value, self._waiting = self._value, None, False
        return value


class OrderedLane:
    """A one-thread pool of its owner's own: its tasks run one at a time, in the order
    they were submitted. Quitting waits for it like every other lane (`quiesce`)."""

    def __init__(self, owner: QObject, name: str) -> None:
        self.pool = QThreadPool(owner)
        self.pool.setObjectName(f"coach-{name}")
        self.pool.setMaxThreadCount(1)
        _other_pools.add(self.pool)

    def wait(self, timeout_ms: int) -> bool:
        return not shiboken6.isValid(self.pool) or self.pool.waitForDone(timeout_ms)


_pools: dict[Lane, QThreadPool] = {}
_live: set[Task[Any]] = set()  # submitted and not yet delivered; keeps each task alive
_other_pools: weakref.WeakSet[QThreadPool] = weakref.WeakSet()  # the ordered lanes' pools
# Learner data queued or being written (a note, the config, a key, an answer): quitting
# waits for it, up to DURABLE_WAIT_MS, and never abandons it sooner (ADR 0012).
_durable = 0
_durable_lock = threading.Lock()
DURABLE_WAIT_MS = 10_000


def durable_begin() -> None:
    """Learner data is about to be queued for writing (call from any thread)."""
    global _durable
    with _durable_lock:
        _durable += 1


def durable_end() -> None:
    """That write is done, or failed (call from any thread)."""
    global _durable
    with _durable_lock:
        _durable -= 1


def durable_in_flight() -> int:
    with _durable_lock:
        return _durable


def _pool(lane: Lane) -> QThreadPool:
    pool = _pools.get(lane)
    if pool is None:
        # Dedicated pools: the global one has only 2 threads here and Qt uses it too.
        pool = QThreadPool(QCoreApplication.instance())
        pool.setObjectName(f"coach-{lane.value}")
        pool.setMaxThreadCount(1 if lane is Lane.WRITER else 2)
        _pools[lane] = pool
    return pool


class Task(Generic[T]):
    """One piece of background work; build it, then `run()` it (once)."""

    def __init__(
        self,
        parent: QObject | None,
        op: Callable[[TaskProgress], T],
        success: Callable[[T], None],
        failure: Callable[[Exception], None] | None = None,
        progress: Callable[[ProgressUpdate], None] | None = None,
        *,
        lane: Lane | OrderedLane = Lane.GENERAL,
        durable: bool = False,
        name: str | None = None,
    ) -> None:
        """`durable`: the op writes what the learner gave (an answer, a rating); quitting
        waits for it and never cancels it (as for every task on the WRITER lane)."""
        self._parent = parent
        self._op = op
        self._success = success
        self._failure = failure
        self._progress = progress
        self._lane = lane
        self._durable = durable or lane is Lane.WRITER
        self.name: str = name or str(getattr(op, "__qualname__", "task"))
        self._cancel_flag = threading.Event()
        self._signals: _TaskSignals | None = None
        self._started = False
        self._done = False

    def run(self) -> Task[T]:
        if self._started:
            raise RuntimeError("a Task runs once; build a new one")
        self._started = True
        self._signals = _TaskSignals(self)
        _live.add(self)
        if self._durable:
            durable_begin()  # ended by `_work`, whatever happens
        lane = self._lane
        (lane.pool if isinstance(lane, OrderedLane) else _pool(lane)).start(self._work)
        return self

    def cancel(self) -> None:
        """Ask the task to stop; neither `success` nor `failure` will be called."""
        self._cancel_flag.set()

    @property
    def cancelled(self) -> bool:
        return self._cancel_flag.is_set()

    @property
    def done(self) -> bool:
        return self._done

    # --- worker thread -------------------------------------------------------------
    def _work(self) -> None:
        try:
            self._run_op()
        finally:
            if self._durable:
                durable_end()

    def _run_op(self) -> None:
        signals = self._signals
        assert signals is not None
        try:
            if self._cancel_flag.is_set():
                signals.cancelled.emit()
                return
            reporter = TaskProgress(signals.progressed.emit, self._cancel_flag)
            try:
                result = self._op(reporter)
            except TaskCancelled:
                signals.cancelled.emit()
            except Exception as exc:
                signals.failed.emit(exc)
            except BaseException as exc:  # never let a worker die silently
                signals.failed.emit(RuntimeError(f"background task stopped: {exc!r}"))
            else:
                signals.succeeded.emit(result)
        except RuntimeError:
            # The signals holder is gone: the app is shutting down, nobody is listening.
            log.info("%s finished after the app closed; its result was dropped", self.name)

    # --- GUI thread ----------------------------------------------------------------
    def _parent_alive(self) -> bool:
        return self._parent is None or shiboken6.isValid(self._parent)

    def _deliver_success(self, result: object) -> None:
        self._finish()
        if self._cancel_flag.is_set() or not self._parent_alive():
            return
        self._success(result)  # type: ignore[arg-type]

    def _deliver_failure(self, error: Exception) -> None:
        self._finish()
        if self._cancel_flag.is_set() or not self._parent_alive():
            log.info("dropped the failure of %s (cancelled or closed): %r", self.name, error)
            return
        if self._failure is not None:
            self._failure(error)
        else:
            from coach_gui.ui.failures import show_failure

            parent = self._parent if self._parent is not None else None
            show_failure(parent, error)  # type: ignore[arg-type]

    def _deliver_progress(self, update: ProgressUpdate) -> None:
        if self._progress is not None and not self._done and self._parent_alive():
            self._progress(update)

    def _finish(self) -> None:
        self._done = True
        _live.discard(self)
        # The signals object and the task refer to each other; let go of it here, on the
        # GUI thread that owns it, rather than leave the cycle to whichever thread the
        # collector next runs on. Its last signal is being delivered: Qt deletes it after.
        signals, self._signals = self._signals, None
        if signals is not None:
            signals.deleteLater()


def pending_tasks() -> list[str]:
    """Names of tasks submitted and not yet delivered (tests fail if any are left)."""
    return sorted(t.name for t in _live)


def wait_for_writes(timeout_ms: int = 10_000) -> bool:
    """Block until every queued write is on disk (before the main window closes)."""
    pool = _pools.get(Lane.WRITER)
    return pool is None or pool.waitForDone(timeout_ms)


def wait_for_all(timeout_ms: int = 5000) -> bool:
    """Block until every worker is idle (teardown and quit); False if one is still busy.
    Results not yet delivered arrive at the next turn of the event loop. One deadline for
    all the pools; a registered pool whose owner was deleted is gone with it (its threads
    were joined)."""
    deadline = time.monotonic() + timeout_ms / 1000
    pools = [p for p in (*_pools.values(), *_other_pools) if shiboken6.isValid(p)]
    return all(
        pool.waitForDone(max(int((deadline - time.monotonic()) * 1000), 0)) for pool in pools
    )


def register_pool(pool: QThreadPool) -> None:
    """A pool of its own that quitting must also wait for (`OrderedLane` registers its)."""
    _other_pools.add(pool)


def quiesce(grace_ms: int, durable_ms: int = DURABLE_WAIT_MS) -> bool:
    """Quitting: first let learner data being written finish (writes on the writer lane,
    answers being committed: at most `durable_ms`; none of it is cancelled), then cancel
    every other task but those of an ordered lane, and give every pool at most `grace_ms`
    in all to go idle. False when one is still busy: its thread is blocked (a judge call,
    say), and the caller exits without it — nothing the learner gave is in it (ADR 0012)."""
    durable_deadline = time.monotonic() + durable_ms / 1000
    for task in list(_live):
        # An ordered lane's tasks are left to run (a session's seal is queued behind its
        # other calls); their owner drops what they deliver, and the pools' grace below
        # bounds the wait for them as for everything else.
        if not task._durable and not isinstance(task._lane, OrderedLane):
            task.cancel()
    writer = _pools.get(Lane.WRITER)
    if writer is not None and shiboken6.isValid(writer):
        writer.waitForDone(max(int((durable_deadline - time.monotonic()) * 1000), 0))
    while durable_in_flight() > 0 and time.monotonic() < durable_deadline:
        time.sleep(0.005)
    return wait_for_all(grace_ms)
