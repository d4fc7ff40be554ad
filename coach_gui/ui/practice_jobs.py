"""What the practice pane's jobs do on the worker thread, and the plain data each hands
back to the GUI thread (never a widget)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from coach_gui.domain.errors import CoachError
from coach_gui.domain.judge_errors import JudgeError, KeyringUnavailable
from coach_gui.domain.practice import Disposition
from coach_gui.ui.payload_review import ReviewedJudge
from coach_gui.ui.tier1_status import Tier1State, probe_tier1

if TYPE_CHECKING:
    from coach_gui.adapters.journal.traces import LivePracticeJournal
    from coach_gui.adapters.tier1_ollama import OllamaTier1
    from coach_gui.bootstrap import AppContext
    from coach_gui.domain.challenges import Challenge
    from coach_gui.domain.notes import Note
    from coach_gui.domain.practice import GapPlan
    from coach_gui.domain.tier2 import Tier2Payload
    from coach_gui.services.ports.judge import Judge
    from coach_gui.services.practice import ChallengeResult, PracticeRun
    from coach_gui.services.practice_settings import PracticeSettings


class _ClosableJudge(Protocol):
    def close(self) -> None: ...


@dataclass(frozen=True)
class SessionSummary:
    session_id: str
    note_title: str
    answers_saved: int
    skipped: int
    disposition: Disposition
    passed: int = 0  # answers the judge passed
    needs_work: int = 0  # answers the judge found gaps in


@dataclass(frozen=True)
class OpenedRun:
    """A started session and what it holds open, built on the worker thread."""

    run: PracticeRun
    tier1: OllamaTier1 | None
    judges: list[_ClosableJudge]  # every judge this session built (closed when it ends)
    tier1_problem: str | None  # why Tier 1 could not even be set up (a bad Ollama URL)
    judge_problem: str | None  # why answers stay unjudged although the judge is switched on
    journal: LivePracticeJournal  # marks the session live until it is sealed
    context: AppContext


@dataclass(frozen=True)
class Asked:
    """What a challenge job hands back."""

    result: ChallengeResult | None
    remaining: int
    offline_reason: str | None
    model_missing: bool = False


# --- worker-thread functions -----------------------------------------------------------------
def open_run(
    context: AppContext,
    note: Note,
    settings: PracticeSettings,
    review: Callable[[Tier2Payload], str | None] | None,
    abandoned: threading.Event,
    plan: GapPlan | None = None,
) -> OpenedRun | None:
    """Start a session the way `coach practice` does: Tier 1 (or built-in challenges), and
    the judge when it is switched on (or the reason answers stay unjudged). `review`, when
    given, is asked before each payload is sent (None: send it; else why it was not)."""
    from coach_gui.adapters.journal.traces import LivePracticeJournal
    from coach_gui.bootstrap import SystemClock
    from coach_gui.services.practice import PracticeRun

    journal = LivePracticeJournal(context.journal)
    tier1_problem = judge_problem = None
    try:
        tier1 = context.tier1()
    except CoachError as exc:  # a bad Ollama URL: practise offline
        tier1, tier1_problem = None, str(exc)
    opened_judges: list[_ClosableJudge] = []

    def open_judge() -> Judge:
        """The judge, reading both switches from the one live privacy state at each
        request; built at the start, or when the judge is first switched on."""
        judge = context.judge(enabled=True, live=True)
        opened_judges.append(judge)
        return ReviewedJudge(judge, review) if review is not None else judge

    port = None
    if settings.judge_enabled:
        try:
            port = open_judge()
        except (JudgeError, KeyringUnavailable) as exc:
            judge_problem = str(exc)
    run = PracticeRun(
        note,
        settings,
        journal,
        tier1,
        SystemClock(),
        judge=port,
        verdicts=journal,
        judge_unavailable=judge_problem,
        # The toolbar switches as they are at each request, not as when the session began.
        privacy=context.privacy,
        open_judge=open_judge,
        plan=plan,
    )
    opened = OpenedRun(run, tier1, opened_judges, tier1_problem, judge_problem, journal, context)
    try:
        run.start()
    except BaseException:
        _release(opened)
        raise
    if abandoned.is_set():  # the pane moved on meanwhile (another note, or closing)
        close_run(opened)
        return None
    return opened


def _release(opened: OpenedRun) -> None:
    for held in (opened.tier1, *opened.judges):
        if held is not None:
            held.close()


def close_run(opened: OpenedRun) -> Disposition:
    """End the session, seal it into its trace (DESIGN §6), and let go of its Ollama and
    Gemini clients and of its live mark."""
    from coach_gui.adapters.journal.traces import SqliteTraceJournal
    from coach_gui.bootstrap import SystemClock
    from coach_gui.services.sealing import seal_session

    run = opened.run
    try:
        disposition = run.finish()
        if run.session is not None:
            seal_session(
                run.session.id,
                SqliteTraceJournal(opened.context.journal),
                SystemClock(),
                disposition=disposition,
            )
        return disposition
    finally:
        if run.session is not None:
            opened.journal.release(run.session.id)
        _release(opened)


def end_run(opened: OpenedRun, saved: int, skipped: int) -> SessionSummary:
    run = opened.run
    disposition = close_run(opened)
    verdicts = [o.verdict for a in run.attempts if (o := run.outcome(a.id)) and o.verdict]
    passed = sum(1 for v in verdicts if v.passed)
    assert run.session is not None
    return SessionSummary(
        run.session.id, run.note.title, saved, skipped, disposition, passed, len(verdicts) - passed
    )


def offline_state(run: PracticeRun, probe: OllamaTier1 | None) -> tuple[str | None, bool]:
    """Why Tier 1 is off (if it is), and, when `probe` is given, whether downloading the
    model would fix it."""
    reason = run.offline_reason
    if reason is None or probe is None:
        return reason, False
    return reason, probe_tier1(probe.client, probe.model_name).state is Tier1State.MODEL_MISSING


def ask_challenge(
    run: PracticeRun, on_text: Callable[[str], None], probe: OllamaTier1 | None, *, builtin: bool
) -> Asked:
    if builtin:  # one built-in challenge for this slot, then Tier 1 again
        run.use_builtin_once()
    result = run.next_challenge(on_text)
    return Asked(result, run.remaining, *offline_state(run, probe))


def ask_follow_up(
    run: PracticeRun,
    parent: Challenge,
    answer: str,
    on_text: Callable[[str], None],
    probe: OllamaTier1 | None,
) -> Asked:
    result = run.follow_up(parent, answer, on_text)
    return Asked(result, run.remaining, *offline_state(run, probe))
