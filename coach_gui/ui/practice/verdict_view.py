"""What the judge made of one answer: Pass or Needs work, each key point's assessment with
the evidence marked in the answer (or, for a verdict without assessments, the gap list),
the feedback.

Each gap names one of the learner's own core assertions by its index; the text shown is
looked up here, in the note on this computer. It is never sent anywhere new.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QColor, QPalette, QResizeEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QSizePolicy,
    QTextBrowser,
    QVBoxLayout,
)

from coach_gui.domain.text_segments import reads_right_to_left
from coach_gui.ui.markdown.evidence_html import (
    assessments_html,
    indented_lines,
    isolated,
    marked_answer_html,
    status_colour,
)

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from coach_gui.domain.judge_wait import JudgeWait
    from coach_gui.domain.practice import VerdictRecord
    from coach_gui.domain.verdicts import Gap


class VerdictState(Enum):
    NONE = "none"
    JUDGING = "judging"
    PASSED = "passed"
    NEEDS_WORK = "needs_work"
    UNJUDGED = "unjudged"


def _colour(state: VerdictState, palette: QPalette) -> QColor:
    """Green for a pass, amber for gaps (the key points' own colours); readable on light
    and dark palettes."""
    if state is VerdictState.PASSED:
        return QColor(status_colour("explained", palette))
    if state is VerdictState.NEEDS_WORK:
        return QColor(status_colour("unexplained", palette))
    return palette.color(QPalette.ColorRole.WindowText)


def _blend(front: QColor, back: QColor, weight: float = 0.6) -> str:
    """A muted text colour between the two, readable on light and dark palettes."""
    mixed = QColor(
        round(front.red() * weight + back.red() * (1 - weight)),
        round(front.green() * weight + back.green() * (1 - weight)),
        round(front.blue() * weight + back.blue() * (1 - weight)),
    )
    return mixed.name()


def gap_label(gap: Gap, assertions: Sequence[str]) -> tuple[str, str]:
    """(which key point, its text as the learner wrote it) for one gap."""
    index = gap.assertion
    if index is None:  # the assertions were not sent: the gap is about the answer as a whole
        return "Your answer", ""
    text = assertions[index] if 0 <= index < len(assertions) else ""
    return f"Key point {index + 1}", text


def verdict_html(
    verdict: VerdictRecord,
    assertions: Sequence[str],
    palette: QPalette,
    answer: str = "",
    corrected: Mapping[int, tuple[str, str]] | None = None,
) -> str:
    """The verdict's details: with assessments (DESIGN §4), the answer with each key
    point's evidence marked and every key point's status and reason; else the gaps."""
    muted = _blend(palette.color(QPalette.ColorRole.Text), palette.color(QPalette.ColorRole.Base))
    parts: list[str] = []
    if verdict.assessments:
        if answer.strip():
            parts.append(
                "<p><b>Your answer</b>, with what the judge cited for each key point:</p>"
                f"<p style='margin-left: 12px'>"
                f"{marked_answer_html(answer, verdict.assessments, palette)}</p>"
            )
        parts.append(assessments_html(verdict.assessments, assertions, palette, muted, corrected))
    elif verdict.gaps:
        count = len(verdict.gaps)
        parts.append(f"<p><b>{count} gap{'s' if count != 1 else ''}</b></p>")
        for gap in verdict.gaps:
            which, text = gap_label(gap, assertions)
            lines = [(f"<b>{which} — {isolated(gap.problem)}</b>", False)]
            if text:  # the learner's own words, kept apart from the judge's
                lines.append(
                    (
                        f"<span style='color: {muted}'>“{html.escape(text)}”</span>",
                        reads_right_to_left(text),
                    )
                )
            lines.append((html.escape(gap.explanation), reads_right_to_left(gap.explanation)))
            parts.append(indented_lines(lines))
    if verdict.feedback.strip():
        parts.append(f"<p><b>Feedback:</b> {isolated(verdict.feedback)}</p>")
    if not verdict.assertions_sent:
        parts.append(
            "<p><i>Your core assertions were not sent, so the judge graded the answer "
            "on its own.</i></p>"
        )
    return "".join(parts)


class VerdictView(QFrame):
    """Shown under the answer once it is saved; hidden while there is nothing to say."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("verdictView")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName("Verdict")
        # Never taller than its size hint; it may shrink (then the details scroll).
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.heading = QLabel(self)
        self.heading.setTextFormat(Qt.TextFormat.PlainText)
        self.heading.setAccessibleName("Verdict heading")
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.heading.setFont(font)
        self.busy = QProgressBar(self)
        self.busy.setRange(0, 0)  # no steps to count: it moves until the judge answers
        self.busy.setTextVisible(False)
        self.busy.setMaximumWidth(140)
        self.busy.setAccessibleName("Judging in progress")
        self.details = QTextBrowser(self)
        self.details.setOpenLinks(False)
        self.details.setFrameShape(QFrame.Shape.NoFrame)
        self.details.setAccessibleName("Gaps and feedback")
        self.details.setAccessibleDescription(
            "The key points your answer missed or got wrong, and the judge's feedback"
        )
        self._row = QHBoxLayout()
        self._row.addWidget(self.heading, 1)
        self._row.addWidget(self.busy)
        layout = QVBoxLayout(self)
        layout.addLayout(self._row)
        layout.addWidget(self.details, 1)
        layout.addStretch(0)  # while there are no details, the heading stays at the top
        self._state = VerdictState.NONE
        self._wait: tuple[str, JudgeWait] | None = None  # the judge's tries, counted down
        self._tick = QTimer(self)
        self._tick.setInterval(1000)
        self._tick.timeout.connect(self._show_wait)
        self.hide()

    def _details_height(self) -> int:
        """How tall the gaps and feedback are at the current width."""
        layout = self.layout()
        assert layout is not None
        margins = layout.contentsMargins()
        width = self.width() - margins.left() - margins.right() - 2 * self.frameWidth()
        document = self.details.document().clone(self)  # measuring must not disturb the view
        document.setTextWidth(max(width - 2 * self.details.frameWidth(), 120))
        height = math.ceil(document.size().height()) + 2 * self.details.frameWidth() + 2
        document.deleteLater()
        return height

    def sizeHint(self) -> QSize:
        """As tall as what it says (no taller: the answer box gets the rest)."""
        layout = self.layout()
        assert layout is not None
        margins = layout.contentsMargins()
        height = margins.top() + margins.bottom() + 2 * self.frameWidth()
        height += self._row.sizeHint().height()
        if not self.details.isHidden():
            height += layout.spacing() + self._details_height()
        return QSize(super().sizeHint().width(), height)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.details.setMaximumHeight(self._details_height())
            self.updateGeometry()  # text wraps differently: ask the layout again (queued)

    @property
    def state(self) -> VerdictState:
        return self._state

    def _show(self, state: VerdictState, heading: str, details: str) -> None:
        if state is not VerdictState.JUDGING:
            self._wait = None
            self._tick.stop()
        self._state = state
        self.heading.setText(heading)
        colour = _colour(state, self.palette())
        self.heading.setStyleSheet(f"color: {colour.name()}")
        self.busy.setVisible(state is VerdictState.JUDGING)
        self.details.setHtml(details)
        self.details.setVisible(bool(details))
        self.setAccessibleDescription(f"{heading} {self.details.toPlainText()}".strip())
        self.details.setMaximumHeight(self._details_height())
        self.show()
        self.updateGeometry()

    def show_judging(self, subject: str, written: int | None = None) -> None:
        """`written`: characters of the verdict a judge on this computer has written so
        far (it may take tens of seconds); Esc stops it."""
        if written is None:
            self._show(VerdictState.JUDGING, f"Judging {subject}…", "")
            return
        self._show(
            VerdictState.JUDGING,
            f"Judging {subject} on this computer… {written:,} "
            f"character{'s' if written != 1 else ''} written (Esc stops)",
            "",
        )

    def show_waiting(self, subject: str, wait: JudgeWait) -> None:
        """A judge that retries: which try this is and how long, at most, is left of the
        whole wait, counted down each second; Esc or Cancel stops waiting."""
        if self._state is not VerdictState.JUDGING:
            return  # the verdict (or the cancel) came first
        self._wait = (subject, wait)
        self._show_wait()
        self._tick.start()

    def _show_wait(self) -> None:
        if self._wait is None or self._state is not VerdictState.JUDGING:
            self._tick.stop()
            return
        subject, wait = self._wait
        left = max(0, math.ceil(wait.deadline - time.monotonic()))
        tries = f"try {wait.attempt} of {wait.attempts}, " if wait.attempts > 1 else ""
        self._show(
            VerdictState.JUDGING,
            f"Judging {subject}… {tries}at most {left} s left (Esc or Cancel stops "
            "waiting; the answer is kept)",
            "",
        )

    def show_verdict(
        self,
        verdict: VerdictRecord,
        assertions: Sequence[str],
        subject: str,
        answer: str = "",
        corrected: Mapping[int, tuple[str, str]] | None = None,
    ) -> None:
        """`answer`: the learner's text the verdict is about, shown with its evidence marked
        when the judge assessed each key point; `corrected`: the learner's word where they
        corrected the judge's (key point index -> status, note)."""
        if verdict.passed:
            # A pass without assessments has nothing to point at; with them, the evidence.
            shown = assertions if verdict.assessments else ()
            details = verdict_html(verdict, shown, self.palette(), answer, corrected)
            self._show(VerdictState.PASSED, f"✓ Pass — {subject}", details)
        else:
            details = verdict_html(verdict, assertions, self.palette(), answer, corrected)
            self._show(VerdictState.NEEDS_WORK, f"Needs work — {subject}", details)

    def show_unjudged(self, reason: str, subject: str) -> None:
        self._show(
            VerdictState.UNJUDGED,
            f"Not judged — {subject} is kept",
            f"<p>{html.escape(reason)}</p>",
        )

    def clear(self) -> None:
        self._state = VerdictState.NONE
        self.details.clear()
        self.hide()
