"""A small painted chart of an eval report: for each figure (consistency, gap agreement, pass
rate), a bar with core assertions and a bar without, 0–100 %. Painted with QPainter, as
`progress_chart` is (no QtCharts in PySide6-Essentials); its accessible description says
the numbers for screen readers."""

from __future__ import annotations

import math

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from coach_gui.domain.evals import ArmFigures, EvalReport
from coach_gui.ui.charts.chart_text import LEFT, RIGHT, ChartText, draw_texts, widest

FIGURES = (("consistency", "Consistency"), ("gap_agreement", "Gap agreement"),
           ("pass_rate", "Pass rate"))  # fmt: skip
AXIS = ("100%", "0")  # the value axis: its top and bottom


def _value(arm: ArmFigures, name: str) -> float | None:
    value = getattr(arm, name)
    return None if value is None else float(value)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _legend_words(report: EvalReport) -> tuple[str, str]:
    if report.kind == "judges":
        return "on this computer", "with Gemini"
    return "with assertions", "without"


def describe(report: EvalReport | None) -> str:
    """The chart in words."""
    if report is None:
        return "No eval report to show yet."
    on, off = report.arms
    first, second = _legend_words(report)
    parts = []
    for name, label in FIGURES:
        a, b = _value(on, name), _value(off, name)
        parts.append(f"{label}: {_pct(a)} {first}, {_pct(b)} {second}")
    return "; ".join(parts) + "."


class ArmChart(QWidget):
    """Grouped bars: with assertions (left of each pair) and without (right), or the judge on
    this computer and Gemini."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Judge consistency chart")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a screen reader can reach its summary
        self.report: EvalReport | None = None
        self.set_report(None)

    def sizeHint(self) -> QSize:
        line = self.fontMetrics().height()
        return QSize(max(360, self.minimumSizeHint().width()), 9 * line)

    def minimumSizeHint(self) -> QSize:
        """Room for the axis labels, each figure's name under its bars, and the legend."""
        metrics = QFontMetricsF(self.font())
        pad = metrics.averageCharWidth()
        labels = len(FIGURES) * (widest(metrics, (label for _n, label in FIGURES)) + 2 * pad)
        width = max(self._axis_room(metrics) + labels + pad, self._legend_width(metrics))
        return QSize(math.ceil(width), 7 * self.fontMetrics().height())

    def set_report(self, report: EvalReport | None) -> None:
        self.report = report
        text = describe(report)
        self.setAccessibleDescription(text)
        self.setToolTip(text)
        self.updateGeometry()
        self.update()

    # --- layout --------------------------------------------------------------------
    def _words(self) -> tuple[str, str]:
        return _legend_words(self.report) if self.report else ("with assertions", "without")

    @staticmethod
    def _axis_room(metrics: QFontMetricsF) -> float:
        return widest(metrics, AXIS) + metrics.averageCharWidth()

    def _legend_width(self, metrics: QFontMetricsF) -> float:
        line = metrics.height()
        names = sum(line + 4 + metrics.horizontalAdvance(name) for name in self._words())
        return names + metrics.averageCharWidth() * 3 + 4

    def _plot(self) -> QRectF:
        metrics = QFontMetricsF(self.font())
        line = metrics.height()
        return QRectF(self.rect()).adjusted(
            self._axis_room(metrics), line * 1.6, -metrics.averageCharWidth(), -line * 1.4
        )

    def _legend(self) -> list[tuple[float, ChartText]]:
        """Each arm's name, centred on the top line, after the x of its swatch."""
        metrics = QFontMetricsF(self.font())
        line = metrics.height()
        gap = metrics.averageCharWidth() * 3
        names = self._words()
        widths = [line + 4 + metrics.horizontalAdvance(name) for name in names]
        x = (self.width() - sum(widths) - gap * (len(names) - 1)) / 2
        placed = []
        for name, width in zip(names, widths, strict=True):
            placed.append(
                (x, ChartText(name, QRectF(x + line + 4, 2, width - line - 4, line), LEFT))
            )
            x += width + gap
        return placed

    def text_boxes(self) -> list[ChartText]:
        """Every word the chart paints, in the box it is painted in."""
        texts = [text for _x, text in self._legend()]
        plot = self._plot()
        if self.report is None:
            return [*texts, ChartText(describe(None), plot)]
        line = QFontMetricsF(self.font()).height()
        group = plot.width() / len(FIGURES)
        for n, (_name, label) in enumerate(FIGURES):
            centre = plot.left() + (n + 0.5) * group
            texts.append(
                ChartText(label, QRectF(centre - group / 2, plot.bottom() + 2, group, line))
            )
        for text, y in ((AXIS[0], plot.top()), (AXIS[1], plot.bottom())):
            room = plot.left() - QFontMetricsF(self.font()).averageCharWidth() / 2
            texts.append(ChartText(text, QRectF(0, y - line / 2, room, line), RIGHT))
        return texts

    # --- painting ------------------------------------------------------------------
    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        text_colour = palette.color(QPalette.ColorRole.WindowText)
        line = QFontMetricsF(self.font()).height()
        plot = self._plot()
        painter.setPen(text_colour)
        with_colour = palette.color(QPalette.ColorRole.Highlight)
        without_colour = QColor(with_colour)
        without_colour.setAlpha(70)
        for (x, _text), colour in zip(self._legend(), (with_colour, without_colour), strict=True):
            swatch = QRectF(x, 2 + line * 0.2, line * 0.8, line * 0.6)
            painter.fillRect(swatch, colour)
            painter.drawRect(swatch)
        if self.report is not None and plot.width() >= 10 and plot.height() >= 10:
            grid = QColor(text_colour)
            grid.setAlpha(60)
            painter.setPen(grid)
            painter.drawLine(plot.bottomLeft(), plot.bottomRight())
            painter.drawLine(plot.topLeft(), plot.topRight())
            on, off = self.report.arms
            group = plot.width() / len(FIGURES)
            bar = min(group * 0.3, 5.0 * self.fontMetrics().averageCharWidth())
            for n, (name, _label) in enumerate(FIGURES):
                centre = plot.left() + (n + 0.5) * group
                for offset, arm, colour in ((-bar, on, with_colour), (0.0, off, without_colour)):
                    value = _value(arm, name) or 0.0
                    height = plot.height() * value
                    rect = QRectF(centre + offset, plot.bottom() - height, bar, height)
                    painter.fillRect(rect, colour)
                    painter.setPen(text_colour)
                    painter.drawRect(rect)
        painter.setPen(text_colour)
        draw_texts(painter, self.text_boxes())
