"""Screenshots of the Statistics view over a simulated year of practice (tests/gui/
stats_year.py: seven sample notes practised to 2 November 2026, the last review undone,
a note suspended, a key point buried), light and dark, at 1.0x and 1.5x, in the window at
its first-run size (1120x720) and at 1024x640: the overview (charts), the overview as
tables, the leeches and a leech's timeline; and the empty view of a new journal.

    python bench/shots_stats.py [folder] [--scales 1.0,1.5]      (default /tmp/stats-shots)

Files are `stats-PAGE-THEME-SIZE-SCALEx.png`; what tests/gui/layout_faults.py finds in a
picture is printed under its name. With `--big` (one scale, light only), the time from
the view shown to its figures drawn over 10,000 notes x 5 key points and 100,000 reviews
(bench/bench_today.py's journal) is printed instead."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's coach_gui, not the one installed
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "tests" / "gui"))
sys.path.insert(0, str(REPO / "bench"))

NOW = datetime(2026, 11, 2, 18, 0, tzinfo=UTC)
SIZES = {"first-run": (1120, 720), "1024x640": (1024, 640)}


def _home(scale: str) -> Path:
    os.environ["QT_SCALE_FACTOR"] = scale
    home = Path(tempfile.mkdtemp(prefix="coach-stats-shots-"))
    from layout_probe import isolate, offscreen_screen

    offscreen_screen(home)
    isolate(home)
    os.environ["COACH_NOW"] = NOW.isoformat()
    (home / "coach.config.json").write_text(
        '{"tier1": {"ollamaUrl": "http://127.0.0.1:9"}, "judge": {"enabled": false}}',
        encoding="utf-8",
    )
    return home


def _seed_year() -> None:
    from stats_year import simulate_year

    from coach_gui.bootstrap import build_context
    from coach_gui.operations import schedule

    context = build_context()
    notes = sorted((e.note for e in context.notes.load().notes), key=lambda n: n.title)
    simulate_year(context.journal, notes[:7], NOW)
    schedule.undo_last_review(context)
    schedule.hold(context, notes[6], "suspend")
    schedule.hold(context, notes[5], "bury", assertion=notes[5].core_assertions[0])
    context.close()


def shoot(folder: Path, scale: str) -> None:
    home = _home(scale)
    from PySide6.QtCore import QSettings
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication, QWidget

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(home / "qs"))
    app = QApplication([])
    app.setStyle("Fusion")
    from layout_faults import layout_faults
    from layout_probe import settle
    from shots_preview import _palette

    from coach_gui.bootstrap import build_cases
    from coach_gui.ui.kit import window_state
    from coach_gui.ui.shell.main_window import MainWindow

    def save(name: str, widget: QWidget) -> None:
        out = folder / f"stats-{name}-{scale}x.png"
        widget.grab().save(str(out))
        print(out, *(f"\n  {fault}" for fault in layout_faults(widget)))

    def walk(tag: str, seeded: bool) -> None:
        window_state.window_settings().clear()
        window = MainWindow(build_cases())
        for size_name, size in SIZES.items():
            window.resize(*size)
            window.show()
            settle(app)
            window.menu_actions.show_stats.trigger()
            settle(app)
            stats = window.views.stats
            where = f"{tag}-{size_name}"
            if not seeded:
                save(f"empty-{where}", window)
                continue
            stats.tabs.setCurrentIndex(0)
            stats.tables_box.setChecked(False)
            settle(app)
            save(f"overview-{where}", window)
            stats.tables_box.setChecked(True)
            settle(app)
            save(f"tables-{where}", window)
            stats.tables_box.setChecked(False)
            stats.tabs.setCurrentIndex(1)
            settle(app)
            save(f"leeches-{where}", window)
            if stats.stats is not None and stats.stats.leeches:
                leech = stats.stats.leeches[0]
                stats.show_timeline(leech.note_id, leech.digest)
                settle(app)
                save(f"timeline-{where}", window)
        window.close()
        settle(app)
        window.deleteLater()
        settle(app, 0.05)

    for theme in ("light", "dark"):
        app.setPalette(_palette(theme == "dark", QPalette, QColor))
        walk(theme, seeded=False)
    _seed_year()
    for theme in ("light", "dark"):
        app.setPalette(_palette(theme == "dark", QPalette, QColor))
        walk(theme, seeded=True)


def big(notes_count: int = 10_000, attempts: int = 100_000) -> None:
    """Shown to drawn, on bench_today's journal (sessions of two judged answers)."""
    home = _home("1.0")
    from bench_today import make_notes, seed
    from PySide6.QtWidgets import QApplication

    from coach_gui.adapters.journal.database import Journal
    from coach_gui.bootstrap import build_context, use_cases
    from coach_gui.ui.schedule.stats_view import StatsView

    app = QApplication([])
    notes = make_notes(notes_count)
    context = build_context()
    path = context.journal_path
    context.close()
    began = time.perf_counter()
    with Journal.open(path) as journal:
        seed(journal, notes, attempts)
    print(f"seeded {notes_count} notes x 5, {attempts} answers in "
          f"{time.perf_counter() - began:.1f} s")  # fmt: skip
    os.environ["COACH_NOW"] = "2026-11-01T09:00:00+00:00"  # bench_today's NOW
    for run in ("first (the memory cache built from history)", "again (cache up to date)"):
        context = build_context()
        view = StatsView(use_cases(context).schedule, notes.get, lambda: [])
        view.resize(1120, 720)
        began = time.perf_counter()
        view.show()
        while view.stats is None:
            app.processEvents()
            time.sleep(0.001)
        view.repaint()
        drawn = time.perf_counter() - began
        stats = view.stats
        began = time.perf_counter()
        view.tabs.setCurrentIndex(2)  # the Timeline page reads every key point
        while view.key_points is None or view._points_task is not None:
            app.processEvents()
            time.sleep(0.001)
        listed = time.perf_counter() - began
        print(f"{run}: shown to drawn {drawn * 1000:.0f} ms ({stats.reviews:,} reviews, "
              f"{len(stats.leeches)} leeches); the Timeline page's "
              f"{len(view.key_points):,} key points listed in {listed * 1000:.0f} ms")  # fmt: skip
        view.close()
        view.deleteLater()
        app.processEvents()
        context.close()
    print(f"(Coach's files in {home})")


def main() -> None:
    if "--big" in sys.argv:
        big()
        return
    from shots_preview import at_each_scale

    at_each_scale(__file__, shoot, "/tmp/stats-shots", scales=("1.0", "1.5"))


if __name__ == "__main__":
    main()
