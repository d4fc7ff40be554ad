"""A chart's numbers as a read-only table: the text alternative a screen reader (or a
learner who prefers numbers) reads instead of the painted chart. Tab leaves it at once;
the arrow keys move through its rows."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


class ChartTable(QTableWidget):
    def __init__(
        self,
        name: str,
        headers: Sequence[str],
        parent: QWidget | None = None,
        *,
        numbers: Sequence[int] = (),
    ) -> None:
        """`numbers`: the columns of counts, aligned right."""
        super().__init__(0, len(headers), parent)
        self._numbers = set(numbers)
        self.select_first = False  # a list to act on: its first row is current at once
        self.setAccessibleName(name)
        self.setHorizontalHeaderLabels(list(headers))
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setTabKeyNavigation(False)  # Tab goes on to the next control
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.setWordWrap(False)

    def set_rows(self, rows: Sequence[Sequence[str]]) -> None:
        self.setRowCount(0)
        self.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                if c in self._numbers:
                    item.setTextAlignment(RIGHT)
                self.setItem(r, c, item)
        if rows and self.select_first:
            self.setCurrentCell(0, 0)

    def rows(self) -> list[list[str]]:
        """What the table says, row by row (as a screen reader reads it)."""
        return [
            [item.text() if (item := self.item(r, c)) else "" for c in range(self.columnCount())]
            for r in range(self.rowCount())
        ]
