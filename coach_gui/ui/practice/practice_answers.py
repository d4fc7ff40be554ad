"""The answers of a practice session on screen: an answer is saved at once and moves into
the thread under its challenge, then it is judged (when the judge is on) or kept unjudged
with the learner's own self-rating offered; then the session goes on by its steps
(`operations.practice_steps`): a follow-up, the rating first, or Next.

`PracticeController` owns the session and asks the challenges; this owns the turns."""

from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING, Protocol

import shiboken6
from PySide6.QtCore import QObject
from PySide6.QtWidgets import QApplication

from coach_gui.domain.session_state import JUDGE_OFF
from coach_gui.operations.practice_steps import Step
from coach_gui.ui.kit.failures import learner_message, show_failure
from coach_gui.ui.kit.tasks import to_gui_thread
from coach_gui.ui.practice.practice_view import Phase
from coach_gui.ui.practice.verdict_view import VerdictState

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from coach_gui.domain.corrections import Corrected, LearnerCorrection
    from coach_gui.domain.judge_wait import JudgeWait
    from coach_gui.domain.notes import Note
    from coach_gui.domain.practice import Attempt
    from coach_gui.operations.cases import Practice
    from coach_gui.operations.practice import OpenedPractice
    from coach_gui.operations.practice_steps import PracticeSteps
    from coach_gui.services.judging import JudgeOutcome
    from coach_gui.ui.kit.tasks import TaskProgress
    from coach_gui.ui.practice.practice_thread import Turn
    from coach_gui.ui.practice.practice_view import PracticeView
    from coach_gui.ui.practice.self_rating import SelfRatingPanel
    from coach_gui.ui.practice.session_jobs import SessionJobs

log = logging.getLogger(__name__)


class Session(Protocol):
    """What the answers need of the session they belong to (the controller)."""

    practice: Practice
    view: PracticeView
    jobs: SessionJobs
    steps: PracticeSteps
    changed: SignalInstance  # what the session changed that other views show

    @property
    def phase(self) -> Phase: ...

    @property
    def opened(self) -> OpenedPractice | None: ...

    @property
    def note(self) -> Note | None: ...

    def set_phase(self, phase: Phase) -> None: ...

    def take_focus(self) -> None: ...

    def follow_up(self) -> None: ...


class Answers(QObject):
    def __init__(self, session: Session) -> None:
        super().__init__(session.view)
        self._session = session
        self.turn: Turn | None = None  # the latest saved answer's turn in the thread
        self._main_turn: Turn | None = None  # the main challenge's: follow-ups nest in it
        # The learner's corrections in this session's thread, appended on the session's
        # lane as each is recorded (its summary, made on the lane after them, reads them).
        self.corrections: list[LearnerCorrection] = []

    def reset(self) -> None:
        """A new session: no turns yet."""
        self.turn = self._main_turn = None
        self.corrections = []

    # --- saving -------------------------------------------------------------------------
    def submit(self) -> None:
        session = self._session
        opened, challenge, view = session.opened, session.steps.challenge, session.view
        if session.phase is not Phase.ANSWERING or opened is None or challenge is None:
            return
        answer = view.answer_box.toPlainText()
        if not answer.strip():
            view.status_label.setText("Write an answer first, or Skip this challenge.")
            view.answer_box.setFocus()
            return
        session.set_phase(Phase.BUSY)
        run = opened.run
        session.jobs.submit(
            lambda _p: run.submit(challenge, answer),
            self._on_saved,
            self._on_not_saved,
            durable=True,
        )

    def _on_not_saved(self, error: Exception) -> None:
        show_failure(self._session.view, error)  # the answer stays in the box: nothing is lost
        self._session.set_phase(Phase.ANSWERING)

    def _on_saved(self, attempt: Attempt) -> None:
        session = self._session
        session.steps.answer_saved()
        opened, view = session.opened, session.view
        turn = self._add_turn(attempt)
        subject = "your follow-up answer" if session.steps.is_follow_up else "your answer"
        if opened is None or not opened.run.will_judge(attempt):
            turn.status.confirm(self._saved_text(attempt.unjudged_reason))
            self._offer_self_rating(turn, attempt)
            self._after_answer(attempt)
            return
        run = opened.run
        turn.status.confirm("Saved.")
        turn.verdict.show_judging(subject)
        session.set_phase(Phase.JUDGING)
        view.thread_view.reveal(turn)
        view.thread_view.setFocus()  # the answer box steps aside: keys scroll the thread

        def show(written: str) -> None:  # GUI thread: the latest count, while still judging
            if session.phase is Phase.JUDGING and self.turn is turn:
                turn.verdict.show_judging(subject, int(written))

        sink, read = session.jobs.stream(show)
        me = weakref.ref(self)

        def work(progress: TaskProgress) -> object:
            on_text = sink(progress)
            return run.judge(
                attempt,
                on_progress=lambda written: on_text(str(written)),
                on_wait=lambda wait: to_gui_thread(_tell_wait, me, turn, subject, wait),
            )

        # `always`: the verdict lands on its answer's turn even if the learner went on
        # meanwhile (Next, Finish); it then starts no follow-up.
        session.jobs.submit(
            work,
            lambda outcome: self._on_judged(turn, attempt, outcome, subject),
            lambda error: self._on_judge_failed(turn, attempt, error, subject),
            always=True,
            text=read,
        )

    def _add_turn(self, attempt: Attempt) -> Turn:
        """The saved answer moves from the answer box into the thread, under its challenge
        (a follow-up's under the answer it follows up)."""
        view, steps = self._session.view, self._session.steps
        challenge = steps.challenge.text if steps.challenge is not None else ""
        if steps.is_follow_up and self._main_turn is not None:
            turn = view.thread_view.add("Follow-up on your answer", challenge, attempt.answer,
                                        parent=self._main_turn, attempt_id=attempt.id)  # fmt: skip
        else:
            caption = f"Challenge {steps.number} of {steps.total}"
            turn = self._main_turn = view.thread_view.add(
                caption, challenge, attempt.answer, attempt_id=attempt.id
            )
        turn.rating.rated.connect(
            lambda rated, rating, panel=turn.rating: self._record_rating(rated, rating, panel)
        )
        turn.rating.skipped.connect(lambda panel=turn.rating: self._skip_rating(panel))
        turn.correct_requested.connect(lambda shown=turn: self._correct(shown))
        self.turn = turn
        turn.notice.setText(view.notice_label.text())  # what was said about its challenge
        view.challenge_view.clear()
        view.answer_box.clear()
        view.notice_label.clear()
        view.status_label.clear()
        return turn

    def _saved_text(self, reason: str | None) -> str:
        if reason == JUDGE_OFF:
            return "Saved — not judged: the judge is switched off. You can have it judged later."
        opened = self._session.opened
        if opened is not None and reason == opened.judge_problem:
            return "Saved — kept unjudged until the judge is set up."
        return f"Saved — not judged yet: {reason}." if reason else "Saved."

    # --- judging ------------------------------------------------------------------------
    def show_wait(self, turn: Turn, subject: str, wait: JudgeWait) -> None:
        """GUI thread: the judge's try and how long is left, while still waiting for it."""
        if self._session.phase is Phase.JUDGING and self.turn is turn:
            turn.verdict.show_waiting(subject, wait)

    def _on_judged(
        self, turn: Turn, attempt: Attempt, outcome: JudgeOutcome | None, subject: str
    ) -> None:
        if turn not in self._session.view.thread_view.turns:
            return  # its session has been cleared from the screen
        if outcome is not None and outcome.verdict is not None:
            turn.show_verdict(outcome.verdict, outcome.verdict.assertions, subject)
        else:
            reason = outcome.reason if outcome is not None else None
            why = reason or "No judge is set up for this session; you can have it judged later."
            turn.verdict.show_unjudged(why, subject)
            self._offer_self_rating(turn, attempt)
        self._judged(turn, attempt)

    def _on_judge_failed(
        self, turn: Turn, attempt: Attempt, error: Exception, subject: str
    ) -> None:
        log.info("judging failed in the practice pane: %r", error)
        if turn not in self._session.view.thread_view.turns:
            return
        turn.verdict.show_unjudged(learner_message(error), subject)
        self._offer_self_rating(turn, attempt)
        self._judged(turn, attempt)

    def _judged(self, turn: Turn, attempt: Attempt) -> None:
        """The session goes on from a verdict only while it is still the one awaited; one
        that arrives after the learner went on says where it is."""
        phase = self._session.phase
        if turn is self.turn and phase is Phase.JUDGING:
            self._after_answer(attempt)
        elif phase is not Phase.FINISHED:
            said = {VerdictState.PASSED: "passed", VerdictState.NEEDS_WORK: "needs work"}
            how = said.get(turn.verdict.state, "not judged")
            rate = " (you can rate it there)" if turn.rating.awaiting() else ""
            self._session.view.status_label.setText(
                f"{turn.caption.text()}: {how}{rate}. It is in the thread above."
            )

    def _after_answer(self, attempt: Attempt) -> None:
        """What comes after the answer, by the session's steps."""
        session, turn = self._session, self.turn
        if turn is not None:
            session.view.thread_view.reveal(turn)
        awaited = turn is not None and turn.rating.awaiting()
        step = session.steps.after_answer(attempt.answer, rating_awaited=awaited)
        if step is Step.ANSWERED:
            session.set_phase(Phase.ANSWERED)
            self.focus_next()
        elif step is Step.RATE_FIRST and turn is not None:
            # Rate first: the follow-up (and its answer box) comes once the learner has
            # rated or chosen Skip rating, so nothing typed goes to the rating unseen.
            session.set_phase(Phase.ANSWERED)
            turn.rating.take_focus()
        else:
            session.follow_up()

    # --- the learner's word on a judged key point (issue 36) ------------------------------
    def _correct(self, turn: Turn) -> None:
        """Correct a key point of the turn's verdict: the dialog, then the record on the
        session's lane (in order with its other writes); the turn shows both words."""
        from coach_gui.domain.corrections import judge_status
        from coach_gui.ui.practice.correct_dialog import CorrectKeyPointDialog

        if turn.shown_verdict is None:
            return
        verdict, assertions, _subject = turn.shown_verdict
        judged = [judge_status(verdict, n) for n in range(len(assertions))]
        current = {n: word for n, (word, _note) in turn.corrected.items()}
        first = next((n for n, status in enumerate(judged) if status != "explained"), 0)
        dialog = CorrectKeyPointDialog(
            assertions,
            judged,
            current,
            self._session.view,
            first=first,
        )
        chosen = dialog.ask()
        dialog.deleteLater()
        if chosen is None:
            return
        practice, attempt_id, kept = self._session.practice, turn.attempt_id, self.corrections

        def record(_progress: TaskProgress) -> Corrected:
            done = practice.correct(attempt_id, chosen.key_point, chosen.status, chosen.note)
            kept.append(done.correction)
            return done

        self._session.jobs.submit(
            record,
            lambda done: self._corrected(turn, done),
            self._correction_not_saved,
            supersede=False,
            durable=True,
        )

    def _corrected(self, turn: Turn, done: Corrected) -> None:
        from coach_gui.ui.practice.correct_dialog import corrected_message

        c = done.correction
        turn.show_corrected(c.assertion, c.status, c.note, done.judge)
        said = corrected_message(done, follow_up=bool(turn.follow_up))
        self._session.view.status_label.setText(said)
        self._session.changed.emit(done.changes)

    def _correction_not_saved(self, error: Exception) -> None:
        self._session.view.status_label.setText(
            f"Your correction was not saved: {learner_message(error)}"
        )

    # --- the learner's own rating of an unjudged answer ----------------------------------
    def _offer_self_rating(self, turn: Turn, attempt: Attempt) -> None:
        """Unjudged: the learner may rate their recall of the note's assertions. Focus
        goes to the rating (when it is the latest answer's), so the keys 1–4 rate; they
        never type into an answer box. Alt+1–4 belong to the latest rating only."""
        note = self._session.note
        if note is None or not note.core_assertions or turn.follow_up:
            return  # a follow-up asks about one part: rating every key point would not fit
        for other in self._session.view.thread_view.turns:
            other.rating.set_mnemonics(other is turn)
        turn.rating.offer(attempt, note.core_assertions)
        # Only the answer being waited for takes the focus: a late verdict never pulls it
        # out of the box the learner is typing in (the status line says where it is).
        if turn is self.turn and self._session.phase in (Phase.BUSY, Phase.JUDGING):
            turn.rating.take_focus()

    def _record_rating(self, attempt: Attempt, rating: int, panel: SelfRatingPanel) -> None:
        """On the lane, in order with the session's other journal writes; then focus goes
        on to the follow-up's answer box (or Next), so a rating key never types into it."""
        session = self._session
        note, practice = session.note, session.practice
        if note is None:
            return
        session.jobs.submit(
            lambda _p: practice.rate_unjudged(attempt, note, rating),
            lambda _none: panel.confirm(rating),
            self._rating_not_saved,  # the session goes on as it was
            supersede=False,
            durable=True,
        )
        focus = QApplication.focusWidget()
        self._go_on_after_rating(panel)
        if focus is not None and panel.isAncestorOf(focus):
            session.take_focus()

    def _rating_not_saved(self, error: Exception) -> None:
        show_failure(self._session.view, error)  # said; the phase (a follow-up) stays

    def _skip_rating(self, panel: SelfRatingPanel) -> None:
        self._go_on_after_rating(panel)
        self._session.take_focus()

    def _go_on_after_rating(self, panel: SelfRatingPanel) -> None:
        """The rating is given (or skipped): the follow-up that waited for it is asked."""
        session, turn = self._session, self.turn
        if not session.steps.rating_done() or turn is None or turn.rating is not panel:
            return
        if session.opened is not None and session.phase is Phase.ANSWERED:
            session.follow_up()
        else:
            session.steps.drop_follow_up()

    def rating_awaited(self) -> bool:
        """The learner is at a self-rating they have not given yet: focus stays there."""
        turn = self.turn
        focus = QApplication.focusWidget()
        if turn is None or focus is None or self._session.phase is not Phase.ANSWERED:
            return False  # once the learner went on, a rating left waiting holds nothing
        return turn.rating.awaiting() and turn.rating.isAncestorOf(focus)

    def focus_next(self) -> None:
        """Answered: Next has the focus, unless the learner is at a rating not given yet."""
        if not self.rating_awaited():
            self._session.view.next_button.setFocus()


def _tell_wait(answers: weakref.ref[Answers], turn: Turn, subject: str, wait: JudgeWait) -> None:
    """GUI thread: a judge's try, for the session's answers if they are still there."""
    shown = answers()
    if shown is not None and shiboken6.isValid(shown):
        shown.show_wait(turn, subject, wait)
