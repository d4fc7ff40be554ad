"""Background work in Anki's QueryOp style: the GUI thread never waits on disk or network.

    Task(self, op=lambda progress: store.load(), success=self._show_notes).run()

`op` runs on a worker thread and gets plain data only (never a widget); `success`,
`failure` and `progress` run on the GUI thread. Writes go to the `WRITER` lane, a
single-thread pool, so they happen one at a time and in order; everything else goes to
the `GENERAL` lane, unless its owner has an `OrderedLane` of its own (the practice pane:
a session's calls run one at a time, in order, and a long generation never holds up note
saves). A task whose parent widget is gone delivers nothing. This is the one worker
system: every background job in the window is a Task. Because workers run Python, the
cyclic garbage collector runs on the GUI thread only (`collect_on_gui_thread`, ADR 0029):
run on a worker, it would free widgets there.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Generic, TypeVar

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, QThread, QThreadPool, QTimer, Signal, Slot

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


class _Relay(QObject):
    """Every worker's news comes back to the GUI thread through this one object, made
    there and kept for the app's life. A worker never emits on an object the GUI thread
    may delete meanwhile: each task used to have a signals object of its own, deleted
    after its last delivery, possibly while its worker was still inside that emit."""

    finished = Signal(object)  # Task: its outcome is on it (`Task._outcome`)
    progressed = Signal(object, object)  # Task, ProgressUpdate
    called = Signal(object, object)  # a function and its arguments (`to_gui_thread`)

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.setObjectName("coach-task-relay")
        self.finished.connect(self._on_finished)
        self.progressed.connect(self._on_progressed)
        self.called.connect(self._on_called)

    @Slot(object)
    def _on_finished(self, task: Task[Any]) -> None:
        task._deliver()

    @Slot(object, object)
    def _on_progressed(self, task: Task[Any], update: ProgressUpdate) -> None:
        task._deliver_progress(update)

    @Slot(object, object)
    def _on_called(self, function: Callable[..., None], args: tuple[Any, ...]) -> None:
        function(*args)


_relay_object: _Relay | None = None


def _relay() -> _Relay:
    """The relay; made on the GUI thread (`create_application`, `Task.run`), first."""
    global _relay_object
    relay = _relay_object
    if relay is None or not shiboken6.isValid(relay):
        app = QCoreApplication.instance()
        if app is None or QThread.currentThread() is not app.thread():
            raise RuntimeError("the task relay is made on the GUI thread, once the app is")
        relay = _relay_object = _Relay(app)
    return relay


def to_gui_thread(function: Callable[..., None], *args: Any) -> None:
    """From any thread: call `function(*args)` on the GUI thread (at once when called
    there, else at its next turn of the event loop). For a thread other than a Task's (a
    file watcher, a judge call waiting for the learner): it emits on nothing that can be
    deleted meanwhile. Pass what holds no widget (a weak reference to one, plain data):
    the caller's thread lets go of `args` too. Raises RuntimeError once the app is gone."""
    relay = _relay_object
    if relay is None:
        raise RuntimeError("to_gui_thread before the app made its task relay")
    relay.called.emit(function, args)


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


# --- the cyclic garbage collector runs on the GUI thread only (ADR 0029) -------------
COLLECT_EVERY_MS = 500  # how often the GUI thread looks whether a collection is due
FULL_COLLECTION_GAP_S = 30.0  # at most one full collection in this time


class _GuiThreadCollector(QObject):
    """Python's cyclic collector runs in whichever thread allocates when one is due: on a
    worker it frees the widgets of a garbage cycle there, and a widget freed off the GUI
    thread crashes Qt (a window's test in CI died so, inside a worker's emit). So the
    automatic collector is off, and this timer on the GUI thread collects what is due,
    by the collector's own counts and thresholds (as Anki, pyqtgraph and others do)."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.setObjectName("coach-gui-thread-collector")
        self._last_full = time.monotonic()
        self._timer = QTimer(self)
        self._timer.setInterval(COLLECT_EVERY_MS)
        self._timer.timeout.connect(self.collect_due)
        self._timer.start()

    @Slot()
    def collect_due(self) -> None:
        if gc.isenabled():  # turned back on by someone: off again, or workers collect
            log.warning("the automatic garbage collector was on again; turned it off")
            gc.disable()
        full = time.monotonic() - self._last_full >= FULL_COLLECTION_GAP_S
        generation = _due(gc.get_count(), gc.get_threshold(), full=full)
        if generation is None:
            return
        gc.collect(generation)
        if generation == 2:
            self._last_full = time.monotonic()

    def stop(self) -> None:
        self._timer.stop()


def _due(counts: tuple[int, int, int], limits: tuple[int, ...], *, full: bool = True) -> int | None:
    """The oldest generation whose count is past its threshold (as CPython picks it),
    the oldest but one unless `full`; None when none is, or when collecting is turned
    off (a threshold of 0)."""
    if not limits or limits[0] == 0:
        return None
    for generation in (2, 1, 0) if full else (1, 0):
        if generation < len(limits) and counts[generation] > limits[generation]:
            return generation
    return None


_collector: _GuiThreadCollector | None = None


def collect_on_gui_thread() -> None:
    """From now on the cyclic collector runs on the GUI thread only. Call on the GUI
    thread, with the QApplication made (starting the app, running a Task); once is
    enough, again is harmless."""
    global _collector
    if _collector is not None and shiboken6.isValid(_collector):
        return
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() is not app.thread():
        return
    _relay()  # here too, so `to_gui_thread` works from the app's start
    gc.disable()
    _collector = _GuiThreadCollector(app)


def collect_automatically() -> None:
    """Python's own collector again (tests between a window's test and the next): what
    is garbage now is collected here, on the GUI thread, first."""
    global _collector
    collector, _collector = _collector, None
    if collector is None:
        return
    if shiboken6.isValid(collector):
        collector.stop()
        collector.deleteLater()
    gc.collect()
    gc.enable()


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
        self._op: Callable[[TaskProgress], T] | None = op
        self._receivers: _Receivers[T] | None = _Receivers(parent, success, failure, progress)
        self._lane = lane
        self._durable = durable or lane is Lane.WRITER
        self.name: str = name or str(getattr(op, "__qualname__", "task"))
        self._cancel_flag = threading.Event()
        self._relay: _Relay | None = None
        self._outcome: tuple[_Outcome, object] | None = None  # left by the worker
        self._started = False
        self._done = False

    def run(self) -> Task[T]:
        if self._started:
            raise RuntimeError("a Task runs once; build a new one")
        self._started = True
        self._relay = _relay()  # on the GUI thread, or this raises
        collect_on_gui_thread()
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
        relay = self._relay
        assert relay is not None
        # The outcome (a result, or an exception whose traceback holds the op's frames and
        # so its closure) is left on the task, and this thread keeps no reference to it
        # once it emits: the GUI thread takes it from there, so it is freed there.
        self._outcome = self._outcome_of(relay)
        try:
            relay.finished.emit(self)
        except RuntimeError:
            # The relay is gone with the app: it is shutting down, nobody is listening.
            self._outcome = None
            log.info("%s finished after the app closed; its result was dropped", self.name)

    def _outcome_of(self, relay: _Relay) -> tuple[_Outcome, object]:
        if self._cancel_flag.is_set():
            return _Outcome.CANCELLED, None
        reporter = TaskProgress(
            lambda update: relay.progressed.emit(self, update), self._cancel_flag
        )
        try:
            return _Outcome.SUCCEEDED, self._call(reporter)
        except TaskCancelled:
            return _Outcome.CANCELLED, None
        except Exception as exc:
            return _Outcome.FAILED, exc
        except BaseException as exc:  # never let a worker die silently
            return _Outcome.FAILED, RuntimeError(f"background task stopped: {exc!r}")

    def _call(self, reporter: TaskProgress) -> T:
        # No reference to the op outlives the call on this thread: the task lets go of
        # it on the GUI thread (`_finish`), so whatever it holds is freed there.
        op = self._op
        assert op is not None
        return op(reporter)

    # --- GUI thread ----------------------------------------------------------------
    def _deliver(self) -> None:
        outcome, self._outcome = self._outcome, None
        receivers = self._finish()
        if outcome is None or outcome[0] is _Outcome.CANCELLED:
            return
        kind, value = outcome
        alive = receivers is not None and receivers.parent_alive()
        if receivers is None or self._cancel_flag.is_set() or not alive:
            if kind is _Outcome.FAILED:
                log.info("dropped the failure of %s (cancelled or closed): %r", self.name, value)
            return
        if kind is _Outcome.SUCCEEDED:
            receivers.success(value)  # type: ignore[arg-type]
        elif receivers.failure is not None:
            receivers.failure(value)  # type: ignore[arg-type]
        else:
            from coach_gui.ui.kit.failures import show_failure

            show_failure(receivers.parent, value)  # type: ignore[arg-type]

    def _deliver_progress(self, update: ProgressUpdate) -> None:
        receivers = self._receivers
        if receivers is not None and receivers.progress is not None and receivers.parent_alive():
            receivers.progress(update)

    def _finish(self) -> _Receivers[T] | None:
        """Delivered: the task lets go of its op, its widget and its callbacks here, on
        the GUI thread. The worker's runnable may hold the task a moment longer, and what
        a worker lets go of last is freed there: a widget freed off the GUI thread can
        crash Qt. Returns the receivers, for the delivery under way (None the second
        time)."""
        self._done = True
        _live.discard(self)
        receivers, self._receivers, self._op = self._receivers, None, None
        return receivers


class _Outcome(Enum):
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class _Receivers(Generic[T]):
    """Who gets a task's outcome, on the GUI thread: nothing once `parent` is deleted."""

    parent: QObject | None
    success: Callable[[T], None]
    failure: Callable[[Exception], None] | None
    progress: Callable[[ProgressUpdate], None] | None

    def parent_alive(self) -> bool:
        return self.parent is None or shiboken6.isValid(self.parent)


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
