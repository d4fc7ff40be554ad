"""The paired eval (DESIGN §7): judge recorded answers again, R times with core assertions
and R times without, and record a signed report — for the *Judge consistency* view and
`coach eval` alike; and reading the recorded reports back with their verify status."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from coach_gui.config import local_model_name
from coach_gui.domain.agreement import ArmAgreement, eval_agreement, learners_word_now
from coach_gui.domain.evals import CallResult, EvalReport
from coach_gui.operations.app import EvalPorts, judge_for
from coach_gui.operations.judging import cancelling
from coach_gui.services.eval_verify import EvalCheckFailed, check_eval_run
from coach_gui.services.evals import AssertionsSwitchedOff as AssertionsSwitchedOff  # for faces
from coach_gui.services.evals import EvalItem, judged_items, run_eval
from coach_gui.services.evals import EvalRefused as EvalRefused  # re-exported for the faces
from coach_gui.services.evals import EvalRun as EvalRun  # re-exported for the faces
from coach_gui.services.ports.judge import ClosableJudge
from coach_gui.services.practice_settings import judge_sampling
from coach_gui.services.review import list_sessions

MAX_CONCURRENCY = 32


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


def judged_sessions(app: EvalPorts, limit: int = 200) -> list[JudgedSession]:
    """Sessions with at least one judged answer, newest first."""
    return [
        JudgedSession(s.session_id, s.started_at, s.note_title, s.items - s.pending)
        for s in list_sessions(app.traces(), limit=limit)
        if s.items - s.pending > 0
    ]


def eval_items(
    app: EvalPorts, *, session_ids: Sequence[str] | None = None, last: int | None = None
) -> list[EvalItem]:
    """The judged answers to take (EvalRefused when there are none)."""
    return judged_items(app.traces(), session_ids=session_ids, last=last)


def run(
    app: EvalPorts,
    items: Sequence[EvalItem],
    *,
    repeats: int,
    concurrency: int,
    on_progress: Callable[[int, int], None],
    cancelled: threading.Event,
    live: bool = False,
    judge: ClosableJudge | None = None,
) -> EvalRun:
    """Judge `items` `repeats` times in each arm, `concurrency` calls at a time, and store
    the signed report. `cancelled`: send no more; what finished is recorded as partial.
    `live`: the window's judge, reading the switches at every request. `judge`: one the
    caller built (and closes)."""
    config = app.config.judge
    with judge_for(app, judge, live=live) as used, cancelling(used, cancelled):
        return run_eval(
            items,
            judge=used,
            clock=app.clock,
            store=app.eval_journal(),
            keys=app.signing_keys(),
            repeats=repeats,
            concurrency=concurrency,
            include_assertions=config.include_assertions,
            judge_model=config.judge_model,
            sampling=judge_sampling(
                config.temperature, config.seed, config.sent_thinking_budget, config.strictness
            ),
            on_progress=on_progress,
            cancelled=cancelled,
            config_file=str(app.config_path),
        )


def compare_judges(
    app: EvalPorts,
    items: Sequence[EvalItem],
    *,
    repeats: int,
    concurrency: int,
    on_progress: Callable[[int, int], None],
    cancelled: threading.Event,
    local: ClosableJudge,
    gemini: ClosableJudge,
) -> EvalRun:
    """Judge `items` `repeats` times by the judge on this computer and by Gemini, both with
    core assertions, and store the signed report of kind "judges" (issue 22). The caller
    builds both judges (`app.judge(provider=...)`, so a missing key is said before anything
    is sent) and closes them."""
    config = app.config.judge
    with cancelling(local, cancelled):
        return run_eval(
            items,
            judge=local,
            compare_with=gemini,
            clock=app.clock,
            store=app.eval_journal(),
            keys=app.signing_keys(),
            repeats=repeats,
            concurrency=concurrency,
            include_assertions=config.include_assertions,
            judge_model=f"{local_model_name(config.local_model)} vs {config.model}",
            sampling=judge_sampling(
                config.temperature, config.seed, config.thinking_budget, config.strictness
            ),
            on_progress=on_progress,
            cancelled=cancelled,
            config_file=str(app.config_path),
        )


def past_runs(app: EvalPorts, limit: int = 50) -> list[PastRun]:
    """Recorded reports, newest first, each with its verify status."""
    journal, keys = app.eval_journal(), app.signing_keys()
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


def learner_agreement(app: EvalPorts, run: EvalRun) -> list[ArmAgreement]:
    """How each arm agreed with the learner's word now on the answers it judged again
    (issue 36). Counted when asked, not sealed in the report: the learner may correct a
    verdict after the run."""
    refs = run.report.item_refs
    sessions = list(dict.fromkeys(ref.session_id for ref in refs))
    by_id = {r.session.id: r for r in app.traces().records_for(sessions)}
    words: dict[int, tuple[str, ...]] = {}
    for index, ref in enumerate(refs):
        records = by_id.get(ref.session_id)
        said = learners_word_now(records, ref.attempt_id) if records is not None else None
        if said is not None:
            words[index] = said
    arms = [figures.arm for figures in run.report.arms]
    return eval_agreement(arms, (CallResult.from_child(t) for t in run.traces), words)
