"""The Statistics view over a simulated year of practice in a real journal (tests/gui/
stats_year.py; the last review undone, one note suspended, one key point buried): what
the learner reads — the heatmap's days and its table, true retention per month, the
counts, the leeches, one key point's timeline — is worked out here again from the
history written, with the `fsrs` package's own scheduler for what was due. Also: an
empty journal, the dark palette, Open note, and the text alternatives."""

from __future__ import annotations

import json
import os
import socket
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler
from layout_faults import layout_faults
from PySide6.QtCore import QEvent, QPoint, Qt
from PySide6.QtGui import QColor, QHelpEvent, QPainter
from PySide6.QtWidgets import QApplication, QToolTip, QWidget
from pytestqt.qtbot import QtBot
from shots import dark_palette
from stats_year import Review, Year, simulate_year
from visible_text import assert_learner_words

from coach_gui.bootstrap import AppContext, build_cases, build_context, use_cases
from coach_gui.domain.memory import AGAIN, RATING_NAMES, SOURCE_WORDS, assertion_digest
from coach_gui.domain.notes import Note
from coach_gui.operations import schedule
from coach_gui.operations.app import note_catalogue
from coach_gui.operations.today import learners_day_offset
from coach_gui.services.stats import Counts
from coach_gui.ui.charts.heatmap_chart import day_words
from coach_gui.ui.charts.retention_chart import month_words
from coach_gui.ui.kit.tasks import pending_tasks
from coach_gui.ui.schedule.stats_view import EMPTY_TEXT, StatsView, counts_text
from coach_gui.ui.shell.main_window import MainWindow

WAIT_MS = 20_000
NOW = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)
DESIRED = 0.9  # the default desired retention


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _configure() -> None:
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "tier1": {"ollamaUrl": f"http://127.0.0.1:{_dead_port()}"},
        "judge": {"enabled": False},
    }), encoding="utf-8")  # fmt: skip


@dataclass
class History:
    context: AppContext
    notes: list[Note]
    year: Year
    undone: str  # the session whose review was undone
    suspended: Note
    buried: tuple[Note, str]


@pytest.fixture
def history(monkeypatch: pytest.MonkeyPatch) -> Iterator[History]:
    """Seven of the eight sample notes practised over the year to NOW; the eighth is new."""
    _configure()
    monkeypatch.setenv("COACH_NOW", NOW.isoformat())
    context = build_context()
    notes = sorted((e.note for e in context.notes.load().notes), key=lambda n: n.title)
    year = simulate_year(context.journal, notes[:7], NOW)
    undone = schedule.undo_last_review(context)
    assert undone is not None and undone.session_id == year.reviews[-1].session_id
    suspended, buried = notes[6], notes[5]
    schedule.hold(context, suspended, "suspend")
    schedule.hold(context, buried, "bury", assertion=buried.core_assertions[0])
    yield History(context, notes, year, undone.session_id, suspended,
                  (buried, buried.core_assertions[0]))  # fmt: skip
    context.close()


# --- the history, worked out again ---------------------------------------------------------
def _counted(history: History) -> list[Review]:
    return [r for r in history.year.reviews if r.session_id != history.undone]


def _local(moment: datetime) -> date:
    return (moment + learners_day_offset()).date()


def expected_days(history: History) -> list[tuple[str, int]]:
    today = _local(NOW)
    per_day = Counter(_local(r.at).isoformat() for r in _counted(history))
    days = [(today - timedelta(days=n)).isoformat() for n in range(364, -1, -1)]
    return [(day, per_day.get(day, 0)) for day in days]


@dataclass
class Replayed:
    card: Card
    reviews: list[Review]
    lapses: int = 0
    gap: bool = False  # the latest judged review missed it


def replay(history: History) -> tuple[dict[tuple[str, str], Replayed], dict[str, list[int]]]:
    """Each key point's FSRS card after its counted reviews (the package's own scheduler,
    set as Coach sets it), and per month [reviews made when due, recalled]."""
    fsrs = Scheduler(desired_retention=DESIRED, learning_steps=(), relearning_steps=(),
                     enable_fuzzing=False)  # fmt: skip
    cards: dict[tuple[str, str], Replayed] = {}
    months: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for review in _counted(history):
        key = (review.note_id, review.digest)
        found = cards.get(key)
        if found is None:
            found = cards[key] = Replayed(Card(card_id=1, due=review.at), [])
        elif _local(found.card.due) <= _local(review.at):  # due that day (never the first)
            month = months[f"{_local(review.at):%Y-%m}"]
            month[0] += 1
            month[1] += review.rating > AGAIN
        if found.reviews:  # a lapse: missed on a later day than the review before
            found.lapses += review.rating == AGAIN and _local(review.at) > _local(
                found.reviews[-1].at
            )
        if review.source != "self":
            found.gap = review.rating == AGAIN
        found.reviews.append(review)
        found.card, _ = fsrs.review_card(found.card, Rating(review.rating), review.at)
    return cards, months


def expected_counts(history: History) -> Counts:
    cards, _ = replay(history)
    offset = learners_day_offset()
    start = datetime.combine(_local(NOW), datetime.min.time(), UTC) - offset
    tomorrow = start + timedelta(days=1)
    buried, text = history.buried
    held = {(buried.id, assertion_digest(text))}
    listed = [
        found
        for (note_id, digest), found in cards.items()
        if note_id != history.suspended.id and (note_id, digest) not in held
        and (found.card.due < tomorrow or found.gap)
    ]  # fmt: skip
    return Counts(
        due=len(listed),
        overdue=sum(found.card.due < start for found in listed),
        open_gaps=sum(found.gap for found in listed),
        new_waiting=1,
        new_today=1,
        suspended=1,
        buried=1,
        assertions=len(cards),
    )


def _percent(recalled: int, due: int) -> str:
    return f"{recalled / due:.0%}" if due else "no reviews"


# --- the view -------------------------------------------------------------------------------
def _view(qtbot: QtBot, context: AppContext) -> StatsView:
    lookup, entries = note_catalogue(context)
    view = StatsView(use_cases(context).schedule, lookup, lambda: entries)
    qtbot.addWidget(view)
    view.resize(1024, 640)
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.show()
    return view


def _tooltip(widget: QWidget, point: QPoint) -> str:
    event = QHelpEvent(QEvent.Type.ToolTip, point, widget.mapToGlobal(point))
    QApplication.sendEvent(widget, event)
    return QToolTip.text()


def test_the_view_reads_back_a_year_of_practice(qtbot: QtBot, history: History) -> None:
    view = _view(qtbot, history.context)
    counted = _counted(history)
    days = expected_days(history)
    # The heatmap: every day of the year, as counted from the sessions written.
    assert view.heatmap.days == days
    assert sum(n for _, n in days) == len(counted)  # the year holds every review
    busiest = max(days, key=lambda d: d[1])
    n = days.index(busiest)
    centre = view.heatmap.cell_rect(n).center().toPoint()
    assert view.heatmap.day_at(centre) == busiest
    assert _tooltip(view.heatmap, centre) == f"{day_words(busiest[0])}: {busiest[1]} reviews"
    assert f"Most in one day: {busiest[1]}, on {day_words(busiest[0])}" in (
        view.heatmap.accessibleDescription()
    )
    assert view.summary_label.text() == f"{len(counted):,} reviews in the last year."
    # … and as a table, by keyboard: only the days with reviews, newest first.
    view.tables_box.setFocus()
    qtbot.keyClick(view.tables_box, Qt.Key.Key_Space)
    assert view.blocks[0].currentWidget() is view.heatmap_table
    assert view.heatmap_table.isVisible() and not view.heatmap.isVisible()
    assert view.heatmap_table.rows() == [
        [day_words(day), f"{count:,}"] for day, count in reversed(days) if count
    ]
    # True retention per month: reviews made when FSRS had the key point due.
    _, months = replay(history)
    shown = [(m.month, m.due, m.recalled) for m in view.retention_chart.months]
    assert len(shown) == 12 and shown[-1][0] == f"{_local(NOW):%Y-%m}"
    assert shown == [(m, *months.get(m, [0, 0])) for m, _, _ in shown]
    assert any(due == 0 for _, due, _ in shown)  # the month off
    rows = view.retention_table.rows()
    assert rows == [
        [month_words(m), f"{due:,}", f"{recalled:,}", _percent(recalled, due)]
        for m, due, recalled in shown
    ]
    quiet = next(m for m, due, _ in shown if due == 0)
    assert f"{month_words(quiet)}: no reviews" in view.retention_chart.accessibleDescription()
    assert view.retention_chart.bars()[[m for m, _, _ in shown].index(quiet)] is None
    # The counts, in words.
    counts = expected_counts(history)
    assert view.counts_label.text() == counts_text(counts, len(counted))
    assert "1 new note waiting, 1 of them offered today." in view.counts_label.text()
    assert "Held back: 1 suspended, 1 buried until tomorrow." in view.counts_label.text()
    # The leeches: missed four times or more after their first review.
    cards, _ = replay(history)
    leeches = sorted(
        ((found.reviews[0], found.lapses, len(found.reviews)) for found in cards.values()
         if found.lapses >= 4),
        key=lambda x: (-x[1], next(n.title for n in history.notes
                                   if n.id == x[0].note_id).casefold(), x[0].text),
    )  # fmt: skip
    titles = {n.id: n.title for n in history.notes}
    assert view.leech_table.rows() == [
        [titles[first.note_id], first.text, str(lapses), str(reviews)]
        for first, lapses, reviews in leeches
    ]
    assert (leeches[0][0].note_id, leeches[0][0].digest) == history.year.leech
    assert_learner_words(step="Statistics")


def test_a_key_points_timeline_shows_each_review_and_the_undone_one(
    qtbot: QtBot, history: History
) -> None:
    view = _view(qtbot, history.context)
    # From the leeches: Show timeline (Alt+M) on the first one.
    view.tabs.setCurrentIndex(1)
    view.leech_table.setFocus()
    view.leech_table.setCurrentCell(0, 0)
    with qtbot.waitSignal(view.timeline_loaded, timeout=WAIT_MS):
        qtbot.mouseClick(view.leech_timeline_button, Qt.MouseButton.LeftButton)
    assert view.tabs.currentIndex() == 2
    note_id, digest = history.year.leech
    written = [r for r in history.year.reviews if (r.note_id, r.digest) == (note_id, digest)]
    assert view.timeline_table.rows() == [
        [day_words(_local(r.at).isoformat()), RATING_NAMES[r.rating],
         SOURCE_WORDS[r.source], "yes"]  # type: ignore[index]
        for r in written
    ]  # fmt: skip
    assert {row[2] for row in view.timeline_table.rows()} >= {"judge"}
    # From the list of every key point, filtered: the one whose review was undone.
    last = history.year.reviews[-1]
    note = next(n for n in history.notes if n.id == last.note_id)
    model = view.key_model
    assert model.rowCount() == len(replay(history)[0])  # every key point with a memory
    view.filter_box.setFocus()
    qtbot.keyClicks(view.filter_box, f"{note.title} {last.text[:20]}")
    assert model.rowCount() == 1
    place = note.core_assertions.index(last.text) + 1
    assert model.data(model.index(0)) == f"{note.title} — {place}. {last.text}"
    with qtbot.waitSignal(view.timeline_loaded, timeout=WAIT_MS):
        qtbot.keyClick(view.filter_box, Qt.Key.Key_Return)  # into the list
        qtbot.keyClick(view.key_list, Qt.Key.Key_Down)  # the first (only) one
    key = (last.note_id, last.digest)
    written = [r for r in history.year.reviews if (r.note_id, r.digest) == key]
    rows = view.timeline_table.rows()
    assert [row[0] for row in rows] == [day_words(_local(r.at).isoformat()) for r in written]
    assert rows[-1][3] == "undone (not counted)"
    assert all(row[3] == "yes" for row in rows[:-1])
    sources = {SOURCE_WORDS[r.source] for r in history.year.reviews}  # type: ignore[index]
    assert sources == {"judge", "self-rating", "judged later"}
    assert f"{len(written) - 1} reviews, 1 undone" in view.timeline_label.text()


def test_an_empty_journal_says_what_to_do(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    _configure()
    monkeypatch.setenv("COACH_NOW", NOW.isoformat())
    context = build_context()
    try:
        view = _view(qtbot, context)
        assert view.pages.currentWidget() is view.empty_label
        assert view.empty_label.text() == EMPTY_TEXT
        assert view.summary_label.text() == "No reviews yet."
        assert view.counts_label.text().startswith("Nothing due today. 8 new notes waiting, 5")
        assert view.heatmap.accessibleDescription() == "No reviews in the last year."
        assert_learner_words(step="empty Statistics")
    finally:
        context.close()


def _text_pens(chart: QWidget) -> list[QColor]:
    """The pen colour of every word `chart` paints."""
    pens: list[QColor] = []
    draw = QPainter.drawText

    def record(painter: QPainter, *args: object) -> object:
        pens.append(painter.pen().color())
        return draw(painter, *args)  # type: ignore[call-overload]

    QPainter.drawText = record  # type: ignore[method-assign,assignment]
    try:
        chart.grab()
    finally:
        QPainter.drawText = draw  # type: ignore[method-assign]
    return pens


def test_in_a_dark_palette_every_painted_word_takes_the_palettes_text_colour(
    qtbot: QtBot, history: History
) -> None:
    view = _view(qtbot, history.context)
    view.setPalette(dark_palette())
    text = QColor("#dcdcdc")
    for chart in (view.heatmap, view.retention_chart, view.forecast):
        pens = _text_pens(chart)
        assert pens and all(pen == text for pen in pens), chart.accessibleName()
    # Each shade stands further out of the dark window than the one below it.
    window = QColor("#202020").lightness()
    shades = [view.heatmap.shade(0)] + [view.heatmap.shade(b) for b in view.heatmap.bounds]
    lift = [shade.lightness() - window for shade in shades]
    assert len(lift) == 5 and lift == sorted(lift) and len(set(lift)) == 5
    assert lift[0] > 10 and lift[-1] > 80, lift


@pytest.mark.parametrize("size", [(1024, 640), (1120, 720)])
def test_no_layout_faults_on_any_page(
    qtbot: QtBot, history: History, size: tuple[int, int]
) -> None:
    view = _view(qtbot, history.context)
    view.resize(*size)
    for page in range(3):
        view.tabs.setCurrentIndex(page)
        for tables in (False, True):
            view.tables_box.setChecked(tables)
            qtbot.wait(20)
            assert layout_faults(view) == [], (page, tables)
        if page == 2:
            view.show_timeline(*history.year.leech)
            qtbot.waitUntil(lambda: view.timeline_table.rowCount() > 0, timeout=WAIT_MS)
            assert layout_faults(view) == []


def test_open_note_from_a_leech_opens_it_in_the_editor_with_the_key_point(
    qtbot: QtBot, history: History
) -> None:
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.resize(1120, 720)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)
    window.activateWindow()
    qtbot.keyClick(window, Qt.Key.Key_6, Qt.KeyboardModifier.ControlModifier)
    stats = window.views.stats
    assert window.stack.currentWidget() is stats and window.menu_actions.show_stats.isChecked()
    assert window.view_switcher.tabText(window.view_switcher.currentIndex()) == "Statistics"
    qtbot.waitUntil(lambda: stats.stats is not None, timeout=WAIT_MS)
    qtbot.keyClick(stats.tabs.tabBar(), Qt.Key.Key_L, Qt.KeyboardModifier.AltModifier)
    assert stats.tabs.currentIndex() == 1
    stats.leech_table.setFocus()
    qtbot.keyClick(stats.leech_table, Qt.Key.Key_Return)
    leech = stats.stats.leeches[0]  # type: ignore[union-attr]
    assert window.stack.currentWidget() is window.splitter
    assert window.editor.current_note_id() == leech.note_id
    assert window.editor.assertions.list.currentRow() == leech.index
    assert window.editor.assertions.list.hasFocus()
    window.close()
    qtbot.waitUntil(lambda: pending_tasks() == [], timeout=WAIT_MS)


def test_practice_marks_it_stale_and_it_reads_again_when_shown(
    qtbot: QtBot, history: History
) -> None:
    view = _view(qtbot, history.context)
    before = view.stats
    view.hide()
    view.mark_stale()
    assert view.stats is before  # hidden: nothing read yet
    with qtbot.waitSignal(view.loaded, timeout=WAIT_MS):
        view.show()
    assert view.stats is not before
