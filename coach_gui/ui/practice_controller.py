"""The practice pane's controller: it owns the steps of a session — a challenge streams in
(or is cancelled), the answer is saved at once, then judged when the judge is on, then an
optional follow-up, then Next — and starts and ends sessions. The session itself, from
opening to seal, is `operations.practice`; the widgets are `PracticeView`'s.

Every Ollama, Gemini and journal call runs as a Task on the pane's own ordered lane
(`session_jobs`), so calls reach the session one at a time and in order, and a long
generation never holds up note saves. Widgets are touched only on the GUI thread.
"""

from __future__ import annotations

import html
import json
import logging
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QApplication, QMessageBox

from coach_gui.domain.memory import assertion_digest
from coach_gui.domain.practice import plan_gap_practice
from coach_gui.domain.session_state import JUDGE_OFF
from coach_gui.domain.tier1_errors import GenerationCancelled
from coach_gui.operations.practice import (
    Asked,
    MissedPoint,
    OpenedPractice,
    SessionEnded,
    ask_challenge,
    ask_follow_up,
    open_practice,
)
from coach_gui.ui.button_keys import with_mnemonics
from coach_gui.ui.failures import learner_message, show_failure
from coach_gui.ui.key_shortcuts import shortcut
from coach_gui.ui.payload_review import (
    SESSION_ENDED,
    PayloadReviewDialog,
    ReviewedJudge,
    ReviewGate,
)
from coach_gui.ui.practice_view import Phase, Place, PracticeView
from coach_gui.ui.practice_widgets import notices_text
from coach_gui.ui.session_jobs import SessionJobs
from coach_gui.ui.tasks import to_gui_thread
from coach_gui.ui.verdict_view import VerdictState

if TYPE_CHECKING:
    from coach_gui.bootstrap import AppContext
    from coach_gui.domain.challenges import Challenge
    from coach_gui.domain.judge_wait import JudgeWait
    from coach_gui.domain.notes import Note
    from coach_gui.domain.practice import Attempt, GapPlan
    from coach_gui.services.judging import JudgeOutcome
    from coach_gui.services.ports.judge import Judge
    from coach_gui.services.practice import PracticeRun
    from coach_gui.ui.payload_review import PendingReview
    from coach_gui.ui.practice_thread import Turn
    from coach_gui.ui.self_rating import SelfRatingPanel
    from coach_gui.ui.tasks import TaskProgress

log = logging.getLogger(__name__)


def _begins_new_note(plan: GapPlan) -> bool:
    """A decision Today made to bring in a note never practised (issue 19)."""
    return plan.decision is not None and json.loads(plan.decision).get("reason") == "new_note"


class PracticeController(QObject):
    session_started = Signal(str)  # the note's title
    session_finished = Signal(object)  # SessionEnded
    next_due_requested = Signal()  # "Practise the next due note" on the summary
    model_downloaded = Signal(str)
    add_assertions_requested = Signal(str)  # the note's id: open it to add assertions
    tier1_offline = Signal(str)  # Tier 1 became unavailable, and why (refresh the status bar)

    def __init__(self, context: AppContext, view: PracticeView) -> None:
        super().__init__(view)
        self.context = context
        self.view = view
        self.jobs = SessionJobs(self, self._show_failure)
        self._opened: OpenedPractice | None = None
        self._note: Note | None = None
        self._phase = Phase.IDLE
        self._total = self._remaining = self._number = 0
        self._follow_ups = False
        self._is_follow_up = False
        self._challenge: Challenge | None = None
        self._turn: Turn | None = None  # the latest saved answer's turn in the thread
        # A follow-up waiting for the learner's self-rating of the answer it follows up.
        self._waiting_follow_up: tuple[Challenge, str] | None = None
        self._main_turn: Turn | None = None  # the main challenge's: follow-ups nest in it
        self._saved = self._skipped = 0
        self._offline_reason: str | None = None
        self._banner_shown = False
        self._abandon_start = threading.Event()
        self._gate: ReviewGate | None = None
        self._review_dialog: PayloadReviewDialog | None = None
        self._wire()
        self._set_phase(Phase.IDLE)

    def _wire(self) -> None:
        view = self.view
        view.submit_button.clicked.connect(self.submit)
        view.skip_button.clicked.connect(self.skip)
        view.cancel_button.clicked.connect(self.cancel_generation)
        view.retry_button.clicked.connect(lambda: self._ask(builtin=False, retry=True))
        view.builtin_button.clicked.connect(lambda: self._ask(builtin=True, retry=True))
        view.next_button.clicked.connect(self.next)
        view.finish_button.clicked.connect(self.finish)
        view.again_button.clicked.connect(self._again)
        view.next_due_button.clicked.connect(self.next_due_requested)
        view.resume_button.clicked.connect(self._again)
        view.practise_missed_button.clicked.connect(self._practise_missed)
        view.download_button.clicked.connect(self.download_model)
        view.add_assertions_button.clicked.connect(
            lambda: self.add_assertions_requested.emit(self._note.id if self._note else "")
        )
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut(keys, view, self._primary, context)
        shortcut("Esc", view, self.cancel_generation, context)

    # --- state --------------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def _run(self) -> PracticeRun | None:
        return self._opened.run if self._opened is not None else None

    @property
    def active(self) -> bool:
        return self._opened is not None or self._phase is Phase.BUSY

    @property
    def note(self) -> Note | None:
        """The note of the session on screen (or of the last one)."""
        return self._note

    def _set_phase(self, phase: Phase) -> None:
        self._phase = phase
        place = Place(
            self._number, self._total, self._remaining, self._is_follow_up, self._opened is not None
        )
        self.view.show_phase(phase, place)

    def _show_failure(self, error: Exception) -> None:
        show_failure(self.view, error)
        self._set_phase(Phase.CANCELLED if self._opened is not None else Phase.IDLE)

    def take_focus(self) -> None:
        """When the pane is switched to: focus where the learner goes on from."""
        view = self.view
        if self._phase is Phase.FINISHED:
            view.summary_focus().setFocus()
        elif self._phase is Phase.IDLE:
            view.resume_button.setFocus()  # nothing takes focus while it is hidden
        elif self._phase is Phase.ANSWERED:
            view.next_button.setFocus()
        else:
            view.answer_box.setFocus()

    def has_unsubmitted_answer(self) -> bool:
        """Typed and not yet saved. (An answer being saved is not: quitting waits for it,
        tasks.quiesce.)"""
        typing = self._phase in (Phase.ANSWERING, Phase.STREAMING, Phase.CANCELLED)
        text = self.view.answer_box.toPlainText()
        return self._opened is not None and typing and bool(text.strip())

    def confirm_leave(self, question: str = "Finish without it?") -> bool:
        """Ask before a typed, unsubmitted answer is dropped; True to go ahead."""
        if not self.has_unsubmitted_answer():
            return True
        buttons = QMessageBox.StandardButton
        box = QMessageBox(
            QMessageBox.Icon.Question, "Answer not submitted",
            f"Your answer to this challenge is not submitted yet. {question}",
            buttons.Discard | buttons.Cancel, self.view,
        )  # fmt: skip
        box.setDefaultButton(buttons.Cancel)
        with_mnemonics(box)  # Alt+D, Alt+C
        return box.exec() == buttons.Discard

    # --- starting and ending ------------------------------------------------------------------
    def start(self, note: Note, plan: GapPlan | None = None) -> None:
        """Start a session on `note` (ending the current one first; its answers are kept).
        The judge and privacy switches are read from the config as it is now. `plan`
        (practise these gaps) targets its assertions and is sealed with the session."""
        self._end_session(show=False)
        self.jobs.closing = False
        self._note = note
        context, settings, view = self.context, self.context.practice_settings(), self.view
        self._total = self._remaining = settings.challenges
        self._follow_ups = settings.follow_ups
        self._number = self._saved = self._skipped = 0
        self._offline_reason, self._banner_shown = None, False
        self._is_follow_up, self._challenge = False, None
        self._turn = self._main_turn = None
        self._waiting_follow_up = None
        self._missed: tuple[MissedPoint, ...] = ()
        view.thread_view.clear()
        view.banner.hide()
        view.judge_notice.hide()
        view.assertions_notice.setVisible(not note.core_assertions)
        view.resume_button.hide()
        doing = (
            "Practising"
            if plan is None
            else "Practising gaps"
            if plan.gap_ids
            else "Beginning a new note"
            if _begins_new_note(plan)
            else "Practising what is due"
        )
        view.title_label.setText(f"{doing}: {note.title}")
        view.progress_label.setText("Starting…")
        view.clear_texts()
        view.answer_box.clear()
        wrap: Callable[[Judge], Judge] | None = None
        # Whether or not the judge is on now: it may be switched on mid-session.
        if context.config.judge.review_payloads:
            gate = self._gate = ReviewGate(context.config.judge.judge_model, self)
            gate.asked.connect(self._review)
            review = gate.review
            wrap = lambda judge: ReviewedJudge(judge, review)  # noqa: E731
        abandoned = self._abandon_start = threading.Event()

        def started(opened: OpenedPractice | None) -> None:
            if opened is not None and abandoned.is_set():
                self.jobs.submit(lambda _p: opened.close(), _ignore, supersede=False)
            elif opened is not None:
                self._on_started(opened)

        self._set_phase(Phase.BUSY)
        self.jobs.submit(
            lambda _p: open_practice(
                context, note, settings, live=True, wrap_judge=wrap, plan=plan, abandoned=abandoned
            ),
            started,
            self._on_start_failed,
            always=True,
        )
        self.session_started.emit(note.title)

    def _on_started(self, opened: OpenedPractice) -> None:
        self._opened = opened
        if opened.judge_problem:  # said once, here; each answer then says only "kept"
            self.view.show_judge_problem(opened.judge_problem)
        self.view.answer_box.setFocus()  # the learner may start typing while it is written
        self._ask(builtin=False, retry=False)

    def _on_start_failed(self, error: Exception) -> None:
        if self._abandon_start.is_set():
            return
        show_failure(self.view, error)
        self._set_phase(Phase.IDLE)

    def _again(self) -> None:
        if self._note is not None:
            self.start(self._note)

    def set_next_due(self, title: str | None) -> None:
        """Name the next note due today on the summary (None: no button)."""
        self.view.next_due_button.setVisible(title is not None)
        if title is not None:
            self.view.next_due_button.setText(f"Practise the ne&xt due note: {title}")

    def offer(self, note: Note) -> None:
        """No session, but one on `note` ended when Coach last closed: offer to go on."""
        if self._opened is None and self._phase is Phase.IDLE:
            self._note = note
            self.view.idle_label.setText(
                f"Your last session on “{note.title}” ended when Coach closed; its answers "
                "are kept."
            )
            self.view.resume_button.show()

    def finish(self) -> None:
        """Finish session: stop any generation, close the session, show the summary."""
        if self._opened is None or self._phase is Phase.BUSY or not self.confirm_leave():
            return
        self._end_session(show=True)

    def _end_session(self, *, show: bool) -> None:
        self._abandon_start.set()  # a session still starting is closed as soon as it has
        self._close_review()
        opened, self._opened = self._opened, None
        if opened is None:
            return
        opened.run.cancel()  # a stream still open closes now
        opened.run.stop_judging()  # and a slow local judge's request (its answer is kept)
        self.jobs.drop_stream()
        saved, skipped = self._saved, self._skipped

        def ended(summary: SessionEnded) -> None:
            if show:
                self._missed = summary.missed
                self.view.show_summary(
                    summary,
                    bool(self._missed_targets()[0]),
                    judge_on=self.context.config.judge.enabled,
                )
                self._phase = Phase.FINISHED
            self.session_finished.emit(summary)

        if show:
            self._set_phase(Phase.BUSY)
        self.jobs.submit(lambda _p: opened.end(saved, skipped), ended, supersede=show)

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Before the window closes: end the session and wait for the lane, at most
        `timeout_ms` (True if idle). Asked again once closing, it does not wait again."""
        again = self.jobs.closing
        self._end_session(show=False)
        self.jobs.closing = True
        return self.jobs.wait(0 if again else timeout_ms)

    def _missed_targets(self) -> tuple[tuple[int, ...], tuple[str, ...]]:
        """The missed key points still in the note (by their text): their indexes now
        and their gap ids. Empty when the note no longer holds any of them."""
        note = self._note
        if note is None:
            return (), ()
        # By the assertion's identity (its text, whitespace and Unicode form aside), as
        # Today and the gap board match them.
        where = {assertion_digest(text): n for n, text in enumerate(note.core_assertions)}
        found = [(where[d], m.gap_id) for m in self._missed
                 if (d := assertion_digest(m.assertion)) in where]  # fmt: skip
        return tuple(i for i, _ in found), tuple(g for _, g in found)

    def _practise_missed(self) -> None:
        """*Practise these*: a session whose challenges target the key points this one
        missed; the decision and the gap ids are sealed with it (as from the gap board)."""
        targets, gap_ids = self._missed_targets()
        note = self._note
        if note is None or not targets:
            return
        self.start(note, plan_gap_practice(note, targets, gap_ids, self.context.clock.now()))

    def _record_self_rating(self, attempt: Attempt, rating: int, panel: SelfRatingPanel) -> None:
        """On the lane, in order with the session's other journal writes; then focus goes
        on to the follow-up's answer box (or Next), so a rating key never types into it."""
        note, context = self._note, self.context
        if note is None:
            return
        self.jobs.submit(
            lambda _p: context.scheduler().rate_unjudged(attempt, note, rating),
            lambda _none: panel.confirm(rating),
            self._rating_not_saved,  # the session goes on as it was
            supersede=False,
            durable=True,
        )
        focus = QApplication.focusWidget()
        self._go_on_after_rating(panel)
        if focus is not None and panel.isAncestorOf(focus):
            self.take_focus()

    def _rating_not_saved(self, error: Exception) -> None:
        show_failure(self.view, error)  # said; the phase (a follow-up on its way) stays

    def _focus_next(self) -> None:
        """Answered: Next has the focus, unless the learner is at a rating not given yet."""
        if not self._rating_awaited():
            self.view.next_button.setFocus()

    def _skip_rating(self, panel: SelfRatingPanel) -> None:
        self._go_on_after_rating(panel)
        self.take_focus()

    def _rating_awaited(self) -> bool:
        """The learner is at a self-rating they have not given yet: focus stays there."""
        turn = self._turn
        focus = QApplication.focusWidget()
        if turn is None or focus is None or self._phase is not Phase.ANSWERED:
            return False  # once the learner went on, a rating left waiting holds nothing
        return turn.rating.awaiting() and turn.rating.isAncestorOf(focus)

    # --- challenges -----------------------------------------------------------------------------
    def _ask(self, *, builtin: bool, retry: bool) -> None:
        """Queue the next main challenge (Tier 1, or a built-in one for this slot)."""
        opened, view = self._opened, self.view
        if opened is None:
            return
        if not retry:
            self._number = self._total - self._remaining + 1
            view.answer_box.clear()  # the last answer is saved; a retry keeps typed-ahead text
        self._is_follow_up, self._challenge = False, None
        view.challenge_caption.setText("Challen&ge")
        view.clear_texts()
        sink, read = self.jobs.stream(self._apply_text)
        probe = not self._banner_shown
        self._set_phase(Phase.STREAMING)
        self.jobs.submit(
            lambda progress: ask_challenge(opened, sink(progress), builtin=builtin, probe=probe),
            self._on_challenge,
            self._on_generation_failed,
            text=read,
        )

    def _on_challenge(self, asked: Asked) -> None:
        view = self.view
        self._remaining = asked.remaining
        self._note_offline(asked)
        if asked.result is None:  # no follow-up this time
            self._is_follow_up = False
            self._set_phase(Phase.ANSWERED)
            self._focus_next()
            return
        if self._phase is Phase.BUSY:  # cancelled too late: the challenge was finished
            view.status_label.clear()
        self._challenge = asked.result.challenge
        view.show_text(asked.result.challenge.text)
        notices = [n for n in asked.result.notices if n != asked.offline_reason]
        view.notice_label.setText(notices_text(notices))
        self._set_phase(Phase.ANSWERING)
        view.answer_box.setFocus()  # a rating waits before a follow-up, never beside one

    def _on_generation_failed(self, error: Exception) -> None:
        if not isinstance(error, GenerationCancelled):
            show_failure(self.view, error)
        if self._is_follow_up:
            self._is_follow_up = False
            self._set_phase(Phase.ANSWERED)
            self._focus_next()
        else:
            self._set_phase(Phase.CANCELLED)

    def _apply_text(self, text: str) -> None:
        """The latest text of the stream on screen (from `jobs.stream`'s reader)."""
        if self._phase is not Phase.STREAMING:
            return  # stale: from a cancelled or finished generation
        view = self.view
        if not text and view.challenge_view.toPlainText():
            view.notice_label.setText(
                "That challenge was too close to your note, so it was withdrawn. Writing another…"
            )
        view.show_text(text)

    def show_wait(self, turn: Turn, subject: str, wait: JudgeWait) -> None:
        """GUI thread: the judge's try and how long is left, while still waiting for it."""
        if self._phase is Phase.JUDGING and self._turn is turn:
            turn.verdict.show_waiting(subject, wait)

    def cancel_generation(self) -> None:
        """Esc: close the stream now. Nothing is recorded for this challenge. While the
        judge on this computer grades, Esc stops it: the answer stays saved, unjudged."""
        if self._phase is Phase.JUDGING and self._run is not None:
            self._run.stop_judging()
            return
        if self._phase is not Phase.STREAMING or self._run is None:
            return
        self._run.cancel()
        self.jobs.drop_stream()  # whatever is still in flight is stale
        view = self.view
        view.challenge_view.clear()
        if self._is_follow_up:
            view.status_label.setText("Follow-up cancelled. Your answer is saved.")
        else:
            view.status_label.setText(
                "Generation cancelled — nothing was saved for this challenge. "
                "Retry, or use a built-in challenge."
            )
        self._set_phase(Phase.BUSY)  # until the lane confirms, moments later

    # --- answers ----------------------------------------------------------------------------------
    def _primary(self) -> None:
        """Ctrl+Enter: submit an answer, or go on once it is saved (never past a verdict
        that is still on its way: a second Ctrl+Enter would hide it)."""
        if self._phase is Phase.ANSWERING:
            self.submit()
        elif self._phase is not Phase.JUDGING and self.view.next_button.isEnabled():
            self.next()

    def submit(self) -> None:
        run, challenge, view = self._run, self._challenge, self.view
        if self._phase is not Phase.ANSWERING or run is None or challenge is None:
            return
        answer = view.answer_box.toPlainText()
        if not answer.strip():
            view.status_label.setText("Write an answer first, or Skip this challenge.")
            view.answer_box.setFocus()
            return
        self._set_phase(Phase.BUSY)
        self.jobs.submit(
            lambda _p: run.submit(challenge, answer),
            self._on_saved,
            self._on_not_saved,
            durable=True,
        )

    def _on_saved(self, attempt: Attempt) -> None:
        self._saved += 1
        run, view = self._run, self.view
        turn = self._add_turn(attempt)
        subject = "your follow-up answer" if self._is_follow_up else "your answer"
        if run is None or not run.will_judge(attempt):
            turn.status.confirm(self._saved_text(attempt.unjudged_reason))
            self._offer_self_rating(turn, attempt)
            self._after_answer(attempt)
            return
        turn.status.confirm("Saved.")
        turn.verdict.show_judging(subject)
        self._set_phase(Phase.JUDGING)
        view.thread_view.reveal(turn)
        view.thread_view.setFocus()  # the answer box steps aside: keys scroll the thread

        def show(written: str) -> None:  # GUI thread: the latest count, while still judging
            if self._phase is Phase.JUDGING and self._turn is turn:
                turn.verdict.show_judging(subject, int(written))

        sink, read = self.jobs.stream(show)
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
        self.jobs.submit(
            work,
            lambda outcome: self._on_judged(turn, attempt, outcome, subject),
            lambda error: self._on_judge_failed(turn, attempt, error, subject),
            always=True,
            text=read,
        )

    def _add_turn(self, attempt: Attempt) -> Turn:
        """The saved answer moves from the answer box into the thread, under its challenge
        (a follow-up's under the answer it follows up)."""
        view = self.view
        challenge = self._challenge.text if self._challenge is not None else ""
        if self._is_follow_up and self._main_turn is not None:
            turn = view.thread_view.add("Follow-up on your answer", challenge, attempt.answer,
                                   parent=self._main_turn, attempt_id=attempt.id)  # fmt: skip
        else:
            caption = f"Challenge {self._number} of {self._total}"
            turn = self._main_turn = view.thread_view.add(
                caption, challenge, attempt.answer, attempt_id=attempt.id
            )
        turn.rating.rated.connect(
            lambda rated, rating, panel=turn.rating: self._record_self_rating(rated, rating, panel)
        )
        turn.rating.skipped.connect(lambda panel=turn.rating: self._skip_rating(panel))
        self._turn = turn
        turn.notice.setText(view.notice_label.text())  # what was said about its challenge
        view.challenge_view.clear()
        view.answer_box.clear()
        view.notice_label.clear()
        view.status_label.clear()
        return turn

    def _saved_text(self, reason: str | None) -> str:
        if reason == JUDGE_OFF:
            return "Saved — not judged: the judge is switched off. You can have it judged later."
        if self._opened is not None and reason == self._opened.judge_problem:
            return "Saved — kept unjudged until the judge is set up."
        return f"Saved — not judged yet: {reason}." if reason else "Saved."

    def _on_judged(
        self, turn: Turn, attempt: Attempt, outcome: JudgeOutcome | None, subject: str
    ) -> None:
        if turn not in self.view.thread_view.turns:
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
        if turn not in self.view.thread_view.turns:
            return
        turn.verdict.show_unjudged(learner_message(error), subject)
        self._offer_self_rating(turn, attempt)
        self._judged(turn, attempt)

    def _judged(self, turn: Turn, attempt: Attempt) -> None:
        """The session goes on from a verdict only while it is still the one awaited; one
        that arrives after the learner went on says where it is."""
        if turn is self._turn and self._phase is Phase.JUDGING:
            self._after_answer(attempt)
        elif self._phase is not Phase.FINISHED:
            said = {VerdictState.PASSED: "passed", VerdictState.NEEDS_WORK: "needs work"}
            how = said.get(turn.verdict.state, "not judged")
            rate = " (you can rate it there)" if turn.rating.awaiting() else ""
            self.view.status_label.setText(
                f"{turn.caption.text()}: {how}{rate}. It is in the thread above."
            )

    def _offer_self_rating(self, turn: Turn, attempt: Attempt) -> None:
        """Unjudged: the learner may rate their recall of the note's assertions. Focus
        goes to the rating (when it is the latest answer's), so the keys 1–4 rate; they
        never type into an answer box. Alt+1–4 belong to the latest rating only."""
        if self._note is None or not self._note.core_assertions or turn.follow_up:
            return  # a follow-up asks about one part: rating every key point would not fit
        for other in self.view.thread_view.turns:
            other.rating.set_mnemonics(other is turn)
        turn.rating.offer(attempt, self._note.core_assertions)
        # Only the answer being waited for takes the focus: a late verdict never pulls it
        # out of the box the learner is typing in (the status line says where it is).
        if turn is self._turn and self._phase in (Phase.BUSY, Phase.JUDGING):
            turn.rating.take_focus()

    def _after_answer(self, attempt: Attempt) -> None:
        parent, was_follow_up = self._challenge, self._is_follow_up
        turn = self._turn
        if turn is not None:
            self.view.thread_view.reveal(turn)
        if was_follow_up or parent is None or self._offline_reason or not self._follow_ups:
            self._is_follow_up = False
            self._set_phase(Phase.ANSWERED)
            self._focus_next()
            return
        if turn is not None and turn.rating.awaiting():
            # Rate first: the follow-up (and its answer box) comes once the learner has
            # rated or chosen Skip rating, so nothing typed goes to the rating unseen.
            self._waiting_follow_up = (parent, attempt.answer)
            self._set_phase(Phase.ANSWERED)
            turn.rating.take_focus()
            return
        self._follow_up(parent, attempt.answer)

    def _go_on_after_rating(self, panel: SelfRatingPanel) -> None:
        """The rating is given (or skipped): the follow-up that waited for it is asked."""
        waiting, turn = self._waiting_follow_up, self._turn
        if waiting is None or turn is None or turn.rating is not panel:
            return
        self._waiting_follow_up = None
        if self._opened is not None and self._phase is Phase.ANSWERED:
            self._follow_up(*waiting)

    def _on_not_saved(self, error: Exception) -> None:
        show_failure(self.view, error)  # the answer stays in the box: nothing typed is lost
        self._set_phase(Phase.ANSWERING)

    def _follow_up(self, parent: Challenge, answer: str) -> None:
        opened, view = self._opened, self.view
        assert opened is not None
        self._is_follow_up, self._challenge = True, None
        view.challenge_caption.setText("Follow-up challen&ge (on your answer above)")
        view.challenge_view.clear()
        view.notice_label.clear()
        view.answer_box.clear()  # saved; the verdict on it stays in view below
        sink, read = self.jobs.stream(self._apply_text)
        probe = not self._banner_shown
        self._set_phase(Phase.STREAMING)
        self.jobs.submit(
            lambda progress: ask_follow_up(opened, parent, answer, sink(progress), probe=probe),
            self._on_challenge,
            self._on_generation_failed,
            text=read,
        )

    def skip(self) -> None:
        if self._phase is not Phase.ANSWERING:
            return
        self._skipped += 1
        self.view.answer_box.clear()
        self.next()

    def next(self) -> None:
        """Next main challenge (a follow-up still being written is dropped), or the summary."""
        if self._run is None:
            return
        self._waiting_follow_up = None  # Next passes over a follow-up waiting for a rating
        if self._phase is Phase.STREAMING:
            self._run.cancel()
        if self._remaining:
            self._ask(builtin=False, retry=False)
        else:
            self._end_session(show=True)

    # --- offline ------------------------------------------------------------------------------
    def _note_offline(self, asked: Asked) -> None:
        if asked.offline_reason is None or self._banner_shown:
            return
        problem = self._opened.tier1_problem if self._opened is not None else None
        reason = problem or asked.offline_reason
        self._offline_reason, self._banner_shown = reason, True
        self.view.show_offline(reason, asked.model_missing)
        self.tier1_offline.emit(reason)

    def download_model(self) -> None:
        from coach_gui.ui.model_download import ModelDownloadDialog

        dialog = ModelDownloadDialog.for_context(self.context, self.view)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.downloaded.connect(self._on_model_downloaded)
        dialog.open()

    def _on_model_downloaded(self, model: str) -> None:
        view = self.view
        view.banner_label.setText(
            f"<b>{html.escape(model)} is installed.</b> The next challenge is written by it."
        )
        view.download_button.hide()
        self._offline_reason = None
        run = self._run
        if run is not None:  # on the lane, so it never races a running call
            self.jobs.submit(lambda _p: run.resume_tier1(), _ignore, supersede=False)
        self._banner_shown = False  # should Tier 1 fail again, say so again
        self.model_downloaded.emit(model)

    # --- reviewing a payload before it is sent ------------------------------------------------
    @Slot(object)
    def _review(self, pending: PendingReview) -> None:
        if pending.decided.is_set():
            return  # the session ended before this reached the screen
        if self._gate is None or self.jobs.closing:
            pending.decide(False, SESSION_ENDED)
            return
        dialog = PayloadReviewDialog(pending, self.view)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(self._on_review_closed)
        self._review_dialog = dialog
        dialog.open()

    def _on_review_closed(self) -> None:
        self._review_dialog = None

    def _close_review(self) -> None:
        """The session is ending: nothing waiting for the learner's choice is sent."""
        gate, self._gate = self._gate, None
        if gate is not None:
            gate.close()
        dialog, self._review_dialog = self._review_dialog, None
        if dialog is not None:
            dialog.reject()


def _ignore(_result: object) -> None:
    pass


def _tell_wait(
    controller: weakref.ref[PracticeController], turn: Turn, subject: str, wait: JudgeWait
) -> None:
    """GUI thread: a judge's try, for the controller if it is still there."""
    shown = controller()
    if shown is not None and shiboken6.isValid(shown):
        shown.show_wait(turn, subject, wait)
