"""The ids Coach keeps for notes without one of their own do not depend on where the vault
sits (issue 20, ADR 0027): the same vault synced to /home/ann/Notes on one computer and
/Users/ann/Notes on another gives the same note the same id on both, so its histories
join. A map made before keeps its ids and the way it derives them."""

from __future__ import annotations

import json
import shutil
import unicodedata
from pathlib import Path

import pytest

from coach_gui.adapters.note_ids import derived_id, vault_key
from coach_gui.adapters.notes_fs import MarkdownNoteStore

NFC = "Évolution"
NFD = unicodedata.normalize("NFD", NFC)
assert NFC != NFD


def _obsidian(title: str) -> bytes:
    """A note as Obsidian makes it: Properties without an id, a body of `## ` headings."""
    return (
        "---\ntags: [biology]\ncreated: 2024-03-01\ncore_assertions:\n"
        f"  - {title} acts on inherited variation.\n---\n"
        f"## What it is\n\n{title}, explained at length so its bytes are recognisable.\n"
        "## Example\n\nFinches.\n"
    ).encode()


def _vault(root: Path, name: str, folder: str) -> Path:
    """A vault called `name` at `root`, with notes in nested folders named `folder`."""
    vault = root / name
    (vault / "Biologie" / folder / "Sélection").mkdir(parents=True)
    (vault / "top.md").write_bytes(_obsidian("Top"))
    (vault / "Biologie" / folder / "Darwin.md").write_bytes(_obsidian("Darwin"))
    (vault / "Biologie" / folder / "Sélection" / "Naturelle ☀.md").write_bytes(_obsidian("Sel"))
    (vault / "plain.md").write_bytes(b"No front matter at all.\n\n## Heading\n\nText here.\n")
    return vault


def _ids(vault: Path, ids_file: Path) -> dict[str, str]:
    """What a Coach process with this map lists: NFC path -> note id."""
    store = MarkdownNoteStore(vault, vault.parent / "trash", ids_file=ids_file)
    return {unicodedata.normalize("NFC", e.file_name): e.note.id for e in store.load().notes}


def test_the_same_vault_at_two_paths_gives_its_notes_the_same_ids(tmp_path: Path) -> None:
    laptop = _vault(tmp_path / "laptop" / "home" / "ann", "Notes", NFC)
    desktop = _vault(tmp_path / "desktop" / "Users" / "ann", "Notes", NFD)  # as on HFS+
    on_laptop = _ids(laptop, tmp_path / "laptop-data" / "ids.json")
    on_desktop = _ids(desktop, tmp_path / "desktop-data" / "ids.json")
    assert len(on_laptop) == 4
    assert on_laptop == on_desktop
    # A third computer, a copy of the laptop's vault later in the day, agrees too.
    third = tmp_path / "third" / "Dropbox" / "Notes"
    shutil.copytree(laptop, third)
    assert _ids(third, tmp_path / "third-data" / "ids.json") == on_laptop


def test_a_vault_folder_named_in_nfd_is_the_same_vault(tmp_path: Path) -> None:
    mac = _vault(tmp_path / "mac", f"Notizen {NFD}", NFD)
    linux = _vault(tmp_path / "linux", f"Notizen {NFC}", NFC)
    assert _ids(mac, tmp_path / "a.json") == _ids(linux, tmp_path / "b.json")


def test_another_vault_name_is_another_vault(tmp_path: Path) -> None:
    work = _vault(tmp_path, "Work", NFC)
    home = _vault(tmp_path, "Home", NFC)
    assert set(_ids(work, tmp_path / "a.json").values()).isdisjoint(
        _ids(home, tmp_path / "b.json").values()
    )


def test_a_rename_still_keeps_the_id_and_both_computers_follow_it(tmp_path: Path) -> None:
    laptop = _vault(tmp_path / "laptop", "Notes", NFC)
    desktop = _vault(tmp_path / "desktop", "Notes", NFD)
    maps = tmp_path / "laptop.json", tmp_path / "desktop.json"
    before = _ids(laptop, maps[0])
    assert _ids(desktop, maps[1]) == before
    for vault, folder in ((laptop, NFC), (desktop, NFD)):  # renamed in Obsidian, synced
        old = vault / "Biologie" / folder / "Sélection" / "Naturelle ☀.md"
        old.rename(vault / "Biologie" / "Naturelle (moved).md")
    after = _ids(laptop, maps[0])
    assert (
        after["Biologie/Naturelle (moved).md"] == before[f"Biologie/{NFC}/Sélection/Naturelle ☀.md"]
    )
    assert _ids(desktop, maps[1]) == after


def _old_map(vault: Path, file: Path, *paths: str) -> dict[str, str]:
    """A map as Coach wrote it before issue 20: ids derived from the vault's real path."""
    ids = {p: derived_id(vault_key(vault), p) for p in paths}
    notes = {p: {"id": i, "digest": ""} for p, i in ids.items()}
    file.write_text(json.dumps({"vault": vault_key(vault), "notes": notes, "claims": {}}))
    return ids


def test_an_old_map_keeps_its_ids_and_its_way_of_deriving_them(tmp_path: Path) -> None:
    vault = _vault(tmp_path, "Notes", NFC)
    file = tmp_path / "ids.json"
    recorded = _old_map(vault, file, "top.md", "plain.md")
    (vault / "later.md").write_bytes(_obsidian("Later"))  # first seen after the upgrade
    listed = _ids(vault, file)
    assert listed["top.md"] == recorded["top.md"]  # its history keeps attaching
    assert listed["plain.md"] == recorded["plain.md"]
    # New notes are derived as before, so a map lost later derives them again alike.
    assert listed["later.md"] == derived_id(vault_key(vault), "later.md")
    assert "scheme" not in json.loads(file.read_bytes())
    assert _ids(vault, file) == listed


def test_an_unreadable_map_derives_ids_again_in_the_scheme_it_was_made_with(
    tmp_path: Path,
) -> None:
    old_vault = _vault(tmp_path / "old", "Notes", NFC)
    old_file = tmp_path / "old.json"
    recorded = _old_map(old_vault, old_file, "top.md", "plain.md")
    old_file.write_bytes(old_file.read_bytes()[:40])  # torn
    listed = _ids(old_vault, old_file)
    assert {p: listed[p] for p in recorded} == recorded

    new_vault = _vault(tmp_path / "new", "Notes", NFC)
    new_file = tmp_path / "new.json"
    first = _ids(new_vault, new_file)
    new_file.write_bytes(new_file.read_bytes()[:40])  # torn
    assert _ids(new_vault, new_file) == first


def test_a_copy_saved_beside_a_note_has_the_id_its_path_derives_everywhere(
    tmp_path: Path,
) -> None:
    laptop = _vault(tmp_path / "laptop", "Notes", NFC)
    file = tmp_path / "laptop.json"
    store = MarkdownNoteStore(laptop, tmp_path / "trash", ids_file=file)
    entry = next(e for e in store.load().notes if e.file_name.endswith("Darwin.md"))
    copy = store.save_copy(
        entry.note.model_copy(update={"body": "My version.\n"}), file_name=entry.file_name
    )
    assert copy.note.id != entry.note.id
    again = MarkdownNoteStore(laptop, tmp_path / "trash", ids_file=file).load().notes
    assert {e.file_name: e.note.id for e in again}[copy.file_name] == copy.note.id
    file.unlink()  # the map lost: the copy's id is the one its path derives
    assert _ids(laptop, file)[unicodedata.normalize("NFC", copy.file_name)] == copy.note.id
    desktop = tmp_path / "desktop" / "Notes"  # the copy synced to the other computer
    shutil.copytree(laptop, desktop)
    assert _ids(desktop, tmp_path / "desktop.json") == _ids(laptop, file)


def test_a_map_that_cannot_be_read_for_a_moment_is_left_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A permission error or a lock while reading the map: its scheme is unknown, so it is
    not written over, and the next start reads the ids it always had."""
    vault = _vault(tmp_path, "Notes", NFC)
    ids_file = tmp_path / "data" / "ids.json"
    before = _ids(vault, ids_file)
    kept = ids_file.read_bytes()
    real = Path.read_bytes

    def locked(self: Path) -> bytes:
        if self == ids_file:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", locked)
    (vault / "new.md").write_bytes(_obsidian("New"))  # something to write, were it written
    _ids(vault, ids_file)
    monkeypatch.setattr(Path, "read_bytes", real)
    assert ids_file.read_bytes() == kept  # untouched
    after = _ids(vault, ids_file)
    assert {path: after[path] for path in before} == before
