"""Help menu: where my data lives (the real paths, each folder opens), the privacy summary
(what the switches say now) and About (version, licence)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QApplication, QMessageBox
from pytestqt.qtbot import QtBot

from coach_gui import __version__
from coach_gui.bootstrap import build_cases
from coach_gui.ui.shell.help_dialogs import DataLocationsDialog, about_html
from coach_gui.ui.shell.main_window import MainWindow


class OpenedUrls(QObject):
    """Stands in for the desktop's file manager: Qt hands it every file:// URL to open."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def file_manager() -> Iterator[OpenedUrls]:
    opened = OpenedUrls()
    QDesktopServices.setUrlHandler("file", opened, "open")
    yield opened
    QDesktopServices.unsetUrlHandler("file")


def open_window(qtbot: QtBot) -> MainWindow:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    return window


def help_texts(window: MainWindow) -> list[str]:
    help_menu = next(m for m in window.menuBar().actions() if m.text() == "&Help").menu()
    return [a.text() for a in help_menu.actions() if not a.isSeparator()]


def test_the_help_menu_lists_its_windows(qtbot: QtBot) -> None:
    window = open_window(qtbot)
    assert help_texts(window) == [
        "&Keyboard shortcuts",
        "&Where my data lives…",
        "&Privacy summary…",
        "W&elcome…",
        "&About Coach",
    ]


def test_where_my_data_lives_shows_the_real_paths_and_opens_each_folder(
    qtbot: QtBot, file_manager: OpenedUrls
) -> None:
    home = Path(os.environ["COACH_HOME"])
    window = open_window(qtbot)
    window.menu_actions.locations.trigger()
    dialog = next(d for d in window.findChildren(DataLocationsDialog) if d.isVisible())

    shown = [label.text() for label in dialog.path_labels]
    system_trash = Path(os.environ["XDG_DATA_HOME"]) / "Trash" / "files"
    assert shown == [
        str(home / "kb"),
        str(system_trash),  # where a deleted note goes here (issue 33), not "kb-trash"
        str(home / "journal.sqlite3"),
        str(home / "backups"),
        os.environ["COACH_CONFIG"],
        str(home / "logs" / "coach.log"),
    ]
    for button in dialog.open_buttons:
        button.click()
    opened = [Path(url.toLocalFile()) for url in file_manager.urls]
    assert opened == [
        home / "kb",
        system_trash,
        home,
        home / "backups",
        Path(os.environ["COACH_CONFIG"]).parent,
        home / "logs",
    ]
    assert all(folder.is_dir() for folder in opened)  # made if missing, so it can open


def named_trash(window: MainWindow) -> list[tuple[str, str]]:
    window.menu_actions.locations.trigger()
    dialog = next(d for d in window.findChildren(DataLocationsDialog) if d.isVisible())
    named = [
        (label.accessibleName(), label.text())
        for label in dialog.path_labels
        if label.accessibleName().startswith("Deleted notes")
    ]
    dialog.close()
    return named


def test_where_my_data_lives_names_the_folder_a_deleted_note_really_went_to(
    qtbot: QtBot,
) -> None:
    """Issue 33: it named a "<vault>-trash" folder that did not exist, while the note had
    gone to the system trash."""
    window = open_window(qtbot)
    store = window.cases.notes.store
    entry = store.load().notes[0]
    store.delete(entry.note.id)
    ((what, where),) = named_trash(window)
    assert what == "Deleted notes (the system trash)"
    assert (Path(where) / Path(entry.file_name).name).is_file()  # the note is there

    # Where the vault has a .trash folder of its own (Obsidian's setting), it goes there.
    vault_trash = Path(store.location) / ".trash"
    vault_trash.mkdir()
    second = store.load().notes[0]
    store.delete(second.note.id)
    ((what, where),) = named_trash(window)
    assert what == "Deleted notes (the vault's .trash folder)"
    assert Path(where) == vault_trash
    assert (vault_trash / Path(second.file_name).name).is_file()


def test_the_privacy_summary_says_what_the_switches_say_now(qtbot: QtBot) -> None:
    window = open_window(qtbot)
    window.menu_actions.privacy_summary.trigger()
    box = next(
        w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()
    )
    assert "Stays on this computer, always:" in box.text()
    state = window.privacy.status_label().text()
    assert f"<b>Now:</b> {state}." in box.text()
    box.close()


def test_about_names_the_version_and_the_licence() -> None:
    text = about_html()
    assert f"Coach {__version__}" in text
    assert "Licence: MIT" in text
