"""The *Gaps* board of one note: its key points with an open gap (the ones missed the last
time an answer was judged against them, by the rule Today reads too: ADR 0023), in how
many sessions each was missed, a progress chart, and *Practise these gaps*.

    board = GapBoard(cases.review.gap_board, lambda: notes, parent)
    board.practise_requested.connect(lambda note, gaps: ...)

Both the gaps and the chart are read on a worker each time the note or the view changes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.changes import Changes
from coach_gui.domain.notes import Note
from coach_gui.operations.review import NoteGaps, OpenGap
from coach_gui.operations.vocabulary import PROBLEM_LABELS
from coach_gui.ui.charts.progress_chart import ProgressChart
from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.tasks import Task

GAPS_SHOW = Changes(notes=True, sessions=True, verdicts=True, reviews=True)  # what it reads
NOT_JUDGED = (
    "No gaps to show yet: this note has not been judged against its key points. Only an "
    "answer judged with the note's key points sent can say which one was missed."
)
NO_GAPS = "No open gaps: every key point was explained the last time it was judged."
NO_NOTE = "Choose a note to see its open gaps."


def board_message(data: NoteGaps) -> str:
    """What the board says above its table, in the learner's words."""
    count = len(data.gaps)
    if count:
        return (
            f"{count} open gap{'s' if count != 1 else ''}: the key points missed the last "
            "time an answer was judged against them, and in how many sessions each was missed."
        )
    if not data.judged:
        return NOT_JUDGED
    if data.judged < data.key_points:
        unjudged = data.key_points - data.judged
        return (
            f"No open gaps: the {data.judged} key point{'s' if data.judged != 1 else ''} "
            f"judged so far {'were' if data.judged != 1 else 'was'} explained the last time; "
            f"{unjudged} {'have' if unjudged != 1 else 'has'} not been judged yet."
        )
    return NO_GAPS


class GapBoard(QWidget):
    practise_requested = Signal(object, object)  # Note, list[OpenGap]
    loaded = Signal(str)  # the note id, once its gaps are on screen

    def __init__(
        self,
        load: Callable[[Note], NoteGaps],
        notes: Callable[[], Sequence[Note]],
        parent: QWidget | None = None,
    ) -> None:
        """`load` reads a note's board; it runs on a worker."""
        super().__init__(parent)
        self.setAccessibleName("Gaps by note")
        self._load = load
        self._notes = notes
        self._by_id: dict[str, Note] = {}
        self._task: Task[NoteGaps] | None = None
        self.gaps: list[OpenGap] = []
        self._preferred: str | None = None  # the note to show next (the one open in Notes)

        self.picker = QComboBox(self)
        self.picker.setAccessibleName("Note")
        self.picker.setAccessibleDescription("The note whose open gaps are shown")
        self.picker.setMinimumContentsLength(24)
        self.picker.currentIndexChanged.connect(lambda _i: self.reload())
        picker_label = QLabel("&Note:", self)
        picker_label.setBuddy(self.picker)
        self.practise_button = QPushButton("&Practise these gaps", self)
        self.practise_button.setAccessibleName("Practise these gaps")
        self.practise_button.setAccessibleDescription(
            "Starts a session whose challenges target the key points listed"
        )
        self.practise_button.setEnabled(False)
        self.practise_button.clicked.connect(self._practise)
        self.message = QLabel(NO_NOTE, self)
        self.message.setWordWrap(True)
        self.message.setAccessibleName("Gaps: status")
        self.correct_button = QPushButton("&Correct this key point…", self)
        self.correct_button.setAccessibleName("Correct this key point")
        self.correct_button.setAccessibleDescription(
            "Your word on the chosen gap: whether your answer explained it after all"
        )
        self.correct_button.setEnabled(False)
        self.correct_button.clicked.connect(self._correct_chosen)
        self.correct_button.hide()  # until the window gives a way to correct
        # Given by the window: correct key point `first` (0-based) of an answer (issue 36).
        self._correct: Callable[[str, int | None], None] | None = None
        top = QHBoxLayout()
        top.addWidget(picker_label)
        top.addWidget(self.picker, 1)
        top.addWidget(self.correct_button)
        top.addWidget(self.practise_button)

        self.table = QTableWidget(0, 4, self)
        self.table.setTabKeyNavigation(False)  # Tab leaves the table; the arrows pick rows
        self.table.setHorizontalHeaderLabels(["Key point", "Missed", "Last time", "Why"])
        self.table.setAccessibleName("Open gaps")
        self.table.setAccessibleDescription("Most missed first")
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        # Rows follow the wrapped key points as the columns narrow (a 1.5x screen, a
        # smaller window): sized once, the third line of a key point was cut off.
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.table.itemSelectionChanged.connect(self._enable_correct)
        self.chart = ProgressChart(self)
        chart_label = QLabel("Progress of this note", self)
        chart_label.setAccessibleName("Progress of this note")

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.message)
        layout.addWidget(self.table, 1)
        layout.addWidget(chart_label)
        layout.addWidget(self.chart)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not event.spontaneous():
            self.refresh_notes(self._preferred)
            self._preferred = None

    def select_note(self, note_id: str | None) -> None:
        """Show `note_id` (now if the board is on screen, else when it is next shown)."""
        if self.isVisible():
            self.refresh_notes(note_id)
        else:
            self._preferred = note_id

    def refresh_notes(self, select: str | None = None) -> None:
        """List the notes again (keeping the chosen one, or choosing `select`)."""
        keep = select or self.current_note_id()
        notes = sorted(self._notes(), key=lambda n: n.title.casefold())
        self._by_id = {n.id: n for n in notes}
        self.picker.blockSignals(True)
        self.picker.clear()
        for note in notes:
            self.picker.addItem(note.title, note.id)
        found = self.picker.findData(keep) if keep else -1
        self.picker.setCurrentIndex(found if found >= 0 else (0 if notes else -1))
        self.picker.blockSignals(False)
        self.reload()

    def current_note_id(self) -> str | None:
        data = self.picker.currentData()
        return str(data) if data else None

    def current_note(self) -> Note | None:
        return self._by_id.get(self.current_note_id() or "")

    def take_changes(self, changes: Changes) -> None:
        """Other notes, sessions, verdicts or reviews: the gaps are read again if on screen
        (the board reads them on every showing)."""
        if changes.touches(GAPS_SHOW) and self.isVisible():
            self.reload()

    def reload(self) -> None:
        if self._task is not None:
            self._task.cancel()
        note = self.current_note()
        self.practise_button.setEnabled(False)
        if note is None:
            self._show(NoteGaps("", [], [], 0, 0))
            self.message.setText(NO_NOTE)
            return
        self.message.setText("Reading the gaps…")
        load = self._load
        self._task = Task(
            self,
            op=lambda _p: load(note),
            success=self._on_loaded,
            failure=self._on_failed,
            name="load gap board",
        ).run()

    def _on_loaded(self, data: NoteGaps) -> None:
        self._task = None
        self._show(data)
        self.loaded.emit(data.note_id)

    def _on_failed(self, error: Exception) -> None:
        self._task = None
        self.message.setText(f"The gaps could not be read. {learner_message(error)}")

    def _show(self, data: NoteGaps) -> None:
        self.gaps = data.gaps
        self.table.setRowCount(len(data.gaps))
        for row, gap in enumerate(data.gaps):
            cells = (
                f"{gap.assertion_index + 1}. {gap.assertion_text}",
                f"{gap.missed}×",
                PROBLEM_LABELS.get(gap.problem, gap.problem),
                gap.explanation,
            )
            for column, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                if column == 1:
                    item.setTextAlignment(
                        Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
                    )
                self.table.setItem(row, column, item)
        self.table.resizeRowsToContents()
        self.message.setText(board_message(data))
        self.practise_button.setEnabled(bool(data.gaps))
        self._enable_correct()
        self.chart.set_points(data.points)

    def chosen_gap(self) -> OpenGap | None:
        row = self.table.currentRow()
        chosen = self.table.selectionModel().hasSelection()
        return self.gaps[row] if chosen and 0 <= row < len(self.gaps) else None

    def _enable_correct(self) -> None:
        gap = self.chosen_gap()
        self.correct_button.setEnabled(
            gap is not None and bool(gap.attempt_id) and gap.key_point is not None
        )

    def set_corrector(self, correct: Callable[[str, int | None], None]) -> None:
        """The chosen gap can be corrected: `correct(attempt_id, key point from 0)`."""
        self._correct = correct
        self.correct_button.show()

    def _correct_chosen(self) -> None:
        gap = self.chosen_gap()
        if self._correct is None or gap is None or gap.key_point is None:
            return
        self._correct(gap.attempt_id, gap.key_point - 1)

    def _practise(self) -> None:
        note = self.current_note()
        if note is not None and self.gaps:
            self.practise_requested.emit(note, list(self.gaps))
