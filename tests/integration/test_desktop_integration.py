"""The Linux desktop entry and icons that packaging/build installs: the .desktop file passes
desktop-file-validate, names the icon the PNGs are rendered as, and matches the app id the
windows report (so the window and the menu entry are one app)."""

from __future__ import annotations

import configparser
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from coach_gui.ui.shell.app import APP_ID

REPO = Path(__file__).resolve().parents[2]
DESKTOP = REPO / "resources" / f"{APP_ID}.desktop"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = struct.unpack(">II", header[16:24])
    return width, height


@pytest.mark.skipif(
    shutil.which("desktop-file-validate") is None,
    reason="desktop-file-validate is not installed (Debian: desktop-file-utils; CI installs it)",
)
def test_the_desktop_file_validates() -> None:
    result = subprocess.run(
        ["desktop-file-validate", str(DESKTOP)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""  # not even a hint


def test_the_desktop_entry_names_the_launcher_and_the_icon_that_exist() -> None:
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    entry.read(DESKTOP, encoding="utf-8")
    desktop = entry["Desktop Entry"]
    assert desktop["Exec"] == "coach"
    assert desktop["Icon"] == APP_ID
    for size in SIZES:
        png = REPO / "resources" / "icons" / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        assert png_size(png) == (size, size)
    packaged = REPO / "coach_gui" / "resources" / "icons"
    assert sorted(png_size(p)[0] for p in packaged.glob("coach-*.png")) == list(SIZES[:-1])
