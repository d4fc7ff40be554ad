"""Issue 14 in the window: a note of an Obsidian-style vault shows its links, embeds and
pictures in the preview, a link opens the linked note, and an edit keeps every U+00A0 and
U+2028 of the body."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fakes.vaults import mixed_vault
from pytestqt.qtbot import QtBot

from coach_gui.bootstrap import build_cases, build_context, use_cases
from coach_gui.ui.kit import tasks
from coach_gui.ui.shell.main_window import MainWindow

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082"
)


def _settle(qtbot: QtBot, window: MainWindow) -> None:
    """No watcher report may start a reload after the test: stop watching, then wait."""
    window.listing.stop_watching()
    qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=10_000)


def _window(qtbot: QtBot, vault: Path, tmp_path: Path) -> MainWindow:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"kb": {"path": str(vault)}}), encoding="utf-8")
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    return window


def test_links_embeds_and_pictures_resolve_and_a_link_opens_its_note(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    (vault / "Attachments").mkdir(parents=True)
    (vault / "Attachments" / "dot.png").write_bytes(PNG)
    (vault / "Other.md").write_text("# Other\n\nThe other note's text.\n", encoding="utf-8")
    (vault / "Start.md").write_text(
        "See [[Other|the other one]] and [[Missing]].\n\n![[dot.png]]\n\n![[Other]]\n",
        encoding="utf-8",
    )
    window = _window(qtbot, vault, tmp_path)
    start = next(e for e in window.listing.entries.values() if e.stem == "Start")
    window.open_note(start.note.id)
    body = window.editor.body_tabs
    body.setCurrentWidget(body.preview)
    html = body.preview.toHtml()
    assert "the other one" in html and "The other note's text." in html
    assert "dot.png" in html
    with qtbot.waitSignal(window.editor.title_changed, timeout=5_000):
        body.note_link_activated.emit("Other")
    assert window.editor.current_note_id() == next(
        e.note.id for e in window.listing.entries.values() if e.stem == "Other"
    )
    _settle(qtbot, window)


def test_a_one_character_edit_keeps_every_no_break_space_and_line_separator(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = mixed_vault(tmp_path / "vault")
    window = _window(qtbot, vault.root, tmp_path)
    entry = next(
        e for e in window.listing.entries.values() if e.file_name == "Encoding/Odd spaces.md"
    )
    path = vault.root / entry.file_name
    before = path.read_bytes()
    assert "\u00a0".encode() in before and "\u2028".encode() in before
    window.open_note(entry.note.id)
    edit = window.editor.body_tabs.edit
    cursor = edit.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    cursor.insertText("!")
    with qtbot.waitSignal(window.editor.saved, timeout=10_000):
        window.editor.save()
    after = path.read_bytes()
    assert after.count("\u00a0".encode()) == before.count("\u00a0".encode())
    assert after.count("\u2028".encode()) == before.count("\u2028".encode())
    assert len(after) == len(before) + 1
    assert "\u2029".encode() in after  # even Qt's own block separator, typed in the note
    _settle(qtbot, window)


def test_changes_made_by_another_program_appear_and_unsaved_edits_keep_both(
    qtbot: QtBot, tmp_path: Path
) -> None:
    """Issue 14: edits made in Obsidian while Coach was open went unnoticed until a save
    conflicted. Now they appear within a second, and an unsaved edit is never lost."""
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Open.md").write_text("First words.\n", encoding="utf-8")
    window = _window(qtbot, vault, tmp_path)
    entry = next(iter(window.listing.entries.values()))
    window.open_note(entry.note.id)

    (vault / "Added in Obsidian.md").write_text("New.\n", encoding="utf-8")
    qtbot.waitUntil(
        lambda: any(e.stem == "Added in Obsidian" for e in window.listing.entries.values()),
        timeout=5_000,
    )
    (vault / "Open.md").write_text("Changed in Obsidian.\n", encoding="utf-8")
    qtbot.waitUntil(
        lambda: window.editor.body_tabs.text() == "Changed in Obsidian.\n", timeout=5_000
    )

    qtbot.keyClicks(window.editor.body_tabs.edit, "Mine. ")
    (vault / "Open.md").write_text("Changed again elsewhere.\n", encoding="utf-8")
    qtbot.waitUntil(lambda: window.editor.problem_label.isVisible(), timeout=5_000)
    assert "Another program changed" in window.editor.problem_label.text()
    assert window.editor.body_tabs.text().startswith("Mine. ")  # nothing lost
    with qtbot.waitSignal(window.editor.saved, timeout=10_000):
        window.editor.save()
    assert (vault / "Open.md").read_text(encoding="utf-8") == "Changed again elsewhere.\n"
    (copy,) = [p for p in vault.glob("Open (my edit *).md")]
    assert "Mine. " in copy.read_text(encoding="utf-8")
    assert "Both versions are kept" in window.editor.problem_label.text()
    _settle(qtbot, window)


def test_open_notes_folder_reads_it_first_says_what_it_found_and_changes_nothing(
    qtbot: QtBot,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answer_dialog: Callable[[str], Any],
) -> None:
    from fakes.vaults import file_hashes, obsidian_vault
    from PySide6.QtWidgets import QFileDialog

    window = MainWindow(build_cases())  # the sample notes
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.show()
    vault = obsidian_vault(tmp_path / "My vault", notes=30)
    before = file_hashes(vault.root)
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *_a: str(vault.root))
    answer = answer_dialog("Use this folder")
    with qtbot.waitSignal(window.notes_listed, timeout=10_000):
        window.menu_actions.open_folder.trigger()
    assert answer.answered
    with_assertions = sum(1 for n in vault.notes if n.assertions)
    assert f"30 notes, {with_assertions} with core assertions" in answer.informative
    assert f"{len(vault.unreadable)} file" in answer.informative
    assert {e.file_name for e in window.listing.entries.values()} == {
        n.rel_path for n in vault.notes
    }
    saved = json.loads(Path(os.environ["COACH_CONFIG"]).read_text(encoding="utf-8"))
    assert saved["kb"]["path"] == str(vault.root)
    (vault.root / "Written elsewhere.md").write_text("Seen live.\n", encoding="utf-8")
    qtbot.waitUntil(  # the new folder is watched, the old one no longer
        lambda: any(e.stem == "Written elsewhere" for e in window.listing.entries.values()),
        timeout=5_000,
    )
    (vault.root / "Written elsewhere.md").unlink()
    qtbot.waitUntil(
        lambda: not any(e.stem == "Written elsewhere" for e in window.listing.entries.values()),
        timeout=5_000,
    )
    assert file_hashes(vault.root) == before
    assert str(vault.root) in window.where_label.toolTip()
    # The editor now saves into the new folder (it kept the old store before review).
    window.new_note()
    qtbot.keyClicks(window.editor.title_edit, "Made after switching")
    with qtbot.waitSignal(window.editor.saved, timeout=10_000):
        window.editor.save()
    assert (vault.root / "Made after switching.md").is_file()
    _settle(qtbot, window)


def test_new_notes_go_to_the_configured_folder(qtbot: QtBot, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Deep" / "er").mkdir(parents=True)
    (vault / "Deep" / "er" / "Open.md").write_text("Open note.\n", encoding="utf-8")
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    window = _window(qtbot, vault, tmp_path)
    opened = next(iter(window.listing.entries.values()))
    for folder, expected in [(None, "Deep/er/A.md"), ("Inbox", "Inbox/B.md")]:
        settings = window.cases.settings
        settings.config = settings.config.with_changes({"kb.newNotesFolder": folder})
        window.open_note(opened.note.id)
        window.new_note()
        qtbot.keyClicks(window.editor.title_edit, expected.rsplit("/", 1)[1][:-3])
        with qtbot.waitSignal(window.editor.saved, timeout=10_000):
            window.editor.save()
        assert (vault / expected).is_file(), expected
    _settle(qtbot, window)


def test_settings_changes_the_notes_folder_and_saving_settings_keeps_it(
    qtbot: QtBot, tmp_path: Path, answer_dialog: Callable[[str], Any]
) -> None:
    from coach_gui.config import load_config
    from coach_gui.ui.settings.config_owner import ConfigOwner
    from coach_gui.ui.settings.notes_folder import NotesFolderChooser
    from coach_gui.ui.settings.settings_dialog import SettingsDialog

    context = build_context()
    vault = mixed_vault(tmp_path / "vault")
    dialog = SettingsDialog(owner := ConfigOwner(context))
    qtbot.addWidget(dialog)
    assert "sample notes" in dialog.notes_folder.text()
    answer_dialog("Use this folder")
    chooser = NotesFolderChooser(dialog, use_cases(context).notes, owner, dialog.use_notes_folder)
    chooser.look_at(vault.root)
    qtbot.waitUntil(lambda: str(vault.root) in dialog.notes_folder.text(), timeout=10_000)
    assert context.notes.location == str(vault.root)
    dialog.judge_model.setText("gemini-2.5-pro")  # another setting, saved with OK
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.ok_button.click()
    saved = load_config(context.config_path)
    assert (saved.kb.path, saved.judge.model) == (str(vault.root), "gemini-2.5-pro")
    qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=10_000)
