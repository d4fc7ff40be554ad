"""Issue 14: Coach on vaults shaped like real ones (tests/fakes/vaults.py) — every readable
note listed as Obsidian would show it, every other file left alone, and a whole session
writing nothing the learner did not change.

On the code before issue 14 the Obsidian-style vaults listed almost nothing (no `title:`),
and the first listing rewrote every note without an `id:`.
"""

from __future__ import annotations

import difflib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from fakes.vaults import (
    Vault,
    dendron_vault,
    file_hashes,
    mixed_vault,
    obsidian_vault,
    zettelkasten_vault,
)

from coach_gui.adapters import front_matter
from coach_gui.adapters.notes_fs import MarkdownNoteStore
from coach_gui.domain.notes import KnowledgeBaseSnapshot, NoteSearchIndex

VAULTS: dict[str, Callable[[Path], Vault]] = {
    "mixed": mixed_vault,
    "obsidian": obsidian_vault,
    "dendron": dendron_vault,
    "zettelkasten": lambda root: zettelkasten_vault(root, notes=400),
}


def _load(vault: Vault, tmp_path: Path) -> KnowledgeBaseSnapshot:
    store = MarkdownNoteStore(vault.root, tmp_path / "trash", ids_file=tmp_path / "ids.json")
    return store.load()


@pytest.mark.parametrize("kind", sorted(VAULTS))
def test_every_readable_note_is_listed_as_obsidian_shows_it(kind: str, tmp_path: Path) -> None:
    vault = VAULTS[kind](tmp_path / "vault")
    snapshot = _load(vault, tmp_path)
    listed = {e.file_name: e.note for e in snapshot.notes}
    assert set(listed) == {n.rel_path for n in vault.notes}
    for expected in vault.notes:
        note = listed[expected.rel_path]
        found = (note.title, note.aliases, note.all_tags, len(note.core_assertions))
        wanted = (expected.title, expected.aliases, expected.tags, expected.assertions)
        assert found == wanted, expected.rel_path
    assert {b.file_name for b in snapshot.broken} == set(vault.unreadable)
    assert all(b.error for b in snapshot.broken)
    assert not set(listed) & (set(vault.ignored) | set(vault.duplicates_by_link))


@pytest.mark.parametrize("kind", sorted(VAULTS))
def test_reading_and_saving_unchanged_writes_nothing_to_the_vault(
    kind: str, tmp_path: Path
) -> None:
    vault = VAULTS[kind](tmp_path / "vaults" / "vault")
    outside = file_hashes(vault.root.parent)  # links that leave the vault land beside it
    store = MarkdownNoteStore(vault.root, tmp_path / "trash", ids_file=tmp_path / "ids.json")
    for _ in range(2):
        snapshot = store.load()
        NoteSearchIndex(list(snapshot.notes)).search("#a tag:b note")
        for entry in snapshot.notes:
            store.save(entry.note)  # opened and saved without an edit
    assert file_hashes(vault.root.parent) == outside


def test_ids_are_stable_across_loads_and_follow_a_rename_outside_coach(tmp_path: Path) -> None:
    vault = obsidian_vault(tmp_path / "vault")
    first = {e.file_name: e.note.id for e in _load(vault, tmp_path).notes}
    assert {e.file_name: e.note.id for e in _load(vault, tmp_path).notes} == first
    moving = next(n.rel_path for n in vault.notes if n.assertions and n.has_front_matter)
    target = vault.root / "Moved here" / "Renamed.md"
    target.parent.mkdir()
    os.replace(vault.root / moving, target)
    after = {e.file_name: e.note.id for e in _load(vault, tmp_path).notes}
    assert after["Moved here/Renamed.md"] == first[moving]
    assert len(set(after.values())) == len(after)  # no two notes share an id


def test_editing_assertions_changes_only_the_assertion_lines(tmp_path: Path) -> None:
    vault = mixed_vault(tmp_path / "vault")
    store = MarkdownNoteStore(vault.root, tmp_path / "trash")
    snapshot = store.load()
    edited = 0
    for entry in snapshot.notes:
        if not entry.note.core_assertions:
            continue
        path = vault.root / entry.file_name
        before = path.read_bytes()
        note = entry.note.model_copy(
            update={"core_assertions": (*entry.note.core_assertions, "One more point.")}
        )
        store.save(note)
        after = path.read_bytes()
        diff = [
            line
            for line in difflib.ndiff(
                before.decode("utf-8-sig").splitlines(True),
                after.decode("utf-8-sig").splitlines(True),
            )
            if line[:1] in "+-"
        ]
        assert [(line[0], line[2:].strip()) for line in diff] == [("+", "- One more point.")], (
            entry.file_name
        )
        assert after.startswith(b"\xef\xbb\xbf") == before.startswith(b"\xef\xbb\xbf")
        reread = front_matter.parse(after, fallback_id=note.id, file_stem=entry.stem).note
        assert reread.core_assertions == note.core_assertions
        edited += 1
    assert edited >= 4


def test_saving_a_note_reached_through_a_symlink_writes_its_target(tmp_path: Path) -> None:
    vault = mixed_vault(tmp_path / "vault")
    store = MarkdownNoteStore(vault.root, tmp_path / "trash")
    snapshot = store.load()
    entry = next(e for e in snapshot.notes if (vault.root / e.file_name).is_symlink())
    link = vault.root / entry.file_name
    target = link.resolve()
    store.save(entry.note.model_copy(update={"body": entry.note.body + "\nAdded.\n"}))
    assert link.is_symlink() and target.read_text(encoding="utf-8").endswith("Added.\n")


def test_a_whole_cli_session_on_a_vault_writes_nothing_but_what_was_asked(
    tmp_path: Path,
) -> None:
    """`coach notes`, `coach doctor`, a practice session (judge off, no Ollama: built-in
    challenges) and `coach verify` on an Obsidian-style vault: the vault is unchanged."""
    vault = obsidian_vault(tmp_path / "vault")
    before = file_hashes(vault.root)
    config = tmp_path / "coach.config.json"
    config.write_text(
        json.dumps({"kb": {"path": str(vault.root)}, "tier1": {"ollamaUrl": "http://127.0.0.1:9"}}),
        encoding="utf-8",
    )
    env = dict(os.environ, COACH_HOME=str(tmp_path / "home"), COACH_CONFIG=str(config))

    def coach(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "coach_gui", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )

    listed = coach("notes", "--json")
    assert listed.returncode == 0, listed.stderr
    notes = json.loads(listed.stdout)["notes"]
    assert len(notes) == len(vault.notes)
    target = next(n for n in vault.notes if n.assertions)
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["In my own words."] * 3), encoding="utf-8")
    practised = coach(
        "practice", target.rel_path[:-3], "--answers", str(answers), "--judge", "off", "--json"
    )
    assert practised.returncode == 0, practised.stderr
    doctor = coach("doctor", "--json")
    kb_check = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "knowledge base")
    assert kb_check["ok"] and len(kb_check.get("items", [])) == len(vault.unreadable)
    assert coach("verify").returncode == 0
    assert file_hashes(vault.root) == before


def test_practising_a_name_two_notes_share_is_an_error_listing_both(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for folder in ("Work", "Home"):
        (vault / folder).mkdir(parents=True)
        (vault / folder / "Security and privacy.md").write_text(
            f"Notes about {folder.lower()}.\n", encoding="utf-8"
        )
    config = tmp_path / "coach.config.json"
    config.write_text(json.dumps({"kb": {"path": str(vault)}}), encoding="utf-8")
    env = dict(os.environ, COACH_HOME=str(tmp_path / "home"), COACH_CONFIG=str(config))
    result = subprocess.run(
        [sys.executable, "-m", "coach_gui", "practice", "Security and privacy", "--judge", "off"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert "Work/Security and privacy.md" in result.stderr
    assert "Home/Security and privacy.md" in result.stderr
    assert "Traceback" not in result.stderr
