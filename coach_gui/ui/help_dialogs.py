"""Help menu windows: keyboard shortcuts, where things live, and About."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from coach_gui import APP_NAME, __version__

# Keys that belong to a widget rather than a menu action.
EDITOR_KEYS: tuple[tuple[str, str], ...] = (
    ("Esc (in the note list)", "Clear the search"),
    ("Alt+A", "Add a core assertion"),
    ("Insert (in the assertion list)", "Add a core assertion after the selected one"),
    ("F2 (in the assertion list)", "Edit the selected assertion in place"),
    ("Delete (in the assertion list)", "Remove the selected assertion"),
    ("Alt+Up / Alt+Down", "Move the selected assertion up or down"),
    ("Alt+W / Alt+P", "Show the note's Markdown / its formatted preview"),
    ("Alt+O / Alt+G", "Go to the source / tags field"),
)


def shortcut_rows(actions: Sequence[QAction]) -> list[tuple[str, str]]:
    rows = []
    for action in actions:
        keys = action.shortcut().toString(action.shortcut().SequenceFormat.NativeText)
        if keys:
            rows.append((keys, action.text().replace("&", "").rstrip("…")))
    return rows + list(EDITOR_KEYS)


class ShortcutsDialog(QDialog):
    def __init__(self, rows: Sequence[tuple[str, str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts — Coach")
        self.setAccessibleName("Keyboard shortcuts")
        table = QTableWidget(len(rows), 2, self)
        table.setHorizontalHeaderLabels(["Keys", "What they do"])
        table.setAccessibleName("Keyboard shortcuts")
        table.setAccessibleDescription("Each row: the keys, then what they do")
        table.verticalHeader().hide()
        table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, (keys, meaning) in enumerate(rows):
            table.setItem(row, 0, QTableWidgetItem(keys))
            table.setItem(row, 1, QTableWidgetItem(meaning))
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(table)
        layout.addWidget(buttons)
        self.resize(620, 460)


def open_folder(path: Path) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


def show_locations(
    parent: QWidget, *, data_dir: Path, kb: str, config: Path, log_file: Path
) -> QMessageBox:
    box = QMessageBox(parent)
    box.setWindowTitle("Where Coach keeps things")
    box.setAccessibleName("Where Coach keeps things")
    box.setText("Where Coach keeps things")
    box.setInformativeText(
        f"Notes (Markdown files): {kb}\n\n"
        f"Practice journal and other data: {data_dir}\n\n"
        f"Settings file: {config}\n\n"
        f"Log file (details of any error): {log_file}"
    )
    open_data = box.addButton("Open data folder", QMessageBox.ButtonRole.ActionRole)
    open_logs = box.addButton("Open log folder", QMessageBox.ButtonRole.ActionRole)
    box.addButton(QMessageBox.StandardButton.Close)
    open_data.clicked.connect(lambda: open_folder(data_dir))
    open_logs.clicked.connect(lambda: open_folder(log_file.parent))
    box.open()
    return box


def show_about(parent: QWidget) -> None:
    QMessageBox.about(
        parent,
        f"About {APP_NAME}",
        f"<h3>{APP_NAME} {__version__}</h3>"
        "<p>A desktop tutor for people who learn from books. Keep concept notes with their "
        "core assertions, practise with challenges written by a local model, and see which "
        "ideas your answers did not explain.</p>"
        "<p>Your notes are plain Markdown files; they open in any editor.</p>",
    )
