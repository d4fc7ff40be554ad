"""A painted heatmap of reviews per day over the last year: 53 weeks as columns, the
days of the week as rows (Monday on top), in the learner's own dates, with the months
named over their first week, a tooltip per day and a legend of what each shade counts.
Painted with QPainter like the forecast chart (PySide6-Essentials has no QtCharts); the
shades are the palette's highlight colour, so it reads in light and dark alike; its
accessible description says the numbers in words."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date

from PySide6.QtCore import QEvent, QPoint, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QHelpEvent, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from coach_gui.ui.charts.chart_text import LEFT, RIGHT, ChartText, draw_texts, widest

TITLE = "Reviews per day over the last year"
WEEKS = 53  # 365 days from any weekday fill 53 columns of 7
ROW_NAMES = ("Mon", "", "Wed", "", "Fri", "", "")  # every other day named, as GitHub does
LEGEND = "Reviews a day:"
SHADES = (1.0, 0.75, 0.52, 0.32)  # how far towards the highlight, the top level down


def counted(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def day_words(day: str) -> str:
    when = date.fromisoformat(day)
    return f"{when:%A} {when.day} {when:%B %Y}"


def levels(days: Sequence[tuple[str, int]]) -> list[int]:
    """The upper bound of each shade, lowest first: the busiest day's count in four even
    steps (fewer when it is under four)."""
    most = max((count for _, count in days), default=0)
    return sorted({math.ceil(most * k / 4) for k in range(1, 5)} - {0})


def level(count: int, bounds: Sequence[int]) -> int:
    """0 for no reviews, else 1 + the index of the shade's bound."""
    if count <= 0:
        return 0
    return 1 + next((n for n, bound in enumerate(bounds) if count <= bound), len(bounds) - 1)


def legend_labels(bounds: Sequence[int]) -> list[str]:
    """What each shade counts: "0", then "1–7", "8–13", …"""
    labels, low = ["0"], 1
    for bound in bounds:
        labels.append(str(bound) if bound == low else f"{low}–{bound}")
        low = bound + 1
    return labels


def describe(days: Sequence[tuple[str, int]]) -> str:
    """The chart in words: the year's total, the busiest day, today, and each month."""
    total = sum(count for _, count in days)
    if not days or not total:
        return "No reviews in the last year."
    active = sum(1 for _, count in days if count)
    busiest = max(days, key=lambda d: d[1])
    months: dict[str, int] = {}
    for day, count in days:
        when = date.fromisoformat(day)
        key = f"{when:%B %Y}"
        months[key] = months.get(key, 0) + count
    by_month = "; ".join(f"{month}: {count:,}" for month, count in months.items())
    return (
        f"{counted(total, 'review')} in the last year, on {counted(active, 'day')} of "
        f"{len(days)}. Most in one day: {busiest[1]:,}, on {day_words(busiest[0])}. "
        f"Today: {days[-1][1]:,}. By month: {by_month}."
    )


def _mix(base: QColor, towards: QColor, share: float) -> QColor:
    return QColor.fromRgbF(
        base.redF() + (towards.redF() - base.redF()) * share,
        base.greenF() + (towards.greenF() - base.greenF()) * share,
        base.blueF() + (towards.blueF() - base.blueF()) * share,
    )


class ReviewHeatmap(QWidget):
    """One cell per day, oldest top left, today in the last column."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Reviews per day over the last year")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a screen reader can reach its summary
        self.setMouseTracking(True)
        self.days: list[tuple[str, int]] = []
        self.bounds: list[int] = []
        self.set_days([])

    def set_days(self, days: Sequence[tuple[str, int]]) -> None:
        self.days = list(days)
        self.bounds = levels(self.days)
        self.setAccessibleDescription(describe(self.days))
        self.updateGeometry()
        self.update()

    # --- layout --------------------------------------------------------------------
    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.font())

    def _row_room(self) -> float:
        metrics = self._metrics()
        return widest(metrics, ROW_NAMES) + metrics.averageCharWidth()

    def _max_cell(self) -> float:
        return self._metrics().height() * 1.2

    def _min_cell(self) -> float:
        return max(6.0, self._metrics().height() * 0.45)

    def _top(self) -> float:
        """Where the grid starts: under the title and the months' names."""
        return 2 + self._metrics().height() * 2.3

    def sizeHint(self) -> QSize:
        metrics = self._metrics()
        width = self._row_room() + WEEKS * self._max_cell() + 2 * metrics.averageCharWidth()
        return QSize(max(math.ceil(width), self.minimumSizeHint().width()), self._height())

    def minimumSizeHint(self) -> QSize:
        metrics = self._metrics()
        grid = self._row_room() + WEEKS * self._min_cell() + 2 * metrics.averageCharWidth()
        title = metrics.horizontalAdvance(TITLE) + 2 * metrics.averageCharWidth()
        width = max(grid, title, self._legend_width())
        return QSize(math.ceil(width), self._height())

    def _height(self) -> int:
        line = self._metrics().height()
        return math.ceil(self._top() + 7 * self._max_cell() + line * 1.6 + 4)

    def _cell(self) -> float:
        room = self.width() - self._row_room() - 2 * self._metrics().averageCharWidth()
        return max(self._min_cell(), min(self._max_cell(), room / WEEKS))

    def _first_weekday(self) -> int:
        return date.fromisoformat(self.days[0][0]).weekday() if self.days else 0

    def cell_rect(self, n: int) -> QRectF:
        """The cell of the `n`th day (0: a year ago)."""
        cell = self._cell()
        place = self._first_weekday() + n
        column, row = divmod(place, 7)
        left = self._row_room() + self._metrics().averageCharWidth()
        gap = max(1.0, cell / 8)
        return QRectF(left + column * cell, self._top() + row * cell, cell - gap, cell - gap)

    def _column_left(self, column: int) -> float:
        return self._row_room() + self._metrics().averageCharWidth() + column * self._cell()

    def _month_columns(self) -> list[tuple[int, str]]:
        """Each month's name over its first whole week (the first month over column 0)."""
        found = []
        first = self._first_weekday()
        for n, (day, _count) in enumerate(self.days):
            when = date.fromisoformat(day)
            if n and when.day != 1:
                continue
            column, row = divmod(first + n, 7)
            found.append((column + (1 if n and row else 0), f"{when:%b}"))
        return found

    def day_at(self, point: QPoint) -> tuple[str, int] | None:
        """The day whose cell is under `point` (for its tooltip)."""
        for n, day in enumerate(self.days):
            if self.cell_rect(n).adjusted(0, 0, 1, 1).contains(point.toPointF()):
                return day
        return None

    def _legend_width(self) -> float:
        placed = self._legend_at(0.0, ["0", *legend_labels(self.bounds or [1, 2, 3, 4])])
        return placed[-1][1].box.right() + 2 if placed else 0.0

    def _legend(self) -> list[tuple[QRectF | None, ChartText]]:
        """Swatches, each followed by what it counts, at the bottom right."""
        x = max(0.0, self.width() - self._legend_width())
        return self._legend_at(x, legend_labels(self.bounds))

    def _legend_at(self, x: float, labels: Sequence[str]) -> list[tuple[QRectF | None, ChartText]]:
        metrics = self._metrics()
        line = metrics.height()
        swatch = self._max_cell() * 0.9
        y = self._top() + 7 * self._max_cell() + line * 0.4
        caption = metrics.horizontalAdvance(LEGEND) + 2
        placed: list[tuple[QRectF | None, ChartText]] = [
            (None, ChartText(LEGEND, QRectF(x, y, caption, line), LEFT))
        ]
        x += caption + line * 0.5
        for label in labels:
            box = QRectF(x, y + (line - swatch) / 2, swatch, swatch)
            x += swatch + 4
            width = metrics.horizontalAdvance(label) + 2
            placed.append((box, ChartText(label, QRectF(x, y, width, line), LEFT)))
            x += width + line * 0.6
        return placed

    def text_boxes(self) -> list[ChartText]:
        """Every word the chart paints, in the box it is painted in."""
        metrics = self._metrics()
        line = metrics.height()
        pad = metrics.averageCharWidth()
        texts = [ChartText(TITLE, QRectF(pad, 2, self.width() - 2 * pad, line), LEFT)]
        if not self.days:
            return texts
        cell = self._cell()
        for row, name in enumerate(ROW_NAMES):
            if name:
                top = self._top() + row * cell + (cell - line) / 2
                texts.append(ChartText(name, QRectF(0, top, self._row_room(), line), RIGHT))
        months_y = 2 + line * 1.15
        columns = self._month_columns()
        for k, (column, name) in enumerate(columns):
            left = self._column_left(column)
            right = self._column_left(columns[k + 1][0]) if k + 1 < len(columns) else self.width()
            if metrics.horizontalAdvance(name) + 2 <= right - left:
                texts.append(ChartText(name, QRectF(left, months_y, right - left, line), LEFT))
        texts += [text for _box, text in self._legend()]
        return texts

    # --- painting ------------------------------------------------------------------
    def shade(self, count: int) -> QColor:
        """The colour of a day with `count` reviews: from the window's colour towards the
        palette's highlight (lighter on a dark palette), so more reviews always stand out
        more, in light and dark alike."""
        palette = self.palette()
        window = palette.color(QPalette.ColorRole.Window)
        found = level(count, self.bounds)
        if found == 0:
            return _mix(window, palette.color(QPalette.ColorRole.WindowText), 0.12)
        top = QColor(palette.color(QPalette.ColorRole.Highlight))
        if window.lightness() < 128:
            top = top.lighter(140)
        steps = len(self.bounds)
        return _mix(window, top, SHADES[steps - found] if steps else 1.0)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        text_colour = self.palette().color(QPalette.ColorRole.WindowText)
        for n, (_day, count) in enumerate(self.days):
            painter.fillRect(self.cell_rect(n), self.shade(count))
        if self.days:
            swatches = [box for box, _text in self._legend() if box is not None]
            for n, box in enumerate(swatches):
                painter.fillRect(box, self.shade(0 if n == 0 else self.bounds[n - 1]))
        painter.setPen(text_colour)
        draw_texts(painter, self.text_boxes())

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip:
            assert isinstance(event, QHelpEvent)
            found = self.day_at(event.pos())
            if found is None:
                QToolTip.showText(event.globalPos(), self.accessibleDescription(), self)
            else:
                day, count = found
                QToolTip.showText(
                    event.globalPos(), f"{day_words(day)}: {counted(count, 'review')}", self
                )
            return True
        return super().event(event)
