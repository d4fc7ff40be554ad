"""The left pane: search box, the notes that match, and the files that could not be read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import QFont, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QLabel,
    QLineEdit,
    QListView,
    QListWidget,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from coach_gui.domain.note_search import ListedBroken, ListedEntry, NoteSearchIndex

_Index = QModelIndex | QPersistentModelIndex
ENTRY_ROLE = Qt.ItemDataRole.UserRole + 1
DETAIL_ROLE = Qt.ItemDataRole.UserRole + 2


def _detail(entry: ListedEntry, *, same_title: bool = False) -> str:
    """`same_title`: another listed note has this title (an edit kept beside the file
    another program changed, a sync-conflict copy): the file's own name tells them apart."""
    count = len(entry.note.core_assertions)
    parts = [f"{count} assertion{'s' if count != 1 else ''}"]
    if same_title:
        name = entry.file_name.rsplit("/", 1)[-1]
        parts.insert(0, f"your edit, kept as {name}" if "(my edit " in name else name)
    if entry.note.tags:
        parts.append(", ".join(entry.note.tags))
    if "/" in entry.file_name:  # in a vault, where it sits tells two "Index" notes apart
        parts.append(entry.file_name.rsplit("/", 1)[0] + "/")
    return "  ·  ".join(parts)


def count_text(notes: int, broken: int) -> str:
    """The status line's count: "12 notes · 2 unreadable"."""
    text = f"{notes} note{'s' if notes != 1 else ''}"
    return f"{text} · {broken} unreadable" if broken else text


class NoteListModel(QAbstractListModel):
    """The notes currently listed; replacing the list is one model reset, so a keystroke
    costs the search plus a repaint of the visible rows, whatever the number of notes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._entries: list[ListedEntry] = []
        self._shared_titles: set[str] = set()  # titles more than one listed note has

    def set_entries(self, entries: Sequence[ListedEntry]) -> None:
        self.beginResetModel()
        self._entries = list(entries)
        seen: set[str] = set()
        self._shared_titles = set()
        for entry in self._entries:
            key = entry.note.title.casefold()
            (self._shared_titles if key in seen else seen).add(key)
        self.endResetModel()

    def detail(self, entry: ListedEntry) -> str:
        return _detail(entry, same_title=entry.note.title.casefold() in self._shared_titles)

    def entry(self, row: int) -> ListedEntry:
        return self._entries[row]

    def row_of(self, note_id: str) -> int | None:
        for row, entry in enumerate(self._entries):
            if entry.note.id == note_id:
                return row
        return None

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._entries)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid() or index.row() >= len(self._entries):
            return None
        entry = self._entries[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return entry.note.title
        if role == DETAIL_ROLE:
            return self.detail(entry)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{entry.note.title}\n{entry.file_name}"
        if role == Qt.ItemDataRole.AccessibleTextRole:
            return f"{entry.note.title}, {self.detail(entry)}"
        if role == ENTRY_ROLE:
            return entry
        return None


class NoteRowDelegate(QStyledItemDelegate):
    """Two lines per note: the title, then a quieter line with assertions and tags."""

    def sizeHint(self, option: QStyleOptionViewItem, index: _Index) -> QSize:
        line = option.fontMetrics.height()
        return QSize(200, int(line * 2.6) + 8)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: _Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget else None
        opt.text = ""
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, widget)
        rect = opt.rect.adjusted(10, 4, -8, -4)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        palette: QPalette = opt.palette
        role = QPalette.ColorRole
        painter.save()
        title_font = QFont(opt.font)
        title_font.setWeight(QFont.Weight.DemiBold)
        painter.setFont(title_font)
        painter.setPen(palette.color(role.HighlightedText if selected else role.Text))
        half = rect.height() // 2
        title = painter.fontMetrics().elidedText(
            str(index.data(Qt.ItemDataRole.DisplayRole)), Qt.TextElideMode.ElideRight, rect.width()
        )
        bottom_left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom
        painter.drawText(rect.adjusted(0, 0, 0, -half), bottom_left, title)
        detail_font = QFont(opt.font)
        detail_font.setPointSizeF(max(detail_font.pointSizeF() * 0.9, 6.0))
        painter.setFont(detail_font)
        painter.setPen(palette.color(role.HighlightedText if selected else role.PlaceholderText))
        detail = painter.fontMetrics().elidedText(
            str(index.data(DETAIL_ROLE)), Qt.TextElideMode.ElideRight, rect.width()
        )
        top_left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        painter.drawText(rect.adjusted(0, half + 2, 0, 0), top_left, detail)
        painter.restore()


class NoteListPane(QWidget):
    """Emits `current_note_changed(id)` when the learner picks another note; the owner
    answers with `select_note` (the new id to accept, the old one to stay). Enter in the
    search box emits `note_chosen(id)`: open that note and go to it."""

    current_note_changed = Signal(str)
    note_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._notes: list[ListedEntry] = []  # every note, in list order
        self._by_id: dict[str, ListedEntry] = {}
        self._index: NoteSearchIndex[Any] | None = None  # may trail `_notes` while it is rebuilt
        self._index_fresh = False  # built from exactly the notes listed now
        self._current_id = ""
        self._broken_count = 0

        self.search_box = QLineEdit(self)
        self.search_box.setPlaceholderText("Search notes, #tags  (Ctrl+F)")
        self.search_box.setClearButtonEnabled(True)
        self.search_box.setAccessibleName("Search notes")
        self.search_box.setAccessibleDescription(
            "Filters the note list as you type: title, aliases, tags, source, assertions and "
            "text; #tag or tag:name keeps the notes with that tag, no:assertions the notes "
            "without core assertions"
        )
        self.search_box.textChanged.connect(self.apply_filter)
        self.search_box.installEventFilter(self)  # Down and Enter reach the results

        self.model = NoteListModel(self)
        self.view = QListView(self)
        self.view.setModel(self.model)
        self.view.setItemDelegate(NoteRowDelegate(self.view))
        self.view.setUniformItemSizes(True)
        # Lay rows out a batch at a time: a 10,000-row reset then costs ~4 ms, not ~90.
        self.view.setLayoutMode(QListView.LayoutMode.Batched)
        self.view.setBatchSize(200)
        self.view.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.view.setAccessibleName("Notes")
        self.view.setAccessibleDescription("Your concept notes; pick one to open it")
        self.view.selectionModel().currentChanged.connect(self._on_current_changed)

        self.placeholder = QLabel("Loading notes…", self)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.placeholder.setEnabled(False)  # the palette's quiet text colour
        self.placeholder.setAccessibleName("Note list status")

        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.placeholder)
        self.stack.addWidget(self.view)

        self.broken_button = QToolButton(self)
        self.broken_button.setCheckable(True)
        self.broken_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.broken_button.setIcon(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        )
        self.broken_button.setAutoRaise(True)
        self.broken_button.setAccessibleName("Files that could not be read")
        self.broken_button.setAccessibleDescription("Shows or hides the list of unreadable files")
        self.broken_list = QListWidget(self)
        self.broken_list.setWordWrap(True)
        self.broken_list.setAccessibleName("Unreadable files and why")
        self.broken_list.setAccessibleDescription(
            "These files are left exactly as they are; fix them in another editor, then reload"
        )
        self.broken_button.toggled.connect(self.broken_list.setVisible)
        self.broken_button.hide()
        self.broken_list.hide()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        layout.addWidget(self.search_box)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.broken_button)
        layout.addWidget(self.broken_list)

    # --- content -------------------------------------------------------------------
    def show_loading(self, text: str = "Loading notes…") -> None:
        self.placeholder.setText(text)
        self.stack.setCurrentWidget(self.placeholder)

    def set_notes(self, notes: Sequence[ListedEntry]) -> None:
        """Every note, in list order; shown at once, filtered once the index catches up."""
        self._notes = list(notes)
        self._by_id = {entry.note.id: entry for entry in self._notes}
        self._index_fresh = False
        self.apply_filter(self.search_box.text())

    def set_index(self, index: NoteSearchIndex[Any], *, fresh: bool = True) -> None:
        """`fresh`: built from the notes last given to `set_notes` (not an older list)."""
        self._index, self._index_fresh = index, fresh
        self.apply_filter(self.search_box.text())

    def set_broken(self, broken: Sequence[ListedBroken]) -> None:
        self.broken_list.clear()
        for item in broken:
            self.broken_list.addItem(f"{item.file_name} — {item.error}")
        n = len(broken)
        self._broken_count = n
        self.broken_button.setText(f"{n} file{'s' if n != 1 else ''} could not be read")
        self.broken_button.setVisible(n > 0)
        if n and not self._notes:  # nothing else to look at: show why at once
            self.broken_button.setChecked(True)
        self.broken_list.setVisible(n > 0 and self.broken_button.isChecked())
        if not self._notes and not self.search_box.text().strip():
            self.apply_filter("")

    def apply_filter(self, text: str) -> None:
        if not text.strip() or self._index is None:
            matches = self._notes  # no query, or the first index is still being built
        elif self._index_fresh:
            matches = self._index.search(text)
        else:
            # The index predates the last save or delete: list the notes as they are now.
            by_id = self._by_id
            matches = [by_id[e.note.id] for e in self._index.search(text) if e.note.id in by_id]
        self.model.set_entries(matches)
        if matches:
            self.stack.setCurrentWidget(self.view)
        elif text.strip():
            self.show_loading(f"No notes match “{text.strip()}”.\nPress Esc to clear the search.")
        elif self._broken_count:  # a vault of files Coach cannot read is not an empty one
            n = self._broken_count
            self.show_loading(
                f"None of the {n} Markdown file{'s' if n != 1 else ''} here could be read.\n"
                "The list below says why; fix one in any editor and it appears (F5)."
            )
        else:
            self.show_loading("No notes yet.\nPress Ctrl+N to write your first note.")
        self._reselect_quietly()

    # --- selection -----------------------------------------------------------------
    def current_note_id(self) -> str:
        return self._current_id

    def select_note(self, note_id: str) -> bool:
        """Make `note_id` current without announcing it (the caller already knows)."""
        self._current_id = note_id
        return self._reselect_quietly()

    def _reselect_quietly(self) -> bool:
        row = self.model.row_of(self._current_id) if self._current_id else None
        selection = self.view.selectionModel()
        selection.blockSignals(True)
        try:
            if row is None:
                selection.clearCurrentIndex()
                selection.clearSelection()
            else:
                index = self.model.index(row)
                selection.setCurrentIndex(index, selection.SelectionFlag.ClearAndSelect)
                self.view.scrollTo(index)
        finally:
            selection.blockSignals(False)
        self.view.viewport().update()
        return row is not None

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        note_id = self.model.entry(current.row()).note.id if current.isValid() else ""
        if note_id and note_id != self._current_id:
            self.current_note_changed.emit(note_id)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """In the search box, Down goes into the results (the first one selected) and
        Enter opens the selected result, or the first."""
        if watched is self.search_box and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            key, plain = event.key(), not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier
            if plain and key == Qt.Key.Key_Down and self.model.rowCount():
                self.view.setFocus(Qt.FocusReason.TabFocusReason)
                self.view.setCurrentIndex(self.model.index(0))  # opens it, as a click would
                return True
            if plain and key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.model.rowCount():
                current = self.view.currentIndex()
                row = current.row() if current.isValid() else 0
                self.note_chosen.emit(self.model.entry(row).note.id)
                return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape and self.search_box.text():
            self.search_box.clear()  # Esc clears the search, wherever focus is in the pane
            return
        super().keyPressEvent(event)
