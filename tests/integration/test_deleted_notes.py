"""Issue 17: a deleted note comes back — from the vault's `.trash`, the freedesktop trash or
Coach's own trash folder — at its own path, byte for byte, with its id (so its history
stays attached), after a restart too; and a file that took its place is never overwritten.
Real files in temp vaults (tests/fakes/vaults.py), the real send2trash into this test's
own freedesktop trash (tests/conftest.py)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fakes.vaults import Vault, file_hashes, obsidian_vault

from coach_gui.adapters import note_trash
from coach_gui.adapters.notes_fs import MarkdownNoteStore
from coach_gui.domain.deleted_notes import RestoreBlocked
from coach_gui.domain.errors import NoteError, NoteNotFound


def _store(vault: Path, data: Path) -> MarkdownNoteStore:
    """As bootstrap builds it: Coach's state for the vault in its own data folder."""
    return MarkdownNoteStore(
        vault,
        vault.parent / f"{vault.name}-trash",
        ids_file=data / "note-ids.json",
        deleted_file=data / "deleted-notes.json",
    )


def _ids(store: MarkdownNoteStore) -> dict[str, str]:
    return {e.file_name: e.note.id for e in store.load().notes}


def _no_own_id(vault: Vault) -> str:
    """A concept note without an `id:` of its own: its id lives only in Coach's data."""
    for expected in vault.notes:
        raw = (vault.root / expected.rel_path).read_bytes()
        if expected.rel_path.startswith("Areas/") and b"\nid:" not in raw and len(raw) > 64:
            return expected.rel_path
    raise AssertionError("the vault has no concept note without an id")


def _freedesktop_trash() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "Trash"


def test_vault_trash_round_trip_leaves_every_file_as_it_was(tmp_path: Path) -> None:
    vault = obsidian_vault(tmp_path / "vault")
    rel = _no_own_id(vault)
    start = file_hashes(vault.root)
    store = _store(vault.root, tmp_path / "data")
    ids = _ids(store)

    gone = store.delete(ids[rel])
    trashed = f".trash/{rel.rsplit('/', 1)[-1]}"
    during = file_hashes(vault.root)
    changed = {k for k in start.keys() | during.keys() if start.get(k) != during.get(k)}
    assert changed == {rel, trashed}  # the note moved into the vault's .trash, nothing else
    assert during[trashed] == start[rel]
    assert gone.restorable and gone.where == str(vault.root / trashed)
    assert [d.key for d in store.deleted()] == [gone.key]

    entry = store.restore(gone.key).entry
    assert (entry.file_name, entry.note.id) == (rel, ids[rel])
    assert file_hashes(vault.root) == start
    assert store.deleted() == ()
    assert _ids(_store(vault.root, tmp_path / "data")) == ids  # a new process agrees


def test_system_trash_round_trip_after_a_restart(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Biology").mkdir(parents=True)
    raw = b"# Osmosis\n\nWater moves across a membrane toward more solute.\n"
    (vault / "Biology" / "Osmose.md").write_bytes(raw)
    data = tmp_path / "data"
    store = _store(vault, data)
    note_id = _ids(store)["Biology/Osmose.md"]
    os.replace(vault / "Biology" / "Osmose.md", vault / "Biology" / "Osmosis.md")
    before = _ids(store)
    assert before == {"Biology/Osmosis.md": note_id}  # renamed: an id no path derives
    gone = store.delete(note_id)
    assert gone.where == "the system trash" and gone.restorable
    trash = _freedesktop_trash()
    (kept,) = (trash / "files").iterdir()
    assert kept.read_bytes() == raw and not (vault / "Biology" / "Osmosis.md").exists()

    restarted = _store(vault, data)  # Coach closed and opened again
    assert "Biology/Osmosis.md" not in _ids(restarted)
    (listed,) = restarted.deleted()
    assert (listed.title, listed.file_name, listed.note_id) == (
        "Osmosis",
        "Biology/Osmosis.md",
        note_id,
    )
    entry = restarted.restore(listed.key).entry
    assert entry.note.id == note_id
    assert (vault / "Biology" / "Osmosis.md").read_bytes() == raw
    assert list((trash / "files").iterdir()) == [] and list((trash / "info").iterdir()) == []
    assert _ids(_store(vault, data)) == before


def test_a_file_that_took_its_place_is_never_overwritten(tmp_path: Path) -> None:
    vault = obsidian_vault(tmp_path / "vault")
    rel = _no_own_id(vault)
    data = tmp_path / "data"
    store = _store(vault.root, data)
    ids = _ids(store)
    original = (vault.root / rel).read_bytes()
    gone = store.delete(ids[rel])
    newcomer = b"# Written again\n\nA new note in the old place, by another program.\n"
    (vault.root / rel).write_bytes(newcomer)
    listed = _ids(store)
    assert listed[rel] == ids[rel]  # the path gives the new file the old, derived id

    with pytest.raises(RestoreBlocked) as blocked:
        store.restore(gone.key)
    stem = rel.rsplit("/", 1)[-1][:-3]
    assert blocked.value.suggestion == rel.replace(f"{stem}.md", f"{stem} (restored).md")
    assert rel in str(blocked.value) and "left as it is" in str(blocked.value)
    assert (vault.root / rel).read_bytes() == newcomer
    assert [d.key for d in store.deleted()] == [gone.key]  # still there to restore

    entry = store.restore(gone.key, file_name=blocked.value.suggestion).entry
    assert entry.note.id == ids[rel]  # the history stays with the restored note
    assert (vault.root / blocked.value.suggestion).read_bytes() == original
    assert (vault.root / rel).read_bytes() == newcomer
    after = _ids(_store(vault.root, data))
    assert after[blocked.value.suggestion] == ids[rel]
    assert after[rel] not in ids.values()  # the newcomer is a note of its own
    assert len(set(after.values())) == len(after)


def test_a_note_with_its_own_id_keeps_it_against_a_copy(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    raw = b"---\nid: natsel\ntitle: Natural selection\n---\nThe fittest variations persist.\n"
    (vault / "Natural selection.md").write_bytes(raw)
    data = tmp_path / "data"
    store = _store(vault, data)
    store.load()
    gone = store.delete("natsel")
    (vault / "Natural selection 1.md").write_bytes(raw)  # a copy made meanwhile
    assert _ids(store)["Natural selection 1.md"] == "natsel"
    store.restore(gone.key)
    after = _ids(_store(vault, data))
    assert after["Natural selection.md"] == "natsel"
    assert after["Natural selection 1.md"] != "natsel"


def test_coachs_own_trash_folder_round_trip(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from send2trash.exceptions import TrashPermissionError

    def refused(path: str) -> None:
        raise TrashPermissionError(path)

    monkeypatch.setattr("coach_gui.adapters.notes_fs.send2trash", refused)
    vault = tmp_path / "vault"
    (vault / "a").mkdir(parents=True)
    raw = b"# Deep\n\nA note two folders down, long enough to be recognised.\n"
    (vault / "a" / "Deep.md").write_bytes(raw)
    store = _store(vault, tmp_path / "data")
    note_id = _ids(store)["a/Deep.md"]
    gone = store.delete(note_id)
    assert Path(gone.where) == tmp_path / "vault-trash" / "a" / "Deep.md"
    assert store.restore(gone.key).entry.note.id == note_id
    assert (vault / "a" / "Deep.md").read_bytes() == raw
    assert not Path(gone.where).exists()


def test_emptied_or_changed_trash_is_said_plainly(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name in ("One", "Two"):
        (vault / f"{name}.md").write_text(f"# {name}\n\nEnough text to be a note here.\n")
    store = _store(vault, tmp_path / "data")
    ids = _ids(store)
    one, two = store.delete(ids["One.md"]), store.delete(ids["Two.md"])
    assert [d.title for d in store.deleted()] == ["Two", "One"]  # newest first
    files = _freedesktop_trash() / "files"
    (files / "Two.md").write_text("changed in the trash\n")
    with pytest.raises(NoteError, match="no longer the note Coach deleted"):
        store.restore(two.key)
    assert not (vault / "Two.md").exists()
    (files / "One.md").unlink()  # the trash was emptied
    with pytest.raises(NoteError, match="no longer in the system trash"):
        store.restore(one.key)
    assert [d.title for d in store.deleted()] == ["Two"]  # what is gone is no longer listed
    with pytest.raises(NoteNotFound):
        store.restore(one.key)


def test_put_back_outside_coach_gets_its_id_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """macOS and Windows: Coach cannot look into the Trash, so the learner uses Put Back;
    the note is known again by its bytes at its path."""
    monkeypatch.setattr(note_trash, "PLATFORM", "darwin")  # send2trash stays the real one
    vault = tmp_path / "vault"
    vault.mkdir()
    raw = b"# Tides\n\nThe moon's pull raises two bulges of water.\n"
    (vault / "Tides.md").write_bytes(raw)
    data = tmp_path / "data"
    store = _store(vault, data)
    moved_id = store.load().notes[0].note.id
    os.replace(vault / "Tides.md", vault / "Tides of the sea.md")  # renamed: the id follows
    assert _ids(store) == {"Tides of the sea.md": moved_id}
    gone = store.delete(moved_id)
    (listed,) = store.deleted()
    assert not listed.restorable and "Put Back" in listed.advice
    assert "Tides of the sea.md" in listed.advice
    with pytest.raises(NoteError, match="Put Back"):
        store.restore(gone.key)

    (trashed,) = (_freedesktop_trash() / "files").iterdir()  # Finder's Put Back, here
    shutil.move(trashed, vault / "Tides of the sea.md")
    assert _ids(_store(vault, data)) == {"Tides of the sea.md": moved_id}
    assert _store(vault, data).deleted() == ()


def test_restore_stays_inside_the_notes_folder(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Note.md").write_text("# Note\n\nA note that is about to be deleted.\n")
    store = _store(vault, tmp_path / "data")
    gone = store.delete(_ids(store)["Note.md"])
    for outside in ("../Note.md", "/tmp/Note.md", ".obsidian/Note.md", "Note.txt"):
        with pytest.raises(NoteError):
            store.restore(gone.key, file_name=outside)
    assert not (tmp_path / "Note.md").exists()
    assert store.restore(gone.key, file_name="Kept/Note.md").entry.file_name == "Kept/Note.md"


def test_a_note_that_grew_past_the_read_limit_is_never_trashed_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review of issue 34: the note is read at most 1 MB + 1 byte now; where the trash is
    on a disk without hard links (a FAT stick), those bytes were the copy put in the
    trash, and the note itself was removed: everything past 1 MB was lost."""
    vault = tmp_path / "vault"
    (vault / ".trash").mkdir(parents=True)
    (vault / "Long.md").write_bytes(b"# Long\n\nA note that will grow outside Coach.\n")
    store = _store(vault, tmp_path / "data")
    note_id = _ids(store)["Long.md"]
    grown = b"# Long\n\n" + b"Pasted in another editor. " * 60_000 + b"\nThe end.\n"
    assert len(grown) > 1_500_000
    (vault / "Long.md").write_bytes(grown)

    def no_links(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")  # as on FAT

    monkeypatch.setattr(os, "link", no_links)
    try:
        gone = store.delete(note_id)
    except NoteError as exc:  # refused: then the note is where it was, whole
        assert "Long.md" in str(exc)
        assert (vault / "Long.md").read_bytes() == grown
    else:  # or trashed: then whole
        assert Path(gone.where).read_bytes() == grown
