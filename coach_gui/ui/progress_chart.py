"""A small painted chart of one note's progress: the pass rate of each session (line) and
the open gaps after it (bars; `services.review.note_gaps`, the gap board's own rule).
Painted with QPainter: Coach ships PySide6-Essentials, which has no QtCharts. Its
accessible description says the numbers for screen readers."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from coach_gui.services.review import ProgressPoint


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
        return QSize(420, 10 * self.fontMetrics().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(200, 7 * self.fontMetrics().height())

    def set_points(self, points: Sequence[ProgressPoint]) -> None:
        self.points = list(points)
        text = describe(self.points)
        self.setAccessibleDescription(text)
        self.setToolTip(text)
        self.update()

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text_colour = palette.color(QPalette.ColorRole.WindowText)
        line_height = self.fontMetrics().height()
        plot = QRectF(self.rect()).adjusted(40, line_height * 1.6, -40, -line_height * 1.2)
        painter.setPen(text_colour)
        legend = "— pass rate (left, %)    ▮ open gaps (right)"
        painter.drawText(
            QRectF(0, 2, self.width(), line_height), Qt.AlignmentFlag.AlignCenter, legend
        )
        if not self.points or plot.width() < 10 or plot.height() < 10:
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, describe(self.points))
            return
        grid = QColor(text_colour)
        grid.setAlpha(60)
        painter.setPen(QPen(grid, 1))
        painter.drawRect(plot)
        most = max(1, max(p.open_gaps for p in self.points))
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
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        for label, y in (("100", plot.top()), ("0", plot.bottom())):
            painter.drawText(QRectF(0, y - line_height / 2, 36, line_height), right, label)
        for label, y in ((str(most), plot.top()), ("0", plot.bottom())):
            painter.drawText(
                QRectF(plot.right() + 4, y - line_height / 2, 36, line_height), left, label
            )
        span = f"{len(self.points)} sessions, oldest → newest"
        painter.drawText(
            QRectF(plot.left(), plot.bottom() + 2, plot.width(), line_height),
            Qt.AlignmentFlag.AlignCenter,
            span,
        )
