"""Correct a key point (issue 36): the learner's word on one key point of a judged answer.
The judge's word stays on record; the learner's is what counts from then on. Choosing what
the judge said takes an earlier correction back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from PySide6.QtWidgets import (
    QButtonGroup,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.corrections import (
    KEY_POINT_STATUSES,
    MAX_NOTE_CHARS,
    Corrected,
    KeyPointStatus,
)

WORDS: dict[KeyPointStatus, str] = {
    "explained": "Explained",
    "unexplained": "Not explained",
    "wrong": "Wrong",
}
MEANS: dict[KeyPointStatus, str] = {
    "explained": "My answer explains this key point",
    "unexplained": "My answer leaves it out, or is too vague",
    "wrong": "My answer gets it wrong",
}


def corrected_message(done: Corrected, *, follow_up: bool = False) -> str:
    """What the status line says once a correction is recorded."""
    c = done.correction
    if c.status == done.judge:
        return f"Key point {c.assertion + 1} counts as the judge said again."
    if follow_up and c.status == "unexplained":
        return (
            f"Key point {c.assertion + 1}: noted as not explained. A follow-up asks about "
            "one part of your answer, so a key point it leaves out does not count against you."
        )
    return (
        f"Key point {c.assertion + 1} now counts as {WORDS[c.status].lower()}: Today, open "
        "gaps and the schedule follow your word; the judge's stays on record."
    )


@dataclass(frozen=True)
class Correction:
    key_point: int  # 0-based
    status: KeyPointStatus
    note: str


class CorrectKeyPointDialog(QDialog):
    """Pick the key point, say what the answer did, and (if you like) why."""

    def __init__(
        self,
        assertions: Sequence[str],
        judged: Sequence[KeyPointStatus],
        current: Mapping[int, KeyPointStatus],
        parent: QWidget | None = None,
        *,
        first: int = 0,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Correct a key point — Coach")
        self.setAccessibleName("Correct a key point")
        self._judged, self._current = list(judged), dict(current)
        intro = QLabel(
            "The judge's word stays on record; yours is what counts from now on: open gaps, "
            "Today and the schedule follow it. Choose what the judge said to take a "
            "correction back.",
            self,
        )
        intro.setWordWrap(True)
        self.key_point = QComboBox(self)
        self.key_point.setAccessibleName("Key point")
        for n, text in enumerate(assertions):
            said = WORDS[judged[n]]
            mine = f"; you said {WORDS[current[n]].lower()}" if n in current else ""
            short = text if len(text) <= 70 else text[:69] + "…"
            self.key_point.addItem(f"{n + 1}. {short} (judge: {said.lower()}{mine})", n)
        self.choices = QButtonGroup(self)
        choice_box = QVBoxLayout()
        self.buttons: dict[KeyPointStatus, QRadioButton] = {}
        for status in KEY_POINT_STATUSES:
            radio = QRadioButton(f"{WORDS[status]} — {MEANS[status]}", self)
            self.choices.addButton(radio)
            self.buttons[status] = radio
            choice_box.addWidget(radio)
        self.note = QLineEdit(self)
        self.note.setMaxLength(MAX_NOTE_CHARS)
        self.note.setPlaceholderText("Why, in your own words (optional; kept with it)")
        self.note.setAccessibleName("Your note")
        form = QFormLayout()
        form.addRow("&Key point:", self.key_point)
        form.addRow("Your answer:", choice_box)
        form.addRow("&Note:", self.note)
        box = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        ok = box.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText("&Save correction")
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        column = QVBoxLayout(self)
        column.addWidget(intro)
        column.addLayout(form)
        column.addWidget(box)
        self.key_point.currentIndexChanged.connect(self._preselect)
        self.key_point.setCurrentIndex(first)
        self._preselect()

    def _preselect(self) -> None:
        """The word most likely meant: the opposite of what counts now."""
        n = self.key_point.currentData()
        if n is None:
            return
        now = self._current.get(n, self._judged[n])
        self.buttons["unexplained" if now == "explained" else "explained"].setChecked(True)

    def chosen(self) -> Correction:
        status = next(s for s, radio in self.buttons.items() if radio.isChecked())
        return Correction(int(self.key_point.currentData()), status, self.note.text().strip())

    def ask(self) -> Correction | None:
        return self.chosen() if self.exec() == QDialog.DialogCode.Accepted else None
