"""*Sent to judge*: every request Coach sent to Gemini, newest first, with the note and
session its answers came from, the exact payload and how it ended (ADR-0021: the learner
can see everything that left the computer).

    view = SentToJudgeView(cases.review.sent_to_judge)

The rows are read on a worker each time the view is shown and on Refresh (F5 while the
view has focus); one table model holds them, so a thousand rows cost no more widgets.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor, QFontDatabase, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from coach_gui.operations.vocabulary import to_the_second
from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.row_table import RowTableModel
from coach_gui.ui.kit.tasks import Task
from coach_gui.ui.kit.theme import warning_colour

if TYPE_CHECKING:
    from coach_gui.domain.session_records import OutboxRecord, RequestOrigin, SentRequest

EMPTY_TEXT = (
    "Nothing has been sent to the judge yet.\n\n"
    "Each time Coach asks the judge (Google Gemini, or a model on this computer if you chose "
    "one in Settings) to grade your answers, the request is listed here: "
    "when it was sent, to which model, and exactly what was sent — each challenge, your "
    "answer and, if you allow it, the note's core assertions — with the judge's reply or "
    "the error. While the judge is off, nothing is sent and this list stays empty."
)
LOADING_TEXT = "Reading the list of requests sent to the judge…"
INTRO_TEXT = (
    "Every request Coach sent to the judge, newest first: to Google Gemini, or marked (on "
    "this computer) when a model here graded it and nothing left. Nothing else about your "
    "notes leaves this computer."
)
NO_REPLY_TEXT = (
    "No reply was recorded: the request was still under way, or Coach closed before it "
    "ended. The payload above is what was sent."
)
_STATUS = {"ok": "ok", "error": "error", "sent": "no reply"}


def pretty_json(text: str | None) -> str:
    """`text` indented for reading when it is JSON, else as it is."""
    if text is None:
        return ""
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except ValueError:
        return text


def payload_summary(payload: str) -> str:
    """How many answers a payload held and what went with them, e.g. for the summary line."""
    try:
        items = json.loads(payload)["items"]
        assertions = any("core_assertions" in item for item in items)
    except (ValueError, KeyError, TypeError):
        return ""
    what = "challenge + answer + core assertions" if assertions else "challenge + answer only"
    return f"{len(items)} answer{'s' if len(items) != 1 else ''}: {what}"


def _titles(origins: Sequence[RequestOrigin]) -> list[str]:
    return list(dict.fromkeys(origin.note_title for origin in origins))


def note_cell(origins: Sequence[RequestOrigin]) -> str:
    """The note whose answers went, e.g. "Natural selection", "Evolution + 2 more"."""
    titles = _titles(origins)
    if not titles:
        return "—"
    return titles[0] if len(titles) == 1 else f"{titles[0]} + {len(titles) - 1} more"


def session_cell(origins: Sequence[RequestOrigin]) -> str:
    """When the session whose answers went was started, or how many sessions; "(eval)" for
    a Judge consistency eval's call on them."""
    if not origins:
        return "—"
    sessions = {origin.session_id: origin for origin in origins}
    said = (
        to_the_second(next(iter(sessions.values())).started_at)[:16]
        if len(sessions) == 1
        else f"{len(sessions)} sessions"
    )
    return f"{said} (eval)" if all(origin.eval for origin in origins) else said


def origins_text(origins: Sequence[RequestOrigin]) -> str:
    """Every session a request carried answers of, one a line (the cells' tooltip)."""
    if not origins:
        return (
            "No answer is recorded against this request yet: it was under way, or it "
            "failed before any answer could be marked unjudged."
        )
    return "\n".join(
        f"{origin.note_title}, practised {to_the_second(origin.started_at)}"
        + (" (judged again in a Judge consistency eval)" if origin.eval else "")
        for origin in origins
    )


class OutboxTableModel(RowTableModel["SentRequest"]):
    HEADERS = (
        "Sent at", "Note", "Session", "Model", "Status", "Tokens in", "Tokens out", "Latency",
    )  # fmt: skip
    NUMBERS = 5  # the first column of numbers, right-aligned

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.error_colour = QColor("#b3261e")

    def set_rows(self, rows: Sequence[SentRequest]) -> None:
        self.beginResetModel()
        # Newest first; rows with the same time keep the order they came in (stable sort).
        self._rows = sorted(rows, key=lambda row: row.record.created_at, reverse=True)
        self.endResetModel()

    def row_of(self, outbox_id: str) -> int | None:
        return next((n for n, row in enumerate(self._rows) if row.record.id == outbox_id), None)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        if not index.isValid():
            return None
        request, column = self._rows[index.row()], index.column()
        row = request.record
        if role == Qt.ItemDataRole.DisplayRole:
            return self._cell(request, column)
        if role == Qt.ItemDataRole.TextAlignmentRole and column >= self.NUMBERS:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and column == 4 and row.status == "error":
            return QBrush(self.error_colour)
        if role == Qt.ItemDataRole.ToolTipRole and column in (1, 2):
            return origins_text(request.origins)
        if role == Qt.ItemDataRole.ToolTipRole and row.error:
            return row.error
        return None

    @classmethod
    def _cell(cls, request: SentRequest, column: int) -> str:
        row = request.record
        if column == 0:
            return to_the_second(row.created_at)
        if column == 1:
            return note_cell(request.origins)
        if column == 2:
            return session_cell(request.origins)
        if column == 3:  # a request to the model on this computer says so
            model = row.model.removeprefix("local:")
            return f"{model} (on this computer)" if row.provider == "local" else model
        if column == 4:
            return _STATUS.get(row.status, row.status)
        number = (row.tokens_in, row.tokens_out, row.latency_ms)[column - cls.NUMBERS]
        if number is None:
            return "—"
        return f"{number:,} ms" if column == cls.NUMBERS + 2 else f"{number:,}"


class SentToJudgeView(QWidget):
    """The outbox list and, for the selected request, exactly what was sent and the reply.
    `load_entries` runs on a worker and returns outbox rows with the sessions they came
    from (any order)."""

    loaded = Signal(int)  # the number of rows now listed, after each load

    def __init__(
        self, load_entries: Callable[[], Sequence[SentRequest]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Sent to judge")
        self._load_entries = load_entries
        self._task: Task[list[SentRequest]] | None = None

        intro = QLabel(INTRO_TEXT, self)
        intro.setWordWrap(True)
        intro.setAccessibleName("About this list")
        self.refresh_button = QPushButton("&Refresh", self)
        self.refresh_button.setAccessibleName("Refresh the list")
        self.refresh_button.setAccessibleDescription("Reads the list again (F5)")
        self.refresh_button.setToolTip("Read the list again (F5)")
        self.refresh_button.clicked.connect(self.refresh)
        self.endpoint_label = QLabel(self)
        self.endpoint_label.setWordWrap(True)
        self.endpoint_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.endpoint_label.setAccessibleName("Where judge requests go")
        self.endpoint_label.hide()
        text_column = QVBoxLayout()
        text_column.addWidget(intro)
        text_column.addWidget(self.endpoint_label)
        top = QHBoxLayout()
        top.addLayout(text_column, 1)
        top.addWidget(self.refresh_button, 0, Qt.AlignmentFlag.AlignTop)

        self.message_label = QLabel(LOADING_TEXT, self)
        self.message_label.setWordWrap(True)
        self.message_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.message_label.setContentsMargins(24, 24, 24, 24)
        self.message_label.setAccessibleName("Sent to judge: status")

        self.table = QTableView(self)
        self.model = OutboxTableModel(self.table)
        self.model.error_colour = QColor(warning_colour(self.palette()))
        self.table.setModel(self.model)
        self.table.setAccessibleName("Requests sent to the judge")
        self.table.setAccessibleDescription("Newest first; choose one to see what was sent")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # rows are picked with the arrows; Tab moves on
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)  # the note's title
        metrics = self.table.fontMetrics()
        samples = ("8888-88-88 88:88:88", "", "8888-88-88 88:88 (eval)", "gemini-2.5-flash",
                   "no reply", "Tokens in", "Tokens out", "88,888 ms")  # fmt: skip
        for column, sample in enumerate(samples):
            if sample:
                width = max(metrics.horizontalAdvance(sample), header.sectionSizeHint(column))
                header.resizeSection(column, width + 24)
        self.table.selectionModel().currentRowChanged.connect(self._show_current)

        self.summary = QLabel(self)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setAccessibleName("Selected request")
        self.payload_text = self._text_pane("Payload as sent", "The payload, indented to read")
        self.request_text = self._text_pane(
            "Request body as sent", "The whole HTTP request body: instructions and payload"
        )
        self.reply_text = self._text_pane("Judge's reply", "The judge's reply, or the error")
        self.detail_tabs = QTabWidget(self)
        self.detail_tabs.setAccessibleName("What was sent and what came back")
        self.detail_tabs.addTab(self.payload_text, "&Payload")
        self.detail_tabs.addTab(self.request_text, "Request &body")
        self.detail_tabs.addTab(self.reply_text, "Rep&ly")
        detail = QWidget(self)
        detail_layout = QVBoxLayout(detail)
        detail_layout.setContentsMargins(0, 0, 0, 0)
        detail_layout.addWidget(self.summary)
        detail_layout.addWidget(self.detail_tabs, 1)

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(detail)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([220, 320])
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.message_label)
        self.pages.addWidget(self.splitter)

        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.pages, 1)
        for widget in (self, self.table, self.refresh_button, self.detail_tabs):
            widget.installEventFilter(self)
        for pane in (self.payload_text, self.request_text, self.reply_text):
            pane.installEventFilter(self)
        self.setTabOrder(self.refresh_button, self.table)
        self.setTabOrder(self.table, self.detail_tabs)

    def set_endpoint(self, base_url: str | None, *, local: bool = False) -> None:
        """Say where requests go when it is not Google's default endpoint (issue 21), or
        that they stay on this computer (the local judge, issue 22)."""
        self.endpoint_label.setVisible(base_url is not None or local)
        if local:
            self.endpoint_label.setText(
                "<b>The judge runs on this computer now</b>: its requests are listed here "
                "too, and none of them leaves this computer."
            )
        elif base_url is not None:
            self.endpoint_label.setText(
                f"<b>Judge requests go to {html.escape(base_url)}</b>, not to Google's "
                "default address: it is set in Coach's settings file."
            )

    def take_focus(self) -> None:
        """The cursor on the list when it shows requests, else on Refresh."""
        listed = self.pages.currentWidget() is self.splitter
        (self.table if listed else self.refresh_button).setFocus(Qt.FocusReason.OtherFocusReason)

    def _text_pane(self, name: str, description: str) -> QPlainTextEdit:
        pane = QPlainTextEdit(self)
        pane.setReadOnly(True)
        pane.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        pane.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        pane.setAccessibleName(name)
        pane.setAccessibleDescription(description)
        pane.setTextInteractionFlags(
            Qt.TextInteractionFlag.TextSelectableByMouse
            | Qt.TextInteractionFlag.TextSelectableByKeyboard
        )
        return pane

    # --- loading -------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not event.spontaneous():  # shown by the app (not un-minimised): read it again
            self.refresh()

    def refresh(self) -> None:
        """Read the rows again on a worker; `loaded` fires once they are listed."""
        if self._task is not None:
            self._task.cancel()
        if self.model.rowCount() == 0:
            self.message_label.setText(LOADING_TEXT)
            self.pages.setCurrentWidget(self.message_label)
        load = self._load_entries
        self._task = Task(
            self,
            op=lambda _progress: list(load()),
            success=self._on_loaded,
            failure=self._on_load_failed,
            name="load sent to judge",
        ).run()

    def _on_loaded(self, rows: list[SentRequest]) -> None:
        self._task = None
        kept = self.current_entry()
        self.model.set_rows(rows)
        if not rows:
            self.message_label.setText(EMPTY_TEXT)
            self.pages.setCurrentWidget(self.message_label)
            self._show_entry(None)
        else:
            self.pages.setCurrentWidget(self.splitter)
            again = self.model.row_of(kept.id) if kept is not None else None
            self.table.selectRow(0 if again is None else again)
        self.loaded.emit(len(rows))

    def _on_load_failed(self, error: Exception) -> None:
        self._task = None
        self.model.set_rows([])
        self.message_label.setText(
            f"The list of requests sent to the judge could not be read.\n\n"
            f"{learner_message(error)}\n\nPress F5 or Refresh to try again."
        )
        self.pages.setCurrentWidget(self.message_label)
        self.loaded.emit(0)

    # --- the selected request ------------------------------------------------------
    def current_request(self) -> SentRequest | None:
        index = self.table.currentIndex()
        return self.model.row_at(index.row()) if index.isValid() else None

    def current_entry(self) -> OutboxRecord | None:
        request = self.current_request()
        return request.record if request is not None else None

    def _show_current(self, current: QModelIndex, _previous: QModelIndex) -> None:
        self._show_entry(self.model.row_at(current.row()) if current.isValid() else None)

    def _show_entry(self, request: SentRequest | None) -> None:
        if request is None:
            self.summary.setText("")
            for pane in (self.payload_text, self.request_text, self.reply_text):
                pane.setPlainText("")
            return
        row = request.record
        titles = _titles(request.origins)
        facts = [
            f"Sent {to_the_second(row.created_at)} to {row.model}",
            f"from “{'”, “'.join(titles)}”" if titles else "",
            payload_summary(row.payload),
            _STATUS.get(row.status),
        ]
        if row.latency_ms is not None:
            facts.append(f"{row.latency_ms:,} ms")
        if row.tokens_in is not None or row.tokens_out is not None:
            facts.append(f"{row.tokens_in or 0:,} tokens in, {row.tokens_out or 0:,} out")
        self.summary.setText(" · ".join(f for f in facts if f))
        self.summary.setAccessibleDescription(self.summary.text())
        self.payload_text.setPlainText(pretty_json(row.payload))
        self.request_text.setPlainText(pretty_json(row.request_body))
        if row.status == "sent":
            reply = NO_REPLY_TEXT
        elif row.error:
            reply = f"Error: {row.error}"
            if row.response:
                reply += f"\n\nThe judge's reply:\n{pretty_json(row.response)}"
        else:
            reply = pretty_json(row.response)
        self.reply_text.setPlainText(reply)

    # --- F5 while the view has focus -----------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """F5 here refreshes this list, even where the window also has an F5 shortcut."""
        if event.type() in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            assert isinstance(event, QKeyEvent)
            if event.key() == Qt.Key.Key_F5 and not event.modifiers():
                event.accept()  # ShortcutOverride accepted: the key comes here, not to a shortcut
                if event.type() == QEvent.Type.KeyPress:
                    self.refresh()
                return True
        return super().eventFilter(watched, event)
