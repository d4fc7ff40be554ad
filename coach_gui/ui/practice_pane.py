"""The practice pane: a challenge streams in, the learner answers, each answer is saved at
once and then judged (when the judge is on), and the verdict shows the gaps.

Every Ollama, Gemini and journal call runs on the pane's own one-thread worker
(`practice_worker`), so calls reach the session one at a time and in order, and a long
generation never holds up note saves. Widgets are touched only on the GUI thread. This
module starts and ends sessions; `practice_steps` has what happens within one.
"""

from __future__ import annotations

import html
import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, Qt, Signal, Slot
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QMessageBox, QWidget

from coach_gui.ui.failures import show_failure
from coach_gui.ui.payload_review import SESSION_ENDED, PayloadReviewDialog, ReviewGate
from coach_gui.ui.practice_jobs import OpenedRun, SessionSummary, close_run, end_run, open_run
from coach_gui.ui.practice_steps import PracticeSteps
from coach_gui.ui.practice_view import Phase

if TYPE_CHECKING:
    from collections.abc import Callable

    from coach_gui.bootstrap import AppContext
    from coach_gui.domain.notes import Note
    from coach_gui.domain.practice import Attempt, GapPlan
    from coach_gui.ui.payload_review import PendingReview

__all__ = ["Phase", "PracticePane", "SessionSummary"]

QUIT_WAIT_MS = 500  # how long quitting waits for the session's seal (it takes milliseconds)


class PracticePane(PracticeSteps):
    session_started = Signal(str)  # the note's title
    session_finished = Signal(object)  # SessionSummary
    next_due_requested = Signal()  # "Practise the next due note" on the summary
    model_downloaded = Signal(str)
    add_assertions_requested = Signal(str)  # the note's id: open it to add assertions

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self._abandon_start = threading.Event()
        self._gate: ReviewGate | None = None
        self._review_dialog: PayloadReviewDialog | None = None
        self._wire()
        self._set_phase(Phase.IDLE)
        app = QCoreApplication.instance()
        if app is not None:  # a safety net: the main window should call shutdown() first
            app.aboutToQuit.connect(lambda: self.shutdown(QUIT_WAIT_MS))

    def _wire(self) -> None:
        self.submit_button.clicked.connect(self.submit)
        self.skip_button.clicked.connect(self.skip)
        self.cancel_button.clicked.connect(self.cancel_generation)
        self.retry_button.clicked.connect(lambda: self._ask(builtin=False, retry=True))
        self.builtin_button.clicked.connect(lambda: self._ask(builtin=True, retry=True))
        self.next_button.clicked.connect(self.next)
        self.finish_button.clicked.connect(self.finish)
        self.again_button.clicked.connect(self._again)
        self.next_due_button.clicked.connect(self.next_due_requested)
        self.resume_button.clicked.connect(self._again)
        self.download_button.clicked.connect(self.download_model)
        self.add_assertions_button.clicked.connect(
            lambda: self.add_assertions_requested.emit(self._note.id if self._note else "")
        )
        self.self_rating.rated.connect(self._record_self_rating)
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, self._primary, context=context)
        QShortcut(QKeySequence("Esc"), self, self.cancel_generation, context=context)

    def set_settings_opener(self, open_settings: Callable[[], None]) -> None:
        """Let the judge notice offer Open Settings (the window owns the Settings dialog)."""
        self.settings_button.clicked.connect(open_settings)
        self.settings_button.show()

    def take_focus(self) -> None:
        """When the pane is switched to: focus where the learner goes on from."""
        if self._phase is Phase.FINISHED:
            self.again_button.setFocus()
        elif self._phase is Phase.IDLE:
            self.resume_button.setFocus()  # nothing takes focus while it is hidden
        elif self._phase is Phase.ANSWERED:
            self.next_button.setFocus()
        else:
            self.answer_box.setFocus()

    @property
    def active(self) -> bool:
        return self._opened is not None or self._phase is Phase.BUSY

    @property
    def note(self) -> Note | None:
        """The note of the session on screen (or of the last one)."""
        return self._note

    def has_unsubmitted_answer(self) -> bool:
        """Typed and not yet saved. (An answer being saved is not: quitting waits for it,
        tasks.quiesce.)"""
        typing = self._phase in (Phase.ANSWERING, Phase.STREAMING, Phase.CANCELLED)
        return self._opened is not None and typing and bool(self.answer_box.toPlainText().strip())

    def confirm_leave(self, question: str = "Finish without it?") -> bool:
        """Ask before a typed, unsubmitted answer is dropped; True to go ahead."""
        if not self.has_unsubmitted_answer():
            return True
        buttons = QMessageBox.StandardButton
        asked = QMessageBox.question(
            self, "Answer not submitted",
            f"Your answer to this challenge is not submitted yet. {question}",
            buttons.Discard | buttons.Cancel, buttons.Cancel,
        )  # fmt: skip
        return asked == buttons.Discard

    # --- starting and ending ------------------------------------------------------------------
    def start(self, note: Note, plan: GapPlan | None = None) -> None:
        """Start a session on `note` (ending the current one first; its answers are kept).
        The judge and privacy switches are read from the config as it is now. `plan`
        (practise these gaps) targets its assertions and is sealed with the session."""
        self._end_session(show=False)
        self.worker.closing = False
        self._note = note
        context, settings = self.context, self.context.practice_settings()
        self._total = self._remaining = settings.challenges
        self._follow_ups = settings.follow_ups
        self._number = self._saved = self._skipped = 0
        self._offline_reason, self._banner_shown = None, False
        self._is_follow_up, self._challenge = False, None
        self.banner.hide()
        self.judge_notice.hide()
        self.assertions_notice.setVisible(not note.core_assertions)
        self.resume_button.hide()
        doing = (
            "Practising"
            if plan is None
            else "Practising gaps"
            if plan.gap_ids
            else "Practising what is due"
        )
        self.title_label.setText(f"{doing}: {note.title}")
        self.progress_label.setText("Starting…")
        self._clear_texts()
        self.answer_box.clear()
        review = None
        # Whether or not the judge is on now: it may be switched on mid-session.
        if context.config.judge.review_payloads:
            self._gate = ReviewGate(context.config.judge.model, self)
            self._gate.asked.connect(self._review)
            review = self._gate.review
        abandoned = self._abandon_start = threading.Event()

        def started(opened: OpenedRun | None) -> None:
            if opened is not None and abandoned.is_set():
                self.worker.submit(lambda: close_run(opened), _ignore, supersede=False)
            elif opened is not None:
                self._on_started(opened)

        self._set_phase(Phase.BUSY)
        self.worker.submit(
            lambda: open_run(context, note, settings, review, abandoned, plan),
            started,
            self._on_start_failed,
            always=True,
        )
        self.session_started.emit(note.title)

    def _on_started(self, opened: OpenedRun) -> None:
        self._opened = opened
        if opened.judge_problem:  # said once, here; each answer then says only "kept"
            self._show_judge_problem(opened.judge_problem)
        self.answer_box.setFocus()  # the learner may start typing while it is written
        self._ask(builtin=False, retry=False)

    def _on_start_failed(self, error: Exception) -> None:
        if self._abandon_start.is_set():
            return
        show_failure(self, error)
        self._set_phase(Phase.IDLE)

    def _again(self) -> None:
        if self._note is not None:
            self.start(self._note)

    def set_next_due(self, title: str | None) -> None:
        """Name the next note due today on the summary (None: no button)."""
        self.next_due_button.setVisible(title is not None)
        if title is not None:
            self.next_due_button.setText(f"Practise the ne&xt due note: {title}")

    def offer(self, note: Note) -> None:
        """No session, but one on `note` ended when Coach last closed: offer to go on."""
        if self._opened is None and self._phase is Phase.IDLE:
            self._note = note
            self.idle_label.setText(
                f"Your last session on “{note.title}” ended when Coach closed; its answers "
                "are kept."
            )
            self.resume_button.show()

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
        self.worker.drop_stream()
        counts = (self._saved, self._skipped)

        def ended(summary: SessionSummary) -> None:
            if show:
                self._show_summary(summary)
            self.session_finished.emit(summary)

        if show:
            self._set_phase(Phase.BUSY)
        self.worker.submit(lambda: end_run(opened, *counts), ended, supersede=show)

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Before the window closes: end the session and wait for the worker, at most
        `timeout_ms` (True if idle). Asked again once closing, it does not wait again."""
        again = self.worker.closing
        self._end_session(show=False)
        self.worker.closing = True
        return self.worker.wait(0 if again else timeout_ms)

    def wait_idle(self, timeout_ms: int = 10_000) -> bool:
        """Tests and teardown: wait for the worker; results arrive at the next event turn."""
        return self.worker.wait(timeout_ms)

    def _record_self_rating(self, attempt: Attempt, rating: int) -> None:
        """On the worker, in order with the session's other journal writes."""
        note, context, panel = self._note, self.context, self.self_rating
        if note is None:
            return
        self.worker.submit(
            lambda: context.scheduler().rate_unjudged(attempt, note, rating),
            lambda _none: panel.confirm(rating),
            supersede=False,
            durable=True,
        )

    # --- reviewing a payload before it is sent ------------------------------------------------
    @Slot(object)
    def _review(self, pending: PendingReview) -> None:
        if pending.decided.is_set():
            return  # the session ended before this reached the screen
        if self._gate is None or self.worker.closing:
            pending.decide(False, SESSION_ENDED)
            return
        dialog = PayloadReviewDialog(pending, self)
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

    def download_model(self) -> None:
        from coach_gui.ui.model_download import ModelDownloadDialog

        dialog = ModelDownloadDialog.for_context(self.context, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.downloaded.connect(self._on_model_downloaded)
        dialog.open()

    def _on_model_downloaded(self, model: str) -> None:
        self.banner_label.setText(
            f"<b>{html.escape(model)} is installed.</b> The next challenge is written by it."
        )
        self.download_button.hide()
        self._offline_reason = None
        run = self._run
        if run is not None:  # on the worker, so it never races a running call
            self.worker.submit(run.resume_tier1, _ignore, supersede=False)
        self._banner_shown = False  # should Tier 1 fail again, say so again
        self.model_downloaded.emit(model)


def _ignore(_result: object) -> None:
    pass
