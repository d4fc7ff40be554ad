"""A dialog's first size: what its content asks for, but never more than the screen it
opens on has room for. At 1.5x or 2x a screen has fewer (logical) pixels to give, and a
dialog taller than the screen has its buttons out of reach; with its content in a scroll
area, the content scrolls instead."""

from __future__ import annotations

from PySide6.QtCore import QSize
from PySide6.QtWidgets import QWidget

ROOM = 0.9  # of the screen's free area: its title bar and edges stay in view


def screen_room(window: QWidget) -> QSize | None:
    """The room `window` (or the window it opens over) has on its screen."""
    anchor = window.parentWidget() or window
    screen = anchor.screen()
    if screen is None:
        return None
    free = screen.availableGeometry().size()
    return QSize(int(free.width() * ROOM), int(free.height() * ROOM))


def fit_on_screen(window: QWidget, wanted: QSize) -> None:
    """Resize `window` to `wanted`, or to as much of it as its screen has room for."""
    room = screen_room(window)
    if room is not None:
        wanted = wanted.boundedTo(room)
    window.resize(wanted.expandedTo(window.minimumSizeHint()))
