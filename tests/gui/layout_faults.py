"""What a person would see as broken layout in a window on screen: actions hidden behind a
toolbar's » chevron, tabs that scroll, labels and buttons whose text is cut, table headers
cut short, painted chart labels outside their widget, widgets pushed outside their parent
or on top of each other. Used by the layout tests (at 1.0x, 1.5x and 2.0x) and by
bench/shots_views.py, which prints what it finds beside each screenshot.

    assert layout_faults(window) == []
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from PySide6.QtCore import QRect, QRectF, Qt
from PySide6.QtGui import QFont, QFontMetricsF, QPainter
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractScrollArea,
    QCheckBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QRadioButton,
    QSplitter,
    QStackedWidget,
    QTabBar,
    QTableView,
    QToolBar,
    QToolButton,
    QWidget,
)

SLACK = 1  # a pixel of rounding at fractional scales is not a fault


def _name(widget: QWidget) -> str:
    text = ""
    if isinstance(widget, (QLabel, QAbstractButton)):
        text = widget.text().replace("&", "")
    label = text or widget.accessibleName() or widget.objectName()
    return f"{type(widget).__name__} “{label[:60]}”"


def _shown(widget: QWidget, root: QWidget) -> bool:
    return widget.isVisibleTo(root) and widget.width() > 0 and widget.height() > 0


def _in_scroll_area(widget: QWidget) -> bool:
    """Inside a scroll area's viewport a widget may be larger than what shows: it scrolls."""
    parent = widget.parentWidget()
    while parent is not None:
        grand = parent.parentWidget()
        if isinstance(grand, QAbstractScrollArea) and grand.viewport() is parent:
            return True
        parent = grand
    return False


def toolbar_faults(toolbar: QToolBar) -> list[str]:
    hidden = [
        action.iconText() or action.text()
        for action in toolbar.actions()
        if action.isVisible()
        and not action.isSeparator()
        and (w := toolbar.widgetForAction(action)) is not None
        and not w.isVisible()
    ]
    extension = toolbar.findChild(QToolButton, "qt_toolbar_ext_button")
    if hidden or (extension is not None and extension.isVisible()):
        return [f"toolbar “{toolbar.windowTitle()}” hides behind its » chevron: {hidden}"]
    return []


def label_fault(label: QLabel) -> str | None:
    if not label.text() or (label.pixmap() is not None and not label.pixmap().isNull()):
        return None
    room = label.contentsRect()
    margin = label.margin() * 2 + max(label.indent(), 0)
    if label.wordWrap():
        needed = label.heightForWidth(label.width())
        if needed > label.height() + SLACK:
            return f"{_name(label)} is cut: needs {needed} px of height, has {label.height()}"
        words = max(
            (QFontMetricsF(label.font()).horizontalAdvance(w) for w in label.text().split()),
            default=0,
        )
        if label.textFormat().name == "PlainText" and words > room.width() - margin + SLACK:
            return f"{_name(label)} has a word wider than the label"
        return None
    needed = label.minimumSizeHint().width()  # a label that elides asks for less
    if needed > label.width() + SLACK:
        return f"{_name(label)} is cut: needs {needed} px, has {label.width()}"
    return None


def button_fault(button: QAbstractButton) -> str | None:
    if not isinstance(button, (QPushButton, QCheckBox, QRadioButton, QToolButton)):
        return None
    if isinstance(button, QToolButton) and button.objectName().startswith("qt_"):
        return None  # Qt's own (a toolbar's chevron is reported by toolbar_faults)
    hint = button.minimumSizeHint()  # a button that can show less (an icon) asks for less
    if hint.width() > button.width() + SLACK or hint.height() > button.height() + SLACK:
        return (
            f"{_name(button)} does not fit: needs {hint.width()}x{hint.height()}, "
            f"has {button.width()}x{button.height()}"
        )
    return None


def tab_faults(tabs: QTabBar) -> list[str]:
    """Tabs that scroll out of sight, or whose names are cut short."""
    if any(b.isVisible() for b in tabs.findChildren(QToolButton)):
        return [f"{_name(tabs)}: its tabs do not fit and scroll"]
    metrics = QFontMetricsF(tabs.font())
    return [
        f"{_name(tabs)}: tab “{name}” is cut short"
        for n in range(tabs.count())
        if tabs.isTabVisible(n)
        and metrics.horizontalAdvance(name := tabs.tabText(n).replace("&", ""))
        > tabs.tabRect(n).width()
    ]


def header_faults(header: QHeaderView) -> list[str]:
    """Column titles cut short (a stretched or resized-to-contents column)."""
    model = header.model()
    if model is None or header.orientation().name != "Horizontal":
        return []
    metrics = QFontMetricsF(header.font())
    faults = []
    for section in range(header.count()):
        if header.isSectionHidden(section):
            continue
        title = str(model.headerData(section, header.orientation()) or "")
        needed = metrics.horizontalAdvance(title) + 2 * header.style().pixelMetric(
            header.style().PixelMetric.PM_HeaderMargin
        )
        if needed > header.sectionSize(section) + SLACK:
            faults.append(
                f"column “{title}” of {_name(header.parentWidget() or header)} is cut: "
                f"needs {needed:.0f} px, has {header.sectionSize(section)}"
            )
    return faults


@dataclass(frozen=True)
class PaintedText:
    text: str
    box: QRectF
    flags: int
    font: QFont
    device: QRectF  # what the painter paints on, in its own coordinates


@contextlib.contextmanager
def painted_texts() -> Iterator[list[PaintedText]]:
    """Every `QPainter.drawText(box, flags, text)` made from Python meanwhile (a chart's
    paintEvent, a delegate's paint): the words, and the box they were fitted into."""
    original = QPainter.drawText
    calls: list[PaintedText] = []

    def record(painter: QPainter, *args: object) -> object:
        if len(args) == 3 and isinstance(args[0], (QRect, QRectF)) and isinstance(args[2], str):
            flags = args[1]
            calls.append(PaintedText(
                args[2], QRectF(args[0]), int(getattr(flags, "value", flags)),  # type: ignore[call-overload]
                QFont(painter.font()), QRectF(painter.window()),
            ))  # fmt: skip
        return original(painter, *args)  # type: ignore[call-overload]

    QPainter.drawText = record  # type: ignore[method-assign,assignment]
    try:
        yield calls
    finally:
        QPainter.drawText = original  # type: ignore[method-assign]


def painted_text_faults(widget: QWidget) -> list[str]:
    """Words that Coach's own painting (the charts, the note list) cuts at the edge of the
    box it draws them in, or draws outside what it paints on: a fixed 32-pixel margin for
    "100%" is cut once the font is larger."""
    with painted_texts() as calls:
        widget.grab()
    faults = []
    for call in calls:
        metrics = QFontMetricsF(call.font)
        if call.flags & Qt.TextFlag.TextWordWrap.value:
            needed = metrics.boundingRect(call.box, call.flags, call.text)
            cut = needed.height() > call.box.height() + SLACK
        else:
            width = widest_line(metrics, call.text)
            cut = width > call.box.width() + SLACK or metrics.height() > call.box.height() + SLACK
        outside = not call.device.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(call.box)
        if cut or outside:
            where = "is cut by its box" if cut else "is painted outside its widget"
            faults.append(
                f"painted “{call.text[:40]}” {where} ({call.box.width():.0f}x"
                f"{call.box.height():.0f} at {call.box.left():.0f},{call.box.top():.0f})"
            )
    return faults


def widest_line(metrics: QFontMetricsF, text: str) -> float:
    return max((metrics.horizontalAdvance(line) for line in text.split("\n")), default=0.0)


def row_faults(table: QTableView) -> list[str]:
    """Rows of wrapped text cut at the bottom (rows sized once, then the columns changed)."""
    if not table.wordWrap() or table.model() is None:
        return []
    header = table.verticalHeader()
    first = max(table.rowAt(0), 0)
    last = table.rowAt(table.viewport().height() - 1)
    last = table.model().rowCount() - 1 if last < 0 else last
    faults = []
    for row in range(first, last + 1):
        if header.isSectionHidden(row):
            continue
        needed = table.sizeHintForRow(row)
        if needed > table.rowHeight(row) + SLACK:
            faults.append(
                f"row {row + 1} of {_name(table)} is cut: needs {needed} px, has "
                f"{table.rowHeight(row)}"
            )
    return faults


def placement_faults(widget: QWidget) -> list[str]:
    """Children pushed outside `widget`, or on top of a sibling, by a layout that cannot
    give them their minimum size."""
    if isinstance(widget, (QAbstractScrollArea, QStackedWidget, QSplitter, QTabBar, QToolBar)):
        return []
    if _in_scroll_area(widget) or widget.layout() is None:
        return []
    area = widget.rect()
    children = [
        c
        for c in widget.findChildren(QWidget, options=_DIRECT)
        if c.isVisible() and not c.isWindow() and widget.layout().indexOf(c) >= 0
    ]
    faults = []
    for child in children:
        if not area.adjusted(-SLACK, -SLACK, SLACK, SLACK).contains(child.geometry()):
            faults.append(f"{_name(child)} sticks out of {_name(widget)}")
    for n, first in enumerate(children):
        for second in children[n + 1 :]:
            overlap = first.geometry().intersected(second.geometry())
            if overlap.width() > SLACK and overlap.height() > SLACK:
                faults.append(f"{_name(first)} overlaps {_name(second)}")
    return faults


_DIRECT = Qt.FindChildOption.FindDirectChildrenOnly


def layout_faults(root: QWidget) -> list[str]:
    """Everything above, for `root` and every widget shown inside it."""
    faults: list[str] = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not _shown(widget, root) and widget is not root:
            continue
        if isinstance(widget, QToolBar):
            faults += toolbar_faults(widget)
        elif isinstance(widget, QTabBar):
            faults += tab_faults(widget)
        elif isinstance(widget, QHeaderView):
            faults += header_faults(widget)
        elif isinstance(widget, QTableView):
            faults += row_faults(widget)
        if isinstance(widget, QLabel):
            fault = label_fault(widget)
            faults += [fault] if fault else []
        elif isinstance(widget, QAbstractButton):
            fault = button_fault(widget)
            faults += [fault] if fault else []
        faults += placement_faults(widget)
    return faults + painted_text_faults(root)


def fits(root: QWidget, width: int, height: int) -> str | None:
    """Why `root` cannot be `width` x `height` (its layout asks for more), or None."""
    hint = root.minimumSizeHint()
    if hint.width() > width or hint.height() > height:
        return f"{_name(root)} needs at least {hint.width()}x{hint.height()}"
    return None
