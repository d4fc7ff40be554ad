"""Layout that holds at 1.0x, 1.5x and 2.0x and in a 1024x640 (and an 800x600) window
(issue 17): no view behind the toolbar's » chevron, the status bar's privacy line whole,
the gap board's rows and the charts' labels inside their widgets, every view and dialog
able to be 1024x640. At 1.5x and 2.0x the real window runs in a process of its own
(Qt reads QT_SCALE_FACTOR when it starts): tests/gui/layout_probe.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest
from layout_faults import layout_faults, painted_text_faults, painted_texts, row_faults
from layout_probe import SIZES, fakes, populate, probe, settle
from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtWidgets import QApplication, QGroupBox, QScrollArea, QToolButton
from pytestqt.qtbot import QtBot

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import build_cases, build_context
from coach_gui.operations import evals
from coach_gui.operations.review import gap_board
from coach_gui.services.review import OpenGap, ProgressPoint
from coach_gui.ui.charts.eval_chart import ArmChart
from coach_gui.ui.charts.forecast_chart import ForecastChart
from coach_gui.ui.charts.progress_chart import ProgressChart
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.review.gap_board import GapBoard
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.settings_dialog import SettingsDialog
from coach_gui.ui.shell.main_window import MainWindow

PROBE = Path(__file__).with_name("layout_probe.py")
VIEWS = ("today", "notes", "practice", "practice-summary", "sent", "sessions", "gaps", "evals",
         "stats")  # fmt: skip
DIALOGS = ("settings", "welcome", "payload-review", "shortcuts", "data-locations",
           "privacy-summary", "model-download")  # fmt: skip
EXPECTED = {f"{v} at {s}" for v in VIEWS for s in SIZES} | {f"dialog-{d}" for d in DIALOGS}
WAIT_MS = 20_000


def _faults(found: dict[str, list[str]]) -> dict[str, list[str]]:
    assert set(found) >= EXPECTED, f"not checked: {sorted(EXPECTED - set(found))}"
    return {name: faults for name, faults in found.items() if faults}


def test_every_view_and_dialog_holds_at_1x(qapp: QApplication) -> None:
    with fakes() as (ollama, gemini):
        populate(ollama, gemini)
        found = probe(qapp)
    assert _faults(found) == {}


@pytest.mark.parametrize("scale", ["1.5", "2.0"])
def test_every_view_and_dialog_holds_at_scale(scale: str, tmp_path: Path) -> None:
    env = {**os.environ, "QT_SCALE_FACTOR": scale, "QT_QPA_PLATFORM": "offscreen"}
    run = subprocess.run(
        [sys.executable, str(PROBE), str(tmp_path / "probe")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    assert result["scale"] == scale
    assert _faults(result["found"]) == {}


@pytest.fixture
def window(qtbot: QtBot) -> MainWindow:
    KeyStore().set("test-key")  # the status bar's longest privacy line: sent to Gemini
    win = MainWindow(build_cases())
    qtbot.addWidget(win)
    with qtbot.waitSignal(win.notes_listed, timeout=WAIT_MS):
        win.show()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    return win


@pytest.mark.parametrize("size", [(1024, 640), (800, 600)])
def test_every_view_has_a_tab_in_a_narrow_window_and_none_hides(
    qtbot: QtBot, window: MainWindow, size: tuple[int, int]
) -> None:
    """Found at 1.5x: Sent to judge, Sessions and Consistency went behind the toolbar's »."""
    window.resize(*size)
    qtbot.waitUntil(lambda: window.size().width() == size[0])
    qapp = QApplication.instance()
    assert isinstance(qapp, QApplication)
    settle(qapp)
    chevrons = [b for b in window.findChildren(QToolButton, "qt_toolbar_ext_button")]
    assert not any(b.isVisible() for b in chevrons)
    switcher = window.view_switcher
    views = window.menu_actions.views()
    assert [switcher.tabText(n) for n in range(switcher.count())] == [
        "Today", "Notes", "Practice", "Sent to judge", "Sessions", "Consistency", "Statistics"
    ]  # fmt: skip
    for n in range(switcher.count()):  # each whole, inside the window
        tab = switcher.tabRect(n)
        assert switcher.rect().contains(tab)
        assert tab.width() >= switcher.fontMetrics().horizontalAdvance(switcher.tabText(n))
        assert switcher.accessibleTabName(n) == views[n].text().replace("&", "")
    qtbot.mouseClick(
        switcher, Qt.MouseButton.LeftButton, pos=switcher.tabRect(4).center()
    )  # Sessions, by mouse
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.views.sessions)
    assert views[4].isChecked()
    qtbot.keyClick(window, Qt.Key.Key_3, Qt.KeyboardModifier.ControlModifier)  # Sent, by key
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.views.sent)
    assert switcher.currentIndex() == 3
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def test_the_privacy_line_keeps_every_word_and_the_folder_gives_way(
    qtbot: QtBot, window: MainWindow
) -> None:
    """Found at 1.5x: the status bar cut "…are sent to Gemini" short."""
    label = window.privacy.status_label()  # its longest words: a key stored, the judge on
    qtbot.waitUntil(lambda: label.text().endswith("sent to Gemini"), timeout=WAIT_MS)
    full = label.text()
    for width in (1024, 800, 720, 640):
        window.resize(width, 600)
        qtbot.waitUntil(lambda w=width: window.width() == w)  # type: ignore[misc]
        QApplication.processEvents()
        assert label.width() >= label.fontMetrics().horizontalAdvance(full), width
        assert label.isVisible() and label.text() == full
    tier1 = window.views.tier1_status  # only its dot now; the words are in its tooltip
    assert tier1.width() < tier1.sizeHint().width() and tier1.toolTip()
    where = window.where_label  # narrower than its text now; the whole path is its tooltip
    assert where.width() < where.fontMetrics().horizontalAdvance(where.text())
    assert where.text().startswith("Notes in ") and where.toolTip() == window.cases.notes.location


def _progress_points() -> list[ProgressPoint]:
    """Ten sessions, the open gaps falling from 11 (two digits on the right axis) to 2."""
    gaps = [OpenGap("natural-selection", "Natural selection", f"gap-{n}", n, f"Key point {n}",
                    1, "unexplained", "Not explained.") for n in range(12)]  # fmt: skip
    return [ProgressPoint(f"2026-01-{d:02d}T10:00:00Z", passed=d % 3, judged=3,
                          gaps=tuple(gaps[: 12 - d])) for d in range(1, 11)]  # fmt: skip


def _forecast_days() -> list[tuple[str, int]]:
    start = date(2026, 1, 5)
    return [((start + timedelta(days=n)).isoformat(), (n * 7) % 13) for n in range(14)]


@pytest.mark.parametrize("font_scale", [1.0, 1.5, 2.0])
def test_the_charts_labels_fit_in_their_widgets_at_each_font_size(
    qtbot: QtBot, font_scale: float
) -> None:
    """Found at 1.5x: the eval chart cut "100%" (a fixed 32-pixel margin), and the progress
    chart's legend ran out of a 200-pixel chart. Each label grows with the font."""
    with fakes() as (ollama, gemini):
        populate(ollama, gemini)
    report = evals.past_runs(build_context(seed=False))[0].report
    arm_chart = ArmChart()
    arm_chart.set_report(report)
    progress = ProgressChart()
    progress.set_points(_progress_points())
    forecast = ForecastChart()
    forecast.set_days(_forecast_days())
    for chart in (arm_chart, progress, forecast, ArmChart(), ProgressChart(), ForecastChart()):
        qtbot.addWidget(chart)
        font = chart.font()
        font.setPointSizeF(font.pointSizeF() * font_scale)
        chart.setFont(font)
        for hint in (chart.minimumSizeHint(), chart.sizeHint()):
            chart.resize(hint)
            chart.show()
            with painted_texts() as painted:
                chart.grab()
            assert painted, type(chart).__name__  # it paints its words, and each fits:
            assert painted_text_faults(chart) == [], (type(chart).__name__, hint)
    with painted_texts() as painted:
        arm_chart.grab()
    assert {"100%", "0", "Gap agreement", "with assertions"} <= {p.text for p in painted}


def test_the_gap_boards_rows_follow_its_width(qtbot: QtBot) -> None:
    """Found at 1.5x: rows sized once for the key point's wrapped words were cut when the
    window (and so the column) grew narrower."""
    with fakes() as (ollama, gemini):
        populate(ollama, gemini)
    context = build_context(seed=False)
    notes = [e.note for e in context.notes.load().notes]
    board = GapBoard(lambda note: gap_board(context, note), lambda: notes)
    qtbot.addWidget(board)
    board.resize(1000, 560)
    natural = next(n for n in notes if n.title == "Natural selection")
    with qtbot.waitSignal(board.loaded, timeout=WAIT_MS):
        board.show()
        board.select_note(natural.id)
    assert board.table.rowCount() >= 2
    for width in (700, 520):
        board.resize(width, 560)
        QApplication.processEvents()
        assert row_faults(board.table) == [], width
    assert layout_faults(board) == []
    hint = board.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 640


def test_settings_can_be_smaller_than_all_its_fields(qtbot: QtBot) -> None:
    """More settings than a 640-pixel-high window holds: they scroll, Save stays in view;
    narrower than both columns (a 1280x1024 screen at 1.5x), one column above the other."""
    context = build_context(seed=False)
    dialog = SettingsDialog(ConfigOwner(context), keys=context.gemini_keys())
    qtbot.addWidget(dialog)
    hint = dialog.minimumSizeHint()
    assert hint.width() <= 1024 and hint.height() <= 640
    dialog.show()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)  # the key's status is in
    qtbot.wait(100)  # and the dialog has grown for it
    boxes = {box.title(): box for box in dialog.findChildren(QGroupBox)}
    scroll = next(
        a for a in dialog.findChildren(QScrollArea) if a.isAncestorOf(boxes["Judge (Tier 2)"])
    )

    def where(title: str) -> QPoint:
        return next(b for t, b in boxes.items() if t.startswith(title)).mapTo(dialog, QPoint(0, 0))

    for width, side_by_side in ((1000, True), (700, False)):
        dialog.resize(width, 480)
        qtbot.waitUntil(lambda w=width: dialog.size() == QSize(w, 480))  # type: ignore[misc]
        qtbot.waitUntil(  # the columns are arranged once the layout has run
            lambda s=side_by_side: (where("Judge (Tier 2)").x() > where("Notes").x()) is s  # type: ignore[misc]
        )
        for button in dialog.buttons.buttons():
            corner = button.mapTo(dialog, button.rect().bottomRight())
            assert dialog.rect().contains(corner), button.text()
        assert dialog.size() == QSize(width, 480) and scroll.verticalScrollBar().isVisible()
        assert not scroll.horizontalScrollBar().isVisible(), width
        assert (where("Judge (Tier 2)").y() > where("Notes").y()) is not side_by_side
        assert layout_faults(dialog) == [], width
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
