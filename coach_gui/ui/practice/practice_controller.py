"""The practice pane's controller: it starts and ends sessions and asks their challenges
— a challenge streams in (or is cancelled), the answer is saved at once, then judged when
the judge is on, then an optional follow-up, then Next. Which step comes next is
`operations.practice_steps` (the terminal follows the same steps); the session itself,
from opening to seal, is `operations.practice`; the answers on screen are `Answers`', the
payload reviews `PayloadReviews`', the offline banner `OfflineNotice`'s, the widgets
`PracticeView`'s.

Every Ollama, Gemini and journal call runs as a Task on the pane's own ordered lane
(`session_jobs`), so calls reach the session one at a time and in order, and a long
generation never holds up note saves. Widgets are touched only on the GUI thread.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox

from coach_gui.domain.tier1_errors import GenerationCancelled
from coach_gui.operations.practice import (
    Asked,
    OpenedPractice,
    SessionEnded,
    ask_challenge,
    ask_follow_up,
)
from coach_gui.operations.practice_steps import PracticeSteps, Step
from coach_gui.ui.kit.button_keys import with_mnemonics
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.key_shortcuts import shortcut
from coach_gui.ui.practice.practice_answers import Answers
from coach_gui.ui.practice.practice_offline import OfflineNotice
from coach_gui.ui.practice.practice_reviews import PayloadReviews
from coach_gui.ui.practice.practice_view import Phase, Place, PracticeView
from coach_gui.ui.practice.practice_widgets import notices_text
from coach_gui.ui.practice.session_jobs import SessionJobs

if TYPE_CHECKING:
    from coach_gui.domain.notes import Note
    from coach_gui.domain.practice import GapPlan
    from coach_gui.operations.cases import Practice
    from coach_gui.services.ports.judge import Judge


def _begins_new_note(plan: GapPlan) -> bool:
    """A decision Today made to bring in a note never practised (issue 19)."""
    return plan.decision is not None and json.loads(plan.decision).get("reason") == "new_note"


class PracticeController(QObject):
    session_started = Signal(str)  # the note's title
    session_finished = Signal(object)  # SessionEnded
    changed = Signal(object)  # Changes made in the session's thread (a key point corrected)
    next_due_requested = Signal()  # "Practise the next due note" on the summary
    model_downloaded = Signal(str)
    add_assertions_requested = Signal(str)  # the note's id: open it to add assertions
    tier1_offline = Signal(str)  # Tier 1 became unavailable, and why (refresh the status bar)

    def __init__(self, practice: Practice, view: PracticeView) -> None:
        super().__init__(view)
        self.practice = practice
        self.view = view
        self.jobs = SessionJobs(self, self._show_failure)
        self._opened: OpenedPractice | None = None
        self._note: Note | None = None
        self._phase = Phase.IDLE
        self.steps = PracticeSteps(0, follow_ups=False)  # the session's, once started
        self._abandon_start = threading.Event()
        self.answers = Answers(self)
        self.reviews = PayloadReviews(view, lambda: self.jobs.closing)
        self.offline = OfflineNotice(practice, view, self.jobs, lambda: (self._opened, self.steps))
        self.offline.tier1_offline.connect(self.tier1_offline)
        self.offline.model_downloaded.connect(self.model_downloaded)
        self._wire()
        self.set_phase(Phase.IDLE)

    def _wire(self) -> None:
        view = self.view
        view.submit_button.clicked.connect(self.answers.submit)
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
        view.download_button.clicked.connect(self.offline.download)
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
    def opened(self) -> OpenedPractice | None:
        """The session open now, if any."""
        return self._opened

    @property
    def active(self) -> bool:
        return self._opened is not None or self._phase is Phase.BUSY

    @property
    def note(self) -> Note | None:
        """The note of the session on screen (or of the last one)."""
        return self._note

    def set_phase(self, phase: Phase) -> None:
        self._phase = phase
        steps = self.steps
        place = Place(steps.number, steps.total, steps.remaining, steps.is_follow_up,
                      self._opened is not None)  # fmt: skip
        self.view.show_phase(phase, place)

    def _show_failure(self, error: Exception) -> None:
        show_failure(self.view, error)
        self.set_phase(Phase.CANCELLED if self._opened is not None else Phase.IDLE)

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
        practice, settings, view = self.practice, self.practice.settings(), self.view
        self.steps = PracticeSteps(settings.challenges, follow_ups=settings.follow_ups)
        self.offline.shown = False
        self.answers.reset()
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
        judge = practice.config.judge
        if judge.review_payloads:
            wrap = self.reviews.open(judge.judge_model)
        abandoned = self._abandon_start = threading.Event()

        def started(opened: OpenedPractice | None) -> None:
            if opened is not None and abandoned.is_set():
                self.jobs.submit(lambda _p: opened.close(), _ignore, supersede=False)
            elif opened is not None:
                self._on_started(opened)

        self.set_phase(Phase.BUSY)
        self.jobs.submit(
            lambda _p: practice.open(
                note, settings, wrap_judge=wrap, plan=plan, abandoned=abandoned
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
        self.set_phase(Phase.IDLE)

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
        self.reviews.close()
        opened, self._opened = self._opened, None
        if opened is None:
            return
        opened.run.cancel()  # a stream still open closes now
        opened.run.stop_judging()  # and a slow local judge's request (its answer is kept)
        self.jobs.drop_stream()
        steps, note = self.steps, self._note
        saved, skipped = steps.saved, steps.skipped

        def ended(summary: SessionEnded) -> None:
            if show:
                steps.missed = summary.missed
                self.view.show_summary(
                    summary,
                    note is not None and bool(steps.missed_targets(note)[0]),
                    judge_on=self.practice.config.judge.enabled,
                )
                self._phase = Phase.FINISHED
            # The summary counted the corrections made so far; a later one would leave it
            # out of date, so the session's own thread takes no more (its history does).
            for turn in self.view.thread_view.turns:
                turn.correct_button.hide()
            self.session_finished.emit(summary)

        if show:
            self.set_phase(Phase.BUSY)
        corrected = self.answers.corrections  # filled on the lane, before this job runs
        self.jobs.submit(
            lambda _p: opened.end(saved, skipped, tuple(corrected)), ended, supersede=show
        )

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Before the window closes: end the session and wait for the lane, at most
        `timeout_ms` (True if idle). Asked again once closing, it does not wait again."""
        again = self.jobs.closing
        self._end_session(show=False)
        self.jobs.closing = True
        return self.jobs.wait(0 if again else timeout_ms)

    def _practise_missed(self) -> None:
        """*Practise these*: a session whose challenges target the key points this one
        missed; the decision and the gap ids are sealed with it (as from the gap board)."""
        note = self._note
        plan = self.steps.practise_missed(note, self.practice.now()) if note else None
        if note is not None and plan is not None:
            self.start(note, plan)

    # --- challenges -----------------------------------------------------------------------------
    def _ask(self, *, builtin: bool, retry: bool) -> None:
        """Queue the next main challenge (Tier 1, or a built-in one for this slot)."""
        opened, view = self._opened, self.view
        if opened is None:
            return
        self.steps.main_challenge(retry=retry)
        if not retry:
            view.answer_box.clear()  # the last answer is saved; a retry keeps typed-ahead text
        view.challenge_caption.setText("Challen&ge")
        view.clear_texts()
        sink, read = self.jobs.stream(self._apply_text)
        probe = not self.offline.shown
        self.set_phase(Phase.STREAMING)
        self.jobs.submit(
            lambda progress: ask_challenge(opened, sink(progress), builtin=builtin, probe=probe),
            self._on_challenge,
            self._on_generation_failed,
            text=read,
        )

    def _on_challenge(self, asked: Asked) -> None:
        view = self.view
        self.steps.asked(asked.remaining, asked.result.challenge if asked.result else None)
        self.offline.note(asked)
        if asked.result is None:  # no follow-up this time
            self.set_phase(Phase.ANSWERED)
            self.answers.focus_next()
            return
        if self._phase is Phase.BUSY:  # cancelled too late: the challenge was finished
            view.status_label.clear()
        view.show_text(asked.result.challenge.text)
        notices = [n for n in asked.result.notices if n != asked.offline_reason]
        view.notice_label.setText(notices_text(notices))
        self.set_phase(Phase.ANSWERING)
        view.answer_box.setFocus()  # a rating waits before a follow-up, never beside one

    def _on_generation_failed(self, error: Exception) -> None:
        if not isinstance(error, GenerationCancelled):
            show_failure(self.view, error)
        if self.steps.writing_failed():  # a follow-up: the session goes on without it
            self.set_phase(Phase.ANSWERED)
            self.answers.focus_next()
        else:
            self.set_phase(Phase.CANCELLED)

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

    def cancel_generation(self) -> None:
        """Esc: close the stream now. Nothing is recorded for this challenge. While the
        judge on this computer grades, Esc stops it: the answer stays saved, unjudged."""
        opened = self._opened
        if self._phase is Phase.JUDGING and opened is not None:
            opened.run.stop_judging()
            return
        if self._phase is not Phase.STREAMING or opened is None:
            return
        opened.run.cancel()
        self.jobs.drop_stream()  # whatever is still in flight is stale
        view = self.view
        view.challenge_view.clear()
        if self.steps.is_follow_up:
            view.status_label.setText("Follow-up cancelled. Your answer is saved.")
        else:
            view.status_label.setText(
                "Generation cancelled — nothing was saved for this challenge. "
                "Retry, or use a built-in challenge."
            )
        self.set_phase(Phase.BUSY)  # until the lane confirms, moments later

    # --- answers ----------------------------------------------------------------------------------
    def _primary(self) -> None:
        """Ctrl+Enter: submit an answer, or go on once it is saved (never past a verdict
        that is still on its way: a second Ctrl+Enter would hide it)."""
        if self._phase is Phase.ANSWERING:
            self.answers.submit()
        elif self._phase is not Phase.JUDGING and self.view.next_button.isEnabled():
            self.next()

    def submit(self) -> None:
        self.answers.submit()

    def follow_up(self) -> None:
        """Ask the follow-up on the answer the steps name."""
        opened, view = self._opened, self.view
        assert opened is not None
        parent, answer = self.steps.follow_up()
        view.challenge_caption.setText("Follow-up challen&ge (on your answer above)")
        view.challenge_view.clear()
        view.notice_label.clear()
        view.answer_box.clear()  # saved; the verdict on it stays in view below
        sink, read = self.jobs.stream(self._apply_text)
        probe = not self.offline.shown
        self.set_phase(Phase.STREAMING)
        self.jobs.submit(
            lambda progress: ask_follow_up(opened, parent, answer, sink(progress), probe=probe),
            self._on_challenge,
            self._on_generation_failed,
            text=read,
        )

    def skip(self) -> None:
        if self._phase is not Phase.ANSWERING:
            return
        self.steps.answer_skipped()
        self.view.answer_box.clear()
        self.next()

    def next(self) -> None:
        """Next main challenge (a follow-up still being written is dropped), or the summary."""
        opened = self._opened
        if opened is None:
            return
        step = self.steps.go_on()  # it passes over a follow-up waiting for a rating
        if self._phase is Phase.STREAMING:
            opened.run.cancel()
        if step is Step.CHALLENGE:
            self._ask(builtin=False, retry=False)
        else:
            self._end_session(show=True)


def _ignore(_result: object) -> None:
    pass
