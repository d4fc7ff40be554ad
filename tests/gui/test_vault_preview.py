"""Issue 14 in the window: a note of an Obsidian-style vault shows its links, embeds and
pictures in the preview, a link opens the linked note, and an edit keeps every U+00A0 and
U+2028 of the body."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fakes.vaults import mixed_vault
from pytestqt.qtbot import QtBot

from coach_gui.bootstrap import build_context
from coach_gui.ui import tasks
from coach_gui.ui.main_window import MainWindow

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082"
)


def _window(qtbot: QtBot, vault: Path, tmp_path: Path) -> MainWindow:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"kb": {"path": str(vault)}}), encoding="utf-8")
    window = MainWindow(build_context())
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
    start = next(e for e in window._entries.values() if e.stem == "Start")
    window.open_note(start.note.id)
    body = window.editor.body_tabs
    body.setCurrentWidget(body.preview)
    html = body.preview.toHtml()
    assert "the other one" in html and "The other note's text." in html
    assert "dot.png" in html
    with qtbot.waitSignal(window.editor.title_changed, timeout=5_000):
        body.note_link_activated.emit("Other")
    assert window.editor.current_note_id() == next(
        e.note.id for e in window._entries.values() if e.stem == "Other"
    )
    qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=10_000)


def test_a_one_character_edit_keeps_every_no_break_space_and_line_separator(
    qtbot: QtBot, tmp_path: Path
) -> None:
    vault = mixed_vault(tmp_path / "vault")
    window = _window(qtbot, vault.root, tmp_path)
    entry = next(e for e in window._entries.values() if e.file_name == "Encoding/Odd spaces.md")
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
    qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=10_000)
