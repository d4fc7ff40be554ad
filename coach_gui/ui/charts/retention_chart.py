"""A painted bar chart of true retention per month: of the reviews made when a key point
was due, the share recalled, one bar per month of the last year, with the desired
retention drawn across as a line. A month without due reviews says "no reviews" where
its bar would be (it is not 0 %). Painted with QPainter like the forecast chart; colours
from the palette; its accessible description says the numbers in words."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from coach_gui.operations.schedule import MonthRetention
from coach_gui.ui.charts.chart_text import LEFT, RIGHT, ChartText, draw_texts, widest

TITLE = "True retention per month"
AXIS = ("100%", "50%", "0%")
NO_REVIEWS = "no\nreviews"


def month_words(month: str) -> str:
    """ "2026-03" as "March 2026"."""
    return f"{date.fromisoformat(month + '-01'):%B %Y}"


def _short(month: str) -> str:
    return f"{date.fromisoformat(month + '-01'):%b}"


def percent(rate: float) -> str:
    return f"{rate:.0%}"


def describe(months: Sequence[MonthRetention], desired: float) -> str:
    """The chart in words: each month's retention (or that it had no due reviews)."""
    if not any(m.due for m in months):
        return (
            f"No reviews of key points that were due in the last year yet; desired retention "
            f"{percent(desired)}."
        )
    parts = []
    for month in months:
        if month.rate is None:
            parts.append(f"{month_words(month.month)}: no reviews")
        else:
            parts.append(
                f"{month_words(month.month)}: {percent(month.rate)} "
                f"({month.recalled:,} of {month.due:,} recalled)"
            )
    return f"Desired retention {percent(desired)}. " + "; ".join(parts) + "."


class RetentionChart(QWidget):
    """One bar per month, oldest on the left; the desired retention as a line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("True retention per month against the desired retention")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a screen reader can reach its summary
        self.months: list[MonthRetention] = []
        self.desired = 0.9
        self.set_months([], 0.9)

    def set_months(self, months: Sequence[MonthRetention], desired: float) -> None:
        self.months, self.desired = list(months), desired
        text = describe(self.months, desired)
        self.setAccessibleDescription(text)
        self.setToolTip(text)
        self.updateGeometry()
        self.update()

    # --- layout --------------------------------------------------------------------
    def _metrics(self) -> QFontMetricsF:
        return QFontMetricsF(self.font())

    def _legend_text(self) -> str:
        return f"Desired retention {percent(self.desired)}"

    def _axis_room(self) -> float:
        metrics = self._metrics()
        return widest(metrics, AXIS) + metrics.averageCharWidth()

    def _month_room(self) -> float:
        metrics = self._metrics()
        words = [_short(m.month) for m in self.months] or ["May"]
        return widest(metrics, [*words, "100%", "no", "reviews"]) + metrics.averageCharWidth()

    def sizeHint(self) -> QSize:
        return QSize(
            max(480, self.minimumSizeHint().width()), math.ceil(10 * self._metrics().height())
        )

    def minimumSizeHint(self) -> QSize:
        metrics = self._metrics()
        bars = self._axis_room() + 12 * self._month_room() + metrics.averageCharWidth()
        legend = widest(metrics, [TITLE]) + self._legend_width() + 4 * metrics.averageCharWidth()
        return QSize(math.ceil(max(bars, legend)), 9 * math.ceil(metrics.height()))

    def _legend_width(self) -> float:
        metrics = self._metrics()
        return metrics.height() * 1.6 + metrics.horizontalAdvance(self._legend_text()) + 2

    def _plot(self) -> QRectF:
        metrics = self._metrics()
        line = metrics.height()
        return QRectF(self.rect()).adjusted(
            self._axis_room() + metrics.averageCharWidth() / 2,
            line * 2.0,
            -metrics.averageCharWidth(),
            -line * 1.4,
        )

    def bars(self) -> list[QRectF | None]:
        """Each month's bar (None: no due reviews that month)."""
        plot = self._plot()
        step = plot.width() / max(len(self.months), 1)
        width = step * 0.6
        found: list[QRectF | None] = []
        for n, month in enumerate(self.months):
            rate = month.rate
            if rate is None:
                found.append(None)
                continue
            height = plot.height() * rate
            x = plot.left() + n * step + (step - width) / 2
            found.append(QRectF(x, plot.bottom() - height, width, height))
        return found

    def _desired_y(self) -> float:
        plot = self._plot()
        return plot.bottom() - plot.height() * self.desired

    def _legend_line(self) -> tuple[QPointF, QPointF]:
        metrics = self._metrics()
        line = metrics.height()
        x = self.width() - self._legend_width() - metrics.averageCharWidth()
        y = 2 + line / 2
        return QPointF(x, y), QPointF(x + line * 1.2, y)

    def text_boxes(self) -> list[ChartText]:
        """Every word the chart paints, in the box it is painted in."""
        metrics = self._metrics()
        line = metrics.height()
        pad = metrics.averageCharWidth()
        start, end = self._legend_line()
        texts = [
            ChartText(TITLE, QRectF(pad, 2, start.x() - 2 * pad, line), LEFT),
            ChartText(
                self._legend_text(),
                QRectF(end.x() + line * 0.4, 2, self._legend_width() - line * 1.6, line),
                LEFT,
            ),
        ]
        plot = self._plot()
        for text, value in zip(AXIS, (1.0, 0.5, 0.0), strict=True):
            y = plot.bottom() - plot.height() * value
            texts.append(ChartText(text, QRectF(0, y - line / 2, self._axis_room(), line), RIGHT))
        if not self.months:
            return texts
        step = plot.width() / len(self.months)
        for n, (month, bar) in enumerate(zip(self.months, self.bars(), strict=True)):
            column = QRectF(plot.left() + n * step, 0, step, line)
            texts.append(ChartText(_short(month.month), column.translated(0, plot.bottom() + 2)))
            if bar is None:
                texts.append(
                    ChartText(NO_REVIEWS, QRectF(column.left(), plot.bottom() - 2.2 * line,
                                                 step, 2 * line))
                )  # fmt: skip
        return texts + self._value_labels()

    def _value_labels(self) -> list[ChartText]:
        """Each bar's retention, over it."""
        plot = self._plot()
        line = self._metrics().height()
        step = plot.width() / max(len(self.months), 1)
        found = []
        for n, (month, bar) in enumerate(zip(self.months, self.bars(), strict=True)):
            if bar is not None and month.rate is not None:
                top = max(plot.top() - line, bar.top() - line)
                box = QRectF(plot.left() + n * step, top, step, line)
                found.append(ChartText(percent(month.rate), box))
        return found

    # --- painting ------------------------------------------------------------------
    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        text_colour = palette.color(QPalette.ColorRole.WindowText)
        plot = self._plot()
        grid = QColor(text_colour)
        grid.setAlpha(60)
        painter.setPen(QPen(grid, 1))
        for value in (1.0, 0.5, 0.0):
            y = plot.bottom() - plot.height() * value
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
        colour = QColor(palette.color(QPalette.ColorRole.Highlight))
        colour.setAlpha(170)
        for bar in self.bars():
            if bar is not None:
                painter.fillRect(bar, colour)
        # The desired retention: a dashed line in the text colour, over the bars.
        pen = QPen(text_colour, max(1.5, self._metrics().height() / 10))
        pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        y = self._desired_y()
        painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
        painter.drawLine(*self._legend_line())
        # The figures over the bars stay legible where the line crosses them.
        metrics = self._metrics()
        for label in self._value_labels():
            width = metrics.horizontalAdvance(label.text) + 4
            centre = label.box.center()
            backing = QRectF(centre.x() - width / 2, label.box.top(), width, label.box.height())
            painter.fillRect(backing, palette.color(QPalette.ColorRole.Window))
        painter.setPen(text_colour)
        draw_texts(painter, self.text_boxes())
