"""Screenshots of Today as a learner steers it (issue 19): due notes with a key point
flagged for rewording (a leech), today's new notes under the daily limit, and what is held
back (a note suspended, a key point buried until tomorrow) — light and dark, at 1.0x and
1.5x: `python bench/shots_today.py [folder] [--scales 1.0,1.5]` (default
/tmp/today-shots). Over the journal of tests/gui/layout_probe.py, practised 20 days ago."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's coach_gui, not the one installed
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "gui"))
sys.path.insert(0, str(REPO / "bench"))


def shoot(folder: Path, scale: str) -> None:
    os.environ["QT_SCALE_FACTOR"] = scale
    home = Path(tempfile.mkdtemp(prefix="coach-today-shots-"))
    from layout_faults import layout_faults
    from layout_probe import fakes, isolate, offscreen_screen, populate, settle

    offscreen_screen(home)
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication
    from shots_preview import _palette

    isolate(home)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(home / "qs"))
    app = QApplication([])
    app.setStyle("Fusion")
    os.environ["COACH_NOW"] = (datetime.now(UTC) - timedelta(days=20)).isoformat()
    with fakes() as (ollama, gemini):
        populate(ollama, gemini)
    del os.environ["COACH_NOW"]
    config = Path(os.environ["COACH_CONFIG"])
    data = json.loads(config.read_text(encoding="utf-8"))
    data["schedule"] = {"leechLapses": 1, "newPerDay": 4}  # a key point missed once: flagged
    data["judge"]["enabled"] = False
    config.write_text(json.dumps(data), encoding="utf-8")

    from coach_gui.bootstrap import build_context, use_cases
    from coach_gui.operations.schedule import hold
    from coach_gui.ui.shell.main_window import MainWindow

    context = build_context()
    notes = context.notes.load()
    struggle = notes.find("struggle-for-existence")
    domestication = notes.find("variation-under-domestication")
    assert struggle is not None and domestication is not None
    hold(context, struggle.note, "bury", assertion=struggle.note.core_assertions[0])
    hold(context, domestication.note, "suspend")
    window = MainWindow(use_cases(context))
    window.resize(1120, 720)
    window.show()
    settle(app, 1.0)
    for theme in ("light", "dark"):
        app.setPalette(_palette(theme == "dark", QPalette, QColor))
        window.views.show_today()
        window.views.today.refresh()  # the leech colour follows the palette
        settle(app, 1.0)
        today = window.views.today
        leech = next((r for r in today.rows() if "[missed" in r.text(0)), None)
        if leech is not None:
            today.tree.setCurrentItem(leech)
        settle(app, 0.3)
        out = folder / f"today-steered-{theme}-{scale}x.png"
        window.grab().save(str(out))
        print(out, *(f"\n  {fault}" for fault in layout_faults(window)))
    window.close()
    context.close()


def main() -> None:
    from shots_preview import at_each_scale

    at_each_scale(__file__, shoot, "/tmp/today-shots", scales=("1.0", "1.5"))


if __name__ == "__main__":
    main()
