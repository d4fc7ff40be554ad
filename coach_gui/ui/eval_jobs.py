"""What the *Judge consistency* view runs on workers: plain data in, plain data out, the
same services `coach eval` and `coach verify` use."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from coach_gui.domain.evals import EvalReport
from coach_gui.services.eval_verify import EvalCheckFailed, check_eval_run

if TYPE_CHECKING:
    from coach_gui.bootstrap import AppContext
    from coach_gui.services.evals import EvalRun


@dataclass(frozen=True)
class JudgedSession:
    session_id: str
    started_at: str
    note_title: str
    judged: int  # answers with a verdict


@dataclass(frozen=True)
class PastRun:
    report: EvalReport
    verified: bool
    verify_detail: str


def judged_sessions(context: AppContext, limit: int = 200) -> list[JudgedSession]:
    """Sessions with at least one judged answer, newest first."""
    from coach_gui.adapters.journal.traces import SqliteTraceJournal
    from coach_gui.services.review import list_sessions

    reader = SqliteTraceJournal(context.journal)
    return [
        JudgedSession(s.session_id, s.started_at, s.note_title, s.items - s.pending)
        for s in list_sessions(reader, limit=limit)
        if s.items - s.pending > 0
    ]


def run(
    context: AppContext,
    session_ids: Sequence[str],
    repeats: int,
    concurrency: int,
    on_progress: Callable[[int, int], None],
    stop: threading.Event,
) -> EvalRun:
    """As `coach eval --session … --repeats R --concurrency C` does it."""
    from coach_gui.adapters.journal.evals import KeyringSigningKeys, SqliteEvalJournal
    from coach_gui.adapters.journal.traces import SqliteTraceJournal
    from coach_gui.bootstrap import SystemClock
    from coach_gui.services.evals import judged_items, run_eval

    config = context.config.judge
    items = judged_items(SqliteTraceJournal(context.journal), session_ids=session_ids)
    judge = context.judge(live=True)
    try:
        return run_eval(
            items,
            judge=judge,
            clock=SystemClock(),
            store=SqliteEvalJournal(context.journal),
            keys=KeyringSigningKeys(),
            repeats=repeats,
            concurrency=concurrency,
            assertions_allowed=config.include_assertions,
            judge_model=config.model,
            on_progress=on_progress,
            cancelled=stop,
            config_file=str(context.config_path),
        )
    finally:
        judge.close()


def past_runs(context: AppContext, limit: int = 50) -> list[PastRun]:
    """Recorded reports, newest first, each with its verify status."""
    from coach_gui.adapters.journal.evals import KeyringSigningKeys, SqliteEvalJournal

    journal = SqliteEvalJournal(context.journal)
    keys = KeyringSigningKeys()
    found: list[PastRun] = []
    for row in journal.recent_runs(limit):
        try:
            report = EvalReport.model_validate_json(row.report)
        except ValueError:
            continue  # unreadable: `coach verify` reports it
        try:
            checked = check_eval_run(journal, keys, row.id)
        except EvalCheckFailed as failed:
            found.append(PastRun(report, False, f"{failed.record_id[:12]}…: {failed.reason}"))
            continue
        found.append(PastRun(report, True, f"signature and {checked - 1} child traces check out"))
    return found
