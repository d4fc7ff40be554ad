"""The core assertions of a note as an editable, reorderable, numbered list, whose every
change (add, edit, remove, move) can be undone: `undo_stack`, one per note shown."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import (
    QKeySequence,
    QPainter,
    QPaintEvent,
    QPalette,
    QShortcut,
    QUndoCommand,
    QUndoStack,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

EMPTY_HINT = "No core assertions yet. Press Add (Alt+A) and write, in your own words, one idea "
EMPTY_HINT += "an answer about this note must explain."


class _NumberedDelegate(QStyledItemDelegate):
    """Shows "1.", "2.", … before each assertion; the number is not part of the text."""

    def initStyleOption(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        super().initStyleOption(option, index)
        option.text = f"{index.row() + 1}.  {option.text}"


class _AssertionListWidget(QListWidget):
    def paintEvent(self, event: QPaintEvent) -> None:
        super().paintEvent(event)
        if self.count() == 0:
            painter = QPainter(self.viewport())
            painter.setPen(self.palette().color(QPalette.ColorRole.PlaceholderText))
            painter.drawText(
                self.viewport().rect().adjusted(12, 8, -12, -8),
                Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap,
                EMPTY_HINT,
            )


class _ListChange(QUndoCommand):
    """One change of the list, as the assertions before and after it, and the row to
    select after undoing or redoing it: undo restores every text and its place exactly."""

    def __init__(
        self,
        editor: AssertionListEditor,
        label: str,
        before: tuple[str, ...],
        after: tuple[str, ...],
        rows: tuple[int, int],
    ) -> None:
        super().__init__(label)
        self._editor, self._before, self._after, self._rows = editor, before, after, rows
        self._done = True  # pushed once the learner's change is on screen

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self._editor._show(self._after, self._rows[1])

    def undo(self) -> None:
        self._editor._show(self._before, self._rows[0])


def _label(before: tuple[str, ...], after: tuple[str, ...]) -> str:
    if len(after) > len(before):
        return "Add assertion"
    if len(after) < len(before):
        return "Remove assertion"
    return "Move assertion" if sorted(after) == sorted(before) else "Edit assertion"


class AssertionListEditor(QWidget):
    """Emits `changed` whenever the list of assertions (text or order) changes. Each
    change the learner makes is pushed on `undo_stack`; showing another note's
    assertions (`set_assertions`) clears it, so an undo never reaches another note."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.undo_stack = QUndoStack(self)
        self._recorded: tuple[str, ...] = ()  # the assertions as the stack last left them
        self.list = _AssertionListWidget(self)
        self.list.setItemDelegate(_NumberedDelegate(self.list))
        self.list.setWordWrap(True)
        self.list.setAlternatingRowColors(True)
        self.list.setSpacing(1)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.DoubleClicked
            | QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.SelectedClicked
        )
        self.list.setAccessibleName("Core assertions")
        self.list.setAccessibleDescription(
            "One idea per line. F2 edits, Insert adds, Delete removes, "
            "Alt+Up and Alt+Down move the selected assertion"
        )
        self.list.itemChanged.connect(self._on_item_changed)
        self.list.itemDelegate().closeEditor.connect(self._drop_blank_items_later)
        self.list.currentRowChanged.connect(self._update_buttons)

        self.add_button = self._button("&Add", "Add an assertion (Alt+A, or Insert in the list)")
        self.edit_button = self._button("Edit", "Edit the selected assertion in place (F2)")
        self.remove_button = self._button("Remove", "Remove the selected assertion (Delete)")
        self.up_button = self._button("Move up", "Move the selected assertion up (Alt+Up)")
        self.down_button = self._button("Move down", "Move the selected assertion down (Alt+Down)")
        self.add_button.clicked.connect(self.add_assertion)
        self.edit_button.clicked.connect(self.edit_current)
        self.remove_button.clicked.connect(self.remove_current)
        self.up_button.clicked.connect(lambda: self.move_current(-1))
        self.down_button.clicked.connect(lambda: self.move_current(1))

        # List-only keys: while an item is being edited its line edit has focus, so
        # Delete and Alt+arrows keep their usual meaning there.
        for keys, slot in (
            ("Alt+Up", lambda: self.move_current(-1)),
            ("Alt+Down", lambda: self.move_current(1)),
            ("Del", self.remove_current),
            ("Ins", self.add_assertion),
        ):
            shortcut = QShortcut(QKeySequence(keys), self.list)
            shortcut.setContext(Qt.ShortcutContext.WidgetShortcut)
            shortcut.activated.connect(slot)

        buttons = QVBoxLayout()
        for button in (
            self.add_button,
            self.edit_button,
            self.remove_button,
            self.up_button,
            self.down_button,
        ):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self._update_buttons()

    def _button(self, text: str, description: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setToolTip(description)
        button.setAccessibleName(text.replace("&", "") + " assertion")
        button.setAccessibleDescription(description)
        button.setAutoDefault(False)
        return button

    # --- data ----------------------------------------------------------------------
    def set_assertions(self, items: Sequence[str]) -> None:
        """Show a note's assertions, with no undo history (it belongs to the last note)."""
        self.undo_stack.clear()
        self._show(tuple(items), -1)

    def _show(self, items: tuple[str, ...], row: int) -> None:
        self.list.blockSignals(True)
        try:
            self.list.clear()
            for text in items:
                self.list.addItem(self._item(text))
        finally:
            self.list.blockSignals(False)
        self._recorded = self.assertions()
        if row >= 0 and self.list.count():
            self.list.setCurrentRow(min(row, self.list.count() - 1))
        self._update_buttons()
        self.changed.emit()

    def _record(self, undo_row: int, redo_row: int) -> None:
        """After a change on screen: push it, if the assertions differ from before."""
        before, after = self._recorded, self.assertions()
        if after == before:
            return
        self._recorded = after
        self.undo_stack.push(_ListChange(self, _label(before, after), before, after,
                                         (undo_row, redo_row)))  # fmt: skip

    def _on_item_changed(self, item: QListWidgetItem) -> None:
        """An item's text was committed (F2, or a new one written)."""
        row = self.list.row(item)
        added = len(self.assertions()) > len(self._recorded)
        self._record(max(row - 1, 0) if added else row, row)  # undo an add: the row before it
        self.changed.emit()

    def assertions(self) -> tuple[str, ...]:
        """The assertions in order; an item still blank (being written) is not one yet."""
        texts = (self.list.item(i).text() for i in range(self.list.count()))
        return tuple(t for t in texts if t.strip())

    def _item(self, text: str) -> QListWidgetItem:
        item = QListWidgetItem(text)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsEditable)
        return item

    # --- actions -------------------------------------------------------------------
    def add_assertion(self) -> None:
        item = self._item("")
        row = self.list.currentRow() + 1 if self.list.currentRow() >= 0 else self.list.count()
        self.list.insertItem(row, item)
        self.list.setCurrentItem(item)
        self.list.setFocus()
        self.list.editItem(item)
        self._update_buttons()

    def edit_current(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.list.setFocus()
            self.list.editItem(item)

    def remove_current(self) -> None:
        row = self.list.currentRow()
        if row < 0:
            return
        self.list.takeItem(row)
        self.list.setCurrentRow(min(row, self.list.count() - 1))
        self._record(row, self.list.currentRow())
        self._update_buttons()
        self.changed.emit()

    def move_current(self, delta: int) -> None:
        row = self.list.currentRow()
        target = row + delta
        if row < 0 or not 0 <= target < self.list.count():
            return
        self.list.blockSignals(True)
        try:
            item = self.list.takeItem(row)
            self.list.insertItem(target, item)
            self.list.setCurrentRow(target)
        finally:
            self.list.blockSignals(False)
        self._record(row, target)
        self.list.viewport().update()  # renumber
        self._update_buttons()
        self.changed.emit()

    def _drop_blank_items_later(self) -> None:
        # Not inside the delegate's own signal: the editor is still being torn down.
        QTimer.singleShot(0, self._drop_blank_items)

    def _drop_blank_items(self) -> None:
        if self.list.state() == QAbstractItemView.State.EditingState:
            return
        blank = [i for i in range(self.list.count()) if not self.list.item(i).text().strip()]
        for row in reversed(blank):
            self.list.takeItem(row)
        if blank:
            self._record(blank[0], blank[0])  # an assertion edited to nothing is removed
            self.list.viewport().update()
            self._update_buttons()
            self.changed.emit()

    def _update_buttons(self, *_args: object) -> None:
        row = self.list.currentRow()
        has = row >= 0
        self.edit_button.setEnabled(has)
        self.remove_button.setEnabled(has)
        self.up_button.setEnabled(has and row > 0)
        self.down_button.setEnabled(has and row < self.list.count() - 1)
