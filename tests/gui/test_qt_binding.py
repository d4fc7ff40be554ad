"""The Qt binding keeps Python's reference counts (issue 13, ADR 0011).

PySide6-Essentials 6.12.0 on CPython 3.11 drops a reference to None on every void call
and to True on every emit, and the window aborts within a few hundred note switches.
These tests fail on that pair: the counts must not fall over 100,000 calls and emits,
nor over note switches in the real main window; and the dependency range must never
resolve to it. On Python 3.12+ None and True are immortal, so a drift is harmless there
(`Drift.moot`) and only the dependency-range test binds.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.version import Version
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from coach_gui.bootstrap import build_cases
from coach_gui.ui.kit import qt_health
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.shell.main_window import MainWindow

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
BROKEN_ON_311 = Version("6.12.0")


def _qt_requirements() -> list[Requirement]:
    deps = tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]["dependencies"]
    return [r for r in map(Requirement, deps) if r.name.lower() == "pyside6-essentials"]


def _allowed(python: str, version: Version) -> bool:
    env = {**default_environment(), "python_version": python, "python_full_version": python}
    active = [r for r in _qt_requirements() if r.marker is None or r.marker.evaluate(env)]
    assert active, f"no PySide6-Essentials requirement applies to Python {python}"
    return all(r.specifier.contains(version, prereleases=True) for r in active)


def test_the_dependency_range_never_installs_the_leaking_binding_on_python_3_11() -> None:
    assert not _allowed("3.11", BROKEN_ON_311)
    for later in ("6.12.1", "6.13.0", "6.99.0"):  # not measured on 3.11: not allowed there
        assert not _allowed("3.11", Version(later))
    assert _allowed("3.11", Version("6.11.3"))  # the pair measured clean (ADR 0011)
    # 3.12+: None and True are immortal, so the leak cannot kill the process there.
    assert _allowed("3.12", BROKEN_ON_311)
    assert _allowed("3.13", Version("6.11.3"))


def test_the_installed_binding_is_one_the_range_allows() -> None:
    import PySide6

    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    assert _allowed(python, Version(PySide6.__version__))


def test_100000_void_calls_and_emits_leave_none_and_true_where_they_were(
    qapp: QApplication,
) -> None:
    drift = qt_health.probe(100_000)
    if drift.moot:
        return  # Python 3.12+: immortal objects; the range test above is what binds
    assert abs(drift.none) <= qt_health.TOLERANCE, drift.describe()
    assert abs(drift.true) <= qt_health.TOLERANCE, drift.describe()


def test_the_probe_would_see_a_binding_that_drops_references(qapp: QApplication) -> None:
    """The check can fail: a drift the size of a leaking binding's is not ok."""
    leaking = qt_health.Drift(100_000, -100_000, -100_000)
    assert not leaking.ok
    assert "None moved -100,000" in leaking.describe()


def test_600_note_switches_in_the_main_window_never_lower_none_or_true(qtbot: QtBot) -> None:
    """End/Home in the note list, as a learner would; the broken pair aborts by ~400."""
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    qtbot.waitUntil(lambda: pending_tasks() == [])
    view = window.note_list.view
    view.setFocus()
    titles = set()
    qt_health.settle()  # what earlier tests left is not this window's to answer for
    with qt_health.counting() as delta:
        for i in range(600):
            qtbot.keyClick(view, Qt.Key.Key_End if i % 2 == 0 else Qt.Key.Key_Home)
            titles.add(window.editor.title_edit.text())
        moved = qt_health.Drift(600, *delta())
    assert len(titles) == 2  # each key really opened a note
    assert moved.ok or moved.moot, moved.describe()
