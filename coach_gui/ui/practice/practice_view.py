"""The practice pane's view: its widgets and how each phase of a session looks. It only
shows; what happens when a button is pressed is `practice_controller`'s, and the pane
(`practice_pane`) puts the two together."""

from __future__ import annotations

import html
from dataclasses import dataclass
from enum import Enum, auto
from itertools import pairwise

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette, QResizeEvent, QTextCursor
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QScrollArea,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from coach_gui.operations.practice import SessionEnded
from coach_gui.ui.kit.buttons import button
from coach_gui.ui.practice.practice_thread import PracticeThread, Turn
from coach_gui.ui.practice.practice_widgets import (
    Message,
    Notice,
    missed_html,
    summary_html,
)
from coach_gui.ui.practice.self_rating import SelfRatingPanel
from coach_gui.ui.practice.verdict_view import VerdictView

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
        header = self._build_header()
        self._build_notices()
        caption_row = self._build_answering()
        buttons = self._build_buttons()

        self._build_summary()
        session = QWidget(self)
        column = QVBoxLayout(session)
        column.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.summary)  # once the session has finished
        column.addWidget(self.thread_view, 3)  # the judged answers get the larger share
        self.composer = QWidget(session)  # the challenge being answered, and the answer box
        composer = QVBoxLayout(self.composer)
        composer.setContentsMargins(0, 0, 0, 0)
        composer.addLayout(caption_row)
        composer.addWidget(self.challenge_view)
        composer.addWidget(self.notice_label)  # about the challenge on screen
        composer.addWidget(self.answer_caption)
        composer.addWidget(self.answer_box, 2)
        column.addWidget(self.composer, 2)
        column.addWidget(self.status_label)
        column.addStretch(0)  # takes the room only while the thread and composer are hidden
        self.button_row = QWidget(session)
        self.button_row.setLayout(buttons)
        buttons.setContentsMargins(0, 0, 0, 0)
        column.addWidget(self.button_row)
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
        self.pages = QStackedWidget(self)
        for page in (idle, session):
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
                 self.assertions_notice.dismiss_button, self.practise_missed_button,
                 self.next_due_button, self.again_button, self.thread_view, self.challenge_view,
                 self.answer_box, self.submit_button, self.skip_button, self.cancel_button,
                 self.retry_button, self.builtin_button, self.next_button,
                 self.finish_button]  # fmt: skip
        for first, second in pairwise(order):
            QWidget.setTabOrder(first, second)

    def _build_header(self) -> QHBoxLayout:
        """The note's title and the progress through the session."""
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
        return header

    def _build_notices(self) -> None:
        """The notices above the session: offline, the judge, a note without assertions."""
        self.banner = Notice("Offline notice", self)
        self.banner_label = self.banner.label
        self.banner_label.setAccessibleName("Why practice is offline")
        self.download_button = self.banner.add_button(button(
            self.banner, "&Download model", "Download model",
            "Ask Ollama on this computer to download the configured model",
        ))  # fmt: skip
        # Alt+letters of the notices: each its own, with the menus' (File, Edit, Help).
        self.judge_notice = Notice("Judge notice", self, dismiss="G&ot it")
        self.judge_notice.label.setAccessibleName("Why answers are not judged")
        self.settings_button = self.judge_notice.add_button(
            button(self.judge_notice, "Open Se&ttings", "Open Settings", "Set up the judge")
        )
        self.settings_button.hide()  # shown when the window can open Settings
        self.assertions_notice = Notice("Assertions notice", self, dismiss="&Later")
        self.assertions_notice.label.setAccessibleName("Why grading is coarser for this note")
        self.assertions_notice.label.setText(
            "<b>This note has no core assertions.</b> The judge can only grade your answers "
            "against the challenge, not against the points you decided matter. Add three to "
            "five in the note (in your own words) for sharper grading and named gaps."
        )
        self.add_assertions_button = self.assertions_notice.add_button(button(
            self.assertions_notice, "&Write assertions", "Add assertions",
            "Open this note in the editor to add core assertions",
        ))  # fmt: skip

    def _build_answering(self) -> QHBoxLayout:
        """The challenge with its caption and writing indicator, the answer box, the
        thread; returns the caption row."""
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
        lines = self.challenge_view.fontMetrics().lineSpacing()
        self.challenge_view.setMinimumHeight(lines * 3)  # a challenge is a sentence or three
        self.challenge_view.setMaximumHeight(lines * 5)  # the answer box gets the rest
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
        self.thread_view = PracticeThread(self)  # every answer of the session, under its challenge
        self._no_verdict = VerdictView(self)  # `verdict_view` before the first answer
        self._no_rating = SelfRatingPanel(self)
        return caption_row

    def _build_buttons(self) -> QHBoxLayout:
        """The session's buttons in one row, Finish at its end."""
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
        return buttons

    def _build_summary(self) -> None:
        """What the finished session came to, above its thread: the counts, each key
        point it missed, and where to go on."""
        self.summary = QWidget(self)
        self.summary.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.summary_label = QLabel(self.summary)
        self.summary_label.setWordWrap(True)
        self.summary_label.setAccessibleName("Session summary")
        self._summary: SessionEnded | None = None  # the last one shown
        self.missed_label = QLabel(self.summary)
        self.missed_label.setWordWrap(True)
        self.missed_label.setTextFormat(Qt.TextFormat.RichText)
        self.missed_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.missed_label.setAccessibleName("Key points missed in this session")
        self.practise_missed_button = button(
            self.summary, "Practise &these", "Practise the missed key points",
            "Start a session whose challenges target the key points this session missed",
        )  # fmt: skip
        self.again_button = button(
            self.summary, "&Practise this note again", "Practise again",
            "Start a new session on the same note",
        )  # fmt: skip
        self.next_due_button = button(
            self.summary, "Practise the ne&xt due note", "Next due note",
            "Go on with the next note due today (from the Today view)",
        )  # fmt: skip
        self.next_due_button.hide()  # shown while notes started from Today are still due
        row = QHBoxLayout()
        for made in (self.practise_missed_button, self.next_due_button, self.again_button):
            row.addWidget(made)
        row.addStretch(1)
        summary_column = QVBoxLayout(self.summary)
        summary_column.setContentsMargins(0, 0, 0, 0)
        summary_column.addWidget(self.summary_label)
        # A long list of missed key points scrolls in its own box, never taller than a
        # third of the pane: the window never grows past the screen to show it.
        self.missed_box = QScrollArea(self.summary)
        self.missed_box.setWidget(self.missed_label)
        self.missed_box.setWidgetResizable(True)
        self.missed_box.setFrameShape(QFrame.Shape.NoFrame)
        self.missed_box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.missed_box.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        summary_column.addWidget(self.missed_box)
        summary_column.addLayout(row)
        self.summary.hide()

    # --- the latest answer --------------------------------------------------------------------
    @property
    def turn(self) -> Turn | None:
        """The turn of the latest saved answer (None before the first)."""
        return self.thread_view.turns[-1] if self.thread_view.turns else None

    @property
    def verdict_view(self) -> VerdictView:
        """The verdict on the latest answer (an empty one before the first answer)."""
        turn = self.turn
        return turn.verdict if turn is not None else self._no_verdict

    @property
    def self_rating(self) -> SelfRatingPanel:
        """The self-rating of the latest answer (a hidden one before the first answer)."""
        turn = self.turn
        return turn.rating if turn is not None else self._no_rating

    # --- how each phase looks -----------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        return self._phase

    def show_phase(self, phase: Phase, place: Place) -> None:
        self._phase, self._place = phase, place
        finished = phase is Phase.FINISHED
        session = phase not in (Phase.IDLE, Phase.FINISHED)
        self.pages.setCurrentWidget(self._idle_page if phase is Phase.IDLE else self._session_page)
        self.summary.setVisible(finished)
        self.button_row.setVisible(not finished)
        # The challenge being answered (or written); once an answer is saved the thread
        # has the room, with the answer under its challenge and the verdict under it.
        # (While busy — starting, saving, finishing — it stays as it was: no flicker.)
        if phase is not Phase.BUSY or not self.thread_view.turns:
            self.composer.setVisible(phase in (Phase.STREAMING, Phase.ANSWERING,
                                               Phase.CANCELLED, Phase.BUSY))  # fmt: skip
        self.thread_view.setVisible(bool(self.thread_view.turns))
        streaming = phase is Phase.STREAMING
        self.writing_label.setText("writing…" if streaming else "")
        self.submit_button.setEnabled(phase is Phase.ANSWERING)
        self.skip_button.setEnabled(phase is Phase.ANSWERING)
        # While the judge grades too: waiting for it can be stopped, the answer kept.
        judging = phase is Phase.JUDGING
        self.cancel_button.setEnabled(streaming or judging)
        self.cancel_button.setText("&Cancel judging" if judging else "&Cancel generation")
        self.cancel_button.setAccessibleName("Cancel judging" if judging else "Cancel generation")
        for made in (self.retry_button, self.builtin_button):
            made.setVisible(phase is Phase.CANCELLED)
        self.next_button.setEnabled(
            phase in (Phase.ANSWERED, Phase.JUDGING) or (streaming and place.follow_up)
        )
        self.next_button.setText("&Next" if place.remaining else "&Next: summary")
        self.finish_button.setEnabled(place.has_session and phase is not Phase.BUSY)
        submitted = phase in (Phase.BUSY, Phase.JUDGING, Phase.ANSWERED)
        self.answer_box.setReadOnly(submitted)
        if phase is Phase.FINISHED:
            self.banner.hide()  # they were about the session that has ended
            self.judge_notice.hide()
            self.assertions_notice.hide()
        elif session and place.total:
            where = f"Challenge {place.number} of {place.total}"
            self.progress_label.setText(where + (" · follow-up" if place.follow_up else ""))

    def judge_switched(self, on: bool) -> None:
        """The judge switch changed: a summary on screen says what is true now."""
        if self._summary is not None:  # (hidden while another session runs: harmless)
            self.summary_label.setText(summary_html(self._summary, judge_on=on))

    def show_summary(
        self, summary: SessionEnded, can_practise_missed: bool, *, judge_on: bool = False
    ) -> None:
        """The finished session above its thread; `can_practise_missed`: the missed key
        points are still in the note, so *Practise these* can target them; `judge_on`:
        the judge switch now."""
        self.clear_texts()  # they were about the last challenge
        self._summary = summary
        self.summary_label.setText(summary_html(summary, judge_on=judge_on))
        self.missed_label.setText(missed_html(summary.missed, self.palette()))
        self.missed_box.setVisible(bool(summary.missed))
        self.missed_label.setVisible(bool(summary.missed))
        self._fit_missed_box()
        self.practise_missed_button.setVisible(can_practise_missed)
        self.progress_label.setText("")  # the summary below says "Session finished"
        self.title_label.setText(summary.note_title)  # the summary below says the rest
        self.show_phase(Phase.FINISHED, self._place)
        self.thread_view.verticalScrollBar().setValue(0)
        self.summary_focus().setFocus()

    def _fit_missed_box(self) -> None:
        """As tall as the list at the pane's width, at most a third of the pane."""
        width = max(self.width() - self.missed_box.verticalScrollBar().sizeHint().width() - 24, 200)
        needed = self.missed_label.heightForWidth(width) + 4
        room = max(self.height() // 3, 80)
        self.missed_box.setMaximumHeight(min(needed, room))
        self.missed_box.setMinimumHeight(min(needed, room))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if self.missed_box.isVisible():
            self._fit_missed_box()

    def summary_focus(self) -> QWidget:
        """Where the learner goes on from the summary: the missed key points, else the
        next due note, else this note again."""
        return next(
            (made for made in (self.practise_missed_button, self.next_due_button)
             if made.isVisibleTo(self.summary)),
            self.again_button,
        )  # fmt: skip

    def clear_texts(self) -> None:
        """Ready for the next challenge: the composer is empty (the thread keeps the
        answers already given)."""
        self.challenge_view.clear()
        self.notice_label.clear()
        self.status_label.clear()

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
