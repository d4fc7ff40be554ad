"""Small widgets of the practice pane: a status line, an amber notice strip, buttons with
accessible names, and the session summary's text."""

from __future__ import annotations

import html
from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from coach_gui.domain.practice import Disposition
from coach_gui.operations.practice import MissedPoint, SessionEnded
from coach_gui.operations.tier1 import Tier1State
from coach_gui.ui.kit.buttons import button
from coach_gui.ui.markdown.evidence_html import STATUS_WORDS, status_colour
from coach_gui.ui.practice.tier1_status import state_colour


class Message(QLabel):
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


class Notice(QFrame):
    """An amber strip above the session: something to know, how to fix it, and Dismiss."""

    def __init__(self, name: str, parent: QWidget, dismiss: str = "Dis&miss") -> None:
        super().__init__(parent)
        self.setObjectName(name.replace(" ", ""))
        self.setAccessibleName(name)
        dark = self.palette().color(QPalette.ColorRole.Window).lightness() < 128
        colours = "background: #4a3b12; color: #ffe9b0" if dark else "background: #fff4ce"
        self.setStyleSheet(f"#{self.objectName()} {{ {colours}; border-radius: 4px; }}")
        self.label = QLabel(self)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.row = QHBoxLayout(self)
        self.row.addWidget(self.label, 1)
        self.dismiss_button = button(self, dismiss, f"Dismiss {name.lower()}", "Hide this")
        self.dismiss_button.clicked.connect(self.hide)
        self.row.addWidget(self.dismiss_button)
        self.hide()

    def add_button(self, made: QPushButton) -> QPushButton:
        self.row.insertWidget(self.row.count() - 1, made)
        return made


def summary_html(summary: SessionEnded, *, judge_on: bool = False) -> str:
    """`judge_on`: the judge switch as it is now (it can be switched on after the answers
    were kept unjudged, and the summary then says so, not that it is off)."""
    saved = f"{summary.answers_saved} answer{'s' if summary.answers_saved != 1 else ''}"
    lines = ["<h3>Session finished</h3>",
             f"<p>{saved} saved, {summary.skipped} skipped.</p>"]  # fmt: skip
    if summary.passed or summary.needs_work:
        work = "needs" if summary.needs_work == 1 else "need"
        lines.append(f"<p>Judged: {summary.passed} passed, {summary.needs_work} {work} work.</p>")
    if summary.disposition is Disposition.UNJUDGED_OFFLINE:
        if judge_on:
            lines.append("<p>The answers given while the judge was off are kept unjudged. "
                         "The judge is on now: <i>File › Judge pending answers…</i> "
                         "has them judged.</p>")  # fmt: skip
        else:
            lines.append("<p>The judge is switched off: the answers are kept unjudged, and "
                         "you can have them judged later.</p>")  # fmt: skip
    elif summary.disposition is Disposition.JUDGE_UNAVAILABLE:
        unjudged = summary.answers_saved - summary.passed - summary.needs_work
        lines.append(f"<p>{unjudged} answer{'s were' if unjudged != 1 else ' was'} not judged: "
                     "kept unjudged, to be judged later.</p>")  # fmt: skip
    elif summary.disposition is Disposition.ALL_PASSED:
        lines.append("<p>Every answer passed.</p>")
    return "".join(lines)


def missed_html(missed: Sequence[MissedPoint], palette: QPalette) -> str:
    """Each key point the session missed, in the learner's words, *wrong* and *not
    explained* told apart by a word and a mark (never by colour alone)."""
    if not missed:
        return ""
    count = len(missed)
    items = []
    for point in missed:  # in the words and colours the verdict gives each key point
        how = (
            f"<b style='color: {status_colour(point.problem, palette)}'>"
            f"{STATUS_WORDS[point.problem]}</b>"
        )
        why = point.explanation[:1].upper() + point.explanation[1:]  # a line of its own
        items.append(f"<li>{how} — “{html.escape(point.assertion)}”<br>{html.escape(why)}</li>")
    heading = f"{count} key point{'s' if count != 1 else ''} missed in this session"
    return f"<p><b>{heading}:</b></p><ul>{''.join(items)}</ul>"


def notices_text(notices: Sequence[str]) -> str:
    """The notices about one challenge, each once: a challenge withdrawn again and again
    for the same reason is said once, with how many times."""
    counts: dict[str, int] = {}
    for notice in notices:
        counts[notice] = counts.get(notice, 0) + 1
    lines = []
    for notice, count in counts.items():
        if count > 1 and notice.startswith("A challenge was withdrawn: "):
            why = notice.removeprefix("A challenge was withdrawn: ")
            lines.append(f"{count} challenges were withdrawn: {why}")
        else:
            lines.append(notice)
    return "\n".join(lines)
