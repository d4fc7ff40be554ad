"""A practice session over one note: challenges from Tier 1 (or built in), answers kept.

Used the same way by the CLI (in its own thread) and the GUI (on a worker thread): every
method may block on Ollama or the disk, and none touches a widget. Callbacks carry text
that is safe to show, as it becomes safe.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field

from coach_gui.domain.challenge_checks import ChallengeChecks, instruction_text
from coach_gui.domain.challenge_stream import ChallengeRejected, ChallengeStream, QuoteRejected
from coach_gui.domain.challenges import (
    Challenge,
    ChallengeKind,
    builtin_challenges,
    challenge_schema,
    follow_up_messages,
    tier1_messages,
)
from coach_gui.domain.errors import CoachError
from coach_gui.domain.fencing import new_boundary
from coach_gui.domain.judge_errors import JudgeDisabled, JudgeError
from coach_gui.domain.judge_wait import JudgeWait
from coach_gui.domain.no_quote import NoQuoteCheck
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import (
    Attempt,
    Disposition,
    GapPlan,
    PracticeSession,
    SessionMode,
    attempt_id,
    challenge_id,
    new_id,
    note_digest,
)
from coach_gui.domain.privacy import LivePrivacy
from coach_gui.domain.session_state import JUDGE_OFF, disposition_for
from coach_gui.domain.tier1_errors import GenerationCancelled, Tier1Error, Tier1Unavailable
from coach_gui.services.judging import JudgeOutcome, JudgeRequestItem, judge_items, refuse_all
from coach_gui.services.ports.judge import Judge, VerdictJournal
from coach_gui.services.ports.practice import Clock, PracticeJournal, Tier1Model
from coach_gui.services.practice_settings import PracticeSettings

log = logging.getLogger(__name__)

KIND_ROTATION = (
    ChallengeKind.EXPLAIN,
    ChallengeKind.APPLY,
    ChallengeKind.CONTRAST,
    ChallengeKind.EXAMPLE,
    ChallengeKind.PREDICT,
)

WAITING_FOR_JUDGE = "waiting for the judge"

# Called with the whole text that is safe to show so far ('' clears a withdrawn challenge).
OnText = Callable[[str], None]


@dataclass
class ChallengeResult:
    """A challenge ready for the learner, and what the learner should be told about it."""

    challenge: Challenge
    notices: list[str] = field(default_factory=list)


class PracticeRun:
    """One session. `start`, then `next_challenge` / `submit` (and `follow_up`), then
    `finish`. Each recorded step is committed to the journal before the call returns."""

    def __init__(
        self,
        note: Note,
        settings: PracticeSettings,
        journal: PracticeJournal,
        tier1: Tier1Model | None,
        clock: Clock,
        *,
        judge: Judge | None = None,
        verdicts: VerdictJournal | None = None,
        judge_unavailable: str | None = None,
        privacy: LivePrivacy | None = None,
        open_judge: Callable[[], Judge] | None = None,
        plan: GapPlan | None = None,
    ) -> None:
        """`judge` and `verdicts` judge each answer after it is stored (judge switched on);
        `judge_unavailable` is why there is no judge although it is switched on (no key,
        no keyring): answers are then kept unjudged with that reason.
        `privacy`, when given, is read at every answer and every judge request: switching
        the judge or the assertions on or off mid-session applies to the next request
        (without it, `settings` holds for the whole session). `open_judge` builds the
        judge when it is first needed, e.g. switched on after the session began.
        `plan` (practise these gaps) makes the challenges target its assertions and is
        sealed with the session."""
        self.note = note
        self._privacy = privacy
        self._judge = judge if settings.judge_enabled or privacy is not None else None
        self._open_judge = open_judge
        # Who the judge built grades for; another chosen in Settings mid-session means a
        # new judge for the next answer (the old one refuses to send anything, issue 22).
        self._judge_provider = privacy.provider() if privacy is not None else None
        self._verdicts = verdicts
        self._judge_unavailable = judge_unavailable
        count = len(note.core_assertions)
        self.plan = plan
        self._target_pool = tuple(t for t in (plan.targets if plan else ()) if 0 <= t < count)
        self.settings = settings
        self._journal = journal
        self._tier1 = tier1
        self._clock = clock
        self._check = NoQuoteCheck.for_note(
            note,
            max_shared_words=settings.max_shared_words,
            max_containment=settings.max_containment,
            shingle_words=settings.shingle_words,
        )
        builtins = builtin_challenges(len(note.core_assertions), 50)
        if self._target_pool:  # practising gaps: the built-in challenges for those points
            targeted = [c for c in builtins if set(c.target_assertions) & set(self._target_pool)]
            builtins = targeted * (50 // max(len(targeted), 1) + 1) or builtins
        self._builtin: Iterator[Challenge] = iter(builtins)
        self._position = 0
        self._asked = 0
        self._asked_texts: list[str] = []
        self._attempts: list[Attempt] = []
        self._challenges: dict[str, Challenge] = {}
        self._outcomes: dict[str, JudgeOutcome] = {}
        self.offline_reason: str | None = None if tier1 is not None else "Tier 1 is not set up"
        self._builtin_once = False
        self._cancelled = False
        self.session: PracticeSession | None = None

    # --- lifecycle ---------------------------------------------------------------------------
    def start(self) -> PracticeSession:
        self.session = PracticeSession(
            id=new_id(),
            note_id=self.note.id,
            note_title=self.note.title,
            note_digest=note_digest(self.note),
            config_digest=self.settings.digest(),
            mode=self.settings.mode,
            started_at=self._clock.now(),
            gap_ids=self.plan.gap_ids if self.plan else (),
            scheduler_decision_id=self.plan.decision_id if self.plan else None,
        )
        self._journal.start_session(self.session, self.plan.decision if self.plan else None)
        return self.session

    @property
    def remaining(self) -> int:
        """Main challenges still to ask (follow-ups do not count)."""
        return max(self.settings.challenges - self._asked, 0)

    @property
    def attempts(self) -> list[Attempt]:
        return list(self._attempts)

    def answers_a_follow_up(self, attempt: Attempt) -> bool:
        """The attempt answers a follow-up (a question on one part of an answer)."""
        challenge = self._challenges.get(attempt.challenge_id)
        return challenge is not None and challenge.origin == "follow_up"

    def finish(self) -> Disposition:
        session = self._require_session()
        verdicts = [o.verdict for o in self._outcomes.values() if o.verdict is not None]
        off = [
            a for a in self._attempts
            if a.unjudged_reason == JUDGE_OFF or self._refused_as_off(a.id)
        ]  # fmt: skip
        disposition = disposition_for(
            answers=len(self._attempts),
            passed=[v.passed for v in verdicts],
            switched_off=len(off),
            offline=self.settings.mode is SessionMode.OFFLINE,
        )
        self._journal.end_session(session.id, self._clock.now(), disposition)
        return disposition

    def _refused_as_off(self, attempt_id: str) -> bool:
        outcome = self._outcomes.get(attempt_id)
        refusal = outcome.refusal if outcome is not None else None
        return refusal is not None and refusal.reason_code == JudgeDisabled.reason_code

    def _require_session(self) -> PracticeSession:
        if self.session is None:
            raise RuntimeError("start() the session first")
        return self.session

    # --- challenges ----------------------------------------------------------------------------
    def _targets(self) -> tuple[int, ...]:
        if self._target_pool:
            return (self._target_pool[self._asked % len(self._target_pool)],)
        count = len(self.note.core_assertions)
        return (self._asked % count,) if count else ()

    def next_challenge(self, on_text: OnText | None = None) -> ChallengeResult:
        """Write (or pick) the next challenge, record it, and return it.

        Raises GenerationCancelled if `cancel()` was called meanwhile; any other Tier 1
        failure falls back to a built-in challenge with a notice saying why."""
        session = self._require_session()
        kind = KIND_ROTATION[self._asked % len(KIND_ROTATION)]
        targets = self._targets()
        notices: list[str] = []
        challenge: Challenge | None = None
        self._cancelled = False
        builtin_once, self._builtin_once = self._builtin_once, False
        if self._tier1 is not None and self.offline_reason is None and not builtin_once:

            def messages_for(reason: str | None) -> list[dict[str, str]]:
                return tier1_messages(
                    self.note.title,
                    self.note.body,
                    self.note.core_assertions,
                    kind,
                    new_boundary(),  # a fresh fence boundary for every request
                    target_assertions=targets,
                    previous=self._asked_texts,
                    rejected_reason=reason,
                )

            challenge = self._generate(
                session, messages_for, "tier1", targets, on_text, notices, parent=None, kind=kind
            )
        if challenge is None:
            challenge = next(self._builtin)
            if on_text is not None:
                on_text(challenge.text)
        challenge = self._record(session, challenge, parent=None)
        self._asked += 1
        return ChallengeResult(challenge, notices)

    def follow_up(
        self, parent: Challenge, answer: str, on_text: OnText | None = None
    ) -> ChallengeResult | None:
        """One Tier 1 follow-up probing `answer`, or None when follow-ups are off, Tier 1
        is unavailable, or every attempt quoted the note (a notice then says so)."""
        session = self._require_session()
        if not self.settings.follow_ups or self._tier1 is None or self.offline_reason is not None:
            return None
        self._cancelled = False
        notices: list[str] = []

        def messages_for(reason: str | None) -> list[dict[str, str]]:
            return follow_up_messages(
                self.note.title,
                self.note.body,
                self.note.core_assertions,
                parent.text,
                answer,
                new_boundary(),
                rejected_reason=reason,
            )

        challenge = self._generate(
            session,
            messages_for,
            "follow_up",
            parent.target_assertions,
            on_text,
            notices,
            parent=parent,
        )
        if challenge is None:
            return None
        challenge = self._record(session, challenge, parent=parent)
        return ChallengeResult(challenge, notices)

    def _record(
        self, session: PracticeSession, challenge: Challenge, parent: Challenge | None
    ) -> Challenge:
        """Store `challenge` under its content-addressed id, and return it so."""
        challenge = challenge.model_copy(
            update={"id": challenge_id(session.id, self._position, challenge)}
        )
        self._journal.add_challenge(
            session.id,
            self._position,
            challenge,
            self._clock.now(),
            parent_challenge_id=parent.id if parent else None,
        )
        self._position += 1
        self._asked_texts.append(challenge.text)
        self._challenges[challenge.id] = challenge
        return challenge

    def _generate(
        self,
        session: PracticeSession,
        messages_for: Callable[[str | None], list[dict[str, str]]],
        origin: str,
        targets: tuple[int, ...],
        on_text: OnText | None,
        notices: list[str],
        *,
        parent: Challenge | None,
        kind: ChallengeKind | None = None,
    ) -> Challenge | None:
        assert self._tier1 is not None
        reason: str | None = None
        quoted = True  # what the last rejection was, for the notice when none is left
        for _ in range(1 + self.settings.max_regenerations):
            if self._cancelled:
                raise GenerationCancelled()
            messages = messages_for(reason)
            stream = ChallengeStream(self._check, ChallengeChecks(instruction_text(messages)))
            schema = challenge_schema(kind)
            try:
                # Closed here, whichever way reading ends: a reply left open would hold its
                # connection until the garbage collector closed it on some other thread.
                with closing(self._tier1.stream(messages, schema)) as reply:
                    for piece in reply:
                        if stream.feed(piece) and on_text is not None:
                            on_text(stream.shown)
                parsed = stream.finish()
            except ChallengeRejected as rejected:
                reason = rejected.reason
                quoted = isinstance(rejected, QuoteRejected)
                self._journal.add_rejection(
                    session.id, origin, stream.raw, reason, self._clock.now()
                )
                notices.append(f"A challenge was withdrawn: {reason}.")
                if on_text is not None and stream.shown:
                    on_text("")  # withdraw what was shown
                continue
            except GenerationCancelled:
                raise
            except Tier1Unavailable as exc:
                self.offline_reason = exc.learner_text  # a bad Ollama address is a setting
                notices.append(exc.learner_text)
                return None
            except Tier1Error as exc:
                log.info("Tier 1 failed: %s", exc)
                notices.append(f"{exc} A built-in challenge is used instead.")
                return None
            return Challenge(
                id=new_id(),
                kind=parsed.kind,
                text=parsed.text,
                origin="follow_up" if parent is not None else "tier1",
                target_assertions=targets,
                model=self._tier1.model_name,
            )
        how = "too close to your note" if quoted else "in a form that is not a usable question"
        notices.append(
            f"The local model kept writing challenges {how}, so a built-in challenge is "
            "used instead."
            if parent is None
            else f"The follow-up was dropped: the local model kept writing it {how}."
        )
        return None

    def use_builtin_once(self) -> None:
        """The next `next_challenge` takes a built-in challenge (the learner chose not to
        wait for Tier 1); Tier 1 writes the ones after it again."""
        self._builtin_once = True

    def resume_tier1(self) -> None:
        """Tier 1 is usable again (say, its model was just downloaded): ask it next time."""
        if self._tier1 is not None:
            self.offline_reason = None

    def cancel(self) -> None:
        """Stop a challenge being written (from any thread); `next_challenge` or
        `follow_up` then raises GenerationCancelled and records nothing."""
        self._cancelled = True
        if self._tier1 is not None:
            self._tier1.cancel()

    # --- answers ---------------------------------------------------------------------------------
    def _judge_on(self) -> bool:
        """The judge switch as it is now."""
        return self._privacy.judge_enabled() if self._privacy else self.settings.judge_enabled

    def _assertions_now(self) -> bool:
        """The assertions switch as it is now."""
        if self._privacy is not None:
            return self._privacy.include_assertions()
        return self.settings.include_assertions

    def _follow_provider(self) -> None:
        """Another judge was chosen since this one was built: build the new one next."""
        if self._privacy is None or self._open_judge is None:
            return
        if self._privacy.provider() != self._judge_provider:
            self._judge = None
            self._judge_unavailable = None  # e.g. no Gemini key: the new judge may need none
            self._judge_provider = self._privacy.provider()

    def stop_judging(self) -> None:
        """Stop a judge request under way, for a judge that can (the local model's); the
        answer stays unjudged with the reason. Any thread. A stopped judge stays stopped,
        so the next answer gets a new one (the live session builds it)."""
        judge = self._judge
        stop = getattr(judge, "cancel", None)
        if callable(stop):
            stop()
            if self._open_judge is not None and self._judge is judge:
                self._judge = None

    def _ready_judge(self) -> tuple[Judge | None, CoachError | None]:
        """The judge, built now if it was not when the session began (e.g. switched on
        mid-session), or why it cannot be (no key, no keyring)."""
        self._follow_provider()
        if self._judge is None and self._open_judge is not None:
            try:
                self._judge_provider = self._privacy.provider() if self._privacy else None
                self._judge = self._open_judge()
            except CoachError as exc:
                self._judge_unavailable = str(exc)  # later answers are kept with the reason
                return None, exc
        return self._judge, None

    def submit(self, challenge: Challenge, answer: str) -> Attempt:
        """Store the answer at once, unjudged; raises ValidationError for a blank one.
        Call `judge(attempt)` afterwards to have it judged (`will_judge` says whether).
        Nothing here waits on the keyring or the network: the answer is committed first."""
        session = self._require_session()
        self._follow_provider()
        # A judge not built yet is built when this answer is judged, not here — unless
        # building it already failed (no key): then the answer is kept with that reason.
        can_judge = self._judge is not None or (
            self._open_judge is not None and self._judge_unavailable is None
        )
        if not self._judge_on():
            reason = JUDGE_OFF
        elif not can_judge or self._verdicts is None:
            reason = self._judge_unavailable or "no judge is set up"
        else:
            reason = WAITING_FOR_JUDGE
        submitted_at = self._clock.now()
        attempt = Attempt(
            id=attempt_id(session.id, challenge.id, answer, submitted_at),
            session_id=session.id,
            challenge_id=challenge.id,
            answer=answer,
            submitted_at=submitted_at,
            status="unjudged",
            unjudged_reason=reason,
        )
        self._journal.add_attempt(attempt)
        self._attempts.append(attempt)
        return attempt

    @staticmethod
    def will_judge(attempt: Attempt) -> bool:
        """Whether `attempt` was stored to be sent to the judge (the switch was on and a
        judge was set up when it was submitted)."""
        return attempt.status == "unjudged" and attempt.unjudged_reason == WAITING_FOR_JUDGE

    def judge(
        self,
        attempt: Attempt,
        on_progress: Callable[[int], None] | None = None,
        on_wait: Callable[[JudgeWait], None] | None = None,
    ) -> JudgeOutcome | None:
        """Send one stored answer to the judge and record the verdict or the reason it
        stays unjudged, with the switches as they are now. None when there is no judge.
        `on_progress(characters)`: how much of the verdict a judge that streams (the one
        on this computer) has written so far; `on_wait`: each try of a judge that retries
        (Gemini), with how long is left of the whole wait; any thread."""
        if self._verdicts is None or (self._judge is None and self._open_judge is None):
            return None
        challenge = self._challenges[attempt.challenge_id]
        item = JudgeRequestItem(
            attempt_id=attempt.id,
            challenge=challenge.text,
            answer=attempt.answer,
            assertions=self.note.core_assertions,
        )
        judge, unusable = self._ready_judge() if self._judge_on() else (None, JudgeDisabled())
        if judge is None:  # switched off since it was saved, or no key: nothing leaves
            (outcome,) = refuse_all([item], _as_judge_error(unusable), self._verdicts, self._clock)
        else:
            streams = hasattr(judge, "on_progress")
            if streams and on_progress is not None:
                judge.on_progress = on_progress  # type: ignore[attr-defined]
            if hasattr(judge, "on_wait"):
                judge.on_wait = on_wait
            try:
                (outcome,) = judge_items(
                    [item],
                    judge=judge,
                    journal=self._verdicts,
                    clock=self._clock,
                    include_assertions=self._assertions_now(),
                    assertions_now=self._assertions_now,
                )
            finally:
                if streams and on_progress is not None:
                    judge.on_progress = None  # type: ignore[attr-defined]
        self._outcomes[attempt.id] = outcome
        if outcome.judged:
            self._attempts = [
                a.model_copy(update={"status": "judged", "unjudged_reason": None})
                if a.id == attempt.id
                else a
                for a in self._attempts
            ]
        return outcome

    def outcome(self, attempt_id: str) -> JudgeOutcome | None:
        return self._outcomes.get(attempt_id)


def _as_judge_error(error: CoachError | None) -> JudgeError:
    """Why a judge could not be built, as the refusal it is journaled as."""
    if isinstance(error, JudgeError):
        return error
    return JudgeError(str(error) if error is not None else "No judge is set up.")
