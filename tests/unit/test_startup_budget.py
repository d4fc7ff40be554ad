"""The first paint's import budget (issue 16): what `coach` has imported when its window is
first shown, counted by module, not timed. Start-up is the first thing a learner feels
every evening; a module that joins this list must be one the first view needs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# Ours, when the frame is first shown: the command, the paths, the window's frame (the
# note list, the menus and toolbar, the task lanes) and the two light modules they use.
ALLOWED_OURS = {
    "coach_gui",
    "coach_gui.bootstrap",  # setup_logging; it imports its adapters lazily
    "coach_gui.cli",
    "coach_gui.domain",
    "coach_gui.domain.errors",
    "coach_gui.domain.privacy",
    "coach_gui.paths",
    "coach_gui.ui",
    # The rooms the frame's modules live in (issue 35): each `__init__` is a docstring.
    "coach_gui.ui.kit",
    "coach_gui.ui.notes",
    "coach_gui.ui.review",
    "coach_gui.ui.shell",
    "coach_gui.ui.shell.app",
    "coach_gui.ui.kit.button_keys",  # Alt+letters of message boxes (Qt only, a few lines)
    "coach_gui.ui.kit.eliding_label",  # the status bar's notes folder (Qt only)
    "coach_gui.ui.kit.failures",
    "coach_gui.ui.shell.first_paint",
    "coach_gui.ui.review.judge_pending_action",  # the menu's action; its work comes lazily
    "coach_gui.ui.shell.main_actions",
    "coach_gui.ui.shell.main_window",
    "coach_gui.ui.notes.note_list",
    "coach_gui.ui.kit.tasks",
    "coach_gui.ui.shell.view_switcher",  # the row of view tabs, part of the frame (Qt only)
    "coach_gui.ui.kit.window_state",
}
# Not ours and not the standard library: Qt and where the data folders are.
ALLOWED_OTHERS = {"PySide6", "shiboken6", "shibokensupport", "signature_bootstrap", "platformdirs"}
# Named so a failure says what it is: each costs tens of milliseconds or more here.
HEAVY = [
    "pydantic", "yaml", "fsrs", "httpx", "httpx2", "google", "keyring", "sqlite3",
    "markdown_it", "mdit_py_plugins", "watchfiles", "send2trash", "coach_gui.config",
    "coach_gui.adapters", "coach_gui.services", "coach_gui.operations",
]  # fmt: skip

_PROBE = """
import json, os, sys
import coach_gui.ui.shell.main_window as main_window

def shown(self, event):
    print(json.dumps(sorted(sys.modules)), flush=True)
    os._exit(0)

main_window.MainWindow.showEvent = shown
import coach_gui.cli
coach_gui.cli.main([])
"""


def _modules_at_first_show(tmp_path: Path) -> list[str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "COACH_HOME": str(tmp_path / "home"),
        "COACH_CONFIG": str(tmp_path / "config" / "coach.config.json"),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
    }
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_first_paint_imports_only_qt_and_the_window_frame(tmp_path: Path) -> None:
    modules = _modules_at_first_show(tmp_path)
    heavy = sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))
    assert heavy == []
    ours = {m for m in modules if m == "coach_gui" or m.startswith("coach_gui.")}
    assert ours <= ALLOWED_OURS, sorted(ours - ALLOWED_OURS)
    tops = {m.split(".")[0] for m in modules}
    others = {
        t
        for t in tops - set(sys.stdlib_module_names) - {"coach_gui", "__main__", "__feature__"}
        if not t.startswith(("__editable__", "_distutils_hack", "_virtualenv"))
    }
    assert others <= ALLOWED_OTHERS, sorted(others - ALLOWED_OTHERS)
    # 193 here (the standard library's share included); it was 419 before issue 16.
    assert len(modules) < 260, len(modules)


def test_the_budget_counts_what_it_says(tmp_path: Path) -> None:
    """The probe sees the window's own module and Qt's, so an empty list cannot pass."""
    modules = _modules_at_first_show(tmp_path)
    assert "coach_gui.ui.shell.main_window" in modules
    assert "PySide6.QtWidgets" in modules
