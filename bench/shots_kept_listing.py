"""Screenshots of the window as Coach opens over a real-shaped vault (issue 38): the frame
with the kept listing (before the rest of Coach is loaded, a search typed), then the window
once the files are read. Light and dark, at each scale asked for:

    python bench/shots_kept_listing.py [folder] [--scales 1.0,1.5]   (default /tmp/kept-shots)

Files: `kept-THEME-SCALEx.png`, `kept-search-THEME-SCALEx.png`, `read-THEME-SCALEx.png`.
Each scale is its own process (QT_SCALE_FACTOR is read when Qt starts)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "gui"))
sys.path.insert(0, str(REPO / "bench"))


def shoot(folder: Path, scale: str) -> None:
    os.environ["QT_SCALE_FACTOR"] = scale
    home = Path(tempfile.mkdtemp(prefix="coach-kept-shots-"))
    from layout_probe import isolate, offscreen_screen

    offscreen_screen(home)
    isolate(home)
    from fakes.vaults import obsidian_vault

    vault = obsidian_vault(home / "vault", notes=300)
    Path(os.environ["COACH_CONFIG"]).write_text(
        json.dumps({"kb": {"path": str(vault.root)}, "tier1": {"ollamaUrl": "http://127.0.0.1:9"}}),
        encoding="utf-8",
    )
    from PySide6.QtCore import QEventLoop, QSettings, QTimer
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication
    from shots_preview import _palette

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(home / "qs"))
    app = QApplication([])
    app.setStyle("Fusion")
    from coach_gui.bootstrap import build_cases, kept_listing
    from coach_gui.ui.kit import tasks
    from coach_gui.ui.shell.main_window import MainWindow

    def wait(ms: int) -> None:
        loop = QEventLoop()
        QTimer.singleShot(ms, loop.quit)
        loop.exec()

    def opened(theme: str) -> MainWindow:
        """The frame, then the kept listing as `coach` shows it: the picture is taken
        where `coach` goes on to load the rest (the list is painted by then)."""
        window = MainWindow()
        window.resize(1120, 720)
        window.show()
        wait(50)
        kept = kept_listing()
        if kept is not None:
            loop = QEventLoop()
            window.show_kept(kept, loop.quit)
            loop.exec()
        return window

    first = opened("light")  # the first start keeps the listing
    first.attach(build_cases())
    while not first.is_attached or first.listing.loading:
        wait(50)
    tasks.wait_for_all(10_000)
    wait(300)
    first.listing.stop_watching()
    first.close()

    for theme in ("light", "dark"):
        app.setPalette(_palette(theme == "dark", QPalette, QColor))  # type: ignore[arg-type]
        window = opened(theme)
        window.grab().save(str(folder / f"kept-{theme}-{scale}x.png"))
        window.note_list.search_box.setText("photosynthesis")
        window.grab().save(str(folder / f"kept-search-{theme}-{scale}x.png"))
        window.note_list.search_box.clear()
        window.attach(build_cases())
        while window.listing.loading or not window.is_attached:
            wait(50)
        wait(400)
        window.grab().save(str(folder / f"read-{theme}-{scale}x.png"))
        window.listing.stop_watching()
        tasks.wait_for_all(10_000)
        window.close()
    print(f"scale {scale}: shots in {folder}")


def main() -> None:
    args = sys.argv[1:]
    scales = ["1.0", "1.5"]
    if "--scales" in args:
        at = args.index("--scales")
        scales = args[at + 1].split(",")
        del args[at : at + 2]
    folder = Path(args[0] if args else "/tmp/kept-shots")
    folder.mkdir(parents=True, exist_ok=True)
    if os.environ.get("COACH_SHOTS_SCALE"):
        shoot(folder, os.environ["COACH_SHOTS_SCALE"])
        return
    for scale in scales:
        env = {**os.environ, "COACH_SHOTS_SCALE": scale}
        subprocess.run([sys.executable, __file__, str(folder)], env=env, check=True)


if __name__ == "__main__":
    main()
