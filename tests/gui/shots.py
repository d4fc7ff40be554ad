"""Where GUI tests write the screenshots a person looks at.

By default `build/screenshots/` (untracked), so running the suite never changes a tracked
file. `scripts/refresh-screenshots` runs the screenshot tests with `COACH_SHOTS_DIR` set to
`docs/screenshots/` to refresh the pictures the README shows, on purpose.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QWidget

REPO = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("COACH_SHOTS_DIR") or REPO / "build" / "screenshots")
SHOTS.mkdir(parents=True, exist_ok=True)  # some tests save into it directly


def save_png(widget: QWidget, name: str) -> Path:
    """Grab `widget` into SHOTS/`name`; returns the file written."""
    path = SHOTS / name
    assert widget.grab().save(str(path), "PNG")
    return path


def dark_palette() -> QPalette:
    """A dark theme's colours, for the pictures and checks of a view in the dark."""
    palette = QPalette()
    roles = QPalette.ColorRole
    for role, colour in ((roles.Window, "#202020"), (roles.Base, "#262626"),
                         (roles.Text, "#dcdcdc"), (roles.WindowText, "#dcdcdc"),
                         (roles.Button, "#303030"), (roles.ButtonText, "#dcdcdc"),
                         (roles.Highlight, "#2f65ca")):  # fmt: skip
        palette.setColor(role, QColor(colour))
    return palette
