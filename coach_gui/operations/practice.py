"""A practice session from opening to seal — the one place it happens, for the window's
practice pane and `coach practice` alike (ADR 0018).

    opened = open_practice(app, note, settings)      # Tier 1, the judge, the live mark
    result = opened.run.next_challenge(on_text)       # …ask, submit, judge, follow up…
    sealed = opened.close()                           # finish, seal (DESIGN §6), let go

Sessions a crash left open are sealed as interrupted by `recover` before anything else
reads the journal. Everything here blocks: the window calls it on a worker (`ui/kit/tasks`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from coach_gui.domain.challenges import Challenge
from coach_gui.domain.changes import SESSION_SEALED, Changes
from coach_gui.domain.corrections import LearnerCorrection, in_force
from coach_gui.domain.errors import CoachError
from coach_gui.domain.judge_errors import JudgeError, KeyringUnavailable
from coach_gui.domain.memory import open_gaps, ratings_from_verdict
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import Attempt, Disposition, GapPlan, VerdictRecord
from coach_gui.operations.app import PracticePorts, SessionJournal
from coach_gui.operations.tier1 import Tier1State, check_tier1
from coach_gui.services.ports.judge import ClosableJudge, Judge
from coach_gui.services.ports.practice import ClosableTier1
from coach_gui.services.practice import ChallengeResult, PracticeRun
from coach_gui.services.practice_settings import PracticeSettings
from coach_gui.services.sealing import recover_open_sessions, seal_session

# Wraps each judge the session builds (the window asks the learner before each payload).
JudgeWrapper = Callable[[Judge], Judge]


def recover(app: PracticePorts) -> list[str]:
    """Seal the sessions a crash left open (as interrupted, with every answer they hold);
    returns their trace ids. Whatever opens the journal calls this first."""
    return recover_open_sessions(app.traces(), app.clock)


@dataclass(frozen=True)
class Sealed:
    disposition: Disposition
    trace_id: str | None  # None when the session never started


@dataclass(frozen=True)
class MissedPoint:
    """A core assertion this session's judged answers missed: in the learner's words, how
    (wrong outranks unexplained) and the judge's explanation, and the gap's id."""

    assertion: str
    problem: str  # unexplained | wrong
    explanation: str
    gap_id: str


def missed_points(
    judged: Sequence[tuple[Attempt, VerdictRecord, bool]],
    corrections: Sequence[LearnerCorrection] = (),
) -> tuple[MissedPoint, ...]:
    """Each assertion this session's judged answers left a gap on, once, by the one rule
    of open gaps (`domain.memory.open_gaps`, ADR 0023) over this session alone: only
    verdicts given with the assertions sent name one; the worst of the session counts (a
    misconception outranks an omission), even if a later answer explained it; a follow-up
    (the bool) counts only for what it explained or got wrong. Where the learner corrected
    a key point in the thread (`corrections`), their word counts (issue 36)."""
    ratings = [
        r
        for attempt, verdict, follow_up in judged
        for r in ratings_from_verdict(
            attempt, verdict, follow_up=follow_up, corrected=in_force(corrections, verdict)
        )
    ]
    return tuple(
        MissedPoint(gap.text, gap.problem, gap.explanation, gap.gap_id)
        for gap in open_gaps(ratings).values()
    )


@dataclass(frozen=True)
class SessionEnded:
    """What a finished session came to, as the practice pane's summary shows it."""

    session_id: str
    note_title: str
    answers_saved: int
    skipped: int
    disposition: Disposition
    passed: int = 0  # answers the judge passed
    needs_work: int = 0  # answers the judge found gaps in
    missed: tuple[MissedPoint, ...] = ()  # the key points it missed

    @property
    def changes(self) -> Changes:
        return SESSION_SEALED


@dataclass
class OpenedPractice:
    """A started session and what it holds open until `close`."""

    run: PracticeRun
    tier1: ClosableTier1 | None
    journal: SessionJournal  # marks the session live until it is sealed
    app: PracticePorts
    tier1_problem: str | None = None  # why Tier 1 could not even be set up (a bad URL)
    judge_problem: str | None = None  # why answers stay unjudged though the judge is on
    judges: list[ClosableJudge] = field(default_factory=list)  # closed when it ends

    def close(self, *, interrupted: bool = False) -> Sealed:
        """End the session, seal it into its trace, and let go of its Ollama and Gemini
        clients and of its live mark. `interrupted`: it stopped part-way (Ctrl+C, an
        error) and is sealed as such."""
        run = self.run
        try:
            disposition = run.finish()
            if interrupted:
                disposition = Disposition.INTERRUPTED
            trace_id = None
            if run.session is not None:
                trace_id = seal_session(
                    run.session.id, self.app.traces(), self.app.clock, disposition=disposition
                )
            return Sealed(disposition, trace_id)
        finally:
            if run.session is not None:
                self.journal.release(run.session.id)
            self._release()

    def end(
        self, saved: int, skipped: int, corrections: Sequence[LearnerCorrection] = ()
    ) -> SessionEnded:
        """Close the session and say what it came to (the learner's corrections made in
        it counting where they differ from the judge's word)."""
        sealed = self.close()
        run = self.run
        judged = [
            (a, o.verdict, run.answers_a_follow_up(a))
            for a in run.attempts
            if (o := run.outcome(a.id)) and o.verdict
        ]
        verdicts = [verdict for _, verdict, _ in judged]
        passed = sum(1 for v in verdicts if v.passed)
        assert run.session is not None
        return SessionEnded(
            run.session.id,
            run.note.title,
            saved,
            skipped,
            sealed.disposition,
            passed,
            len(verdicts) - passed,
            missed_points(judged, corrections),
        )

    def _release(self) -> None:
        for held in (self.tier1, *self.judges):
            if held is not None:
                held.close()


def open_practice(
    app: PracticePorts,
    note: Note,
    settings: PracticeSettings,
    *,
    live: bool = False,
    wrap_judge: JudgeWrapper | None = None,
    plan: GapPlan | None = None,
    abandoned: threading.Event | None = None,
) -> OpenedPractice | None:
    """Start a session: Tier 1 (or built-in challenges when it cannot be set up), and the
    judge when `settings` switch it on (or the reason answers stay unjudged).

    `live`: the window's session, which reads both privacy switches from the one live
    state at every request and builds the judge when it is switched on mid-session; a
    command keeps the settings it started with. `abandoned`: set when the caller moved on
    meanwhile; the session is then sealed at once and None returned."""
    journal = app.session_journal()
    tier1: ClosableTier1 | None
    tier1_problem = None
    try:
        tier1 = app.tier1()
    except CoachError as exc:  # a bad Ollama URL: practise offline
        tier1, tier1_problem = None, exc.learner_text
    judges: list[ClosableJudge] = []

    def open_judge() -> Judge:
        judge = app.judge(enabled=True, live=live)
        judges.append(judge)
        return wrap_judge(judge) if wrap_judge is not None else judge

    port, judge_problem = None, None
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
        app.clock,
        judge=port,
        verdicts=journal,
        judge_unavailable=judge_problem,
        privacy=app.privacy if live else None,
        open_judge=open_judge if live else None,
        plan=plan,
    )
    opened = OpenedPractice(run, tier1, journal, app, tier1_problem, judge_problem, judges)
    try:
        run.start()
    except BaseException:
        opened._release()
        raise
    if abandoned is not None and abandoned.is_set():
        opened.close()
        return None
    return opened


@dataclass(frozen=True)
class Asked:
    """What asking for a challenge hands back."""

    result: ChallengeResult | None
    remaining: int
    offline_reason: str | None
    model_missing: bool = False  # downloading the model would bring Tier 1 back


def _asked(opened: OpenedPractice, result: ChallengeResult | None, *, probe: bool) -> Asked:
    run = opened.run
    reason = run.offline_reason
    if reason is None or not probe or opened.tier1 is None:
        return Asked(result, run.remaining, reason)
    status = check_tier1(opened.app.ollama_client, opened.tier1.model_name)
    return Asked(result, run.remaining, reason, status.state is Tier1State.MODEL_MISSING)


def ask_challenge(
    opened: OpenedPractice,
    on_text: Callable[[str], None],
    *,
    builtin: bool = False,
    probe: bool = False,
) -> Asked:
    """The next challenge, streamed to `on_text` as it becomes safe to show. `builtin`:
    one built-in challenge for this slot, then Tier 1 again. `probe`: when Tier 1 is off,
    ask Ollama whether downloading the model would fix it."""
    if builtin:
        opened.run.use_builtin_once()
    return _asked(opened, opened.run.next_challenge(on_text), probe=probe)


def ask_follow_up(
    opened: OpenedPractice,
    parent: Challenge,
    answer: str,
    on_text: Callable[[str], None],
    *,
    probe: bool = False,
) -> Asked:
    return _asked(opened, opened.run.follow_up(parent, answer, on_text), probe=probe)
