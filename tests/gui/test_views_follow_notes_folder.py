"""Issue 33, item 4: after another notes folder is chosen, Today and Statistics show that
folder's notes, without F5. Before, Today kept listing the old folder's new notes (and its
counts) until it was refreshed by hand."""

from __future__ import annotations

import re
from pathlib import Path

from fakes.vaults import obsidian_vault
from PySide6.QtWidgets import QMessageBox, QTreeWidgetItem
from pytestqt.qtbot import QtBot
from test_notes_folder_remembered import WAIT_MS, opened_window, settle, use_this_folder, when_shown

from coach_gui.ui.settings.notes_folder import NotesFolderChooser
from coach_gui.ui.shell.main_window import MainWindow


def listed_titles(window: MainWindow) -> set[str]:
    """The note of every row Today lists, as the learner reads it."""
    tree = window.views.today.tree
    seen: set[str] = set()

    def walk(item: QTreeWidgetItem) -> None:
        row = re.fullmatch(r"\d+\. (.+) — \d+ key points?", item.text(0))
        if row:  # "1. Homeostasis — 3 key points"
            seen.add(row.group(1))
        for i in range(item.childCount()):
            walk(item.child(i))

    for i in range(tree.topLevelItemCount()):
        walk(tree.topLevelItem(i))
    return seen


def today_loaded(qtbot: QtBot, window: MainWindow) -> None:
    today = window.views.today
    qtbot.waitUntil(lambda: not today.read.reading and today.today is not None, timeout=WAIT_MS)


def test_today_and_statistics_show_the_new_folder_after_switching(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = obsidian_vault(tmp_path / "My vault", notes=24)
    titles_in_vault = {expected.title for expected in vault.notes}
    window = opened_window(qtbot)
    window.views.show_stats()
    stats = window.views.stats
    qtbot.waitUntil(lambda: not stats.read.reading and stats.stats is not None, timeout=WAIT_MS)
    window.views.show_today()
    today_loaded(qtbot, window)
    before = listed_titles(window)
    assert before and not before & titles_in_vault  # the sample notes' new notes

    used = when_shown(QMessageBox, use_this_folder)
    NotesFolderChooser(
        window, window.cases.notes, window.config_owner, window._notes_folder_changed
    ).look_at(vault.root)
    qtbot.waitUntil(lambda: bool(used), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: "24 notes" in window.count_label.text(), timeout=WAIT_MS)

    window.views.show_today()
    today_loaded(qtbot, window)
    after = listed_titles(window)
    assert after and after <= titles_in_vault, after - titles_in_vault
    assert not after & before
    # Statistics, not shown meanwhile, reads again when next shown.
    assert stats._stale
    window.views.show_stats()
    qtbot.waitUntil(lambda: not stats.read.reading and not stats._stale, timeout=WAIT_MS)
    window.close()
    settle(qtbot)
