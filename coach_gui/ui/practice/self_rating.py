"""Rate yourself: when an answer stays unjudged (judge off or unavailable), the learner
sees their core assertions and says how well the answer recalled them (Again, Hard, Good,
Easy; keys 1–4). The rating schedules those assertions until a verdict replaces it."""

from __future__ import annotations

import functools
import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from coach_gui.domain.memory import AGAIN, EASY, GOOD, HARD
from coach_gui.ui.kit.buttons import button
from coach_gui.ui.kit.key_shortcuts import shortcut

if TYPE_CHECKING:
    from coach_gui.domain.practice import Attempt

_IN_PANEL = Qt.ShortcutContext.WidgetWithChildrenShortcut  # keys only where the focus is
_CHOICES = (
    (AGAIN, "Again", "I could not recall them"),
    (HARD, "Hard", "I recalled them with serious effort or only in part"),
    (GOOD, "Good", "I recalled them after some thought"),
    (EASY, "Easy", "I recalled them at once"),
)


class SelfRatingPanel(QFrame):
    """`rated(attempt, rating)` when the learner picks a rating (1 Again … 4 Easy)."""

    rated = Signal(object, int)
    skipped = Signal()  # Skip rating: go on without one

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("selfRating")
        self.setAccessibleName("Rate your answer")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.attempt: Attempt | None = None
        self._rated: int | None = None
        self.caption = QLabel(self)
        self.caption.setWordWrap(True)
        self.caption.setTextFormat(Qt.TextFormat.RichText)
        self.caption.setAccessibleName("Your core assertions")
        self.status = QLabel(self)
        self.status.setAccessibleName("Rating status")
        row = QHBoxLayout()
        self.buttons = {}
        for rating, name, meaning in _CHOICES:
            made = button(self, f"{rating} {name}", name, f"{meaning} (key {rating})")
            made.clicked.connect(lambda _=False, r=rating: self.choose(r))
            row.addWidget(made)
            self.buttons[rating] = made
            shortcut(str(rating), self, functools.partial(self.choose, rating), _IN_PANEL)
        self.skip_button = button(
            self, "&0 Skip rating", "Skip rating", "Go on without rating this answer (key 0)"
        )
        self.skip_button.clicked.connect(self._skip)
        shortcut("0", self, lambda: self._skip() if self.awaiting() else None, _IN_PANEL)
        row.addWidget(self.skip_button)
        row.addStretch(1)
        row.addWidget(self.status)
        column = QVBoxLayout(self)
        column.addWidget(self.caption)
        column.addLayout(row)
        self.hide()

    def offer(self, attempt: Attempt, assertions: Sequence[str]) -> None:
        """Show the assertions the answer should have explained, and the four ratings."""
        self.attempt = attempt
        points = "".join(f"<li>{html.escape(text)}</li>" for text in assertions)
        self.caption.setText(
            "<b>Not judged — rate yourself.</b> How well did your answer explain your core "
            f"assertions?<ol>{points}</ol>"
        )
        self.status.clear()
        self._rated = None
        self.skip_button.show()
        for made in self.buttons.values():
            made.setEnabled(True)
        self.show()

    def _skip(self) -> None:
        self.skip_button.hide()
        self._rated = 0  # not awaited any more; a press of 1–4 still rates it
        self.skipped.emit()

    def set_mnemonics(self, on: bool) -> None:
        """Alt+1–4 rate from anywhere in the pane; only one panel may own them (Qt would
        find them ambiguous and only move focus), so older answers' panels give them up."""
        for rating, made in self.buttons.items():
            name = next(n for r, n, _ in _CHOICES if r == rating)
            made.setText(f"&{rating} {name}" if on else f"{rating} {name}")
        self.skip_button.setText("&0 Skip rating" if on else "0 Skip rating")

    def awaiting(self) -> bool:
        """Offered and not rated yet."""
        return self.attempt is not None and self._rated is None and not self.isHidden()

    def take_focus(self) -> None:
        """Focus on the ratings, so the keys 1–4 rate."""
        self.buttons[GOOD].setFocus()

    def choose(self, rating: int) -> None:
        if self.attempt is not None and self.isVisible():
            self.rated.emit(self.attempt, rating)

    def confirm(self, rating: int) -> None:
        """The rating is recorded; another press changes it."""
        self._rated = rating
        self.skip_button.hide()
        name = next(n for r, n, _ in _CHOICES if r == rating)
        self.status.setText(f"Rated {name}: it schedules these assertions until judged.")

    def withdraw(self) -> None:
        self.attempt = None
        self._rated = None
        self.hide()
