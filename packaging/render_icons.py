"""Render the app icon (resources/icons/coach.svg) to the PNG sizes desktops ask for.

    python packaging/render_icons.py

Writes resources/icons/hicolor/<N>x<N>/apps/<APP_ID>.png (installed by the .deb under
/usr/share/icons/hicolor) and coach_gui/resources/icons/coach-<N>.png (the window icon the
app loads at run time, so the bundle needs no SVG image plugin). The output is committed;
run this again only after changing the SVG.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

REPO = Path(__file__).resolve().parents[1]
SVG = REPO / "resources" / "icons" / "coach.svg"
APP_ID = "io.github.coach.Coach"
SIZES = (16, 32, 48, 64, 128, 256, 512)
WINDOW_ICON_SIZES = (16, 32, 48, 64, 128, 256)  # what the app loads; 512 only for menus


def render(renderer: QSvgRenderer, size: int, target: Path) -> None:
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
    renderer.render(painter)
    painter.end()
    target.parent.mkdir(parents=True, exist_ok=True)
    if not image.save(str(target), "PNG"):
        raise SystemExit(f"render_icons: could not write {target}")


def main() -> int:
    _app = QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: {SVG} is not a valid SVG")
    hicolor = REPO / "resources" / "icons" / "hicolor"
    packaged = REPO / "coach_gui" / "resources" / "icons"
    for size in SIZES:
        out = hicolor / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        render(renderer, size, out)
        if size in WINDOW_ICON_SIZES:
            packaged.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(out, packaged / f"coach-{size}.png")
        print(f"{size:>4} px  {out.relative_to(REPO)}")
    scalable = hicolor / "scalable" / "apps" / f"{APP_ID}.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SVG, scalable)
    return 0


if __name__ == "__main__":
    sys.exit(main())
