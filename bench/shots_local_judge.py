"""Screenshots of what says who grades when the judge runs on this computer (issue 22):
Settings, the Welcome and the privacy summary, light and dark, at 1.0x and 1.5x:
`python bench/shots_local_judge.py [folder]` (default /tmp/local-judge-shots). Each scale
is its own process (QT_SCALE_FACTOR is read when Qt starts); QT_QPA_PLATFORM is left as
given (offscreen if unset)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "bench"))


def shoot(folder: Path, scale: str) -> None:
    from shots_preview import sandbox

    sandbox(scale)
    Path(os.environ["COACH_CONFIG"]).write_text(
        json.dumps({"judge": {"provider": "local", "localModel": "qwen2.5:7b"}}), encoding="utf-8"
    )
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication, QLabel
    from shots_preview import _palette

    from coach_gui.bootstrap import build_context, use_cases
    from coach_gui.ui.settings.privacy_controls import PrivacyControls
    from coach_gui.ui.settings.settings_dialog import SettingsDialog
    from coach_gui.ui.shell.help_dialogs import privacy_summary_html
    from coach_gui.ui.shell.welcome import WelcomeDialog

    app = QApplication([])
    app.setStyle("Fusion")
    context = build_context()
    for theme in ("light", "dark"):
        app.setPalette(_palette(theme == "dark", QPalette, QColor))
        privacy = PrivacyControls(context.config, context.config_path)
        settings = SettingsDialog(context.config, context.config_path)
        welcome = WelcomeDialog(use_cases(context), privacy)
        summary = QLabel(privacy_summary_html(context.config))
        summary.setWordWrap(True)
        summary.setFixedWidth(560)
        status = QLabel(privacy.status_label().text())
        for name, widget in (("settings", settings), ("welcome", welcome),
                             ("privacy-summary", summary), ("status", status)):  # fmt: skip
            widget.show()
            widget.adjustSize()
            app.processEvents()
            out = folder / f"local-{name}-{theme}-{scale}x.png"
            widget.grab().save(str(out))
            print(out)
            widget.close()
    context.close()


def main() -> None:
    from shots_preview import at_each_scale

    at_each_scale(__file__, shoot, "/tmp/local-judge-shots")


if __name__ == "__main__":
    main()
