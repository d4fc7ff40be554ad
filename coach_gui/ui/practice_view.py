"""The practice pane's view: its widgets and how each phase of a session looks. It only
shows; what happens when a button is pressed is `practice_controller`'s, and the pane
(`practice_pane`) puts the two together."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass
from enum import Enum, auto
from itertools import pairwise

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPalette, QTextCursor
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from coach_gui.operations.practice import SessionEnded
from coach_gui.ui.practice_widgets import Message, Notice, button, summary_html
from coach_gui.ui.self_rating import SelfRatingPanel
from coach_gui.ui.verdict_view import VerdictView

_UNLIMITED = (1 << 24) - 1  # QWIDGETSIZE_MAX
IDLE_TEXT = "No practice session.\n\nOpen a note and choose Practise (Ctrl+P) to start one."


class Phase(Enum):
    IDLE = auto()  # no session
    BUSY = auto()  # starting, saving or finishing: wait for the worker
    STREAMING = auto()  # a challenge or follow-up is being written
    ANSWERING = auto()  # a challenge is on screen, waiting for an answer
    JUDGING = auto()  # the answer is saved; the judge is grading it
    ANSWERED = auto()  # the answer is saved (and judged, or not); Next moves on
    CANCELLED = auto()  # generation was cancelled; retry or take a built-in challenge
    FINISHED = auto()  # the summary is on screen


@dataclass(frozen=True)
class Place:
    """Where the session is, as the header and the Next button say it."""

    number: int = 0  # the challenge on screen, from 1
    total: int = 0
    remaining: int = 0  # main challenges still to come
    follow_up: bool = False  # the challenge on screen is a follow-up
    has_session: bool = False


class PracticeView(QWidget):
    """The widgets, and what each phase shows and enables (`show_phase`)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._phase = Phase.IDLE
        self._place = Place()
        self._build()

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

        self.banner = Notice("Offline notice", self)
        self.banner_label = self.banner.label
        self.banner_label.setAccessibleName("Why practice is offline")
        self.download_button = self.banner.add_button(button(
            self.banner, "&Download model", "Download model",
            "Ask Ollama on this computer to download the configured model",
        ))  # fmt: skip
        self.judge_notice = Notice("Judge notice", self, dismiss="&Hide")
        self.judge_notice.label.setAccessibleName("Why answers are not judged")
        self.settings_button = self.judge_notice.add_button(
            button(self.judge_notice, "Open &Settings", "Open Settings", "Set up the judge")
        )
        self.settings_button.hide()  # shown when the window can open Settings
        self.assertions_notice = Notice("Assertions notice", self, dismiss="&Hide")
        self.assertions_notice.label.setAccessibleName("Why grading is coarser for this note")
        self.assertions_notice.label.setText(
            "<b>This note has no core assertions.</b> The judge can only grade your answers "
            "against the challenge, not against the points you decided matter. Add three to "
            "five in the note (in your own words) for sharper grading and named gaps."
        )
        self.add_assertions_button = self.assertions_notice.add_button(button(
            self.assertions_notice, "Add &assertions", "Add assertions",
            "Open this note in the editor to add core assertions",
        ))  # fmt: skip

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
        self.notice_label = Message("Notices", self)
        self.status_label = Message("Session status", self)

        self.answer_caption = QLabel("Your &answer", self)
        self.answer_box = QPlainTextEdit(self)
        self.answer_box.setObjectName("answerBox")
        self.answer_box.setTabChangesFocus(True)
        self.answer_box.setPlaceholderText("Answer in your own words; Ctrl+Enter submits.")
        self.answer_box.setAccessibleName("Your answer")
        self.answer_box.setAccessibleDescription("Write your answer; Ctrl+Enter submits it")
        self.answer_caption.setBuddy(self.answer_box)
        self.verdict_view = VerdictView(self)
        self.self_rating = SelfRatingPanel(self)  # shown when an answer stays unjudged

        self.submit_button = button(
            self, "&Submit", "Submit answer", "Save your answer and have it judged (Ctrl+Enter)"
        )
        self.skip_button = button(self, "S&kip", "Skip challenge", "Go on without answering")
        self.cancel_button = button(
            self, "&Cancel generation", "Cancel generation", "Stop writing this challenge (Esc)"
        )
        self.retry_button = button(self, "&Retry", "Retry", "Ask the local model again")
        self.builtin_button = button(
            self, "Use &built-in challenge", "Use a built-in challenge",
            "Take a ready-made challenge instead of waiting for the local model",
        )  # fmt: skip
        self.next_button = button(self, "&Next", "Next challenge", "Go on (Ctrl+Enter)")
        self.finish_button = button(
            self, "F&inish session", "Finish session", "End the session; answers are kept"
        )
        buttons = QHBoxLayout()
        for made in (self.submit_button, self.skip_button, self.cancel_button,
                     self.retry_button, self.builtin_button, self.next_button):  # fmt: skip
            buttons.addWidget(made)
        buttons.addStretch(1)
        buttons.addWidget(self.finish_button)

        session = QWidget(self)
        column = QVBoxLayout(session)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(caption_row)
        column.addWidget(self.challenge_view, 1)
        column.addWidget(self.notice_label)
        column.addWidget(self.status_label)
        column.addWidget(self.answer_caption)
        column.addWidget(self.answer_box, 2)
        column.addWidget(self.verdict_view, 3)  # takes no room while it is hidden
        column.addWidget(self.self_rating)
        column.addLayout(buttons)
        idle = QWidget(self)
        self.idle_label = QLabel(IDLE_TEXT, idle)
        self.idle_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.idle_label.setWordWrap(True)
        self.idle_label.setAccessibleName("No practice session")
        self.resume_button = button(
            idle, "&Practise this note again", "Practise again",
            "Start a new session on the note of your last session",
        )  # fmt: skip
        self.resume_button.hide()  # shown when there is a last session to go on from
        idle_column = QVBoxLayout(idle)
        idle_column.addStretch(1)
        idle_column.addWidget(self.idle_label)
        idle_column.addWidget(self.resume_button, 0, Qt.AlignmentFlag.AlignHCenter)
        idle_column.addStretch(1)
        self._idle_page = idle
        self.summary = QWidget(self)
        self.summary_label = QLabel(self.summary)
        self.summary_label.setWordWrap(True)
        self.summary_label.setAccessibleName("Session summary")
        self.again_button = button(
            self.summary, "&Practise this note again", "Practise again",
            "Start a new session on the same note",
        )  # fmt: skip
        self.next_due_button = button(
            self.summary, "Practise the ne&xt due note", "Next due note",
            "Go on with the next note due today (from the Today view)",
        )  # fmt: skip
        self.next_due_button.hide()  # shown while notes started from Today are still due
        summary_column = QVBoxLayout(self.summary)
        summary_column.addWidget(self.summary_label)
        summary_column.addWidget(self.next_due_button, 0, Qt.AlignmentFlag.AlignLeft)
        summary_column.addWidget(self.again_button, 0, Qt.AlignmentFlag.AlignLeft)
        summary_column.addStretch(1)
        self.pages = QStackedWidget(self)
        for page in (idle, session, self.summary):
            self.pages.addWidget(page)
        self._session_page = session

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.banner)
        layout.addWidget(self.judge_notice)
        layout.addWidget(self.assertions_notice)
        layout.addWidget(self.pages, 1)
        order = [self.download_button, self.banner.dismiss_button, self.settings_button,
                 self.judge_notice.dismiss_button, self.add_assertions_button,
                 self.assertions_notice.dismiss_button, self.challenge_view, self.answer_box,
                 self.verdict_view.details, self.submit_button, self.skip_button,
                 self.cancel_button, self.retry_button, self.builtin_button, self.next_button,
                 self.finish_button]  # fmt: skip
        for first, second in pairwise(order):
            QWidget.setTabOrder(first, second)

    # --- how each phase looks -----------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    def show_phase(self, phase: Phase, place: Place) -> None:
        self._phase, self._place = phase, place
        session = phase not in (Phase.IDLE, Phase.FINISHED)
        self.pages.setCurrentWidget(
            self._session_page if session else (self.summary if phase is Phase.FINISHED
                                                else self._idle_page)
        )  # fmt: skip
        streaming = phase is Phase.STREAMING
        self.writing_label.setText("writing…" if streaming else "")
        self.submit_button.setEnabled(phase is Phase.ANSWERING)
        self.skip_button.setEnabled(phase is Phase.ANSWERING)
        self.cancel_button.setEnabled(streaming)
        for made in (self.retry_button, self.builtin_button):
            made.setVisible(phase is Phase.CANCELLED)
        self.next_button.setEnabled(
            phase in (Phase.ANSWERED, Phase.JUDGING) or (streaming and place.follow_up)
        )
        self.next_button.setText("&Next" if place.remaining else "&Next: summary")
        self.finish_button.setEnabled(place.has_session and phase is not Phase.BUSY)
        submitted = phase in (Phase.BUSY, Phase.JUDGING, Phase.ANSWERED)
        self.answer_box.setReadOnly(submitted)
        self._fit_answer_box(submitted and phase is not Phase.BUSY)
        if phase is Phase.FINISHED:
            self.banner.hide()  # they were about the session that has ended
            self.judge_notice.hide()
            self.assertions_notice.hide()
        elif session and place.total:
            where = f"Challenge {place.number} of {place.total}"
            self.progress_label.setText(where + (" · follow-up" if place.follow_up else ""))

    def _fit_answer_box(self, submitted: bool) -> None:
        """A submitted answer keeps only the height its text needs (at least three lines):
        the verdict under it, with the answer's evidence marked, gets the room."""
        if not submitted:
            self.answer_box.setMaximumHeight(_UNLIMITED)
            return
        box = self.answer_box
        metrics = box.fontMetrics()
        width = max(box.viewport().width() - 2 * round(box.document().documentMargin()), 80)
        wrapped = metrics.boundingRect(
            QRect(0, 0, width, 1 << 20), Qt.TextFlag.TextWordWrap, box.toPlainText()
        ).height()
        text = max(wrapped, 3 * metrics.lineSpacing())
        chrome = box.height() - box.viewport().height() + 2 * box.document().documentMargin()
        box.setMaximumHeight(math.ceil(text + chrome) + metrics.lineSpacing() // 2)

    def show_summary(self, summary: SessionEnded) -> None:
        self.summary_label.setText(summary_html(summary))
        self.progress_label.setText("Session finished")
        self.show_phase(Phase.FINISHED, self._place)
        (self.next_due_button if self.next_due_button.isVisible() else self.again_button).setFocus()

    def clear_texts(self) -> None:
        self.challenge_view.clear()
        self.notice_label.clear()
        self.status_label.clear()
        self.verdict_view.clear()
        self.self_rating.withdraw()

    def show_text(self, text: str) -> None:
        """The challenge as written so far (streamed): appended when it only grew."""
        shown = self.challenge_view.toPlainText()
        if text == shown:
            return
        if shown and text.startswith(shown):  # append: no flicker, no lost selection
            cursor = QTextCursor(self.challenge_view.document())
            cursor.movePosition(QTextCursor.MoveOperation.End)
            cursor.insertText(text[len(shown) :])
        else:
            self.challenge_view.setPlainText(text)

    def show_offline(self, reason: str, model_missing: bool) -> None:
        self.banner_label.setText(
            f"<b>Practising with built-in challenges.</b> {html.escape(reason)}"
        )
        self.download_button.setVisible(model_missing)
        self.banner.show()

    def show_judge_problem(self, reason: str) -> None:
        self.judge_notice.label.setText(
            f"<b>Your answers will be kept, but not judged.</b> {html.escape(reason)}"
        )
        self.judge_notice.show()
