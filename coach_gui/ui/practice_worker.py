"""The practice pane's worker: one thread, so a session's calls run one at a time and in
order. Streamed text is coalesced: the worker keeps only the latest text, and at most one
wake-up waits in the GUI's event queue. A job whose outcome the screen no longer wants (it
has moved on) still runs to the end, so the journal stays complete; only its outcome is
dropped. The jobs themselves are in `practice_jobs`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from coach_gui.ui import tasks

log = logging.getLogger(__name__)


class _Relay(QObject):
    """Created on the GUI thread, so the worker's emits arrive here queued."""

    text_ready = Signal()
    job_done = Signal(int, object)
    job_failed = Signal(int, object)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._latest: tuple[int, str] | None = None

    def push_text(self, generation: int, text: str) -> None:
        """Worker thread: keep only the latest text; wake the GUI once per batch."""
        with self._lock:
            waiting = self._latest is not None
            self._latest = (generation, text)
        if not waiting:
            self.text_ready.emit()

    def take_text(self) -> tuple[int, str] | None:
        with self._lock:
            latest, self._latest = self._latest, None
        return latest


class _Job(QRunnable):
    def __init__(
        self, relay: _Relay, job_id: int, work: Callable[[], object], *, durable: bool
    ) -> None:
        super().__init__()
        self._relay, self._id, self._work, self._durable = relay, job_id, work, durable
        if durable:
            tasks.durable_begin()  # an answer on its way to the journal: quitting waits

    def run(self) -> None:
        try:
            self._run()
        finally:
            if self._durable:
                tasks.durable_end()

    def _run(self) -> None:
        try:
            try:
                result = self._work()
            except Exception as exc:
                self._relay.job_failed.emit(self._id, exc)
            except BaseException as exc:  # never let a worker die silently
                self._relay.job_failed.emit(self._id, RuntimeError(f"stopped: {exc!r}"))
            else:
                self._relay.job_done.emit(self._id, result)
        except RuntimeError:
            log.info("a practice job finished after its pane was gone")


Handler = Callable[[Any], None]


class PracticeWorker(QObject):
    """A one-thread pool plus the bookkeeping of which outcomes the screen still wants."""

    text_arrived = Signal(str)  # the latest streamed text of the current stream

    def __init__(self, parent: QObject, default_failed: Callable[[Exception], None]) -> None:
        super().__init__(parent)
        self.pool = QThreadPool(self)
        self.pool.setObjectName("coach-practice")
        self.pool.setMaxThreadCount(1)  # a session's calls run one at a time, in order
        tasks.register_pool(self.pool)  # quitting waits for it, briefly (tasks.quiesce)
        self._relay = _Relay(self)
        self._relay.text_ready.connect(self._deliver_text)
        self._relay.job_done.connect(self._on_done)
        self._relay.job_failed.connect(self._on_failed)
        self._handlers: dict[int, tuple[bool, Handler, Handler]] = {}
        self._default_failed = default_failed
        self._job_seq = self._latest_job = 0
        self._generation = 0  # text from any other stream is stale and dropped
        self.closing = False  # set while the window closes: every outcome is dropped

    def submit(
        self,
        work: Callable[[], object],
        done: Handler,
        failed: Callable[[Exception], None] | None = None,
        *,
        supersede: bool = True,
        always: bool = False,
        durable: bool = False,
    ) -> None:
        """Queue `work`. A superseding job makes the outcome of every job queued before it
        stale (the screen has moved on): those are dropped, unless queued with `always`.
        `durable`: it writes what the learner gave (an answer, a rating); quitting waits
        for it rather than abandon it (tasks.quiesce)."""
        self._job_seq += 1
        if supersede:
            self._latest_job = self._job_seq
        keep = always or not supersede
        self._handlers[self._job_seq] = (keep, done, failed or self._default_failed)
        self.pool.start(_Job(self._relay, self._job_seq, work, durable=durable))

    def stream_sink(self) -> Callable[[str], None]:
        """A new stream's `on_text` for the worker: plain data through the relay."""
        self._generation += 1
        generation, relay = self._generation, self._relay
        return lambda text: relay.push_text(generation, text)

    def drop_stream(self) -> None:
        """Whatever the current stream still sends is stale."""
        self._generation += 1

    def wait(self, timeout_ms: int) -> bool:
        return self.pool.waitForDone(timeout_ms)

    @Slot()
    def _deliver_text(self) -> None:
        latest = self._relay.take_text()
        if latest is not None and latest[0] == self._generation:
            self.text_arrived.emit(latest[1])

    def _wanted(self, job_id: int) -> tuple[Handler, Handler] | None:
        keep, done, failed = self._handlers.pop(job_id)
        if self.closing or (not keep and job_id != self._latest_job):
            return None
        return done, failed

    @Slot(int, object)
    def _on_done(self, job_id: int, result: object) -> None:
        handlers = self._wanted(job_id)
        if handlers is not None:
            handlers[0](result)

    @Slot(int, object)
    def _on_failed(self, job_id: int, error: object) -> None:
        handlers = self._wanted(job_id)
        if handlers is None:
            log.info("dropped the outcome of a superseded practice job: %r", error)
        else:
            handlers[1](error)
