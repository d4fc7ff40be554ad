"""Issue 33, item 7: after an edit conflict both versions are kept, and the note list tells
them apart. Before, a note with a title of its own was listed twice as the same row
("Zinseszins · 3 assertions"), with nothing saying which one was the learner's edit."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from test_vault_preview import _settle, _window

from coach_gui.ui.notes.note_list import DETAIL_ROLE
from coach_gui.ui.shell.main_window import MainWindow

NOTE = """---
title: Zinseszins
core_assertions:
  - Interest is paid on earlier interest too.
  - The balance grows geometrically.
  - Doubling time is about 72 divided by the rate.
---
Erste Fassung.
"""


def rows(window: MainWindow) -> list[tuple[str, str, str]]:
    """Each listed note as the learner meets it: title, the line below, what a screen
    reader says."""
    model = window.note_list.model
    found = []
    for row in range(model.rowCount()):
        index = model.index(row, 0)
        found.append(
            (index.data(), index.data(DETAIL_ROLE), index.data(Qt.ItemDataRole.AccessibleTextRole))
        )
    return found


def test_the_kept_edit_and_the_original_are_told_apart_in_the_list(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Zinseszins.md").write_text(NOTE, encoding="utf-8")
    (vault / "Rente.md").write_text("Nichts.\n", encoding="utf-8")
    window = _window(qtbot, vault, tmp_path)
    entry = next(e for e in window.listing.entries.values() if e.note.title == "Zinseszins")
    window.open_note(entry.note.id)
    # Titles of their own: no file name needed.
    assert sorted(detail for _t, detail, _a in rows(window)) == ["0 assertions", "3 assertions"]

    qtbot.keyClicks(window.editor.body_tabs.edit, "Meine. ")
    (vault / "Zinseszins.md").write_text(NOTE.replace("Erste", "Zweite"), encoding="utf-8")
    qtbot.waitUntil(lambda: window.editor.problem_label.isVisible(), timeout=5_000)
    with qtbot.waitSignal(window.editor.saved, timeout=10_000):
        window.editor.save()
    (copy,) = vault.glob("Zinseszins (my edit *).md")
    qtbot.waitUntil(lambda: len(rows(window)) == 3, timeout=10_000)

    twins = [row for row in rows(window) if row[0] == "Zinseszins"]
    assert len(twins) == 2
    (original,) = [row for row in twins if "my edit" not in row[1]]
    (kept,) = [row for row in twins if "my edit" in row[1]]
    assert original[1] == "Zinseszins.md  ·  3 assertions"
    assert kept[1] == f"your edit, kept as {copy.name}  ·  3 assertions"
    assert original[2] != kept[2]  # a screen reader tells them apart too
    _settle(qtbot, window)
