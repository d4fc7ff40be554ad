"""The practice pane's jobs: one ordered lane of `ui/kit/tasks` Tasks (a session's calls run one
at a time, in order), which outcomes the screen still wants, and streamed text.

A job whose outcome the screen no longer wants (it has moved on) still runs to the end, so
the journal stays complete; only its outcome is dropped. Streamed text is coalesced: the
worker keeps only the latest text, and at most one wake-up waits in the GUI's event queue.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from coach_gui.ui.kit.tasks import Latest, OrderedLane, Task, TaskProgress

log = logging.getLogger(__name__)

Handler = Callable[[Any], None]


class SessionJobs(QObject):
    def __init__(self, parent: QObject, default_failed: Callable[[Exception], None]) -> None:
        super().__init__(parent)
        self.lane = OrderedLane(self, "practice")
        self._default_failed = default_failed
        self._job_seq = self._latest_job = 0
        self._stream = 0  # text from any other stream is stale and dropped
        self.closing = False  # set while the window closes: every outcome is dropped

    def submit(
        self,
        work: Callable[[TaskProgress], object],
        done: Handler,
        failed: Callable[[Exception], None] | None = None,
        *,
        supersede: bool = True,
        always: bool = False,
        durable: bool = False,
        text: Callable[[], None] | None = None,
    ) -> None:
        """Queue `work` on the lane. A superseding job makes the outcome of every job
        queued before it stale (the screen has moved on): those are dropped, unless
        queued with `always`. `durable`: it writes what the learner gave (an answer, a
        rating); quitting waits for it rather than abandon it. `text`: called on the GUI
        thread when the job's stream has new text."""
        self._job_seq += 1
        job = self._job_seq
        if supersede:
            self._latest_job = job
        keep = always or not supersede
        on_failure = failed or self._default_failed

        def wanted() -> bool:
            return not self.closing and (keep or job == self._latest_job)

        def succeeded(result: object) -> None:
            if wanted():
                done(result)

        def failed_(error: Exception) -> None:
            if wanted():
                on_failure(error)
            else:
                log.info("dropped the outcome of a superseded practice job: %r", error)

        Task(
            self,
            work,
            succeeded,
            failed_,
            None if text is None else lambda _update: text(),
            lane=self.lane,
            durable=durable,
            name="practice",
        ).run()

    def stream(
        self, show: Callable[[str], None]
    ) -> tuple[Callable[[TaskProgress], Callable[[str], None]], Callable[[], None]]:
        """A new stream: (the worker's `on_text` for a job's progress, the GUI's reader,
        which hands the latest text to `show` while this is still the current stream)."""
        self._stream += 1
        stream, latest = self._stream, Latest[str]()

        def sink(progress: TaskProgress) -> Callable[[str], None]:
            def on_text(text: str) -> None:  # worker thread: plain data only
                if latest.put(text):
                    progress.wake()

            return on_text

        def read() -> None:
            text = latest.take()
            if text is not None and stream == self._stream:
                show(text)

        return sink, read

    def drop_stream(self) -> None:
        """Whatever the current stream still sends is stale."""
        self._stream += 1

    def wait(self, timeout_ms: int) -> bool:
        return self.lane.wait(timeout_ms)
