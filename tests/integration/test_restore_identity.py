"""Issue 17, ADR 0024: a restored note comes back as itself, and no other note loses its
file or its history to it. A note restored beside a newcomer at its old path, a copy that
shares its `id:`, a duplicate restored: each file keeps an id of its own, in this process
and the next, and a save opened under an id the restored note took back writes nothing.
Real files in temp vaults; the real send2trash into this test's own trash."""

from __future__ import annotations

from pathlib import Path

import pytest

from coach_gui.adapters.notes_fs import MarkdownNoteStore
from coach_gui.domain.deleted_notes import RestoreBlocked
from coach_gui.domain.errors import NoteError

ORIGINAL = b"# Topic\n\nThe original note, with all the learner's words in it.\n"
NEWCOMER = b"# Topic\n\nA new note written in Obsidian at the old place.\n"


def _store(vault: Path, data: Path) -> MarkdownNoteStore:
    return MarkdownNoteStore(
        vault,
        vault.parent / f"{vault.name}-trash",
        ids_file=data / "note-ids.json",
        deleted_file=data / "deleted-notes.json",
    )


def _ids(store: MarkdownNoteStore) -> dict[str, str]:
    snapshot = store.load()
    ids = {e.file_name: e.note.id for e in snapshot.notes}
    assert len(set(ids.values())) == len(ids)  # every note under an id of its own
    return ids


def _vault(tmp_path: Path, files: dict[str, bytes]) -> Path:
    vault = tmp_path / "vault"
    vault.mkdir()
    for name, raw in files.items():
        (vault / name).write_bytes(raw)
    return vault


def _restore_beside(store: MarkdownNoteStore, key: str) -> str:
    with pytest.raises(RestoreBlocked) as blocked:
        store.restore(key)
    store.restore(key, file_name=blocked.value.suggestion)
    return blocked.value.suggestion


def test_restored_beside_a_newcomer_coach_never_listed_both_are_listed(tmp_path: Path) -> None:
    """The newcomer appeared while the watcher was off or late: no reload before the
    restore. Before the fix the restored note vanished and the newcomer got its history."""
    vault = _vault(tmp_path, {"Topic.md": ORIGINAL, "Other.md": b"# Other\n\nSomething else.\n"})
    data = tmp_path / "data"
    store = _store(vault, data)
    topic = _ids(store)["Topic.md"]
    gone = store.delete(topic)
    (vault / "Topic.md").write_bytes(NEWCOMER)  # not loaded before the restore

    beside = _restore_beside(store, gone.key)
    assert beside == "Topic (restored).md"
    for listing in (_ids(store), _ids(_store(vault, data))):  # this process, and the next
        assert set(listing) == {"Topic.md", "Topic (restored).md", "Other.md"}
        assert listing["Topic (restored).md"] == topic  # its history stays with it
        assert listing["Topic.md"] != topic
    assert (vault / beside).read_bytes() == ORIGINAL
    assert (vault / "Topic.md").read_bytes() == NEWCOMER


def test_a_new_file_never_derives_the_id_of_a_note_renamed_away(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"Osmose.md": b"# Osmosis\n\nWater moves toward more solute.\n"})
    data = tmp_path / "data"
    store = _store(vault, data)
    osmosis = _ids(store)["Osmose.md"]
    (vault / "Osmose.md").rename(vault / "Osmosis.md")  # renamed in Obsidian: the id follows
    assert _ids(store) == {"Osmosis.md": osmosis}
    (vault / "Osmose.md").write_bytes(b"# Osmose\n\nA new note under the old name.\n")
    for listing in (_ids(store), _ids(_store(vault, data))):
        assert listing["Osmosis.md"] == osmosis
        assert listing["Osmose.md"] != osmosis


def test_a_file_written_where_coach_deleted_one_is_news_for_the_watcher(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"Topic.md": ORIGINAL})
    store = _store(vault, tmp_path / "data")
    store.delete(_ids(store)["Topic.md"])
    assert not store.changed_elsewhere(["Topic.md"])  # Coach's own delete: no news
    (vault / "Topic.md").write_bytes(NEWCOMER)
    assert store.changed_elsewhere(["Topic.md"])  # another program's file: reload


def test_restoring_a_duplicate_leaves_the_original_its_id(tmp_path: Path) -> None:
    """An Obsidian copy holds the original's `id:`; Coach lists it under an id of its own.
    Deleting and restoring the copy must not hand it the original's id and history."""
    raw = b"---\nid: natsel\ntitle: Natural selection\n---\nThe fittest variations persist.\n"
    vault = _vault(tmp_path, {"Natural selection.md": raw})
    data = tmp_path / "data"
    store = _store(vault, data)
    store.load()
    (vault / "Natural selection 1.md").write_bytes(raw)  # duplicated in Obsidian
    before = _ids(store)
    assert before["Natural selection.md"] == "natsel"
    copy = before["Natural selection 1.md"]
    assert copy != "natsel"

    gone = store.delete(copy)
    restored = store.restore(gone.key)
    assert (restored.entry.file_name, restored.entry.note.id) == ("Natural selection 1.md", copy)
    assert restored.new_ids == ()  # nobody else's id was taken
    assert _ids(store) == before
    assert _ids(_store(vault, data)) == before


def test_a_save_under_the_id_a_restored_note_took_back_writes_nothing(tmp_path: Path) -> None:
    """The editor holds the newcomer at the old path under the id the restored note takes
    back: restore says so, and a save under the old id is refused; under the new one it
    writes the newcomer's own file."""
    vault = _vault(tmp_path, {"Topic.md": ORIGINAL})
    data = tmp_path / "data"
    store = _store(vault, data)
    topic = _ids(store)["Topic.md"]
    gone = store.delete(topic)
    (vault / "Topic.md").write_bytes(NEWCOMER)
    newcomer = next(e for e in store.load().notes if e.file_name == "Topic.md")
    assert newcomer.note.id == topic  # its path derives the same id

    with pytest.raises(RestoreBlocked) as blocked:
        store.restore(gone.key)
    restored = store.restore(gone.key, file_name=blocked.value.suggestion)
    assert restored.entry.note.id == topic
    (moved,) = restored.new_ids
    assert moved.old_id == topic and moved.entry.file_name == "Topic.md"
    assert moved.entry.note.id != topic and moved.entry.note.body == newcomer.note.body

    edit = "The learner's unsaved edit of the NEW note.\n"
    stale = newcomer.note.model_copy(update={"body": edit})
    with pytest.raises(NoteError, match="Nothing was written"):
        store.save(stale, file_name="Topic.md")
    assert (vault / "Topic (restored).md").read_bytes() == ORIGINAL
    assert (vault / "Topic.md").read_bytes() == NEWCOMER

    saved = store.save(moved.entry.note.model_copy(update={"body": edit}), file_name="Topic.md")
    assert (saved.file_name, saved.note.id) == ("Topic.md", moved.entry.note.id)
    assert edit.encode() in (vault / "Topic.md").read_bytes()
    assert (vault / "Topic (restored).md").read_bytes() == ORIGINAL
    after = _ids(_store(vault, data))
    assert after == {"Topic (restored).md": topic, "Topic.md": moved.entry.note.id}


def test_a_copy_sharing_the_restored_notes_id_gets_its_own(tmp_path: Path) -> None:
    raw = b"---\nid: natsel\ntitle: Natural selection\n---\nThe fittest variations persist.\n"
    vault = _vault(tmp_path, {"Natural selection.md": raw})
    data = tmp_path / "data"
    store = _store(vault, data)
    store.load()
    gone = store.delete("natsel")
    (vault / "Natural selection 1.md").write_bytes(raw)  # a copy made meanwhile
    copy = next(e for e in store.load().notes if e.file_name == "Natural selection 1.md")
    assert copy.note.id == "natsel"  # the only file holding it now

    restored = store.restore(gone.key)
    assert (restored.entry.file_name, restored.entry.note.id) == ("Natural selection.md", "natsel")
    (moved,) = restored.new_ids
    assert (moved.old_id, moved.entry.file_name) == ("natsel", "Natural selection 1.md")
    assert moved.entry.note.id != "natsel"

    edited = copy.note.model_copy(update={"body": "Edited in the copy.\n"})
    with pytest.raises(NoteError, match="Nothing was written"):
        store.save(edited, file_name="Natural selection 1.md")
    assert (vault / "Natural selection.md").read_bytes() == raw
    store.save(
        moved.entry.note.model_copy(update={"body": "Edited in the copy.\n"}),
        file_name="Natural selection 1.md",
    )
    assert (vault / "Natural selection.md").read_bytes() == raw
    assert b"Edited in the copy." in (vault / "Natural selection 1.md").read_bytes()
    for listing in (_ids(store), _ids(_store(vault, data))):
        assert listing == {
            "Natural selection.md": "natsel",
            "Natural selection 1.md": moved.entry.note.id,
        }


def test_a_file_where_the_notes_folder_was_is_said_so_and_a_free_name_offered(
    tmp_path: Path,
) -> None:
    vault = tmp_path / "vault"
    (vault / "F").mkdir(parents=True)
    (vault / "F" / "N.md").write_bytes(ORIGINAL)
    store = _store(vault, tmp_path / "data")
    note_id = _ids(store)["F/N.md"]
    gone = store.delete(note_id)
    (vault / "F").rmdir()
    (vault / "F").write_bytes(b"a file named F\n")

    with pytest.raises(RestoreBlocked) as blocked:
        store.restore(gone.key)
    assert "The folder F, where the note was, is a file now" in str(blocked.value)
    assert blocked.value.folder and blocked.value.file_name == "F"
    assert blocked.value.suggestion == "N.md"  # beside that file, where it can go
    restored = store.restore(gone.key, file_name=blocked.value.suggestion)
    assert (restored.entry.file_name, restored.entry.note.id) == ("N.md", note_id)
    assert (vault / "N.md").read_bytes() == ORIGINAL
    assert (vault / "F").read_bytes() == b"a file named F\n"
