"""The main window's actions, menus (with mnemonics) and toolbar, in one place, so the
Help > Keyboard shortcuts list is built from the same actions the menus show."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QStyle

if TYPE_CHECKING:
    from coach_gui.ui.main_window import MainWindow


@dataclass(frozen=True)
class MainActions:
    new: QAction
    save: QAction
    delete: QAction
    reload: QAction
    settings: QAction
    quit: QAction
    find: QAction
    shortcuts: QAction
    locations: QAction
    data_folder: QAction
    about: QAction

    def with_shortcuts(self) -> list[QAction]:
        return [a for a in vars(self).values() if not a.shortcut().isEmpty()]


def _help() -> ModuleType:
    from coach_gui.ui import help_dialogs  # only when Help is used: start-up stays short

    return help_dialogs


def _action(
    window: MainWindow,
    text: str,
    slot: Callable[[], object],
    keys: str = "",
    icon: QStyle.StandardPixmap | None = None,
) -> QAction:
    action = QAction(text, window)
    if keys:
        action.setShortcut(QKeySequence(keys))
        action.setToolTip(f"{text.replace('&', '').rstrip('…')} ({keys})")
    if icon is not None:
        action.setIcon(window.style().standardIcon(icon))
    action.triggered.connect(lambda _checked=False: slot())
    return action


def build_main_actions(window: MainWindow) -> MainActions:
    pix = QStyle.StandardPixmap
    actions = MainActions(
        new=_action(window, "&New note", window.new_note, "Ctrl+N", pix.SP_FileIcon),
        save=_action(window, "&Save", window.save_note, "Ctrl+S", pix.SP_DialogSaveButton),
        delete=_action(window, "&Delete note…", window.delete_note, "", pix.SP_TrashIcon),
        reload=_action(window, "&Reload notes", window.reload_notes, "F5", pix.SP_BrowserReload),
        settings=_action(window, "Se&ttings…", window.open_settings, "Ctrl+,"),
        quit=_action(window, "&Quit", window.close, "Ctrl+Q"),
        find=_action(window, "&Find note", window.focus_search, "Ctrl+F"),
        shortcuts=_action(window, "&Keyboard shortcuts", window.show_shortcuts, "F1"),
        locations=_action(window, "&Where Coach keeps things…", window.show_locations),
        data_folder=_action(
            window,
            "Open &data folder",
            lambda: _help().open_folder(window.context.data_dir),
        ),
        about=_action(window, "&About Coach", lambda: _help().show_about(window)),
    )
    menus = window.menuBar()
    file_menu = menus.addMenu("&File")
    file_menu.addActions([actions.new, actions.save, actions.delete])
    file_menu.addSeparator()
    file_menu.addAction(actions.reload)
    file_menu.addSeparator()
    file_menu.addAction(actions.settings)
    file_menu.addSeparator()
    file_menu.addAction(actions.quit)
    menus.addMenu("&Edit").addAction(actions.find)
    help_menu = menus.addMenu("&Help")
    help_menu.addActions([actions.shortcuts, actions.locations, actions.data_folder])
    help_menu.addSeparator()
    help_menu.addAction(actions.about)

    toolbar = window.addToolBar("Note")
    toolbar.setObjectName("noteToolbar")  # saveState needs a name
    toolbar.setAccessibleName("Note actions")
    toolbar.setMovable(False)
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    toolbar.addActions([actions.new, actions.save, actions.delete, actions.reload])
    return actions
