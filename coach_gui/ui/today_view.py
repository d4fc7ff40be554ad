"""*Today*: the notes whose core assertions are due for practice (open gaps first, then the
most overdue), a 14-day forecast, and *Start*, which hands the due notes, in order and
each with its scheduling decision, to whoever runs practice (the main window).

Loading replays any new history into the memory cache, so it runs on a background task,
never on the GUI thread.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.memory import RATING_NAMES
from coach_gui.operations.today import DuePractice, today_with_plans
from coach_gui.services.gap_export import counted
from coach_gui.ui.failures import learner_message
from coach_gui.ui.forecast_chart import ForecastChart
from coach_gui.ui.key_shortcuts import shortcut
from coach_gui.ui.practice_widgets import button
from coach_gui.ui.refresh_key import RefreshOnF5
from coach_gui.ui.tasks import Lane, Task

if TYPE_CHECKING:
    from coach_gui.bootstrap import AppContext
    from coach_gui.services.ports.notes import NoteLookup
    from coach_gui.services.scheduler import DueNote, Today

HOW_IT_WORKS = (
    "Each core assertion you practise gets its own schedule: the ones you miss come back "
    "soon, the ones you explain come back later and later."
)
EMPTY_TEXT = (
    "Nothing due in the next 14 days. Practise a note to start its schedule.\n\n" + HOW_IT_WORKS
)
# As the gap board and the end of a session say it.
_GAP_WORDS = {"wrong": "wrong", "unexplained": "not explained"}
_NOTE_GAP_WORDS = {"wrong": "a key point wrong", "unexplained": "a key point not explained"}


def _when(stamp: str) -> str:
    return datetime.fromisoformat(stamp).astimezone().strftime("%d %b %H:%M")


def next_due(today: Today) -> str | None:
    """When the next key points fall due, once nothing is due today ("3 key points
    tomorrow"); None when nothing falls due in the forecast's days."""
    for offset, (day, count) in enumerate(today.forecast):
        if offset == 0 or not count:
            continue
        when = date.fromisoformat(day)
        said = "tomorrow" if offset == 1 else f"on {when:%A} {when.day} {when:%B}"
        return f"{count} key point{'s' if count != 1 else ''} {said}"
    return None


def nothing_due_text(today: Today | None) -> str:
    """Today's empty page: when the next review is, or how a schedule starts."""
    upcoming = next_due(today) if today is not None else None
    if upcoming is None:
        return EMPTY_TEXT
    return f"Nothing due today. Next: {upcoming}.\n\n{HOW_IT_WORKS}"


class TodayView(QWidget):
    """`start_requested(list[DuePractice])`: practise these notes in turn (Start, or one
    note activated). `loaded(Today)`: fresh data is on screen."""

    start_requested = Signal(object)
    loaded = Signal(object)

    def __init__(self, context: AppContext, notes: NoteLookup, parent: QWidget | None = None):
        """`notes` finds a note by id as it is now (None when gone); it is called on a
        worker thread, so it must not touch widgets (a dict's `get` is ideal)."""
        super().__init__(parent)
        self.context = context
        self._notes = notes
        self._task: Task[tuple[Today, list[DuePractice]]] | None = None
        self.today: Today | None = None
        self._stale = False
        self.practice: list[DuePractice] = []
        self.setObjectName("todayView")
        self.setAccessibleName("Today")
        self._build()

    def _build(self) -> None:
        self.title_label = QLabel("Today", self)
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setAccessibleName("Today")
        self.summary_label = QLabel("Loading…", self)
        self.summary_label.setAccessibleName("What is due")
        self.start_button = button(
            self, "&Start", "Start practising",
            "Practise the due notes in turn, starting with open gaps (Ctrl+Enter)",
        )  # fmt: skip
        self.refresh_button = button(self, "&Refresh", "Refresh", "Read what is due again (F5)")
        header = QHBoxLayout()
        header.addWidget(self.title_label)
        header.addWidget(self.summary_label, 1)
        header.addWidget(self.refresh_button)
        header.addWidget(self.start_button)

        self.tree = QTreeWidget(self)
        self.tree.setObjectName("todayTree")
        self.tree.setHeaderLabels(["Note / core assertion", "Due", "Interval", "Last rating"])
        self.tree.setAccessibleName("Due notes")
        self.tree.setAccessibleDescription(
            "Notes with core assertions due, open gaps first; expand a note to see them. "
            "Enter practises the selected note."
        )
        self.tree.setRootIsDecorated(True)
        columns = self.tree.header()
        columns.setStretchLastSection(False)
        columns.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, 4):
            columns.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setUniformRowHeights(True)
        self.tree.itemActivated.connect(self._on_activated)
        self.empty_label = QLabel(EMPTY_TEXT, self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setAccessibleName("Nothing due")
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.tree)
        self.pages.addWidget(self.empty_label)
        self.chart = ForecastChart(self)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.chart)
        self.start_button.clicked.connect(self.start)
        self.refresh_button.clicked.connect(self.refresh)
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut(keys, self, self.start, context)
        RefreshOnF5(self, self.refresh)
        QWidget.setTabOrder(self.refresh_button, self.start_button)
        QWidget.setTabOrder(self.start_button, self.tree)
        QWidget.setTabOrder(self.tree, self.chart)
        self._show(None, [])

    # --- loading ------------------------------------------------------------------------------
    def mark_stale(self) -> None:
        """Something was practised, judged or rated since: read again now if shown, else
        when next shown (so Start never practises from an old list)."""
        self._stale = True
        if self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        """Read what is due again, in the background (a load still running is dropped)."""
        self._stale = False
        if self._task is not None:
            self._task.cancel()
        context, notes = self.context, self._notes
        self.summary_label.setText("Loading…")
        self.refresh_button.setEnabled(False)
        self._task = Task(
            self,
            op=lambda _progress: today_with_plans(context, notes),
            success=self._on_loaded,
            failure=self._on_failed,
            # Not the writer lane, though it also brings the memory cache up to date: the
            # journal serialises its own writes, and a first cache build can take many
            # seconds, which a note save or quitting must not queue behind.
            lane=Lane.GENERAL,
            name="load today",
        ).run()

    def _on_loaded(self, result: tuple[Today, list[DuePractice]]) -> None:
        self._task = None
        self.refresh_button.setEnabled(True)
        today, practice = result
        self._show(today, practice)
        self.loaded.emit(today)

    def _on_failed(self, error: Exception) -> None:
        self._task = None
        self.refresh_button.setEnabled(True)
        self.summary_label.setText(f"Could not read what is due: {learner_message(error)}")

    def _show(self, today: Today | None, practice: list[DuePractice]) -> None:
        self.today, self.practice = today, practice
        self.tree.clear()
        notes = today.notes if today is not None else []
        for due in notes:
            self.tree.addTopLevelItem(self._note_item(due))
        first = self.tree.topLevelItem(0)
        if first is not None:
            first.setExpanded(True)
            self.tree.setCurrentItem(first)
        self.empty_label.setText(nothing_due_text(today))
        self.pages.setCurrentWidget(self.tree if notes else self.empty_label)
        self.start_button.setEnabled(bool(notes))
        self.chart.set_days(today.forecast if today is not None else [])
        if today is not None:
            self.summary_label.setText(self._summary(today))

    @staticmethod
    def _summary(today: Today) -> str:
        if not today.notes:
            upcoming = next_due(today)
            return f"Nothing due today. Next: {upcoming}." if upcoming else "Nothing due."
        overdue = sum(n.overdue for n in today.notes)
        late = f", {overdue} overdue" if overdue else ""
        count = len(today.notes)
        points = f"{today.due} core assertion{'s' if today.due != 1 else ''}"
        return f"{count} note{'s' if count != 1 else ''} due: {points}{late}."

    def _note_item(self, due: DueNote) -> QTreeWidgetItem:
        count = len(due.assertions)
        label = f"{due.note.title} — {count} due"
        label += f", {due.overdue} overdue" if due.overdue else ""
        label += f" · {_NOTE_GAP_WORDS[due.open_gap]}" if due.open_gap else ""
        first = due.assertions[0]
        item = QTreeWidgetItem([label, "now" if first.ahead else _when(first.memory.due), "", ""])
        item.setData(0, Qt.ItemDataRole.UserRole, due.note.id)
        item.setToolTip(0, label)
        for assertion in due.assertions:
            memory = assertion.memory
            # The gap first: a long key point is cut at the end, never its gap.
            gap = f"({_GAP_WORDS[memory.gap]}) " if memory.gap else ""
            text = f"{assertion.index + 1}. {gap}{memory.text}"
            # An open gap is due now, whenever FSRS would have it (ADR 0023).
            when = "now" if assertion.ahead else _when(memory.due)
            child = QTreeWidgetItem([
                text, when, f"{assertion.interval_days:g} d",
                RATING_NAMES[memory.last_rating],
            ])  # fmt: skip
            child.setToolTip(
                0,
                f"{memory.text}\nStability {memory.stability:.1f} days · "
                f"{counted(memory.reviews, 'review')}",
            )
            item.addChild(child)
        return item

    # --- starting -----------------------------------------------------------------------------
    def start(self) -> None:
        """Ctrl+Enter: practise every due note in turn, in the order shown."""
        if self.practice:
            self.start_requested.emit(list(self.practice))

    def _on_activated(self, item: QTreeWidgetItem) -> None:
        top = item.parent() or item
        note_id = top.data(0, Qt.ItemDataRole.UserRole)
        chosen = [p for p in self.practice if p.note.id == note_id]
        if chosen:
            self.start_requested.emit(chosen)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if (self.today is None and self._task is None) or self._stale:
            self.refresh()  # first shown, or out of date
