"""A practice session's payload reviews (`judge.reviewPayloads`): the gate the session's
judge asks through, and the dialog that shows each payload before it is sent. When the
session ends, nothing still waiting for the learner's choice is sent."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtWidgets import QWidget

from coach_gui.ui.practice.payload_review import (
    SESSION_ENDED,
    PayloadReviewDialog,
    ReviewedJudge,
    ReviewGate,
)

if TYPE_CHECKING:
    from coach_gui.services.ports.judge import Judge
    from coach_gui.ui.practice.payload_review import PendingReview


class PayloadReviews(QObject):
    def __init__(self, parent: QWidget, closing: Callable[[], bool]) -> None:
        super().__init__(parent)
        self._parent = parent
        self._closing = closing  # the window is closing: ask nothing more
        self._gate: ReviewGate | None = None
        self._dialog: PayloadReviewDialog | None = None

    def open(self, model: str) -> Callable[[Judge], Judge]:
        """A new session's gate; returns how its judge is wrapped so that each payload
        waits for the learner's choice."""
        gate = self._gate = ReviewGate(model, self)
        gate.asked.connect(self._review)
        review = gate.review
        return lambda judge: ReviewedJudge(judge, review)

    def close(self) -> None:
        """The session is ending: nothing waiting for the learner's choice is sent."""
        gate, self._gate = self._gate, None
        if gate is not None:
            gate.close()
        dialog, self._dialog = self._dialog, None
        if dialog is not None:
            dialog.reject()

    @Slot(object)
    def _review(self, pending: PendingReview) -> None:
        if pending.decided.is_set():
            return  # the session ended before this reached the screen
        if self._gate is None or self._closing():
            pending.decide(False, SESSION_ENDED)
            return
        dialog = PayloadReviewDialog(pending, self._parent)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(self._closed)
        self._dialog = dialog
        dialog.open()

    def _closed(self) -> None:
        self._dialog = None
