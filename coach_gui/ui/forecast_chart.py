"""A small painted bar chart: how many core assertions fall due on each of the next 14
days (today's bar holds the overdue ones too). Painted with QPainter, as the progress
chart is (PySide6-Essentials has no QtCharts); its accessible description says the
numbers for screen readers."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget


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
        return QSize(420, 8 * self.fontMetrics().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(200, 6 * self.fontMetrics().height())

    def set_days(self, days: Sequence[tuple[str, int]]) -> None:
        self.days = list(days)
        text = describe(self.days)
        self.setAccessibleDescription(text)
        self.setToolTip(text)
        self.update()

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        text_colour = palette.color(QPalette.ColorRole.WindowText)
        line = self.fontMetrics().height()
        plot = QRectF(self.rect()).adjusted(8, line * 1.4, -8, -line * 1.3)
        painter.setPen(text_colour)
        painter.drawText(
            QRectF(0, 2, self.width(), line),
            Qt.AlignmentFlag.AlignCenter,
            "Due in the next 14 days",
        )
        if not self.days or plot.width() < 20 or plot.height() < 10:
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, describe(self.days))
            return
        grid = QColor(text_colour)
        grid.setAlpha(60)
        painter.setPen(QPen(grid, 1))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        most = max(1, max(count for _, count in self.days))
        step = plot.width() / len(self.days)
        width = step * 0.7
        bar = palette.color(QPalette.ColorRole.Highlight)
        for n, (day, count) in enumerate(self.days):
            height = (plot.height() - line) * count / most
            x = plot.left() + n * step + (step - width) / 2
            colour = QColor(bar)
            colour.setAlpha(255 if n == 0 else 140)  # today stands out
            painter.fillRect(QRectF(x, plot.bottom() - height, width, height), colour)
            painter.setPen(text_colour)
            if count:
                painter.drawText(
                    QRectF(x - 8, plot.bottom() - height - line, width + 16, line),
                    Qt.AlignmentFlag.AlignCenter,
                    str(count),
                )
            painter.drawText(
                QRectF(plot.left() + n * step, plot.bottom() + 2, step, line),
                Qt.AlignmentFlag.AlignCenter,
                "today"
                if n == 0 and step > self.fontMetrics().horizontalAdvance("today")
                else _label(day),
            )
