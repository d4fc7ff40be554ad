"""What the app remembers between runs about its windows (not the learner's data):
geometry, splitter positions, the body tab last shown and the last note open."""

from __future__ import annotations

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMainWindow, QSplitter, QTabWidget

GEOMETRY = "mainWindow/geometry"
SPLITTER = "mainWindow/splitter"
LAST_NOTE = "mainWindow/lastNote"
EDITOR_SPLITTER = "editor/splitter"
EDITOR_TAB = "editor/bodyTab"

DEFAULT_SIZE = (1120, 720)


def window_settings() -> QSettings:
    """An INI file in the user's config folder (tests point it elsewhere with setPath)."""
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Coach", "Coach")


def last_note_id() -> str:
    value = window_settings().value(LAST_NOTE, "")
    return value if isinstance(value, str) else ""


def restore_layout(
    window: QMainWindow, splitter: QSplitter, editor_splitter: QSplitter, body_tabs: QTabWidget
) -> None:
    restore_window(window, splitter)
    restore_editor(editor_splitter, body_tabs)


def restore_window(window: QMainWindow, splitter: QSplitter) -> None:
    """Size, place and the list/editor split, as the first paint shows them."""
    settings = window_settings()
    geometry = settings.value(GEOMETRY)
    if geometry is None or not window.restoreGeometry(geometry):
        screen = window.screen().availableGeometry() if window.screen() else None
        width, height = DEFAULT_SIZE
        if screen is not None and screen.width() > 640:  # a small laptop screen: fit it
            width = min(width, int(screen.width() * 0.9))
            height = min(height, int(screen.height() * 0.9))
        window.resize(width, height)
    state = settings.value(SPLITTER)
    if state is not None:
        splitter.restoreState(state)


def restore_editor(editor_splitter: QSplitter, body_tabs: QTabWidget) -> None:
    settings = window_settings()
    state = settings.value(EDITOR_SPLITTER)
    if state is not None:
        editor_splitter.restoreState(state)
    tab = str(settings.value(EDITOR_TAB, "0"))
    body_tabs.setCurrentIndex(int(tab) if tab.isdigit() else 0)


def remember_layout(
    window: QMainWindow,
    splitter: QSplitter,
    editor_splitter: QSplitter,
    body_tabs: QTabWidget,
    last_note: str,
) -> None:
    settings = window_settings()
    settings.setValue(GEOMETRY, window.saveGeometry())
    settings.setValue(SPLITTER, splitter.saveState())
    settings.setValue(EDITOR_SPLITTER, editor_splitter.saveState())
    settings.setValue(EDITOR_TAB, body_tabs.currentIndex())
    settings.setValue(LAST_NOTE, last_note)
    settings.sync()
