"""*Statistics*: what is due, new and held back, in words; reviews per day over the last
year (a heatmap); true retention per month against the desired retention; the 14-day
forecast; the leeches (key points missed again and again), each a click or Enter away
from its note, to reword it; and one key point's timeline — every review, its rating,
where it came from, undone ones marked.

Each chart can be read as a table instead (*Show charts as tables*), and each says its
numbers in its accessible description. Loading replays new history into the memory
cache, so it runs on a background task; it reads again when shown after practice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.changes import Changes
from coach_gui.operations.schedule import (
    OPTIMIZE_MIN_REVIEWS,
    KeyPoint,
)
from coach_gui.ui.charts.chart_table import ChartTable
from coach_gui.ui.charts.forecast_chart import ForecastChart
from coach_gui.ui.charts.heatmap_chart import ReviewHeatmap, counted, day_words
from coach_gui.ui.charts.retention_chart import RetentionChart, month_words, percent
from coach_gui.ui.kit.buttons import button
from coach_gui.ui.kit.changes import StaleUntilShown
from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.refresh_key import RefreshOnF5
from coach_gui.ui.kit.tasks import Lane, Task
from coach_gui.ui.schedule.schedule_read import ScheduleRead

if TYPE_CHECKING:
    from coach_gui.domain.agreement import Agreement
    from coach_gui.domain.notes import NoteEntry
    from coach_gui.operations.cases import Schedule
    from coach_gui.services.ports.notes import NoteLookup
    from coach_gui.services.stats import Counts, Leech, Statistics, TimelineEntry

EMPTY_TEXT = "No reviews yet — practise a note and its reviews show here."
PICK_TEXT = "Pick a key point to see each of its reviews."
_NO_PARENT = QModelIndex()


def counts_text(counts: Counts, reviews: int) -> str:
    """The counts, in words."""
    if counts.due:
        late = [f"{counts.overdue:,} overdue"] if counts.overdue else []
        gaps = [counted(counts.open_gaps, "open gap")] if counts.open_gaps else []
        extra = f" ({', '.join(late + gaps)})" if late or gaps else ""
        due = f"{counted(counts.due, 'key point')} due today{extra}."
    else:
        due = "Nothing due today."
    if counts.new_waiting:
        new = (
            f"{counted(counts.new_waiting, 'new note')} waiting, "
            f"{counts.new_today:,} of them offered today."
        )
    else:
        new = "No new notes waiting."
    if counts.suspended or counts.buried:
        held = (
            f"Held back: {counts.suspended:,} suspended, {counts.buried:,} buried until tomorrow."
        )
    else:
        held = "Nothing suspended or buried."
    memory = (
        f"{counted(counts.assertions, 'key point')} with a memory, from "
        f"{counted(reviews, 'review')}."
        if counts.assertions
        else "No key point has a memory yet."
    )
    return " ".join((due, new, held, memory))


def key_point_words(title: str, index: int | None, text: str) -> str:
    place = f"{index + 1}. " if index is not None else "(changed since) "
    return f"{title} — {place}{text}"


def _section(title: str, parent: QWidget) -> QLabel:
    label = QLabel(title, parent)
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


class KeyPointModel(QAbstractListModel):
    """Every key point with a memory, those matching the filter shown (a model, not a list
    of items: 50,000 key points fill it at once)."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self._all: list[tuple[str, KeyPoint]] = []  # (its words, the key point)
        self._folded: list[str] = []  # its words, casefolded, for the filter
        self._shown: list[int] = []  # of _all, those matching the filter
        self.shown: list[KeyPoint] = []

    def set_points(self, points: list[KeyPoint], words: str) -> None:
        self._all = [(key_point_words(p.title, p.index, p.text), p) for p in points]
        self._folded = [text.casefold() for text, _ in self._all]
        self.set_filter(words)

    def set_filter(self, words: str) -> None:
        wanted = words.casefold().split()
        self.beginResetModel()
        self._shown = [
            n for n, folded in enumerate(self._folded) if all(w in folded for w in wanted)
        ]
        self.shown = [self._all[n][1] for n in self._shown]
        self.endResetModel()

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _NO_PARENT) -> int:
        return 0 if parent.isValid() else len(self._shown)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = 0) -> object:
        if not index.isValid() or not 0 <= index.row() < len(self._shown):
            return None
        text, point = self._all[self._shown[index.row()]]
        if role == Qt.ItemDataRole.DisplayRole:
            return text
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{point.text}\n{counted(point.reviews, 'review')}"
        return None

    def row_of(self, note_id: str, digest: str) -> int:
        return next(
            (n for n, p in enumerate(self.shown) if (p.note_id, p.digest) == (note_id, digest)),
            -1,
        )


class ChartBlock(QStackedWidget):
    """A chart, or its table in its place; as tall as the one shown."""

    TABLE_ROWS = 10

    def __init__(self, chart: QWidget, table: ChartTable, parent: QWidget) -> None:
        super().__init__(parent)
        self.chart, self.table = chart, table
        self.addWidget(chart)
        self.addWidget(table)

    def show_table(self, on: bool) -> None:
        if on:
            rows = self.table.verticalHeader().defaultSectionSize() * self.TABLE_ROWS
            height = rows + self.table.horizontalHeader().sizeHint().height() + 4
            self.table.setFixedHeight(max(height, self.chart.sizeHint().height()))
        self.setCurrentWidget(self.table if on else self.chart)
        self.updateGeometry()

    def sizeHint(self) -> QSize:
        shown = self.currentWidget()
        return shown.sizeHint() if shown is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:
        shown = self.currentWidget()
        return shown.minimumSizeHint() if shown is not None else super().minimumSizeHint()


AGREEMENT_NOTE = (
    "Of the key points each judge judged one by one, how many you left as it said, and "
    "where you corrected it: too strict (you had explained one it did not count) or too "
    "lenient (it counted one you had not)."
)
AGREEMENT_NONE = (
    "No key point judged one by one yet. Once the judge grades your answers against your "
    "key points, this shows how often you agree with it; disagree with a verdict? Correct "
    "the key point in the practice thread."
)


def schedule_text(stats: Statistics) -> str:
    """Which parameters schedule the learner's reviews, and whether a fit is possible."""
    using = (
        "Your schedule uses parameters fitted to your own reviews."
        if stats.parameters_fitted
        else "Your schedule uses FSRS's default parameters."
    )
    if stats.can_optimize:
        return f"{using} With {counted(stats.reviews, 'review')} it can be fitted (again)."
    more = OPTIMIZE_MIN_REVIEWS - stats.reviews
    return f"{using} After {counted(more, 'more review')} it can be fitted to your history."


class StatsView(QWidget, StaleUntilShown):
    """`loaded(Statistics)`: fresh figures are on screen. `key_points_loaded(list)`: the
    Timeline page's key points are. `timeline_loaded(list)`: a key
    point's reviews are. `open_note_requested(note_id, index)`: open that note to edit
    its key point `index` (-1: none known)."""

    # What Today counts, Statistics counts too.
    reads_again_on = Changes(notes=True, sessions=True, verdicts=True, reviews=True, schedule=True)

    loaded = Signal(object)
    key_points_loaded = Signal(object)
    agreement_loaded = Signal(object)  # list[Agreement]: the judge and you, read after
    timeline_loaded = Signal(object)
    open_note_requested = Signal(str, int)
    fit_requested = Signal()  # Schedule › Fit schedule to my history…

    def __init__(
        self,
        schedule: Schedule,
        notes: NoteLookup,
        catalogue: Callable[[], Sequence[NoteEntry]] | None = None,
        parent: QWidget | None = None,
    ) -> None:
        """`notes` finds a note by id as it is now (called on a worker: no widgets);
        `catalogue` gives every note listed now (called here, on the GUI thread)."""
        super().__init__(parent)
        self.schedule = schedule
        self._notes = notes
        self._catalogue = catalogue
        self._points_task: Task[list[KeyPoint]] | None = None
        self._agreement_task: Task[list[Agreement]] | None = None
        self._points_stale = True  # read when the Timeline page is first wanted
        self._timeline_task: Task[list[TimelineEntry]] | None = None
        self._stale = False
        self.stats: Statistics | None = None
        self.key_points: list[KeyPoint] | None = None
        self.entries: list[TimelineEntry] = []
        self.chosen: KeyPoint | None = None
        self.setObjectName("statsView")
        self.setAccessibleName("Statistics")
        self._build()
        self.read: ScheduleRead[Statistics] = ScheduleRead(
            self, self.summary_label, self.refresh_button, shown=self._on_loaded,
            failed="Could not read the statistics", name="load statistics",
        )  # fmt: skip

    # --- building -----------------------------------------------------------------------------
    def _build(self) -> None:
        self.title_label = QLabel("Statistics", self)
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title_label.setFont(font)
        self.summary_label = QLabel("Loading…", self)
        self.summary_label.setAccessibleName("Reviews in the last year")
        self.tables_box = QCheckBox("Show charts as ta&bles", self)
        self.tables_box.setAccessibleName("Show charts as tables")
        self.tables_box.setToolTip("Read each chart's numbers in a table instead")
        self.refresh_button = button(self, "&Refresh", "Refresh", "Read the statistics again (F5)")
        header = QHBoxLayout()
        header.addWidget(self.title_label)
        header.addWidget(self.summary_label, 1)
        header.addWidget(self.tables_box)
        header.addWidget(self.refresh_button)

        self.counts_label = QLabel("", self)
        self.counts_label.setWordWrap(True)
        self.counts_label.setAccessibleName("What is due, new and held back")
        self.counts_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("statsTabs")
        self.tabs.tabBar().setAccessibleName("Statistics pages")
        self.tabs.addTab(self._build_overview(), "Over&view")
        self.tabs.addTab(self._build_leeches(), "&Leeches")
        self.tabs.addTab(self._build_timeline(), "&Timeline")
        self.tabs.currentChanged.connect(self._on_page)
        self.empty_label = QLabel(EMPTY_TEXT, self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setAccessibleName("No reviews yet")
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.tabs)
        self.pages.addWidget(self.empty_label)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.counts_label)
        layout.addWidget(self.pages, 1)
        self.refresh_button.clicked.connect(self.refresh)
        self.tables_box.toggled.connect(self._show_tables)
        RefreshOnF5(self, self.refresh)
        QWidget.setTabOrder(self.tables_box, self.refresh_button)
        QWidget.setTabOrder(self.refresh_button, self.tabs)
        self._show(None)

    def _build_overview(self) -> QWidget:
        page = QWidget(self)
        self.heatmap = ReviewHeatmap(page)
        self.heatmap_table = ChartTable(
            "Reviews per day, as a table", ["Date", "Reviews"], page, numbers=(1,)
        )
        self.retention_chart = RetentionChart(page)
        self.retention_table = ChartTable(
            "True retention per month, as a table",
            ["Month", "Due reviews", "Recalled", "True retention"],
            page,
            numbers=(1, 2, 3),
        )
        self.forecast = ForecastChart(page)
        self.forecast_table = ChartTable(
            "Forecast, as a table", ["Date", "Key points due"], page, numbers=(1,)
        )
        self.blocks = [
            ChartBlock(self.heatmap, self.heatmap_table, page),
            ChartBlock(self.retention_chart, self.retention_table, page),
            ChartBlock(self.forecast, self.forecast_table, page),
        ]
        self.retention_note = QLabel(
            "True retention: of the reviews made when a key point was due, the share you "
            "recalled (rated hard, good or easy).",
            page,
        )
        self.retention_note.setWordWrap(True)
        # The judge measured against you (issue 36): your corrections, per judge.
        self.agreement_heading = _section("The judge and you", page)
        self.agreement_note = QLabel(AGREEMENT_NONE, page)
        self.agreement_note.setWordWrap(True)
        self.agreement_table = ChartTable(
            "The judge and you, as a table",
            ["Judge", "Strictness", "Key points judged", "Left as judged", "Too strict",
             "Too lenient"],
            page,
            numbers=(2, 3, 4, 5),
        )  # fmt: skip
        self.agreement_table.hide()
        self.schedule_label = QLabel("", page)
        self.schedule_label.setWordWrap(True)
        self.schedule_label.setAccessibleName("Your schedule's parameters")
        self.fit_button = button(
            page,
            "Fit the schedule to m&y history…",
            "Fit the schedule to my history",
            "Fit FSRS's parameters to your own reviews; nothing changes until you apply them",
        )
        self.fit_button.clicked.connect(self.fit_requested)
        fit_row = QHBoxLayout()
        fit_row.addWidget(self.schedule_label, 1)
        fit_row.addWidget(self.fit_button)
        column = QVBoxLayout(page)
        column.addWidget(self.blocks[0])
        column.addWidget(self.blocks[1])
        column.addWidget(self.retention_note)
        column.addWidget(self.blocks[2])
        column.addWidget(self.agreement_heading)
        column.addWidget(self.agreement_note)
        column.addWidget(self.agreement_table)
        column.addLayout(fit_row)
        column.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setObjectName("statsOverview")
        scroll.setAccessibleName("Overview")
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidgetResizable(True)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        scroll.setWidget(page)
        self.overview = scroll
        return scroll

    def _build_leeches(self) -> QWidget:
        page = QWidget(self)
        self.leech_label = QLabel("", page)
        self.leech_label.setWordWrap(True)
        self.leech_table = ChartTable(
            "Leeches", ["Note", "Key point", "Times missed", "Reviews"], page, numbers=(2, 3)
        )
        self.leech_table.setAccessibleDescription(
            "Key points missed again and again. Enter opens the note, to reword the key point."
        )
        self.leech_table.horizontalHeader().setStretchLastSection(False)
        self.leech_table.horizontalHeader().setSectionResizeMode(
            1, self.leech_table.horizontalHeader().ResizeMode.Stretch
        )
        self.leech_table.select_first = True  # Enter opens the first at once
        self.leech_table.activated.connect(lambda _index: self._open_leech())
        self.open_leech_button = button(
            page, "&Open note", "Open note", "Open the note of this key point, to reword it"
        )
        self.leech_timeline_button = button(
            page, "Show ti&meline", "Show timeline", "Every review of this key point"
        )
        self.open_leech_button.clicked.connect(self._open_leech)
        self.leech_timeline_button.clicked.connect(self._leech_timeline)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.leech_timeline_button)
        buttons.addWidget(self.open_leech_button)
        column = QVBoxLayout(page)
        column.addWidget(self.leech_label)
        column.addWidget(self.leech_table, 1)
        column.addLayout(buttons)
        return page

    def _build_timeline(self) -> QWidget:
        page = QWidget(self)
        self.filter_label = QLabel("Fi&nd:", page)
        self.filter_box = QLineEdit(page)
        self.filter_box.setAccessibleName("Find a key point")
        self.filter_box.setPlaceholderText("A note's title or a key point's words")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_label.setBuddy(self.filter_box)
        self.key_model = KeyPointModel(page)
        self.key_list = QListView(page)
        self.key_list.setModel(self.key_model)
        self.key_list.setAccessibleName("Key points with a memory")
        self.key_list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.key_list.setWordWrap(False)
        self.key_list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.key_list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.key_list.setUniformItemSizes(True)
        self.filter_box.textChanged.connect(self._filter)
        self.filter_box.returnPressed.connect(self.key_list.setFocus)
        self.key_list.selectionModel().currentChanged.connect(self._on_key_point)
        left = QWidget(page)
        finder = QHBoxLayout()
        finder.addWidget(self.filter_label)
        finder.addWidget(self.filter_box, 1)
        left_column = QVBoxLayout(left)
        left_column.setContentsMargins(0, 0, 0, 0)
        left_column.addLayout(finder)
        left_column.addWidget(self.key_list, 1)

        right = QWidget(page)
        self.timeline_label = QLabel(PICK_TEXT, right)
        self.timeline_label.setWordWrap(True)
        self.timeline_label.setAccessibleName("Key point shown")
        self.timeline_table = ChartTable(
            "Reviews of the key point", ["Date", "Rating", "From", "Counted"], right
        )
        self.open_key_button = button(
            right, "&Open note", "Open note", "Open the note of this key point, to edit it"
        )
        self.open_key_button.clicked.connect(self._open_chosen)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.open_key_button)
        right_column = QVBoxLayout(right)
        right_column.setContentsMargins(0, 0, 0, 0)
        right_column.addWidget(self.timeline_label)
        right_column.addWidget(self.timeline_table, 1)
        right_column.addLayout(buttons)

        splitter = QSplitter(Qt.Orientation.Horizontal, page)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setChildrenCollapsible(False)
        splitter.setSizes([360, 520])
        column = QVBoxLayout(page)
        column.addWidget(splitter)
        return page

    # --- loading ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read the statistics again, in the background (a load still running is dropped)."""
        self._stale = False
        schedule, notes = self.schedule, self._notes
        # A snapshot, taken here: the window changes its notes on this thread.
        catalogue = list(self._catalogue()) if self._catalogue is not None else None
        self.read.start(lambda: schedule.statistics(notes, catalogue))

    def _on_loaded(self, stats: Statistics) -> None:
        self._show(stats)
        self._points_stale = True
        if self.tabs.currentIndex() == 2 and self.isVisible():
            self._read_key_points()
        # The judge and you next: `loaded` says every figure is on screen.
        self._read_agreement(lambda: self.loaded.emit(stats))

    def _read_agreement(self, then: Callable[[], None]) -> None:
        """The judge and you, in the background once the other figures are shown: it reads
        every session (seconds on 20,000), and they must not wait for it."""
        if self._agreement_task is not None:
            self._agreement_task.cancel()
        schedule = self.schedule

        def done(rows: list[Agreement]) -> None:
            self._agreement_task = None
            self._show_agreement(rows)
            self.agreement_loaded.emit(rows)
            then()

        def failed(error: Exception) -> None:
            self._agreement_task = None
            self.agreement_note.setText(f"Not counted: {learner_message(error)}")
            then()

        self._agreement_task = Task(
            self,
            op=lambda _progress: schedule.judge_agreement(),
            success=done,
            failure=failed,
            lane=Lane.GENERAL,
            name="count judge agreement",
        ).run()

    def _read_key_points(self, then: Callable[[], None] | None = None) -> None:
        """The Timeline page's key points, in the background (on 10,000 notes, a second)."""
        self._points_stale = False
        if self._points_task is not None:
            self._points_task.cancel()
        schedule, notes = self.schedule, self._notes

        def done(points: list[KeyPoint]) -> None:
            self._points_task = None
            self._show_key_points(points)
            self.key_points_loaded.emit(points)
            if then is not None:
                then()

        self._points_task = Task(
            self,
            op=lambda _progress: schedule.key_points(notes),
            success=done,
            failure=self._on_timeline_failed,
            lane=Lane.GENERAL,
            name="load key points",
        ).run()

    def _on_page(self, page: int) -> None:
        if page == 2 and self._points_stale and self.stats is not None:
            self._read_key_points()

    # --- showing ------------------------------------------------------------------------------
    def _show(self, stats: Statistics | None) -> None:
        self.stats = stats
        days = stats.days if stats is not None else []
        self.heatmap.set_days(days)
        self.heatmap_table.set_rows(
            [[day_words(day), f"{count:,}"] for day, count in reversed(days) if count]
        )
        self.heatmap_table.setAccessibleDescription(
            "Each day with at least one review, newest first; the other days had none."
        )
        desired = stats.desired_retention if stats is not None else 0.9
        months = stats.retention if stats is not None else []
        self.retention_chart.set_months(months, desired)
        self.retention_table.set_rows([
            [month_words(m.month), f"{m.due:,}", f"{m.recalled:,}",
             percent(m.rate) if m.rate is not None else "no reviews"]
            for m in months
        ])  # fmt: skip
        self.retention_table.setAccessibleDescription(
            f"Desired retention {percent(desired)}. Months without due reviews say no reviews."
        )
        forecast = stats.forecast if stats is not None else []
        self.forecast.set_days(forecast)
        self.forecast_table.set_rows([[day_words(day), f"{count:,}"] for day, count in forecast])
        self._show_leeches(stats)
        if stats is None:
            return
        self.summary_label.setText(
            f"{counted(stats.reviews_this_year, 'review')} in the last year."
            if stats.reviews
            else "No reviews yet."
        )
        self.counts_label.setText(counts_text(stats.counts, stats.reviews))
        self.schedule_label.setText(schedule_text(stats))
        self.fit_button.setEnabled(stats.can_optimize)
        empty = not stats.reviews and not stats.counts.assertions
        self.pages.setCurrentWidget(self.empty_label if empty else self.tabs)
        self.tables_box.setVisible(not empty)

    def _show_agreement(self, rows: Sequence[Agreement]) -> None:
        """Per judge, model and strictness over every month: how often your word and the
        judge's agree on the key points it judged one by one."""
        from coach_gui.domain.agreement import totals

        table = [
            [f"{r.model} ({'this computer' if r.judge == 'local' else 'cloud'})", r.strictness,
             f"{r.judged:,}", f"{r.judged - r.corrected:,} ({percent(r.agreement or 0.0)})",
             f"{r.too_strict:,}", f"{r.too_lenient:,}"]
            for r in totals(rows)
        ]  # fmt: skip
        self.agreement_table.set_rows(table)
        self.agreement_table.setVisible(bool(table))
        self.agreement_note.setText(AGREEMENT_NOTE if table else AGREEMENT_NONE)

    def _show_tables(self, on: bool) -> None:
        for block in self.blocks:
            block.show_table(on)

    def _show_leeches(self, stats: Statistics | None) -> None:
        leeches = stats.leeches if stats is not None else []
        lapses = stats.leech_lapses if stats is not None else 4
        if leeches:
            self.leech_label.setText(
                f"{counted(len(leeches), 'key point')} missed {lapses:,} times or more. "
                "A key point you keep missing may need rewording, or splitting in two: "
                "Open note (Enter) to edit it."
            )
        else:
            self.leech_label.setText(
                f"No leeches: no key point was missed {lapses:,} times or more."
            )
        self.leech_table.set_rows([
            [leech.title, leech.text, f"{leech.lapses:,}", f"{leech.reviews:,}"]
            for leech in leeches
        ])  # fmt: skip
        self.open_leech_button.setEnabled(bool(leeches))
        self.leech_timeline_button.setEnabled(bool(leeches))

    def _show_key_points(self, points: list[KeyPoint]) -> None:
        self.key_points = points
        chosen = self.chosen
        self.key_model.set_points(points, self.filter_box.text())
        if chosen is not None and not self._select(chosen.note_id, chosen.digest):
            self._choose(None)
        elif chosen is not None:
            self._load_timeline(chosen)  # its reviews may have changed too
        self.open_key_button.setEnabled(self.chosen is not None)

    def _filter(self, text: str) -> None:
        chosen = self.chosen
        self.key_model.set_filter(text)
        if chosen is not None:
            self._select(chosen.note_id, chosen.digest)

    def _select(self, note_id: str, digest: str) -> bool:
        row = self.key_model.row_of(note_id, digest)
        if row < 0:
            return False
        selection = self.key_list.selectionModel()
        selection.blockSignals(True)
        self.key_list.setCurrentIndex(self.key_model.index(row))
        selection.blockSignals(False)
        return True

    def _on_key_point(self, index: QModelIndex, _previous: object) -> None:
        shown = self.key_model.shown
        self._choose(shown[index.row()] if index.isValid() and index.row() < len(shown) else None)

    def _choose(self, point: KeyPoint | None) -> None:
        self.chosen = point
        self.open_key_button.setEnabled(point is not None)
        if point is None:
            self.entries = []
            self.timeline_label.setText(PICK_TEXT)
            self.timeline_table.set_rows([])
            return
        self._load_timeline(point)

    def show_timeline(self, note_id: str, digest: str) -> None:
        """The timeline of this key point, on the Timeline page (the key points are read
        first, if they are not yet)."""
        self.filter_box.clear()
        self.tabs.setCurrentIndex(2)

        def pick() -> None:
            if self._select(note_id, digest):
                self._choose(self.key_model.shown[self.key_list.currentIndex().row()])
                self.timeline_table.setFocus()

        if self._points_task is not None or self._points_stale:
            self._read_key_points(then=pick)
        else:
            pick()

    def _load_timeline(self, point: KeyPoint) -> None:
        if self._timeline_task is not None:
            self._timeline_task.cancel()
        schedule = self.schedule
        self.timeline_label.setText(
            f"{key_point_words(point.title, point.index, point.text)}\nLoading its reviews…"
        )
        self._timeline_task = Task(
            self,
            op=lambda _progress: schedule.timeline(point.note_id, point.digest),
            success=lambda entries: self._on_timeline(point, entries),
            failure=self._on_timeline_failed,
            lane=Lane.GENERAL,
            name="load timeline",
        ).run()

    def _on_timeline(self, point: KeyPoint, entries: list[TimelineEntry]) -> None:
        self._timeline_task = None
        if point != self.chosen:
            return
        self.entries = entries
        counted_ones = sum(not e.undone for e in entries)
        undone = len(entries) - counted_ones
        more = f", {undone:,} undone" if undone else ""
        self.timeline_label.setText(
            f"{key_point_words(point.title, point.index, point.text)}\n"
            f"{counted(counted_ones, 'review')}{more}, oldest first."
        )
        self.timeline_table.set_rows([
            [day_words(e.day), e.rating_name, e.source_words,
             "undone (not counted)" if e.undone else "yes"]
            for e in entries
        ])  # fmt: skip
        self.timeline_loaded.emit(entries)

    def _on_timeline_failed(self, error: Exception) -> None:
        self._timeline_task = None
        self.timeline_label.setText(f"Could not read its reviews: {learner_message(error)}")

    # --- acting -------------------------------------------------------------------------------
    def _current_leech(self) -> Leech | None:
        row = self.leech_table.currentRow()
        stats = self.stats
        if stats is None or not 0 <= row < len(stats.leeches):
            return None
        return stats.leeches[row]

    def _open_leech(self) -> None:
        leech = self._current_leech()
        if leech is not None:
            index = leech.index if leech.index is not None else -1
            self.open_note_requested.emit(leech.note_id, index)

    def _leech_timeline(self) -> None:
        leech = self._current_leech()
        if leech is not None:
            self.show_timeline(leech.note_id, leech.digest)

    def _open_chosen(self) -> None:
        chosen = self.chosen
        if chosen is not None:
            index = chosen.index if chosen.index is not None else -1
            self.open_note_requested.emit(chosen.note_id, index)

    def take_focus(self) -> None:
        """Where the cursor goes when the view is shown: the page's tabs."""
        self.tabs.tabBar().setFocus()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if (self.stats is None and not self.read.reading) or self._stale:
            self.refresh()  # first shown, or out of date
