"""Help menu windows: keyboard shortcuts, where my data lives, the privacy summary, and
About."""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from coach_gui import APP_NAME, __version__
from coach_gui.domain.sync import SYNC_FOLDER_HOLDS
from coach_gui.paths import deleted_notes_places
from coach_gui.ui.kit.button_keys import tell, with_mnemonics
from coach_gui.ui.kit.screen_fit import screen_room

if TYPE_CHECKING:
    from coach_gui.config import Config
    from coach_gui.operations.cases import Places
    from coach_gui.ui.settings.privacy_controls import PrivacyControls

BACKUPS_FOLDER = "backups"  # beside the journal (adapters/backups.py)
OLLAMA_URL = "https://ollama.com"
AI_STUDIO_URL = "https://aistudio.google.com/apikey"

# Keys that belong to a widget rather than a menu action ("1–4": the keys 1 to 4).
EDITOR_KEYS: tuple[tuple[str, str], ...] = (
    ("Down (in the search box)", "Go to the matching notes, the first one selected"),
    ("Enter (in the search box)", "Open the selected matching note (or the first)"),
    ("Esc (in the note list)", "Clear the search"),
    ("Alt+A", "Add a core assertion"),
    ("Insert (in the assertion list)", "Add a core assertion after the selected one"),
    ("F2 (in the assertion list)", "Edit the selected assertion in place"),
    ("Delete (in the assertion list)", "Remove the selected assertion"),
    ("Alt+Up / Alt+Down", "Move the selected assertion up or down"),
    (
        "Ctrl+Z / Ctrl+Shift+Z (in the assertion list)",
        "Undo / redo adding, editing, removing or moving an assertion (since the note was opened)",
    ),
    ("Ctrl+Z (in the note list)", "Undo the last delete: the note comes back where it was"),
    ("Ctrl+Y", "Redo (as Ctrl+Shift+Z)"),
    ("Alt+W / Alt+P", "Write the note's Markdown / read it formatted (the cursor goes there)"),
    ("Alt+O / Alt+G", "Go to the source / tags field"),
)
VIEW_KEYS: tuple[tuple[str, str], ...] = (
    ("Ctrl+Enter (on Today)", "Start practising what is due, then the new notes"),
    ("Ctrl+J (on Today)", "Suspend the selected note or key point until you resume it"),
    ("Ctrl+B (on Today)", "Bury the selected note or key point until tomorrow"),
    ("Ctrl+R (on Today)", "Resume what is held back (the selected row under Held back)"),
    (
        "Ctrl+E (on Today)",
        "Open the selected note to edit it (reword a key point you keep missing)",
    ),
    ("Menu / Shift+F10 (on Today)", "Suspend, bury, resume or edit the selected row"),
    ("F5 (on Today, Sent to judge and Sessions)", "Read that view again"),
)


def shortcut_rows(actions: Sequence[QAction]) -> list[tuple[str, str]]:
    """The menus' and toolbar's shortcuts, then the keys of the note editor and the views."""
    rows = []
    for action in actions:
        keys = action.shortcut().toString(action.shortcut().SequenceFormat.NativeText)
        if keys:
            rows.append((keys, action.text().replace("&", "").rstrip("…")))
    return rows + list(EDITOR_KEYS) + list(VIEW_KEYS)


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
        table.setTabKeyNavigation(False)  # read with the arrows; Tab goes on to Close
        table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for row, (keys, meaning) in enumerate(rows):
            table.setItem(row, 0, QTableWidgetItem(keys))
            table.setItem(row, 1, QTableWidgetItem(meaning))
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        table.horizontalHeader().setStretchLastSection(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        with_mnemonics(buttons)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(table)
        layout.addWidget(buttons)
        self.resize(620, 460)


def open_folder(path: Path, parent: QWidget | None = None) -> bool:
    path.mkdir(parents=True, exist_ok=True)
    return open_or_say(path, "this folder", parent)


def open_or_say(path: Path, what: str, parent: QWidget | None) -> bool:
    """Open `path` with the program the desktop has for it; when there is none (or it
    could not be started), say so and where the file is, rather than nothing at all."""
    if QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        return True
    tell(
        parent,
        QMessageBox.Icon.Information,
        "Nothing could open it",
        f"No program on this computer could open {what}. It is {path}: open it from your "
        "file manager, or in a text editor.",
    )
    return False


@dataclass(frozen=True)
class DataLocation:
    """One row of *Where my data lives*: what it is, its path, the folder to open."""

    what: str
    path: Path | None  # None: a place with no folder to show (the macOS Trash)
    folder: Path | None


SYNC_FOLDER = "Sync folder (your sync tool carries it to your other computers)"


def data_locations(
    *, kb: Path, journal: Path, config: Path, log_file: Path, sync: Path | None = None
) -> list[DataLocation]:
    backups = journal.parent / BACKUPS_FOLDER
    found = [
        DataLocation("Notes (Markdown files)", kb, kb),
        *(
            DataLocation(what, folder, folder)
            if folder is not None
            else DataLocation(what, None, None)
            for what, folder in deleted_notes_places(kb)
        ),
        DataLocation("Practice journal (answers, verdicts, history)", journal, journal.parent),
        DataLocation("Backups of the journal", backups, backups),
        DataLocation("Settings file", config, config.parent),
        DataLocation("Log file (details of any error)", log_file, log_file.parent),
    ]
    if sync is not None:  # (ADR 0027)
        found.append(DataLocation(SYNC_FOLDER, sync, sync))
    return found


class DataLocationsDialog(QDialog):
    """Every place Coach keeps something, each with an *Open folder* button."""

    def __init__(
        self,
        locations: Sequence[DataLocation],
        parent: QWidget | None = None,
        *,
        fingerprint: str | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Where my data lives — Coach")
        self.setAccessibleName("Where my data lives")
        stays = "Everything below stays on this computer"
        if any(place.what == SYNC_FOLDER for place in locations):
            stays += ", but the sync folder, which leaves it only through your own sync tool"
        intro = QLabel(
            f"{stays}. Your notes are plain Markdown files you can open in any editor; back "
            "up these folders to keep your work.",
            self,
        )
        intro.setWordWrap(True)
        intro.setAccessibleName("About these folders")
        grid = QGridLayout()
        self.path_labels: list[QLabel] = []
        self.open_buttons: list[QPushButton] = []
        for row, place in enumerate(locations):
            what = QLabel(f"<b>{html.escape(place.what)}</b>", self)
            shown = str(place.path) if place.path is not None else "Open it from the desktop."
            where = QLabel(shown, self)
            where.setWordWrap(True)  # a long path breaks after a / rather than widen the dialog
            where.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            where.setAccessibleName(place.what)
            where.setAccessibleDescription(shown)
            grid.addWidget(what, 2 * row, 0, 1, 2)
            grid.addWidget(where, 2 * row + 1, 0)
            self.path_labels.append(where)
            if place.folder is None:
                continue  # no folder to open
            button = QPushButton("Open folder", self)
            button.setAutoDefault(False)
            button.setAccessibleName(f"Open the folder of: {place.what}")
            button.setToolTip(str(place.folder))
            button.clicked.connect(lambda _c=False, folder=place.folder: open_folder(folder, self))
            grid.addWidget(button, 2 * row + 1, 1)
            self.open_buttons.append(button)
        grid.setColumnStretch(0, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        with_mnemonics(buttons)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        if any(place.what == SYNC_FOLDER for place in locations):  # (issue 34)
            said = SYNC_FOLDER_HOLDS
            if fingerprint:
                said += (
                    f" This computer's fingerprint, which your other computers show when "
                    f"they ask to pair it: {fingerprint}."
                )
            self.sync_label = QLabel(said, self)
            self.sync_label.setWordWrap(True)
            self.sync_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.sync_label.setAccessibleName("What the sync folder holds")
            layout.addWidget(self.sync_label)
        layout.addLayout(grid)
        layout.addWidget(buttons)
        self.setMinimumWidth(560)
        # Wide enough for each path on one line if the screen has room, and as tall as the
        # lines need at that width (a dialog's own size hint guesses at narrower lines).
        margins = layout.contentsMargins()
        longest = max((lb.fontMetrics().horizontalAdvance(lb.text()) for lb in self.path_labels),
                      default=0)  # fmt: skip
        beside = max((b.sizeHint().width() for b in self.open_buttons), default=0)
        wanted = longest + beside + grid.horizontalSpacing() + margins.left() + margins.right()
        room = screen_room(self)
        width = max(self.minimumWidth(), min(wanted, room.width() if room else wanted))
        self.resize(width, self.heightForWidth(width))


def show_data_locations(
    parent: QWidget, places: Places, fingerprint: str | None = None
) -> DataLocationsDialog:
    """Help > Where my data lives (`fingerprint`: this computer's, from its last sync)."""
    dialog = DataLocationsDialog(
        data_locations(
            kb=places.notes,
            journal=places.journal,
            config=places.config,
            log_file=places.log_file,
            sync=places.sync,
        ),
        parent,
        fingerprint=fingerprint,
    )
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


# Keys of the practice pane itself, for Help > Keyboard shortcuts.
PRACTICE_KEYS: tuple[tuple[str, str], ...] = (
    ("Ctrl+Enter (in practice)", "Submit your answer; once it is saved, go to the next challenge"),
    ("Esc (in practice)", "Stop writing the challenge (cancel generation)"),
    ("Alt+S / Alt+K / Alt+N (in practice)", "Submit / Skip / Next"),
    ("Alt+I (in practice)", "Finish the session (every answer is kept)"),
    ("1–4 / Alt+1–4 (rating your answer)", "Rate it Again, Hard, Good or Easy"),
    ("0 / Alt+0 (rating your answer)", "Go on without rating it (to the follow-up, if any)"),
    ("Alt+T (at the end of a session)", "Practise the key points the session missed"),
)


def show_shortcuts(parent: QWidget, actions: Sequence[QAction]) -> None:
    """Help > Keyboard shortcuts: the keys of `actions` (the menus' and the toolbar's),
    then the practice pane's own."""
    ShortcutsDialog([*shortcut_rows(actions), *PRACTICE_KEYS], parent).exec()


def privacy_summary_html(config: Config, key_stored: bool | None = None) -> str:
    """What stays on this computer and what may be sent (Help > Privacy summary and the
    welcome): the words live with the switches, so the two always agree."""
    from coach_gui.ui.settings.privacy_controls import privacy_summary_html as summary

    return summary(config, key_stored)


def show_privacy_summary(parent: QWidget, privacy: PrivacyControls) -> QMessageBox:
    """The summary for the switches and the key as they are, kept so while it is open (the
    keyring may answer, or a switch change, after it opened)."""
    box = QMessageBox(parent)
    box.setWindowTitle("Privacy summary — Coach")
    box.setAccessibleName("Privacy summary")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(privacy.summary_html())
    box.setInformativeText(
        "Switch the judge and Send core assertions on or off in the toolbar "
        "(Ctrl+Shift+J, Ctrl+Shift+A) or in Settings."
    )
    box.addButton(QMessageBox.StandardButton.Close)
    with_mnemonics(box)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)

    def follow(*_changed: object) -> None:
        box.setText(privacy.summary_html())

    def stop(_result: int) -> None:
        privacy.config_changed.disconnect(follow)
        privacy.key_changed.disconnect(follow)

    privacy.config_changed.connect(follow)
    privacy.key_changed.connect(follow)
    box.finished.connect(stop)
    box.open()
    return box


def about_html() -> str:
    return (
        f"<h3>{APP_NAME} {__version__}</h3>"
        "<p>A desktop tutor for people who learn from books. Keep concept notes with their "
        "core assertions, practise with challenges written by a local model, and see which "
        "ideas your answers did not explain.</p>"
        "<p>Your notes are plain Markdown files; they open in any editor.</p>"
        "<p>Licence: MIT. Built with Python and Qt (PySide6, LGPLv3).</p>"
        f'<p>Challenges: <a href="{OLLAMA_URL}">Ollama</a> on this computer. '
        f'Optional judge: Google Gemini, with a key from <a href="{AI_STUDIO_URL}">'
        "Google AI Studio</a>, or a model in Ollama on this computer.</p>"
    )


def show_about(parent: QWidget) -> None:
    """Help > About: QMessageBox.about's own, with an Alt+letter on its button."""
    box = QMessageBox(parent)
    box.setWindowTitle(f"About {APP_NAME}")
    box.setAccessibleName(f"About {APP_NAME}")
    box.setTextFormat(Qt.TextFormat.RichText)
    box.setText(about_html())
    icon = parent.windowIcon()
    if not icon.isNull():
        box.setIconPixmap(icon.pixmap(64, 64))
    box.setStandardButtons(QMessageBox.StandardButton.Ok)
    with_mnemonics(box)
    box.exec()
