"""A small painted chart of an eval report: for each figure (consistency, gap agreement, pass
rate), a bar with core assertions and a bar without, 0–100 %. Painted with QPainter, as
`progress_chart` is (no QtCharts in PySide6-Essentials); its accessible description says
the numbers for screen readers."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QSizePolicy, QWidget

from coach_gui.domain.evals import ArmFigures, EvalReport

FIGURES = (("consistency", "Consistency"), ("gap_agreement", "Gap agreement"),
           ("pass_rate", "Pass rate"))  # fmt: skip


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
        return QSize(360, 9 * self.fontMetrics().height())

    def minimumSizeHint(self) -> QSize:
        return QSize(220, 7 * self.fontMetrics().height())

    def set_report(self, report: EvalReport | None) -> None:
        self.report = report
        text = describe(report)
        self.setAccessibleDescription(text)
        self.setToolTip(text)
        self.update()

    def _legend(self, painter: QPainter, line: int, keys: tuple[tuple[QColor, str], ...]) -> None:
        """A swatch in each arm's colour, then its name, centred on the top line."""
        metrics = self.fontMetrics()
        gap = metrics.averageCharWidth() * 3
        widths = [line + 4 + metrics.horizontalAdvance(name) for _colour, name in keys]
        x = (self.width() - sum(widths) - gap * (len(keys) - 1)) / 2
        for (colour, name), width in zip(keys, widths, strict=True):
            swatch = QRectF(x, 2 + line * 0.2, line * 0.8, line * 0.6)
            painter.fillRect(swatch, colour)
            painter.drawRect(swatch)
            painter.drawText(QRectF(x + line + 4, 2, width, line), Qt.AlignmentFlag.AlignLeft, name)
            x += width + gap

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        palette = self.palette()
        text_colour = palette.color(QPalette.ColorRole.WindowText)
        line = self.fontMetrics().height()
        plot = QRectF(self.rect()).adjusted(36, line * 1.6, -8, -line * 1.4)
        painter.setPen(text_colour)
        with_colour = palette.color(QPalette.ColorRole.Highlight)
        without_colour = QColor(with_colour)
        without_colour.setAlpha(70)
        first, second = (
            _legend_words(self.report) if self.report else ("with assertions", "without")
        )
        self._legend(painter, line, ((with_colour, first), (without_colour, second)))
        if self.report is None or plot.width() < 10 or plot.height() < 10:
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, describe(self.report))
            return
        grid = QColor(text_colour)
        grid.setAlpha(60)
        painter.setPen(grid)
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        painter.drawLine(plot.topLeft(), plot.topRight())
        on, off = self.report.arms
        group = plot.width() / len(FIGURES)
        bar = min(group * 0.3, 5.0 * self.fontMetrics().averageCharWidth())
        for n, (name, label) in enumerate(FIGURES):
            centre = plot.left() + (n + 0.5) * group
            for offset, arm, colour in ((-bar, on, with_colour), (0.0, off, without_colour)):
                value = _value(arm, name) or 0.0
                height = plot.height() * value
                rect = QRectF(centre + offset, plot.bottom() - height, bar, height)
                painter.fillRect(rect, colour)
                painter.setPen(text_colour)
                painter.drawRect(rect)
            painter.drawText(
                QRectF(centre - group / 2, plot.bottom() + 2, group, line),
                Qt.AlignmentFlag.AlignCenter,
                label,
            )
        right = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
        for text, y in (("100%", plot.top()), ("0", plot.bottom())):
            painter.drawText(QRectF(0, y - line / 2, 32, line), right, text)
