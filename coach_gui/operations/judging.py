"""Judging the answers kept unjudged (practised offline, or while the judge was
unavailable), with the privacy switch as it is now — for *Judge pending answers* in the
window and `coach judge-pending` alike (issue 5)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from coach_gui.domain.judge_errors import JudgeCancelled
from coach_gui.domain.session_state import attempt_states
from coach_gui.domain.tier2 import Tier2Payload
from coach_gui.domain.verdicts import JudgeResponse
from coach_gui.operations.app import JudgingPorts, judge_for, notes_by_id
from coach_gui.services.judge_later import JUDGE_BATCH, JudgePendingReport, judge_pending
from coach_gui.services.ports.judge import ClosableJudge, Judge
from coach_gui.services.practice_settings import judge_sampling

# (done, total, what is happening): how far judging has come.
Progress = Callable[[int, int, str], None]


class _CountingJudge:
    """The judge, counting answers sent, and refusing further requests once cancelled."""

    def __init__(
        self, judge: Judge, progress: Progress, total: int, stop: threading.Event | None
    ) -> None:
        self._judge, self._progress, self._total, self._stop = judge, progress, total, stop
        self.done = 0

    def judge(self, payload: Tier2Payload) -> JudgeResponse:
        if self._stop is not None and self._stop.is_set():
            raise JudgeCancelled()
        try:
            return self._judge.judge(payload)
        finally:
            self.done += len(payload.items)
            self._progress(min(self.done, self._total), self._total, "Judging…")


def pending_count(app: JudgingPorts) -> int:
    """How many answers wait to be judged."""
    reader = app.traces()
    return sum(
        not state.judged
        for records in reader.records_for(reader.sessions_with_pending())
        for state in attempt_states(records)
    )


def judge_pending_answers(
    app: JudgingPorts,
    *,
    live: bool = False,
    progress: Progress | None = None,
    cancelled: threading.Event | None = None,
    judge: ClosableJudge | None = None,
) -> JudgePendingReport:
    """Send every answer still unjudged to the judge, bind each verdict to its session
    and seal one bound trace per session. Raises the judge's errors when it cannot even
    be built (switched off, no key, no keyring). `live`: the window's judge, reading the
    switches at every request. `cancelled`: set to send no more, and to stop waiting for
    the request under way (both judges can, issue 33); the rest stays pending
    with the reason "cancelled". `judge`: one the caller
    built (and closes) to say why it cannot be built before anything else is done."""
    config = app.config.judge
    include = config.include_assertions  # the switch of now
    with judge_for(app, judge, live=live) as used, cancelling(used, cancelled):
        port: Judge = used
        if progress is not None or cancelled is not None:
            report = progress or (lambda _done, _total, _text: None)
            total = pending_count(app)
            report(0, total, "Judging…")
            port = _CountingJudge(used, report, total, cancelled)
        return judge_pending(
            app.traces(),
            port,
            app.verdict_journal(),
            app.clock,
            include_assertions=include,
            note_lookup=notes_by_id(app),
            # A model on this computer may take tens of seconds per answer: small requests.
            batch_size=config.local_batch_size if config.local else JUDGE_BATCH,
            sampling=judge_sampling(
                config.temperature, config.seed, config.sent_thinking_budget, config.strictness
            ),
        )


@contextmanager
def cancelling(judge: object, cancelled: threading.Event | None) -> Iterator[None]:
    """While judging: a cancel also stops the request under way, for a judge that can
    (the local model's, which may take long; Gemini's, which may hang)."""
    stop = getattr(judge, "cancel", None)
    if cancelled is None or not callable(stop):
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.wait(0.1):
            if cancelled.is_set():
                stop()
                return

    watcher = threading.Thread(target=watch, name="coach-judge-cancel", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()
