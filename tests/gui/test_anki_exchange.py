"""Anki in and out, in the window (issue 37): File › Import… previews a package Anki itself
made (notes, folders, key points, reviews; what it skips and why), imports it with progress,
lists the new notes at once and changes no byte of the learner's vault; File › Export… writes
an Anki package and a CSV file with progress. Screenshots of the preview and the result,
light and dark."""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

import pytest
from anki_packages import make_packages
from fakes.vaults import file_hashes, obsidian_vault
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from pytestqt.qtbot import QtBot
from shots import dark_palette, save_png

from coach_gui.bootstrap import build_cases
from coach_gui.ui.exchange.import_dialog import ImportDialog
from coach_gui.ui.kit import tasks
from coach_gui.ui.shell.main_window import MainWindow

WAIT_MS = 30_000


def _titles(window: MainWindow) -> set[str]:
    model = window.note_list.model
    return {model.entry(row).note.title for row in range(model.rowCount())}


def _window(qtbot: QtBot, vault: Path) -> MainWindow:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({
        "kb": {"path": str(vault)},
        "tier1": {"ollamaUrl": "http://127.0.0.1:9"},
        "judge": {"enabled": False},
    }), encoding="utf-8")  # fmt: skip
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.resize(1120, 720)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    qtbot.waitExposed(window)
    return window


def _settled(qtbot: QtBot) -> None:
    """No task running for a second: the new files' watcher report (debounced) read too."""
    since = [time.monotonic()]

    def still() -> bool:
        if tasks.pending_tasks():
            since[0] = time.monotonic()
        return time.monotonic() - since[0] >= 1.0

    qtbot.waitUntil(still, timeout=WAIT_MS)


def _shots(qtbot: QtBot, dialog: ImportDialog, name: str) -> None:
    qtbot.wait(50)  # laid out as the learner sees it (the button's new text)
    save_png(dialog, f"anki-import-{name}-light.png")
    dialog.setPalette(dark_palette())
    save_png(dialog, f"anki-import-{name}-dark.png")
    dialog.setPalette(QPalette())


@pytest.mark.slow
def test_a_deck_made_by_anki_is_previewed_imported_and_listed(qtbot: QtBot, tmp_path: Path) -> None:
    packages = make_packages(tmp_path / "anki")
    vault = obsidian_vault(tmp_path / "vault").root
    before = file_hashes(vault)
    window = _window(qtbot, vault)
    listed = _titles(window)

    window.import_notes(packages.current)
    dialog = window.import_dialog
    assert dialog is not None
    with qtbot.waitSignal(dialog.previewed, timeout=WAIT_MS) as shown:
        pass
    preview = shown.args[0]
    assert preview is not None and preview.notes
    assert "new note" in dialog.heading.text() and "No file you have now is changed" in (
        dialog.heading.text()
    )
    assert dialog.table.rowCount() == len(preview.notes)
    assert dialog.import_button.isEnabled() and dialog.import_button.isDefault()
    skipped = [dialog.skipped.item(n).text() for n in range(dialog.skipped.count())]
    assert skipped and all(" — " in line for line in skipped)  # each with its reason
    assert file_hashes(vault) == before  # the preview writes nothing
    _shots(qtbot, dialog, "preview")

    with qtbot.waitSignal(dialog.imported, timeout=WAIT_MS) as done:
        qtbot.mouseClick(dialog.import_button, Qt.MouseButton.LeftButton)
    report = done.args[0]
    assert report.created and not report.cancelled and report.reviews_imported > 0
    assert "Imported" in dialog.heading.text()
    assert dialog.cancel_button.text() == "Close"
    _shots(qtbot, dialog, "result")
    new = {made.title for made in report.created}
    qtbot.waitUntil(lambda: new <= _titles(window), timeout=WAIT_MS)  # listed at once
    assert _titles(window) == listed | new
    after = file_hashes(vault)
    assert {k: v for k, v in after.items() if k in before} == before  # no byte changed
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)

    # Once more: nothing is added twice.
    window.import_notes(packages.current)
    again = window.import_dialog
    assert again is not None and again is not dialog
    with qtbot.waitSignal(again.previewed, timeout=WAIT_MS):
        pass
    assert not again.import_button.isEnabled()
    assert "Nothing to import" in again.heading.text()
    again.reject()
    _settled(qtbot)  # the new notes indexed, the watcher's report read
    window.close()


def test_a_damaged_file_says_what_is_wrong_in_a_sentence(qtbot: QtBot, tmp_path: Path) -> None:
    vault = obsidian_vault(tmp_path / "vault").root
    window = _window(qtbot, vault)
    broken = tmp_path / "deck.apkg"
    broken.write_bytes(b"PK\x03\x04 this is not a whole zip file")
    window.import_notes(broken)
    dialog = window.import_dialog
    assert dialog is not None
    with qtbot.waitSignal(dialog.previewed, timeout=WAIT_MS):
        pass
    text = dialog.heading.text()
    assert text.startswith("deck.apkg could not be read.")
    assert "Error" not in text and "Traceback" not in text and "zipfile" not in text
    assert not dialog.import_button.isEnabled()
    dialog.reject()
    window.close()


def test_the_key_points_are_exported_for_anki_and_as_csv(qtbot: QtBot, tmp_path: Path) -> None:
    vault = obsidian_vault(tmp_path / "vault").root
    before = file_hashes(vault)
    window = _window(qtbot, vault)
    exporter = window.exporter
    out = tmp_path / "out"
    out.mkdir()
    with qtbot.waitSignal(exporter.exported, timeout=WAIT_MS) as done:
        exporter.export("anki", out / "my-deck")  # the suffix is added
    result = done.args[0]
    assert (out / "my-deck.apkg").is_file() and result.cards > 0
    assert (
        f"Exported {result.cards:,} key points as Anki cards" in window.statusBar().currentMessage()
    )
    with qtbot.waitSignal(exporter.exported, timeout=WAIT_MS) as done:
        exporter.export("csv", out / "key-points.csv")
    with (out / "key-points.csv").open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == done.args[0].cards == result.cards
    assert file_hashes(vault) == before
    window.close()
