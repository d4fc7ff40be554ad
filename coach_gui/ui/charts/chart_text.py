"""The words a painted chart draws, each in the box it is drawn in. A chart lays its words
out from its font's metrics (`text_boxes()`), paints exactly those, and sizes itself so
that each fits: at 1.5x, at 2x or with a larger font the axis labels grow with the text
instead of being cut at a fixed number of pixels."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QFontMetricsF, QPainter

CENTRE = Qt.AlignmentFlag.AlignCenter
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
LEFT = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter


@dataclass(frozen=True)
class ChartText:
    text: str
    box: QRectF
    align: Qt.AlignmentFlag = CENTRE


def widest(metrics: QFontMetricsF, texts: Iterable[str]) -> float:
    return max((metrics.horizontalAdvance(text) for text in texts), default=0.0)


def draw_texts(painter: QPainter, texts: Iterable[ChartText]) -> None:
    for item in texts:
        painter.drawText(item.box, item.align, item.text)
