"""A small painted chart of one note's progress: the pass rate of each session (line) and
the open gaps after it (bars; `services.review.note_gaps`, the gap board's own rule).
Painted with QPainter: Coach ships PySide6-Essentials, which has no QtCharts. Its
accessible description says the numbers for screen readers."""

from __future__ import annotations

import math
from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from coach_gui.operations.review import ProgressPoint
from coach_gui.operations.vocabulary import counted
from coach_gui.ui.charts.chart_text import LEFT, RIGHT, ChartText, draw_texts, widest

LEGEND = "— pass rate (left, %)    ▮ open gaps (right)"


def describe(points: Sequence[ProgressPoint]) -> str:
    """The chart in words."""
    if not points:
        return "No sessions of this note yet."
    rates = [p.pass_rate for p in points if p.pass_rate is not None]
    text = f"{len(points)} session{'s' if len(points) != 1 else ''}. "
    if rates:
        text += f"Pass rate {rates[0]:.0%} in the first judged session, {rates[-1]:.0%} in the "
        text += "latest. "
    else:
        text += "No answers judged yet. "
    most = max(p.open_gaps for p in points)
    return text + f"Open gaps now: {points[-1].open_gaps} (most: {most})."


class ProgressChart(QWidget):
    """Pass rate (line, 0–100 %) and open gaps (bars) per session, oldest on the left."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Progress chart")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a screen reader can reach its summary
        self.points: list[ProgressPoint] = []
        self.set_points([])

    def sizeHint(self) -> QSize:
        return QSize(max(420, self.minimumSizeHint().width()), 10 * self.fontMetrics().height())

    def minimumSizeHint(self) -> QSize:
        """Room for the legend, and for the axis labels either side of a plot."""
        metrics = QFontMetricsF(self.font())
        width = max(metrics.horizontalAdvance(LEGEND), 2 * self._axis_room(metrics) + 60)
        return QSize(math.ceil(width + metrics.averageCharWidth()), 7 * self.fontMetrics().height())

    def set_points(self, points: Sequence[ProgressPoint]) -> None:
        self.points = list(points)
        text = describe(self.points)
        self.setAccessibleDescription(text)
        self.setToolTip(text)
        self.updateGeometry()
        self.update()

    # --- layout --------------------------------------------------------------------
    def _most(self) -> int:
        return max(1, max((p.open_gaps for p in self.points), default=0))

    def _axis_room(self, metrics: QFontMetricsF) -> float:
        return widest(metrics, ("100", str(self._most()))) + metrics.averageCharWidth()

    def _plot(self) -> QRectF:
        metrics = QFontMetricsF(self.font())
        line, room = metrics.height(), self._axis_room(metrics)
        return QRectF(self.rect()).adjusted(room, line * 1.6, -room, -line * 1.2)

    def text_boxes(self) -> list[ChartText]:
        """Every word the chart paints, in the box it is painted in."""
        metrics = QFontMetricsF(self.font())
        line, pad = metrics.height(), metrics.averageCharWidth() / 2
        plot = self._plot()
        texts = [ChartText(LEGEND, QRectF(0, 2, self.width(), line))]
        if not self.points:
            return [*texts, ChartText(describe(self.points), plot)]
        room = plot.left() - pad
        for label, y in (("100", plot.top()), ("0", plot.bottom())):
            texts.append(ChartText(label, QRectF(0, y - line / 2, room, line), RIGHT))
        for label, y in ((str(self._most()), plot.top()), ("0", plot.bottom())):
            texts.append(
                ChartText(label, QRectF(plot.right() + pad, y - line / 2, room, line), LEFT)
            )
        span = f"{counted(len(self.points), 'session')}, oldest → newest"
        texts.append(ChartText(span, QRectF(plot.left(), plot.bottom() + 2, plot.width(), line)))
        return texts

    # --- painting ------------------------------------------------------------------
    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_colour = palette.color(QPalette.ColorRole.WindowText)
        plot = self._plot()
        if self.points and plot.width() >= 10 and plot.height() >= 10:
            grid = QColor(text_colour)
            grid.setAlpha(60)
            painter.setPen(QPen(grid, 1))
            painter.drawRect(plot)
            most = self._most()
            step = plot.width() / len(self.points)
            bar = QColor(palette.color(QPalette.ColorRole.Highlight))
            bar.setAlpha(90)
            width = min(step * 0.6, 4.0 * self.fontMetrics().averageCharWidth())
            for n, point in enumerate(self.points):
                height = plot.height() * point.open_gaps / most
                x = plot.left() + (n + 0.5) * step - width / 2
                painter.fillRect(QRectF(x, plot.bottom() - height, width, height), bar)
            line = [
                QPointF(plot.left() + (n + 0.5) * step, plot.bottom() - plot.height() * rate)
                for n, p in enumerate(self.points)
                if (rate := p.pass_rate) is not None
            ]
            painter.setPen(QPen(palette.color(QPalette.ColorRole.Link), 2))
            if len(line) > 1:
                painter.drawPolyline(line)
            for dot in line:
                painter.drawEllipse(dot, 3, 3)
        painter.setPen(text_colour)
        draw_texts(painter, self.text_boxes())
