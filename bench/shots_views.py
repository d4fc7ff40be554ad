"""Screenshots of every view of the main window and of its dialogs, light and dark, at
1.0x, 1.5x and 2.0x: `python bench/shots_views.py [folder] [--scales 1.0,1.5]` (default
/tmp/view-shots). About a minute a scale on two cores.

The window at its first-run size (1120x720), at 1024x640 and at 800x600, on each view:
Today, Notes, Practice (before a session, answering, judged), Sent to judge, Sessions,
Gaps by note, Judge consistency; then Settings, the Welcome, the payload review, Keyboard
shortcuts, Where my data lives, the privacy summary and the model download. Over the
journal of tests/gui/layout_probe.py (sessions recorded through `coach practice` and
`coach eval` against loopback fakes of Ollama and Gemini). Files are named
`VIEW-THEME-SIZE-SCALEx.png` and `dialog-NAME-THEME-SCALEx.png`; what
tests/gui/layout_faults.py finds in a picture is printed under its name.

Each scale is its own process, since QT_SCALE_FACTOR is read when Qt starts.
QT_QPA_PLATFORM is left as given (under Xvfb, `QT_QPA_PLATFORM=xcb` shows real title
bars); offscreen (the default) gets a screen of 1280x800 at every scale (a laptop's), so
that the window opens at its first-run size and dialogs have a screen's room."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's coach_gui, not the one installed
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "gui"))
sys.path.insert(0, str(REPO / "bench"))

SIZES = {"first-run": None, "1024x640": (1024, 640), "800x600": (800, 600)}


def shoot(folder: Path, scale: str) -> None:
    os.environ["QT_SCALE_FACTOR"] = scale
    home = Path(tempfile.mkdtemp(prefix="coach-shots-"))
    from layout_faults import layout_faults
    from layout_probe import fakes, isolate, offscreen_screen, populate, walk_dialogs, walk_views

    offscreen_screen(home)
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication, QWidget
    from shots_preview import _palette

    isolate(home)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(home / "qs"))
    app = QApplication([])
    app.setStyle("Fusion")

    def saver(tag: str):  # type: ignore[no-untyped-def]
        def save(name: str, widget: QWidget) -> None:
            out = folder / f"{name}-{tag}-{scale}x.png"
            widget.grab().save(str(out))
            print(out, *(f"\n  {fault}" for fault in layout_faults(widget)))

        return save

    with fakes() as (ollama, gemini):
        populate(ollama, gemini)
        for theme in ("light", "dark"):
            app.setPalette(_palette(theme == "dark", QPalette, QColor))
            for size_name, size in SIZES.items():
                walk_views(app, size, saver(f"{theme}-{size_name}"))
            walk_dialogs(app, saver(theme))


def main() -> None:
    from shots_preview import at_each_scale

    at_each_scale(__file__, shoot, "/tmp/view-shots", scales=("1.0", "1.5", "2.0"))


if __name__ == "__main__":
    main()
