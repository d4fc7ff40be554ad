"""The session as a thread: each challenge with the learner's answer under it, the verdict
and its gaps under the answer, and the follow-up on that answer nested under it. Nothing
judged is ever replaced on screen; the learner scrolls back to any of it.

The practice pane adds a turn when an answer is saved (`PracticeThread.add`), and fills it
as the judge answers; the session detail builds the same thread from sealed records.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.text_segments import reads_right_to_left
from coach_gui.ui.kit.buttons import button
from coach_gui.ui.practice.practice_widgets import Message
from coach_gui.ui.practice.self_rating import SelfRatingPanel
from coach_gui.ui.practice.verdict_view import VerdictView

if TYPE_CHECKING:
    from collections.abc import Sequence

    from coach_gui.domain.corrections import KeyPointStatus
    from coach_gui.domain.practice import VerdictRecord

FOLLOW_UP_INDENT = 3  # follow-ups sit this many average character widths in


def _text_label(text: str, name: str, parent: QWidget) -> QLabel:
    label = QLabel(text, parent)
    label.setTextFormat(Qt.TextFormat.PlainText)  # their words and the model's: never markup
    label.setWordWrap(True)
    label.setTextInteractionFlags(
        Qt.TextInteractionFlag.TextSelectableByMouse
        | Qt.TextInteractionFlag.TextSelectableByKeyboard
    )
    label.setAccessibleName(name)
    label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    # An Arabic or Hebrew challenge or answer reads from the right, aligned right, with its
    # English words placed by the bidi algorithm inside a right-to-left paragraph (ADR 0032).
    if reads_right_to_left(text):
        label.setLayoutDirection(Qt.LayoutDirection.RightToLeft)
    return label


class Turn(QFrame):
    """One challenge and what became of it: the challenge, the answer, the verdict (or why
    it is unjudged, with the self-rating); its follow-up turns nest under it. A verdict that
    judged each key point can be corrected (`correct_requested`, issue 36)."""

    correct_requested = Signal()

    def __init__(
        self,
        caption: str,
        challenge: str,
        answer: str,
        *,
        follow_up: bool,
        attempt_id: str,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self.follow_up = follow_up
        self.attempt_id = attempt_id
        self.setObjectName("followUpTurn" if follow_up else "turn")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(caption)
        self.caption = QLabel(caption, self)
        self.caption.setTextFormat(Qt.TextFormat.PlainText)
        font = self.caption.font()
        font.setBold(True)
        self.caption.setFont(font)
        self.challenge = _text_label(challenge, f"{caption}: the challenge", self)
        font = self.challenge.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)  # relative: follows the OS font size
        self.challenge.setFont(font)
        self.notice = Message("About this challenge", self)  # e.g. why it is a built-in one
        self.answer_caption = QLabel("Your answer", self)
        self.answer = _text_label(answer, f"{caption}: your answer", self)
        self.answer.setContentsMargins(self.fontMetrics().averageCharWidth() * 2, 0, 0, 0)
        self.status = Message("Answer status", self)
        self.verdict = VerdictView(self)
        # In the thread a verdict is never squeezed into a scroll box: the thread scrolls.
        self.verdict.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
        self.verdict.details.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.correct_button = button(
            self,
            "Correct a key point…",
            f"{caption}: correct a key point",
            "Disagree with the judge on a key point? Say what your answer did: your word "
            "counts from now on, and the judge's stays on record.",
        )
        self.correct_button.hide()  # until a verdict that judged each key point is shown
        self.correct_button.clicked.connect(self.correct_requested)
        self.shown_verdict: tuple[VerdictRecord, tuple[str, ...], str] | None = None
        self.corrected: dict[
            int, tuple[KeyPointStatus, str]
        ] = {}  # key point -> the learner's word
        self.rating = SelfRatingPanel(self)
        self.rating.setAccessibleName(f"{caption}: rate your answer")
        self.verdict.setAccessibleName(f"{caption}: the verdict")
        self.follow_ups: list[Turn] = []
        self._column = QVBoxLayout(self)
        for made in (self.caption, self.challenge, self.notice, self.answer_caption, self.answer,
                     self.status, self.verdict, self.rating):  # fmt: skip
            self._column.addWidget(made)
        self._column.addWidget(self.correct_button, 0, Qt.AlignmentFlag.AlignLeft)
        self._nested = QVBoxLayout()
        self._nested.setContentsMargins(self.fontMetrics().averageCharWidth() * FOLLOW_UP_INDENT,
                                        0, 0, 0)  # fmt: skip
        self._column.addLayout(self._nested)

    @property
    def answer_text(self) -> str:
        return self.answer.text()

    def nest(self, turn: Turn) -> None:
        self.follow_ups.append(turn)
        self._nested.addWidget(turn)

    def show_verdict(self, verdict: VerdictRecord, assertions: Sequence[str], subject: str) -> None:
        """The verdict under the answer; with assessments the verdict shows the answer
        itself with the evidence marked, so the plain copy steps aside."""
        self.shown_verdict = (verdict, tuple(assertions), subject)
        self.verdict.show_verdict(verdict, assertions, subject, self.answer_text, self.corrected)
        self.correct_button.setVisible(bool(verdict.assessments) and bool(self.attempt_id))
        left_out = any(gap.problem == "unexplained" for gap in verdict.gaps)
        if self.follow_up and verdict.assertions_sent and left_out:
            said = "A follow-up asks about one part of your answer: the key points it leaves "
            said += "out do not count against you (only what it explains or gets wrong does)."
            shown = self.notice.text()
            self.notice.setText(f"{shown}\n{said}" if shown else said)
        marked = bool(verdict.assessments) and bool(self.answer_text.strip())
        self.answer_caption.setVisible(not marked)
        self.answer.setVisible(not marked)

    def show_corrected(
        self, key_point: int, status: KeyPointStatus, note: str, judge: KeyPointStatus
    ) -> None:
        """The learner's word on one key point beside the judge's (gone again when it gives
        the judge's word back); the verdict is shown again with it."""
        if status == judge:
            self.corrected.pop(key_point, None)
        else:
            self.corrected[key_point] = (status, note)
        if self.shown_verdict is not None:
            verdict, assertions, subject = self.shown_verdict
            self.verdict.show_verdict(
                verdict, assertions, subject, self.answer_text, self.corrected
            )


class PracticeThread(QScrollArea):
    """The turns of one session, oldest first, follow-ups nested under their answer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("practiceThread")
        self.setAccessibleName("This session so far")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)  # Page Up/Down scroll back through it
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setBackgroundRole(QPalette.ColorRole.Window)
        body = self._body = QWidget(self)
        self._column = QVBoxLayout(body)
        self._column.setContentsMargins(0, 0, 0, 0)
        self._column.addStretch(1)  # turns stay at the top while they are few
        self.setWidget(body)
        self.turns: list[Turn] = []  # every turn in the order it was added
        self._tab_tail: QWidget = self  # the last stop of the thread in the Tab chain
        self._reveal_target: Turn | None = None
        self._reveal = QTimer(self)
        self._reveal.setSingleShot(True)
        self._reveal.setInterval(0)  # after the layout has settled
        self._reveal.timeout.connect(self._scroll_to_target)

    def add(
        self,
        caption: str,
        challenge: str,
        answer: str,
        parent: Turn | None = None,
        *,
        attempt_id: str = "",
    ) -> Turn:
        """A saved answer under its challenge (nested under `parent` for a follow-up)."""
        body = self._body
        turn = Turn(caption, challenge, answer, follow_up=parent is not None,
                    attempt_id=attempt_id, parent=body)  # fmt: skip
        if parent is None:
            self._column.insertWidget(self._column.count() - 1, turn)
        else:
            parent.nest(turn)
        self.turns.append(turn)
        self._chain(turn)
        self.reveal(turn)
        return turn

    def _chain(self, turn: Turn) -> None:
        """Tab reaches a turn's controls where it is shown: after the turns before it,
        before whatever follows the thread (turns are made in the order they are shown)."""
        for widget in turn.findChildren(QWidget):
            if widget.focusPolicy() & Qt.FocusPolicy.TabFocus and not isinstance(
                widget.parentWidget(), QScrollArea
            ):
                QWidget.setTabOrder(self._tab_tail, widget)
                self._tab_tail = widget

    def clear(self) -> None:
        self._reveal_target = None
        for turn in self.turns:
            if not turn.follow_up:
                turn.hide()  # at once: deleting waits for the event loop
                self._column.removeWidget(turn)
                turn.deleteLater()
        self.turns = []
        self._tab_tail = self

    def reveal(self, turn: Turn) -> None:
        """Bring `turn` into view once the layout has placed it (what was just judged is
        what the learner looks at)."""
        self._reveal_target = turn
        self._reveal.start()

    def _scroll_to_target(self) -> None:
        turn = self._reveal_target
        if turn is None or turn not in self.turns:
            return
        body = self._body
        top = turn.mapTo(body, QPoint(0, 0)).y()
        bottom = top + turn.height()
        bar, seen = self.verticalScrollBar(), self.viewport().height()
        if turn.height() <= seen:  # all of it: its bottom in view, its top not scrolled out
            bar.setValue(min(top, max(bar.value(), bottom - seen)))
        else:  # taller than the view: its top, unless that hides the verdict's heading
            verdict = turn.verdict if turn.verdict.isVisible() else turn.answer
            heading = verdict.mapTo(body, QPoint(0, 0)).y()
            line = self.fontMetrics().lineSpacing()
            fits = heading + 3 * line <= top + seen
            bar.setValue(top if fits else heading - 3 * line)
