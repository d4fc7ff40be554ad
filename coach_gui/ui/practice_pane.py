"""The practice pane: a challenge streams in, the learner answers, each answer is saved.

Every Ollama and journal call runs on the pane's own one-thread pool, so calls reach the
session one at a time and in order, and a long generation never holds up note saves (the
WRITER lane). Widgets are touched only on the GUI thread: streamed text is coalesced (the
worker keeps just the latest text, and at most one delivery waits in the event queue).
"""

from __future__ import annotations

import html
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, auto
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication, QObject, QRunnable, Qt, QThreadPool, Signal, Slot
from PySide6.QtGui import QKeySequence, QPalette, QShortcut, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPlainTextEdit,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.errors import CoachError
from coach_gui.domain.practice import Disposition
from coach_gui.domain.tier1_errors import GenerationCancelled
from coach_gui.ui.failures import show_failure
from coach_gui.ui.tier1_status import Tier1State, probe_tier1, state_colour

if TYPE_CHECKING:
    from coach_gui.adapters.tier1_ollama import OllamaTier1
    from coach_gui.bootstrap import AppContext
    from coach_gui.domain.challenges import Challenge
    from coach_gui.domain.notes import Note
    from coach_gui.services.practice import ChallengeResult, PracticeRun

log = logging.getLogger(__name__)

IDLE_TEXT = "No practice session.\n\nOpen a note and choose Practise to start one."
# What the learner reads after a submit, by the attempt's `unjudged_reason`.
SAVED_TEXT = {
    "no judge is set up": "Saved — not judged yet (the judge comes in a later version).",
    "the judge is switched off": "Saved — not judged: the judge is switched off in Settings. "
    "You can have it judged later.",
}


class Phase(Enum):
    IDLE = auto()  # no session
    BUSY = auto()  # starting, saving or finishing: wait for the worker
    STREAMING = auto()  # a challenge or follow-up is being written
    ANSWERING = auto()  # a challenge is on screen, waiting for an answer
    ANSWERED = auto()  # the answer is saved; Next moves on
    CANCELLED = auto()  # generation was cancelled; retry or take a built-in challenge
    FINISHED = auto()  # the summary is on screen


@dataclass(frozen=True)
class SessionSummary:
    session_id: str
    note_title: str
    answers_saved: int
    skipped: int
    disposition: Disposition


@dataclass(frozen=True)
class _Asked:
    """What a challenge job hands back: plain data, read on the worker thread."""

    result: ChallengeResult | None
    remaining: int
    offline_reason: str | None
    model_missing: bool = False


class _Relay(QObject):
    """Created on the GUI thread, so the worker's emits arrive here queued."""

    text_ready = Signal()
    job_done = Signal(int, object)
    job_failed = Signal(int, object)

    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self._lock = threading.Lock()
        self._latest: tuple[int, str] | None = None

    def push_text(self, generation: int, text: str) -> None:
        """Worker thread: keep only the latest text; wake the GUI once per batch."""
        with self._lock:
            waiting = self._latest is not None
            self._latest = (generation, text)
        if not waiting:
            self.text_ready.emit()

    def take_text(self) -> tuple[int, str] | None:
        with self._lock:
            latest, self._latest = self._latest, None
        return latest


class _Job(QRunnable):
    def __init__(self, relay: _Relay, job_id: int, work: Callable[[], object]) -> None:
        super().__init__()
        self._relay, self._id, self._work = relay, job_id, work

    def run(self) -> None:
        try:
            try:
                result = self._work()
            except Exception as exc:
                self._relay.job_failed.emit(self._id, exc)
            except BaseException as exc:  # never let a worker die silently
                self._relay.job_failed.emit(self._id, RuntimeError(f"stopped: {exc!r}"))
            else:
                self._relay.job_done.emit(self._id, result)
        except RuntimeError:
            log.info("a practice job finished after its pane was gone")


class _Message(QLabel):
    """A plain, selectable line of text that takes no room while it is empty."""

    def __init__(self, name: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setAccessibleName(name)
        self.hide()

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setStyleSheet("")
        self.setVisible(bool(text))

    def confirm(self, text: str) -> None:
        """A line saying something went well (in green, readable on light and dark)."""
        self.setText("✓ " + text)
        self.setStyleSheet(f"color: {state_colour(Tier1State.READY, self.palette()).name()}")

    def clear(self) -> None:
        self.setText("")


def _button(parent: QWidget, text: str, name: str, description: str) -> QPushButton:
    button = QPushButton(text, parent)
    button.setAccessibleName(name)
    button.setAccessibleDescription(description)
    button.setToolTip(description)
    return button


class PracticePane(QWidget):
    session_started = Signal(str)  # the note's title
    session_finished = Signal(object)  # SessionSummary
    tier1_offline = Signal(str)  # Tier 1 became unavailable, and why (refresh the status bar)
    model_downloaded = Signal(str)

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.pool = QThreadPool(self)
        self.pool.setObjectName("coach-practice")
        self.pool.setMaxThreadCount(1)  # a session's calls run one at a time, in order
        self._relay = _Relay(self)
        self._relay.text_ready.connect(self._apply_text)
        self._relay.job_done.connect(self._on_job_done)
        self._relay.job_failed.connect(self._on_job_failed)
        self._handlers: dict[int, tuple[bool, Callable[[Any], None], Callable[[Any], None]]] = {}
        self._job_seq = 0
        self._latest_job = 0
        self._generation = 0  # text from any other generation is stale and dropped
        self._run: PracticeRun | None = None
        self._tier1: OllamaTier1 | None = None  # this session's; closed when it ends
        self._note: Note | None = None
        self._follow_ups = False
        self._phase = Phase.IDLE
        self._challenge: Challenge | None = None
        self._is_follow_up = False
        self._total = self._remaining = self._number = 0
        self._saved = self._skipped = 0
        self._offline_reason: str | None = None
        self._banner_shown = False
        self._closing = False
        self._abandon_start = threading.Event()
        self.setObjectName("practicePane")
        self.setAccessibleName("Practice")
        self._build()
        self._set_phase(Phase.IDLE)
        app = QCoreApplication.instance()
        if app is not None:  # a safety net: the main window should call shutdown() first
            app.aboutToQuit.connect(self.shutdown)

    # --- layout -----------------------------------------------------------------------------
    def _build(self) -> None:
        self.title_label = QLabel(self)
        self.title_label.setTextFormat(Qt.TextFormat.PlainText)  # a title is never markup
        self.title_label.setAccessibleName("Note being practised")
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title_label.setFont(font)
        self.progress_label = QLabel(self)
        self.progress_label.setAccessibleName("Progress")
        header = QHBoxLayout()
        header.addWidget(self.title_label, 1)
        header.addWidget(self.progress_label)

        self.banner = QFrame(self)
        self.banner.setObjectName("offlineBanner")
        self.banner.setAccessibleName("Offline notice")
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        colours = "background: #4a3b12; color: #ffe9b0" if dark else "background: #fff4ce"
        self.banner.setStyleSheet(f"#offlineBanner {{ {colours}; border-radius: 4px; }}")
        self.banner_label = QLabel(self.banner)
        self.banner_label.setWordWrap(True)
        self.banner_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.banner_label.setAccessibleName("Why practice is offline")
        self.download_button = _button(
            self.banner, "&Download model", "Download model",
            "Ask Ollama on this computer to download the configured model",
        )  # fmt: skip
        self.download_button.clicked.connect(self.download_model)
        self.dismiss_button = _button(
            self.banner, "Dis&miss", "Dismiss offline notice", "Hide this notice"
        )
        self.dismiss_button.clicked.connect(self.banner.hide)
        banner_row = QHBoxLayout(self.banner)
        banner_row.addWidget(self.banner_label, 1)
        banner_row.addWidget(self.download_button)
        banner_row.addWidget(self.dismiss_button)
        self.banner.hide()

        self.challenge_caption = QLabel("Challen&ge", self)
        self.writing_label = QLabel(self)
        self.writing_label.setAccessibleName("Writing indicator")
        accent = self.palette().color(QPalette.ColorRole.Link).name()
        self.writing_label.setStyleSheet(f"color: {accent}; font-style: italic")
        caption_row = QHBoxLayout()
        caption_row.addWidget(self.challenge_caption)
        caption_row.addStretch(1)
        caption_row.addWidget(self.writing_label)
        self.challenge_view = QPlainTextEdit(self)
        self.challenge_view.setObjectName("challengeView")
        self.challenge_view.setReadOnly(True)
        self.challenge_view.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        self.challenge_view.setTabChangesFocus(True)
        font = self.challenge_view.font()
        font.setPointSizeF(font.pointSizeF() * 1.35)  # relative: follows the OS font size
        self.challenge_view.setFont(font)
        self.challenge_view.setMinimumHeight(self.challenge_view.fontMetrics().lineSpacing() * 4)
        self.challenge_view.setAccessibleName("Challenge")
        self.challenge_view.setAccessibleDescription("The question to answer in your own words")
        self.challenge_caption.setBuddy(self.challenge_view)
        self.notice_label = _Message("Notices", self)
        self.status_label = _Message("Session status", self)

        self.answer_caption = QLabel("Your &answer", self)
        self.answer_box = QPlainTextEdit(self)
        self.answer_box.setObjectName("answerBox")
        self.answer_box.setTabChangesFocus(True)
        self.answer_box.setPlaceholderText("Answer in your own words; Ctrl+Enter submits.")
        self.answer_box.setAccessibleName("Your answer")
        self.answer_box.setAccessibleDescription("Write your answer; Ctrl+Enter submits it")
        self.answer_caption.setBuddy(self.answer_box)

        self.submit_button = _button(
            self, "&Submit", "Submit answer", "Save your answer (Ctrl+Enter)"
        )
        self.skip_button = _button(self, "S&kip", "Skip challenge", "Go on without answering")
        self.cancel_button = _button(
            self, "&Cancel generation", "Cancel generation", "Stop writing this challenge (Esc)"
        )
        self.retry_button = _button(self, "&Retry", "Retry", "Ask the local model again")
        self.builtin_button = _button(
            self, "Use &built-in challenge", "Use a built-in challenge",
            "Take a ready-made challenge instead of waiting for the local model",
        )  # fmt: skip
        self.next_button = _button(self, "&Next", "Next challenge", "Go on (Ctrl+Enter)")
        self.finish_button = _button(
            self, "F&inish session", "Finish session", "End the session; answers are kept"
        )
        buttons = QHBoxLayout()
        for button in (self.submit_button, self.skip_button, self.cancel_button,
                       self.retry_button, self.builtin_button, self.next_button):  # fmt: skip
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.finish_button)
        self.submit_button.clicked.connect(self.submit)
        self.skip_button.clicked.connect(self.skip)
        self.cancel_button.clicked.connect(self.cancel_generation)
        self.retry_button.clicked.connect(lambda: self._ask(builtin=False, retry=True))
        self.builtin_button.clicked.connect(lambda: self._ask(builtin=True, retry=True))
        self.next_button.clicked.connect(self.next)
        self.finish_button.clicked.connect(self.finish)

        session = QWidget(self)
        column = QVBoxLayout(session)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(caption_row)
        column.addWidget(self.challenge_view, 1)
        column.addWidget(self.notice_label)
        column.addWidget(self.status_label)
        column.addWidget(self.answer_caption)
        column.addWidget(self.answer_box, 2)
        column.addLayout(buttons)
        self.idle_label = QLabel(IDLE_TEXT, self)
        self.idle_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.idle_label.setWordWrap(True)
        self.idle_label.setAccessibleName("No practice session")
        self.summary = QWidget(self)
        self.summary_label = QLabel(self.summary)
        self.summary_label.setWordWrap(True)
        self.summary_label.setAccessibleName("Session summary")
        self.again_button = _button(
            self.summary, "&Practise this note again", "Practise again",
            "Start a new session on the same note",
        )  # fmt: skip
        self.again_button.clicked.connect(self._again)
        summary_column = QVBoxLayout(self.summary)
        summary_column.addWidget(self.summary_label)
        summary_column.addWidget(self.again_button, 0, Qt.AlignmentFlag.AlignLeft)
        summary_column.addStretch(1)
        self.pages = QStackedWidget(self)
        for page in (self.idle_label, session, self.summary):
            self.pages.addWidget(page)
        self._session_page = session

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.banner)
        layout.addWidget(self.pages, 1)
        order = [self.download_button, self.dismiss_button, self.challenge_view, self.answer_box,
                 self.submit_button, self.skip_button, self.cancel_button, self.retry_button,
                 self.builtin_button, self.next_button, self.finish_button]  # fmt: skip
        for first, second in pairwise(order):
            QWidget.setTabOrder(first, second)

        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            QShortcut(QKeySequence(keys), self, self._primary, context=context)
        QShortcut(QKeySequence("Esc"), self, self.cancel_generation, context=context)

    # --- state ------------------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def active(self) -> bool:
        return self._run is not None or self._phase is Phase.BUSY

    def _set_phase(self, phase: Phase) -> None:
        self._phase = phase
        session = phase not in (Phase.IDLE, Phase.FINISHED)
        self.pages.setCurrentWidget(
            self._session_page if session else (self.summary if phase is Phase.FINISHED
                                                else self.idle_label)
        )  # fmt: skip
        streaming = phase is Phase.STREAMING
        self.writing_label.setText("writing…" if streaming else "")
        self.submit_button.setEnabled(phase is Phase.ANSWERING)
        self.skip_button.setEnabled(phase is Phase.ANSWERING)
        self.cancel_button.setEnabled(streaming)
        for button in (self.retry_button, self.builtin_button):
            button.setVisible(phase is Phase.CANCELLED)
        self.next_button.setEnabled(phase is Phase.ANSWERED or (streaming and self._is_follow_up))
        self.next_button.setText("&Next" if self._remaining else "&Next: summary")
        self.finish_button.setEnabled(self._run is not None and phase is not Phase.BUSY)
        self.answer_box.setReadOnly(phase is Phase.BUSY)
        if phase is Phase.FINISHED:
            self.banner.hide()  # it was about the session that has ended
        elif session and self._total:
            where = f"Challenge {self._number} of {self._total}"
            self.progress_label.setText(where + (" · follow-up" if self._is_follow_up else ""))

    def _submit_job(
        self,
        work: Callable[[], object],
        done: Callable[[Any], None],
        failed: Callable[[Exception], None] | None = None,
        *,
        supersede: bool = True,
        always: bool = False,
    ) -> None:
        """Queue `work`. A superseding job makes the outcome of every job queued before it
        stale (the screen has moved on): those are dropped, unless queued with `always`."""
        self._job_seq += 1
        if supersede:
            self._latest_job = self._job_seq
        keep = always or not supersede
        self._handlers[self._job_seq] = (keep, done, failed or self._show_failure)
        self.pool.start(_Job(self._relay, self._job_seq, work))

    def _wanted(self, job_id: int) -> tuple[Callable[[Any], None], Callable[[Any], None]] | None:
        keep, done, failed = self._handlers.pop(job_id)
        if self._closing or (not keep and job_id != self._latest_job):
            return None
        return done, failed

    @Slot(int, object)
    def _on_job_done(self, job_id: int, result: object) -> None:
        handlers = self._wanted(job_id)
        if handlers is not None:
            handlers[0](result)

    @Slot(int, object)
    def _on_job_failed(self, job_id: int, error: object) -> None:
        handlers = self._wanted(job_id)
        if handlers is None:
            log.info("dropped the outcome of a superseded practice job: %r", error)
        else:
            handlers[1](error)

    def _show_failure(self, error: Exception) -> None:
        show_failure(self, error)
        self._set_phase(Phase.CANCELLED if self._run is not None else Phase.IDLE)

    # --- starting and ending ------------------------------------------------------------------
    def start(self, note: Note) -> None:
        """Start a session on `note` (ending the current one first; its answers are kept)."""
        self._end_session(show=False)
        self._closing = False
        self._note = note
        context, settings = self.context, self.context.practice_settings()
        self._total = self._remaining = settings.challenges
        self._follow_ups = settings.follow_ups
        self._number = self._saved = self._skipped = 0
        self._offline_reason, self._banner_shown = None, False
        self._is_follow_up, self._challenge = False, None
        self.banner.hide()
        self.title_label.setText(f"Practising: {note.title}")
        self.progress_label.setText("Starting…")
        self._clear_texts()

        abandoned = self._abandon_start = threading.Event()

        def begin() -> tuple[PracticeRun, OllamaTier1 | None] | None:
            from coach_gui.adapters.practice_journal import SqlitePracticeJournal
            from coach_gui.bootstrap import SystemClock
            from coach_gui.services.practice import PracticeRun

            journal = SqlitePracticeJournal(context.journal)
            try:
                tier1, reason = context.tier1(), None
            except CoachError as exc:  # a bad Ollama URL: practise offline
                tier1, reason = None, str(exc)
            run = PracticeRun(note, settings, journal, tier1, SystemClock())
            run.offline_reason = reason or run.offline_reason
            run.start()
            if abandoned.is_set():  # the pane moved on meanwhile (another note, or closing)
                _close_run(run, tier1)
                return None
            return run, tier1

        def started(result: tuple[PracticeRun, OllamaTier1 | None] | None) -> None:
            if result is not None and abandoned.is_set():
                self._submit_job(lambda: _close_run(*result), _ignore, supersede=False)
            elif result is not None:
                self._on_started(*result)

        self._set_phase(Phase.BUSY)
        self._submit_job(begin, started, self._on_start_failed, always=True)
        self.session_started.emit(note.title)

    def _on_started(self, run: PracticeRun, tier1: OllamaTier1 | None) -> None:
        self._run, self._tier1 = run, tier1
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

    def finish(self) -> None:
        """Finish session: stop any generation, close the session, show the summary."""
        if self._run is None or self._phase is Phase.BUSY:
            return
        if self._phase is Phase.ANSWERING and self.answer_box.toPlainText().strip():
            asked = QMessageBox.question(
                self, "Finish session",
                "Your answer to this challenge is not submitted yet. Finish without it?",
                QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
                QMessageBox.StandardButton.Cancel,
            )  # fmt: skip
            if asked != QMessageBox.StandardButton.Discard:
                return
        self._end_session(show=True)

    def _end_session(self, *, show: bool) -> None:
        self._abandon_start.set()  # a session still starting is closed as soon as it has
        run, tier1 = self._run, self._tier1
        self._run = self._tier1 = None
        if run is None:
            return
        run.cancel()  # a stream still open closes now
        self._generation += 1
        counts = (self._saved, self._skipped)

        def end() -> SessionSummary:
            disposition = _close_run(run, tier1)
            assert run.session is not None
            return SessionSummary(run.session.id, run.note.title, *counts, disposition)

        def ended(summary: SessionSummary) -> None:
            if show:
                self._show_summary(summary)
            self.session_finished.emit(summary)

        if show:
            self._set_phase(Phase.BUSY)
        self._submit_job(end, ended, supersede=show)

    def _show_summary(self, summary: SessionSummary) -> None:
        saved = f"{summary.answers_saved} answer{'s' if summary.answers_saved != 1 else ''}"
        lines = [f"<h3>Session finished: {html.escape(summary.note_title)}</h3>",
                 f"<p>{saved} saved, {summary.skipped} skipped.</p>"]  # fmt: skip
        if summary.disposition is Disposition.UNJUDGED_OFFLINE:
            lines.append("<p>The judge is switched off: the answers are kept unjudged.</p>")
        elif summary.disposition is Disposition.JUDGE_UNAVAILABLE:
            lines.append("<p>The answers are kept, not judged yet (the judge comes in a "
                         "later version).</p>")  # fmt: skip
        self.summary_label.setText("".join(lines))
        self.progress_label.setText("Session finished")
        self._set_phase(Phase.FINISHED)
        self.again_button.setFocus()

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Before the window closes: end the session and wait for the worker (True if idle)."""
        self._end_session(show=False)
        self._closing = True
        return self.pool.waitForDone(timeout_ms)

    def wait_idle(self, timeout_ms: int = 10_000) -> bool:
        """Tests and teardown: wait for the worker; results arrive at the next event turn."""
        return self.pool.waitForDone(timeout_ms)

    # --- challenges -----------------------------------------------------------------------------
    def _clear_texts(self) -> None:
        self.challenge_view.clear()
        self.notice_label.clear()
        self.status_label.clear()
        self.answer_box.clear()

    def _stream_sink(self) -> Callable[[str], None]:
        """The worker's `on_text`: plain data through the relay, never a widget."""
        self._generation += 1
        generation, relay = self._generation, self._relay
        return lambda text: relay.push_text(generation, text)

    def _ask(self, *, builtin: bool, retry: bool) -> None:
        """Queue the next main challenge (Tier 1, or a built-in one for this slot)."""
        run = self._run
        if run is None:
            return
        if not retry:
            self._number = self._total - self._remaining + 1
        self._is_follow_up, self._challenge = False, None
        self.challenge_caption.setText("Challen&ge")
        self.challenge_view.clear()
        self.notice_label.clear()
        self.status_label.clear()
        on_text, tier1 = self._stream_sink(), self._tier1 if not self._banner_shown else None

        def ask() -> _Asked:
            before = run.offline_reason
            if builtin:  # one built-in challenge for this slot, then Tier 1 again
                run.offline_reason = before or "the learner chose a built-in challenge"
            try:
                result = run.next_challenge(on_text)
            finally:
                if builtin:
                    run.offline_reason = before
            return _Asked(result, run.remaining, *_offline(run, tier1))

        self._set_phase(Phase.STREAMING)
        self._submit_job(ask, self._on_challenge, self._on_generation_failed)

    def _on_challenge(self, asked: _Asked) -> None:
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

    @Slot()
    def _apply_text(self) -> None:
        latest = self._relay.take_text()
        if latest is None or latest[0] != self._generation or self._phase is not Phase.STREAMING:
            return  # stale: from a cancelled or finished generation
        text = latest[1]
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
        self._generation += 1  # whatever is still in flight is stale
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
        """Ctrl+Enter: submit an answer, or go on once it is saved."""
        if self._phase is Phase.ANSWERING:
            self.submit()
        elif self.next_button.isEnabled():
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
        self._submit_job(lambda: run.submit(challenge, answer), self._on_saved, self._on_not_saved)

    def _on_saved(self, attempt: Any) -> None:
        self._saved += 1
        reason = attempt.unjudged_reason or "no judge is set up"
        self.status_label.confirm(SAVED_TEXT.get(reason, f"Saved — not judged yet: {reason}."))
        parent, was_follow_up = self._challenge, self._is_follow_up
        self.answer_box.clear()
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
        run = self._run
        assert run is not None
        self._is_follow_up, self._challenge = True, None
        self.challenge_caption.setText("Follow-up challen&ge (on your answer)")
        self.challenge_view.clear()
        self.notice_label.clear()
        on_text, tier1 = self._stream_sink(), self._tier1 if not self._banner_shown else None

        def follow() -> _Asked:
            result = run.follow_up(parent, answer, on_text)
            return _Asked(result, run.remaining, *_offline(run, tier1))

        self._set_phase(Phase.STREAMING)
        self._submit_job(follow, self._on_challenge, self._on_generation_failed)

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
    def _note_offline(self, asked: _Asked) -> None:
        if asked.offline_reason is None or self._banner_shown:
            return
        self._offline_reason, self._banner_shown = asked.offline_reason, True
        self.banner_label.setText(
            f"<b>Practising with built-in challenges.</b> {html.escape(asked.offline_reason)}"
        )
        self.download_button.setVisible(asked.model_missing)
        self.banner.show()
        self.tier1_offline.emit(asked.offline_reason)

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

            def back_online() -> None:
                run.offline_reason = None

            self._submit_job(back_online, _ignore, supersede=False)
        self._banner_shown = False  # should Tier 1 fail again, say so again
        self.model_downloaded.emit(model)


def _ignore(_result: object) -> None:
    pass


def _close_run(run: PracticeRun, tier1: OllamaTier1 | None) -> Disposition:
    """Worker thread: end the session in the journal and let go of its Ollama client."""
    try:
        return run.finish()
    finally:
        if tier1 is not None:
            tier1.close()


def _offline(run: PracticeRun, tier1: OllamaTier1 | None) -> tuple[str | None, bool]:
    """Worker thread: why Tier 1 is off (if it is), and, when `tier1` is given to probe,
    whether downloading the model would fix it."""
    reason = run.offline_reason
    if reason is None or tier1 is None:
        return reason, False
    return reason, probe_tier1(tier1.client, tier1.model_name).state is Tier1State.MODEL_MISSING
