"""A small painted bar chart: how many core assertions fall due on each of the next 14
days (today's bar holds the overdue ones too). Painted with QPainter, as the progress
chart is (PySide6-Essentials has no QtCharts); its accessible description says the
numbers for screen readers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from coach_gui.ui.charts.chart_text import ChartText, draw_texts, widest

DAYS = 14
TITLE = "Due in the next 14 days"


def describe(days: Sequence[tuple[str, int]]) -> str:
    """The chart in words."""
    if not days or not any(count for _, count in days):
        return "Nothing falls due in the next 14 days."
    busiest = max(days, key=lambda d: d[1])
    return (
        f"Due today: {days[0][1]}. Next 14 days: {sum(c for _, c in days)} in all; "
        f"busiest {busiest[0]} with {busiest[1]}."
    )


def _label(day: str) -> str:
    return date.fromisoformat(day).strftime("%a")[:2]


class ForecastChart(QWidget):
    """One bar per day, today on the left."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Forecast: assertions due in the next 14 days")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a screen reader can reach its summary
        self.days: list[tuple[str, int]] = []
        self.set_days([])

    def sizeHint(self) -> QSize:
        return QSize(max(420, self.minimumSizeHint().width()), 8 * self.fontMetrics().height())

    def minimumSizeHint(self) -> QSize:
        """Room for each day's name under its bar, and for the title."""
        metrics = QFontMetricsF(self.font())
        margin = metrics.averageCharWidth()
        days = DAYS * (self._day_room(metrics) + margin)
        width = max(days, metrics.horizontalAdvance(TITLE)) + 2 * margin
        return QSize(math.ceil(width), 6 * self.fontMetrics().height())

    def set_days(self, days: Sequence[tuple[str, int]]) -> None:
        self.days = list(days)
        text = describe(self.days)
        self.setAccessibleDescription(text)
        self.setToolTip(text)
        self.updateGeometry()
        self.update()

    # --- layout --------------------------------------------------------------------
    def _day_room(self, metrics: QFontMetricsF) -> float:
        """The widest day name, and the widest count (over its bar)."""
        names = [_label(day) for day, _ in self.days] or ["Mo"]
        counts = [str(count) for _, count in self.days]
        return widest(metrics, [*names, *counts])

    def _plot(self) -> QRectF:
        metrics = QFontMetricsF(self.font())
        line, margin = metrics.height(), metrics.averageCharWidth()
        return QRectF(self.rect()).adjusted(margin, line * 1.4, -margin, -line * 1.3)

    def _bars(self) -> list[QRectF]:
        plot = self._plot()
        line = QFontMetricsF(self.font()).height()
        most = max(1, max((count for _, count in self.days), default=0))
        step = plot.width() / max(len(self.days), 1)
        width = step * 0.7
        bars = []
        for n, (_day, count) in enumerate(self.days):
            height = (plot.height() - line) * count / most
            x = plot.left() + n * step + (step - width) / 2
            bars.append(QRectF(x, plot.bottom() - height, width, height))
        return bars

    def text_boxes(self) -> list[ChartText]:
        """Every word the chart paints, in the box it is painted in."""
        metrics = QFontMetricsF(self.font())
        line = metrics.height()
        plot = self._plot()
        texts = [ChartText(TITLE, QRectF(0, 2, self.width(), line))]
        if not self.days:
            return [*texts, ChartText(describe(self.days), plot)]
        step = plot.width() / len(self.days)
        for n, ((day, count), bar) in enumerate(zip(self.days, self._bars(), strict=True)):
            if count:  # over its bar, centred on its day
                above = QRectF(plot.left() + n * step, bar.top() - line, step, line)
                texts.append(ChartText(str(count), above))
            today = n == 0 and step > metrics.horizontalAdvance("today")
            name = "today" if today else _label(day)
            texts.append(
                ChartText(name, QRectF(plot.left() + n * step, plot.bottom() + 2, step, line))
            )
        return texts

    # --- painting ------------------------------------------------------------------
    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        text_colour = palette.color(QPalette.ColorRole.WindowText)
        plot = self._plot()
        if self.days:
            grid = QColor(text_colour)
            grid.setAlpha(60)
            painter.setPen(QPen(grid, 1))
            painter.drawLine(plot.bottomLeft(), plot.bottomRight())
            colour = QColor(palette.color(QPalette.ColorRole.Highlight))
            for n, bar in enumerate(self._bars()):
                colour.setAlpha(255 if n == 0 else 140)  # today stands out
                painter.fillRect(bar, colour)
        painter.setPen(text_colour)
        draw_texts(painter, self.text_boxes())
