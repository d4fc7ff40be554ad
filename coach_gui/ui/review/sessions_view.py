"""*Sessions* (Ctrl+4): every practice session, newest first, a page of 50 at a time, with
its ✓ (the sealed records verify); the selected one in detail; and the per-note *Gaps*
board in a second tab.

    view = SessionsView(cases.review, gap_board, parent)

Pages are read on a worker; one table model holds them (no widget per row).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import (
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.changes import Changes
from coach_gui.operations.review import (
    PAGE,
    SessionRow,
    SessionSummary,
)
from coach_gui.operations.vocabulary import counted, mode_label, to_the_minute
from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.refresh_key import RefreshOnF5
from coach_gui.ui.kit.row_table import RowTableModel
from coach_gui.ui.kit.tasks import Task
from coach_gui.ui.review.session_detail import SessionDetail

if TYPE_CHECKING:
    from coach_gui.operations.review import SessionDetailData


class SessionPages(Protocol):
    """The sessions as the view reads them (the review use case), on a worker."""

    def page(self, offset: int) -> list[SessionRow]: ...

    def session_detail(self, session_id: str) -> SessionDetailData: ...


SESSIONS_SHOW = Changes(sessions=True, verdicts=True, reviews=True)  # what the list shows
EMPTY_TEXT = "No practice sessions yet. Practise a note (Ctrl+P) and it is listed here."
NOT_SEALED = "Not sealed yet: the session is still open."


class SessionsTableModel(RowTableModel["SessionRow"]):
    HEADERS = ("Date", "Note", "Items", "Passed", "Gaps", "Mode", "Verified")

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)

    def set_rows(self, rows: Sequence[SessionRow]) -> None:
        self.beginResetModel()
        self._rows = list(rows)
        self.endResetModel()

    def append_rows(self, rows: Sequence[SessionRow]) -> None:
        if rows:
            start = len(self._rows)
            self.beginInsertRows(QModelIndex(), start, start + len(rows) - 1)
            self._rows += rows
            self.endInsertRows()

    def row_of(self, session_id: str) -> int | None:
        found = (n for n, r in enumerate(self._rows) if r.summary.session_id == session_id)
        return next(found, None)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if not index.isValid():
            return None
        row, column = self._rows[index.row()], index.column()
        summary = row.summary
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cell(summary, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and 2 <= column <= 4:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 6:
            return int(Qt.AlignmentFlag.AlignCenter)
        if role == Qt.ItemDataRole.ToolTipRole and column == 6:
            if summary.verified is None:
                return NOT_SEALED
            if summary.verified:
                return "Verified: every record and trace of this session checks out."
            return f"Does not verify: {row.failure}. Run `coach verify` for details."
        if role == Qt.ItemDataRole.ToolTipRole and column == 5 and summary.pending:
            verb = "waits" if summary.pending == 1 else "wait"
            waiting = counted(summary.pending, "answer")
            return f"{waiting} {verb} to be judged (Judge pending answers)."
        if role == Qt.ItemDataRole.AccessibleTextRole and column == 6:
            return {None: "not sealed", True: "verified"}.get(summary.verified, "does not verify")
        return None

    @staticmethod
    def _cell(summary: SessionSummary, column: int) -> str:
        if column == 0:
            return to_the_minute(summary.started_at)
        if column == 1:
            return summary.note_title
        if column in (2, 3, 4):
            return str((summary.items, summary.passed, summary.gaps)[column - 2])
        if column == 5:
            return mode_label(summary.mode)
        return {None: "—", True: "✓"}.get(summary.verified, "✗")


class SessionsView(QWidget):
    """The sessions list and detail, and the gap board. `sessions` (the review use case)
    is asked on a worker."""

    loaded = Signal(int)  # rows listed after each load

    def __init__(
        self,
        sessions: SessionPages,
        gap_board: QWidget | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Sessions")
        self._sessions = sessions
        self._task: Task[list[SessionRow]] | None = None
        self.toolbar = QToolBar("Sessions", self)
        self.toolbar.setAccessibleName("Session actions")
        self.toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        refresh = QAction("&Refresh", self)
        refresh.setToolTip("Read the sessions again (F5)")
        refresh.triggered.connect(lambda _checked=False: self.refresh())
        self.toolbar.addAction(refresh)
        self.notice = QLabel(self)  # what the last judging did, until the next one
        self.notice.setAccessibleName("What judging did")
        self.notice.setWordWrap(True)
        self.notice.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notice.setFrameShape(QLabel.Shape.StyledPanel)
        self.notice.setMargin(6)
        self.notice.hide()

        self.table = QTableView(self)
        self.model = SessionsTableModel(self.table)
        self.table.setModel(self.model)
        self.table.setAccessibleName("Practice sessions")
        self.table.setAccessibleDescription("Newest first; choose one to see it answer by answer")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # rows are picked with the arrows; Tab moves on
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.table.selectionModel().currentRowChanged.connect(self._show_current)
        self.message = QLabel(self)
        self.message.setAccessibleName("Sessions: status")
        self.message.setWordWrap(True)
        self.more_button = QPushButton("Load &more", self)
        self.more_button.setAccessibleName("Load more sessions")
        self.more_button.setAccessibleDescription(f"Lists the next {PAGE} older sessions")
        self.more_button.clicked.connect(self.load_more)
        self.more_button.hide()
        self.detail = SessionDetail(sessions.session_detail, self)

        listing = QWidget(self)
        list_layout = QVBoxLayout(listing)
        list_layout.setContentsMargins(0, 0, 0, 0)
        list_layout.addWidget(self.table, 1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.message, 1)
        bottom.addWidget(self.more_button)
        list_layout.addLayout(bottom)
        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(listing)
        self.splitter.addWidget(self.detail)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([260, 360])
        self.tabs = QTabWidget(self)
        self.tabs.setAccessibleName("Sessions and gaps")
        self.tabs.addTab(self.splitter, "&Sessions")
        self.gap_board = gap_board
        if gap_board is not None:
            self.tabs.addTab(gap_board, "&Gaps by note")
        layout = QVBoxLayout(self)
        layout.addWidget(self.toolbar)
        layout.addWidget(self.notice)
        layout.addWidget(self.tabs, 1)
        RefreshOnF5(self, self.refresh)

    def show_notice(self, text: str) -> None:
        self.notice.setText(text)
        self.notice.setAccessibleDescription(text)
        self.notice.show()

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not event.spontaneous():
            self.refresh()

    def take_changes(self, changes: Changes) -> None:
        """New sessions, verdicts or reviews: read again if on screen (it reads on every
        showing)."""
        if changes.touches(SESSIONS_SHOW) and self.isVisible():
            self.refresh()

    def refresh(self) -> None:
        """Read the first page again; the selected session stays selected if listed."""
        self._start(0)

    def load_more(self) -> None:
        self._start(self.model.rowCount())

    def _start(self, offset: int) -> None:
        if self._task is not None:
            self._task.cancel()
        if self.model.rowCount() == 0:
            self.message.setText("Reading the sessions…")
        self.more_button.setEnabled(False)
        sessions = self._sessions
        self._task = Task(
            self,
            op=lambda _p: sessions.page(offset),
            success=lambda rows: self._on_loaded(offset, rows),
            failure=self._on_failed,
            name="load sessions",
        ).run()

    def _on_loaded(self, offset: int, rows: list[SessionRow]) -> None:
        self._task = None
        kept = self.current_summary()
        if offset == 0:
            self.model.set_rows(rows)
        else:
            self.model.append_rows(rows)
        count = self.model.rowCount()
        self.message.setText(EMPTY_TEXT if count == 0 else f"{counted(count, 'session')} listed")
        self.more_button.setVisible(len(rows) == PAGE)
        self.more_button.setEnabled(True)
        if offset == 0 and count:
            again = self.model.row_of(kept.session_id) if kept is not None else None
            self.table.selectRow(0 if again is None else again)  # shows its detail
        elif count == 0:
            self.detail.show_session(None)
        self.loaded.emit(count)

    def _on_failed(self, error: Exception) -> None:
        self._task = None
        self.more_button.setEnabled(True)
        self.message.setText(f"The sessions could not be read. {learner_message(error)}")
        self.loaded.emit(self.model.rowCount())

    def current_summary(self) -> SessionSummary | None:
        index = self.table.currentIndex()
        return self.model.row_at(index.row()).summary if index.isValid() else None

    def _show_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        summary = self.model.row_at(current.row()).summary if current.isValid() else None
        self.detail.show_session(summary)
