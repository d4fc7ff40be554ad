"""The app follows the OS palette; this is the one accent colour it adds."""

from __future__ import annotations

from PySide6.QtGui import QPalette


def warning_colour(palette: QPalette) -> str:
    """A red that reads well on the current palette, light or dark (inline problems)."""
    dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
    return "#ff8a80" if dark else "#b3261e"
