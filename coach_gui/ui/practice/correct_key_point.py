"""Correct a key point from where a past verdict is shown (the session detail, the gap board;
issue 36): the answer's words are read on a worker, the dialog asks, the correction is
recorded on the writer lane, and `corrected` carries it so the window broadcasts its
changes once.

    corrector = KeyPointCorrector(cases.review, parent, say=status_label.setText)
    corrector.corrected.connect(lambda done: views.broadcast(done.changes))
    corrector.correct(attempt_id, key_point)   # key point 0-based, or None: the first missed
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget

from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.tasks import Lane, Task

if TYPE_CHECKING:
    from coach_gui.domain.corrections import AnswerWords, Corrected, KeyPointStatus


class Corrections(Protocol):
    """What correcting needs of the review use case; both run on a worker."""

    def answer_words(self, attempt_id: str) -> AnswerWords: ...

    def correct(
        self, attempt_id: str, key_point: int, status: KeyPointStatus, note: str = ""
    ) -> Corrected: ...


class KeyPointCorrector(QObject):
    corrected = Signal(object)  # Corrected, once recorded

    def __init__(
        self, corrections: Corrections, parent: QWidget, *, say: Callable[[str], None]
    ) -> None:
        super().__init__(parent)
        self._corrections = corrections
        self._parent = parent
        self._say = say
        self.busy = False  # between the click and the record (a second click waits)

    def correct(self, attempt_id: str, first: int | None = None) -> None:
        """Read the answer's words, then ask which key point and what the answer did."""
        if self.busy or not attempt_id:
            return
        self.busy = True
        corrections = self._corrections
        Task(
            self._parent,
            op=lambda _p: corrections.answer_words(attempt_id),
            success=lambda words: self._ask(words, first),
            failure=self._failed,
            name="read an answer's key points",
        ).run()

    def _ask(self, words: AnswerWords, first: int | None) -> None:
        from coach_gui.ui.practice.correct_dialog import CorrectKeyPointDialog

        current = {n: status for n, (status, _note) in words.learners.items()}
        if first is None or not 0 <= first < len(words.assertions):
            first = next((n for n, s in enumerate(words.judged) if s != "explained"), 0)
        dialog = CorrectKeyPointDialog(
            words.assertions, words.judged, current, self._parent, first=first
        )
        chosen = dialog.ask()
        dialog.deleteLater()
        if chosen is None:
            self.busy = False
            return
        corrections, attempt_id = self._corrections, words.attempt_id
        Task(
            self._parent,
            op=lambda _p: corrections.correct(
                attempt_id, chosen.key_point, chosen.status, chosen.note
            ),
            success=self._done,
            failure=self._failed,
            lane=Lane.WRITER,
            name="record a correction",
        ).run()

    def _done(self, done: Corrected) -> None:
        from coach_gui.ui.practice.correct_dialog import corrected_message

        self.busy = False
        self._say(corrected_message(done))
        self.corrected.emit(done)

    def _failed(self, error: Exception) -> None:
        self.busy = False
        self._say(f"Your correction was not saved: {learner_message(error)}")
