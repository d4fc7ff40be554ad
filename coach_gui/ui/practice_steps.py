"""The steps of a practice session, once it is open: a challenge streams in (or is
cancelled), the answer is saved at once, then judged when the judge is on, then an
optional follow-up, then Next. Starting and ending sessions is in `practice_pane`."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal, Slot
from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QWidget

from coach_gui.domain.session_state import JUDGE_OFF
from coach_gui.domain.tier1_errors import GenerationCancelled
from coach_gui.ui.failures import learner_message, show_failure
from coach_gui.ui.practice_jobs import Asked, OpenedRun, ask_challenge, ask_follow_up
from coach_gui.ui.practice_view import Phase, PracticeView
from coach_gui.ui.practice_worker import PracticeWorker

if TYPE_CHECKING:
    from coach_gui.domain.challenges import Challenge
    from coach_gui.domain.notes import Note
    from coach_gui.domain.practice import Attempt
    from coach_gui.services.judging import JudgeOutcome
    from coach_gui.services.practice import PracticeRun

log = logging.getLogger(__name__)


class PracticeSteps(PracticeView):
    tier1_offline = Signal(str)  # Tier 1 became unavailable, and why (refresh the status bar)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.worker = PracticeWorker(self, self._show_failure)
        self.worker.text_arrived.connect(self._apply_text)
        self._opened: OpenedRun | None = None
        self._note: Note | None = None
        self._follow_ups = False
        self._challenge: Challenge | None = None
        self._saved = self._skipped = 0
        self._offline_reason: str | None = None
        self._banner_shown = False

    @property
    def _run(self) -> PracticeRun | None:
        return self._opened.run if self._opened is not None else None

    def _has_session(self) -> bool:
        return self._opened is not None

    def _show_failure(self, error: Exception) -> None:
        show_failure(self, error)
        self._set_phase(Phase.CANCELLED if self._opened is not None else Phase.IDLE)

    def _end_session(self, *, show: bool) -> None:
        raise NotImplementedError  # the pane ends sessions

    # --- challenges -----------------------------------------------------------------------------
    def _clear_texts(self) -> None:
        self.challenge_view.clear()
        self.notice_label.clear()
        self.status_label.clear()
        self.verdict_view.clear()
        self.self_rating.withdraw()

    def _ask(self, *, builtin: bool, retry: bool) -> None:
        """Queue the next main challenge (Tier 1, or a built-in one for this slot)."""
        run, opened = self._run, self._opened
        if run is None or opened is None:
            return
        if not retry:
            self._number = self._total - self._remaining + 1
            self.answer_box.clear()  # the last answer is saved; a retry keeps typed-ahead text
        self._is_follow_up, self._challenge = False, None
        self.challenge_caption.setText("Challen&ge")
        self._clear_texts()
        on_text = self.worker.stream_sink()
        probe = opened.tier1 if not self._banner_shown else None
        self._set_phase(Phase.STREAMING)
        self.worker.submit(
            lambda: ask_challenge(run, on_text, probe, builtin=builtin),
            self._on_challenge,
            self._on_generation_failed,
        )

    def _on_challenge(self, asked: Asked) -> None:
        self._remaining = asked.remaining
        self._note_offline(asked)
        if asked.result is None:  # no follow-up this time
            self._is_follow_up = False
            self._set_phase(Phase.ANSWERED)
            self.next_button.setFocus()
            return
        if self._phase is Phase.BUSY:  # cancelled too late: the challenge was finished
            self.status_label.clear()
        self._challenge = asked.result.challenge
        self._show_text(asked.result.challenge.text)
        notices = [n for n in asked.result.notices if n != asked.offline_reason]
        self.notice_label.setText("\n".join(notices))
        self._set_phase(Phase.ANSWERING)
        self.answer_box.setFocus()

    def _on_generation_failed(self, error: Exception) -> None:
        if not isinstance(error, GenerationCancelled):
            show_failure(self, error)
        if self._is_follow_up:
            self._is_follow_up = False
            self._set_phase(Phase.ANSWERED)
        else:
            self._set_phase(Phase.CANCELLED)

    @Slot(str)
    def _apply_text(self, text: str) -> None:
        if self._phase is not Phase.STREAMING:
            return  # stale: from a cancelled or finished generation
        if not text and self.challenge_view.toPlainText():
            self.notice_label.setText(
                "That challenge was too close to your note, so it was withdrawn. Writing another…"
            )
        self._show_text(text)

    def _show_text(self, text: str) -> None:
        shown = self.challenge_view.toPlainText()
        if text == shown:
            return
        if shown and text.startswith(shown):  # append: no flicker, no lost selection
            cursor = QTextCursor(self.challenge_view.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text[len(shown) :])
        else:
            self.challenge_view.setPlainText(text)

    def cancel_generation(self) -> None:
        """Esc: close the stream now. Nothing is recorded for this challenge."""
        if self._phase is not Phase.STREAMING or self._run is None:
            return
        self._run.cancel()
        self.worker.drop_stream()  # whatever is still in flight is stale
        self.challenge_view.clear()
        if self._is_follow_up:
            self.status_label.setText("Follow-up cancelled. Your answer is saved.")
        else:
            self.status_label.setText(
                "Generation cancelled — nothing was saved for this challenge. "
                "Retry, or use a built-in challenge."
            )
        self._set_phase(Phase.BUSY)  # until the worker confirms, moments later

    # --- answers ----------------------------------------------------------------------------------
    def _primary(self) -> None:
        """Ctrl+Enter: submit an answer, or go on once it is saved (never past a verdict
        that is still on its way: a second Ctrl+Enter would hide it)."""
        if self._phase is Phase.ANSWERING:
            self.submit()
        elif self._phase is not Phase.JUDGING and self.next_button.isEnabled():
            self.next()

    def submit(self) -> None:
        run, challenge = self._run, self._challenge
        if self._phase is not Phase.ANSWERING or run is None or challenge is None:
            return
        answer = self.answer_box.toPlainText()
        if not answer.strip():
            self.status_label.setText("Write an answer first, or Skip this challenge.")
            self.answer_box.setFocus()
            return
        self._set_phase(Phase.BUSY)
        self.worker.submit(
            lambda: run.submit(challenge, answer), self._on_saved, self._on_not_saved, durable=True
        )

    def _on_saved(self, attempt: Attempt) -> None:
        self._saved += 1
        run = self._run
        subject = "your follow-up answer" if self._is_follow_up else "your answer"
        if run is None or not run.will_judge(attempt):
            self.status_label.confirm(self._saved_text(attempt.unjudged_reason))
            self._offer_self_rating(attempt)
            self._after_answer(attempt)
            return
        self.status_label.confirm("Saved.")
        self.verdict_view.show_judging(subject)
        self._set_phase(Phase.JUDGING)
        self.worker.submit(
            lambda: run.judge(attempt),
            lambda outcome: self._on_judged(attempt, outcome, subject),
            lambda error: self._on_judge_failed(attempt, error, subject),
        )

    def _saved_text(self, reason: str | None) -> str:
        if reason == JUDGE_OFF:
            return "Saved — not judged: the judge is switched off. You can have it judged later."
        if self._opened is not None and reason == self._opened.judge_problem:
            return "Saved — kept unjudged until the judge is set up."
        return f"Saved — not judged yet: {reason}." if reason else "Saved."

    def _on_judged(self, attempt: Attempt, outcome: JudgeOutcome | None, subject: str) -> None:
        note = self._note
        if outcome is not None and outcome.verdict is not None and note is not None:
            self.verdict_view.show_verdict(outcome.verdict, note.core_assertions, subject)
        elif outcome is not None:
            self.verdict_view.show_unjudged(outcome.reason or "", subject)
            self._offer_self_rating(attempt)
        self._after_answer(attempt)

    def _on_judge_failed(self, attempt: Attempt, error: Exception, subject: str) -> None:
        log.info("judging failed in the practice pane: %r", error)
        self.verdict_view.show_unjudged(learner_message(error), subject)
        self._offer_self_rating(attempt)
        self._after_answer(attempt)

    def _offer_self_rating(self, attempt: Attempt) -> None:
        """Unjudged: the learner may rate their recall of the note's assertions."""
        if self._note is not None and self._note.core_assertions:
            self.self_rating.offer(attempt, self._note.core_assertions)

    def _after_answer(self, attempt: Attempt) -> None:
        parent, was_follow_up = self._challenge, self._is_follow_up
        if was_follow_up or parent is None or self._offline_reason or not self._follow_ups:
            self._is_follow_up = False
            self._set_phase(Phase.ANSWERED)
            self.next_button.setFocus()
            return
        self._follow_up(parent, attempt.answer)

    def _on_not_saved(self, error: Exception) -> None:
        show_failure(self, error)  # the answer stays in the box: nothing typed is lost
        self._set_phase(Phase.ANSWERING)

    def _follow_up(self, parent: Challenge, answer: str) -> None:
        run, opened = self._run, self._opened
        assert run is not None and opened is not None
        self._is_follow_up, self._challenge = True, None
        self.challenge_caption.setText("Follow-up challen&ge (on your answer)")
        self.challenge_view.clear()
        self.notice_label.clear()
        self.answer_box.clear()  # saved; the verdict on it stays in view below
        on_text = self.worker.stream_sink()
        probe = opened.tier1 if not self._banner_shown else None
        self._set_phase(Phase.STREAMING)
        self.worker.submit(
            lambda: ask_follow_up(run, parent, answer, on_text, probe),
            self._on_challenge,
            self._on_generation_failed,
        )

    def skip(self) -> None:
        if self._phase is not Phase.ANSWERING:
            return
        self._skipped += 1
        self.answer_box.clear()
        self.next()

    def next(self) -> None:
        """Next main challenge (a follow-up still being written is dropped), or the summary."""
        if self._run is None:
            return
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
        self._show_offline(reason, asked.model_missing)
        self.tier1_offline.emit(reason)
