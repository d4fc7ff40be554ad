"""Usable at once (issue 38, ADR 0036): Coach opened as `coach` opens it lists the notes as
it last listed them as soon as the window is painted, searchable, before a note file is
read; then reads the files and shows every note as it is now — one changed, deleted or
added while Coach was closed included — and never writes into the vault."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from fakes.vaults import file_hashes, obsidian_vault
from pytestqt.qtbot import QtBot

from coach_gui import paths
from coach_gui.adapters import note_index
from coach_gui.bootstrap import build_cases, kept_listing, note_store
from coach_gui.domain.notes import ordered
from coach_gui.ui.kit import tasks
from coach_gui.ui.shell.app import list_kept
from coach_gui.ui.shell.main_window import MainWindow

WAIT_MS = 15_000


def _configure(vault: Path) -> None:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    settings = {
        "kb": {"path": str(vault)},
        "tier1": {"ollamaUrl": "http://127.0.0.1:9"},
        "judge": {"enabled": False},
    }
    config.write_text(json.dumps(settings), encoding="utf-8")


def _titles(window: MainWindow) -> list[str]:
    model = window.note_list.model
    return [model.entry(row).note.title for row in range(model.rowCount())]


@pytest.fixture(autouse=True)
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The vault's files count as settled at once (a learner's were written long before
    Coach opens them; here they are a moment old), so the note index is used."""
    monkeypatch.setattr(note_index, "RACY_NS", -(10**12))


def _listing(vault: Path) -> list[tuple[str, str]]:
    """The notes as reading every file lists them (title, file), in list order: the ids
    Coach keeps, but nothing of its note index or kept listing."""
    data = paths.data_dir()
    fresh = data.parent / "fresh-read"
    shutil.rmtree(fresh, ignore_errors=True)
    shutil.copytree(data / "note-ids", fresh / "note-ids")
    snapshot = note_store(vault, fresh).load()
    return [(e.note.title, e.file_name) for e in ordered(snapshot.notes)]


def _shown(window: MainWindow) -> list[tuple[str, str]]:
    model = window.note_list.model
    return [
        (model.entry(row).note.title, model.entry(row).file_name) for row in range(model.rowCount())
    ]


class _Start:
    """`coach` opening: the frame, the kept listing after its first paint, then the rest;
    what the window showed before the rest arrived is recorded."""

    def __init__(self, qtbot: QtBot, search: str = "", pick_row: int | None = None) -> None:
        self.before_attach: list[tuple[str, str]] = []
        self.searched: list[str] = []
        self.picked = ""
        self.list_while_reading = False
        self.window = window = MainWindow()
        qtbot.addWidget(window)
        note_list = window.note_list

        def attach() -> None:
            assert not window.is_attached
            self.before_attach = _shown(window)
            if search:  # the search works on the kept listing, before the rest is loaded
                note_list.search_box.setText(search)
                self.searched = _titles(window)
                note_list.search_box.clear()
            if pick_row is not None:  # the learner clicks a row of the kept listing
                note_list.view.setCurrentIndex(note_list.model.index(pick_row))
                self.picked = note_list.model.entry(pick_row).note.title
            window.attach(build_cases())
            # The first read runs; the kept listing stays on screen meanwhile.
            qtbot.waitUntil(lambda: window.listing.loading, timeout=WAIT_MS)
            self.list_while_reading = note_list.stack.currentWidget() is note_list.view

        with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
            window.show()
            window.after_first_paint(lambda: list_kept(window, attach))
        qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=WAIT_MS)

    def close(self, qtbot: QtBot) -> None:
        self.window.listing.stop_watching()
        qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=WAIT_MS)
        self.window.close()


def test_notes_changed_while_coach_was_closed_are_shown_as_they_are_now(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = obsidian_vault(tmp_path / "vault")
    _configure(vault.root)
    first = _Start(qtbot)  # no listing kept yet: the files are read, then the listing kept
    assert first.before_attach == []
    listed = _shown(first.window)
    assert listed == _listing(vault.root)
    first.close(qtbot)
    assert kept_listing() is not None

    # Another program changes the vault while Coach is closed.
    titled = next(
        n for n in vault.notes if n.has_front_matter and f"title: {n.title}\n" in
        (vault.root / n.rel_path).read_text("utf-8")
    )  # fmt: skip
    path = vault.root / titled.rel_path
    path.write_text(
        path.read_text("utf-8").replace(f"title: {titled.title}\n", "title: Retitled elsewhere\n"),
        "utf-8",
    )
    gone = next(n for n in vault.notes if n.rel_path != titled.rel_path)
    (vault.root / gone.rel_path).unlink()
    (vault.root / "Inbox" / "Written on the phone.md").write_text(
        "# Written on the phone\n\nA note synced in while Coach was closed.\n", "utf-8"
    )
    before = file_hashes(vault.root)

    second = _Start(qtbot, search=titled.title)
    # The kept listing, on screen and searchable before anything else was loaded …
    assert second.before_attach == listed
    assert second.list_while_reading
    assert titled.title in second.searched
    assert len(second.searched) < len(listed)
    # … then every note as it is now, in place.
    now = _shown(second.window)
    assert now == _listing(vault.root)
    titles = [title for title, _ in now]
    assert "Retitled elsewhere" in titles and "Written on the phone" in titles
    assert (gone.title, gone.rel_path) not in now
    assert ("Retitled elsewhere", titled.rel_path) in now
    assert second.window.count_label.text().startswith(f"{len(now)} notes")
    second.close(qtbot)
    assert file_hashes(vault.root) == before  # reading wrote nothing into the vault

    third = _Start(qtbot)  # the listing kept is the corrected one
    assert third.before_attach == now
    third.close(qtbot)


def test_a_listing_kept_for_another_folder_is_never_shown(qtbot: QtBot, tmp_path: Path) -> None:
    one = obsidian_vault(tmp_path / "one")
    _configure(one.root)
    _Start(qtbot).close(qtbot)
    other = obsidian_vault(tmp_path / "other", seed=3)
    _configure(other.root)  # the learner chose another folder (Settings, or by hand)
    second = _Start(qtbot)
    assert second.before_attach == []  # nothing of the first folder, not for a moment
    assert _shown(second.window) == _listing(other.root)
    second.close(qtbot)


def test_a_note_picked_in_the_kept_listing_is_the_one_opened_once_the_files_are_read(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = obsidian_vault(tmp_path / "vault")
    _configure(vault.root)
    _Start(qtbot).close(qtbot)
    second = _Start(qtbot, pick_row=5)
    assert second.picked
    qtbot.waitUntil(lambda: second.window.editor.has_note(), timeout=WAIT_MS)
    assert second.window.editor.display_title() == second.picked
    current = second.window.note_list.current_note_id()
    assert second.window.listing.entry_for(current) is not None
    assert second.window.listing.entry_for(current).note.title == second.picked  # type: ignore[union-attr]
    second.close(qtbot)
