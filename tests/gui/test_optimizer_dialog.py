"""Schedule › Fit schedule to my history…: the fit runs on a worker, shows before and after,
and changes the schedule only when the learner clicks Apply (issue 19, ADR 0028)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fakes.review_history import START, forgetful_parameters, seed_journal, simulate, write_notes
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from shots import SHOTS

from coach_gui.bootstrap import AppContext, build_context, use_cases
from coach_gui.services.stats import OPTIMIZE_MIN_REVIEWS
from coach_gui.ui.kit import tasks
from coach_gui.ui.schedule.optimizer_dialog import OptimizerDialog

WAIT_MS = 20_000


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _history(home: Path, monkeypatch: pytest.MonkeyPatch, assertions: int, days: int) -> int:
    monkeypatch.setenv("COACH_NOW", (START + timedelta(days=days + 1)).isoformat())
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({
        "kb": {"path": str(home / "notes")},
        "tier1": {"ollamaUrl": f"http://127.0.0.1:{_dead_port()}"},
        "judge": {"enabled": False},
    }), encoding="utf-8")  # fmt: skip
    write_notes(home / "notes", assertions)
    home.mkdir(parents=True, exist_ok=True)
    histories = simulate(assertions, days, truth=forgetful_parameters())
    return seed_journal(home / "journal.sqlite3", histories)


@pytest.fixture
def context(coach_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[AppContext]:
    _history(coach_home, monkeypatch, 60, 300)
    built = build_context(seed=False)
    yield built
    built.close()


def _stored(home: Path) -> list[Any]:
    with sqlite3.connect(home / "journal.sqlite3") as conn:
        rows = conn.execute("SELECT parameters FROM fsrs_parameters ORDER BY applied_at")
        return [json.loads(p) for (p,) in rows]


def _opened(qtbot: QtBot, context: AppContext) -> OptimizerDialog:
    dialog = OptimizerDialog(use_cases(context).schedule)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    return dialog


def test_the_fit_shows_before_and_after_and_closing_applies_nothing(
    qtbot: QtBot, context: AppContext, coach_home: Path
) -> None:
    dialog = _opened(qtbot, context)
    assert dialog.table.isVisible() and "lower is better" in dialog.meaning.text()
    assert "Log-loss" in dialog.table.text() and "RMSE" in dialog.table.text()
    assert "14 days" in dialog.table.accessibleDescription()
    assert dialog.apply_button.isEnabled() and not dialog.defaults_button.isVisible()
    assert "default settings" in dialog.in_force.text()
    dialog.grab().save(str(SHOTS / "optimizer-dialog.png"))
    dialog.close_button.click()  # Close: the learner did not say yes
    tasks.wait_for_all(WAIT_MS)
    assert _stored(coach_home) == []


def test_cancel_during_the_fit_drops_it_and_applies_nothing(
    qtbot: QtBot, context: AppContext, coach_home: Path
) -> None:
    dialog = OptimizerDialog(use_cases(context).schedule)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.running and dialog.close_button.text() == "&Cancel"
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert not dialog.isVisible()
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [], timeout=WAIT_MS)
    assert not dialog.table.isVisible() and _stored(coach_home) == []


def test_apply_then_back_to_the_defaults_each_changes_the_schedule_once(
    qtbot: QtBot, context: AppContext, coach_home: Path
) -> None:
    dialog = _opened(qtbot, context)
    with qtbot.waitSignal(dialog.changed, timeout=WAIT_MS) as applied:
        qtbot.mouseClick(dialog.apply_button, Qt.MouseButton.LeftButton)
    assert applied.args[0].parameters is not None
    (stored,) = _stored(coach_home)
    assert stored == list(applied.args[0].parameters)
    assert dialog.defaults_button.isVisible() and not dialog.apply_button.isEnabled()
    assert "fitted to your history" in dialog.in_force.text()
    with qtbot.waitSignal(dialog.changed, timeout=WAIT_MS) as reset:
        dialog.defaults_button.click()
    assert reset.args[0].parameters is None
    assert _stored(coach_home)[-1] is None and not dialog.defaults_button.isVisible()


def test_too_few_reviews_says_how_many_more_and_offers_no_apply(
    qtbot: QtBot, coach_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reviews = _history(coach_home, monkeypatch, 6, 50)
    context = build_context(seed=False)
    try:
        dialog = _opened(qtbot, context)
        assert f"{OPTIMIZE_MIN_REVIEWS - reviews:,} more" in dialog.status_line.text()
        assert not dialog.apply_button.isEnabled() and not dialog.table.isVisible()
        dialog.close_button.click()
    finally:
        context.close()
    assert _stored(coach_home) == []


def test_the_schedule_menu_opens_it_and_f1_lists_its_shortcut(
    qtbot: QtBot, context: AppContext, coach_home: Path
) -> None:
    from coach_gui.ui.shell.help_dialogs import shortcut_rows
    from coach_gui.ui.shell.main_window import MainWindow

    window = MainWindow(use_cases(context))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    schedule = next(a.menu() for a in window.menuBar().actions() if a.text() == "Sched&ule")
    assert window.menu_actions.fit_schedule in schedule.actions()
    rows = shortcut_rows(window.menu_actions.with_shortcuts())
    assert any("Fit schedule to my history" in str(row) for row in rows)
    window.menu_actions.fit_schedule.trigger()
    qtbot.waitUntil(lambda: window.findChild(OptimizerDialog) is not None, timeout=WAIT_MS)
    dialog = window.findChild(OptimizerDialog)
    assert dialog is not None
    qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
    dialog.reject()
    tasks.wait_for_all(WAIT_MS)
    assert _stored(coach_home) == []
