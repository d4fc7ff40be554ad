"""Issue 35: a change is broadcast once (DESIGN §2) and each view decides: the views that
show it read again at once when on screen, else when next shown; the view a change came
from is not told of it again; what only sessions and verdicts concern stays put."""

from __future__ import annotations

import pytest
from pytestqt.qtbot import QtBot
from test_notes_folder_remembered import WAIT_MS, opened_window, settle

from coach_gui.domain.changes import (
    ANSWERS_JUDGED,
    NOTES_LISTED,
    RECORDS_ARRIVED,
    REVIEW_TAKEN_BACK,
    SCHEDULE_CHANGED,
    SESSION_SEALED,
)
from coach_gui.ui.kit import tasks
from coach_gui.ui.shell.main_window import MainWindow


def _built_and_read(qtbot: QtBot, window: MainWindow) -> None:
    """Today, Statistics and Judge consistency built and read once, then the notes shown."""
    views = window.views
    for show, view in (
        (views.show_today, lambda: views.today),
        (views.show_stats, lambda: views.stats),
        (views.show_evals, lambda: views.evals),
    ):
        show()
        qtbot.waitUntil(lambda view=view: not view()._stale, timeout=WAIT_MS)
    qtbot.waitUntil(
        lambda: not views.today.read.reading and not views.stats.read.reading, timeout=WAIT_MS
    )
    views.show_notes()


def _stale(window: MainWindow) -> dict[str, bool]:
    views = window.views
    return {"today": views.today._stale, "stats": views.stats._stale, "evals": views.evals._stale}


def _fresh(window: MainWindow) -> None:
    views = window.views
    for view in (views.today, views.stats, views.evals):
        view._stale = False


def test_each_change_marks_stale_only_the_hidden_views_that_show_it(qtbot: QtBot) -> None:
    window = opened_window(qtbot)
    _built_and_read(qtbot, window)
    expected = {
        NOTES_LISTED: {"today": True, "stats": True, "evals": False},
        SCHEDULE_CHANGED: {"today": True, "stats": True, "evals": False},
        REVIEW_TAKEN_BACK: {"today": True, "stats": True, "evals": False},
        ANSWERS_JUDGED: {"today": True, "stats": True, "evals": True},
        SESSION_SEALED: {"today": True, "stats": True, "evals": True},
        RECORDS_ARRIVED: {"today": True, "stats": True, "evals": True},
    }
    for changes, stale in expected.items():
        _fresh(window)
        window.views.broadcast(changes)
        assert _stale(window) == stale, changes
    # A hold made in Today: Today reads itself, Statistics is told.
    _fresh(window)
    window.views.broadcast(SCHEDULE_CHANGED, source=window.views.today)
    assert _stale(window) == {"today": False, "stats": True, "evals": False}
    # Stale views read again when shown, and only then.
    assert not window.views.stats.read.reading
    window.views.show_stats()
    qtbot.waitUntil(lambda: not window.views.stats._stale, timeout=WAIT_MS)
    window.close()
    settle(qtbot)


def test_a_view_on_screen_reads_again_at_once(qtbot: QtBot) -> None:
    window = opened_window(qtbot)
    _built_and_read(qtbot, window)
    views = window.views
    views.show_stats()
    qtbot.waitUntil(
        lambda: not views.stats.read.reading and not views.stats._stale, timeout=WAIT_MS
    )
    views.broadcast(REVIEW_TAKEN_BACK)
    assert views.stats.read.reading  # reading again, now
    assert views.stats.summary_label.text() == "Loading…"
    qtbot.waitUntil(lambda: not views.stats.read.reading, timeout=WAIT_MS)
    # Judge consistency does not show reviews: it is not read for them.
    views.show_evals()
    qtbot.waitUntil(lambda: not views.evals._stale, timeout=WAIT_MS)
    views.evals._stale = False
    views.show_stats()
    views.broadcast(REVIEW_TAKEN_BACK)
    assert not views.evals._stale
    window.close()
    settle(qtbot)


def test_what_shows_a_setting_follows_it_however_it_changed(qtbot: QtBot) -> None:
    """Not only after Settings' OK: a change made through the one owner by anyone (here,
    no dialog at all) reaches what shows it, and nothing that does not show it."""
    window = opened_window(qtbot)
    _built_and_read(qtbot, window)
    views, owner = window.views, window.config_owner
    assert not views.sent.endpoint_label.isVisibleTo(views.sent)
    _fresh(window)
    owner.update({"judge.provider": "local"})
    assert views.sent.endpoint_label.isVisibleTo(views.sent)
    assert "runs on this computer" in views.sent.endpoint_label.text()
    assert _stale(window) == {"today": False, "stats": False, "evals": False}

    owner.update({"schedule.desiredRetention": 0.85})  # when key points fall due
    assert _stale(window) == {"today": True, "stats": True, "evals": False}

    tier1 = views.tier1_status
    qtbot.waitUntil(lambda: tier1._task is None or tier1._task.done, timeout=WAIT_MS)
    owner.update({"tier1.model": "another-model:1b"})  # checked again, for that model
    assert tier1.status.model == "another-model:1b"
    qtbot.waitUntil(lambda: tier1._task is not None and tier1._task.done, timeout=WAIT_MS)
    settle(qtbot)
    window.close()
    settle(qtbot)


def test_sessions_gaps_review_undo_and_sync_take_what_concerns_them(
    qtbot: QtBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With Sessions and its gap board on screen: which of them read again, whether Undo
    review looks again, and whether sync runs, for each record."""
    window = opened_window(qtbot)
    views = window.views
    views.show_sessions()
    views.sessions.tabs.setCurrentWidget(views.gap_board)  # Gaps by note, on screen
    qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=WAIT_MS)
    assert views.sessions.isVisible() and views.gap_board.isVisible()
    calls: list[str] = []
    monkeypatch.setattr(views.sessions, "refresh", lambda: calls.append("sessions"))
    monkeypatch.setattr(views.gap_board, "reload", lambda: calls.append("gaps"))
    monkeypatch.setattr(views.review_undo, "check", lambda **_k: calls.append("undo"))
    monkeypatch.setattr(window.sync_status, "run", lambda: calls.append("sync"))
    expected = {
        NOTES_LISTED: ["gaps"],
        SCHEDULE_CHANGED: [],
        REVIEW_TAKEN_BACK: ["sessions", "gaps"],
        ANSWERS_JUDGED: ["sessions", "gaps", "undo", "sync"],
        SESSION_SEALED: ["sessions", "gaps", "undo", "sync"],
        RECORDS_ARRIVED: ["sessions", "gaps", "undo"],  # never synced back
    }
    for changes, wanted in expected.items():
        calls.clear()
        views.broadcast(changes)
        assert sorted(calls) == sorted(wanted), changes
    calls.clear()
    views.broadcast(SESSION_SEALED, source=views.review_undo)  # it looks for itself
    assert sorted(calls) == ["gaps", "sessions", "sync"]
    views.show_notes()  # hidden: they read when next shown, not now
    calls.clear()
    views.broadcast(ANSWERS_JUDGED)
    assert sorted(calls) == ["sync", "undo"]
    window.close()
    settle(qtbot)
