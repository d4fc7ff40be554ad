"""The knowledge base folder on a real file system."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from coach_gui import files
from coach_gui.adapters.notes_fs import MarkdownNoteStore, NoteConflict, seed_sample_notes
from coach_gui.domain.errors import NoteError
from coach_gui.domain.notes import Note, NoteEntry, new_note_id

GOOD = (
    b"---\nid: n1\ntitle: Struggle\ncore_assertions:\n  - More are born than survive.\n---\nBody\n"
)


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "struggle.md").write_bytes(GOOD)
    return folder


def _store(kb: Path) -> MarkdownNoteStore:
    return MarkdownNoteStore(kb, kb.parent / "kb-trash")


def test_open_then_save_without_edits_leaves_the_file_byte_identical(kb: Path) -> None:
    store = _store(kb)
    entry = store.load().notes[0]
    before = (kb / "struggle.md").stat().st_mtime_ns
    store.save(entry.note)
    assert (kb / "struggle.md").read_bytes() == GOOD
    assert (kb / "struggle.md").stat().st_mtime_ns == before  # not even rewritten


def test_edit_is_written_and_read_back(kb: Path) -> None:
    store = _store(kb)
    note = store.load().notes[0].note
    edited = note.model_copy(update={"core_assertions": ("A", "B"), "tags": ("bio",)})
    store.save(edited)
    assert _store(kb).load().notes[0].note == edited
    assert not [p for p in kb.iterdir() if p.name.endswith(".tmp")]  # no temp left behind


def test_broken_files_are_listed_with_their_error_and_never_overwritten(kb: Path) -> None:
    bad = {
        "bad-yaml.md": b"---\ntitle: [oops\n---\n",
        "unclosed.md": b"---\nid: x9\ntitle: T\nbody\n",
        "latin1.md": "---\ntitle: caf\u00e9\n---\n".encode("latin-1"),
        "binary.md": b"\x89PNG\r\n\x1a\n\x00\x00",
        "huge.md": b"---\ntitle: big\n---\n" + b"a" * 1_100_000,
    }
    for name, raw in bad.items():
        (kb / name).write_bytes(raw)
    snapshot = _store(kb).load()
    assert [e.file_name for e in snapshot.notes] == ["struggle.md"]
    errors = {b.file_name: b.error for b in snapshot.broken}
    assert set(errors) == set(bad)
    assert "not closed" in errors["unclosed.md"]
    assert "UTF-8" in errors["latin1.md"]
    for name, raw in bad.items():
        assert (kb / name).read_bytes() == raw


def test_a_note_too_big_to_read_is_listed_with_its_size_on_disk(kb: Path) -> None:
    """Review of issue 34: only 1 MB + 1 byte of a note is read now, and a 4.5 MB note was
    said to be 1.0 MB ("the file is 1.0 MB; Coach reads notes up to 1 MB")."""
    (kb / "huge.md").write_bytes(b"---\ntitle: big\n---\n" + b"a" * 4_500_000)
    errors = {b.file_name: b.error for b in _store(kb).load().broken}
    assert "the file is 4.5 MB" in errors["huge.md"]


def test_a_note_without_id_keeps_one_coach_holds_and_its_file_is_never_written(
    kb: Path, tmp_path: Path
) -> None:
    """Issue 14: reading stamped an `id:` into every note without one (13,414 files of a
    Zettelkasten rewritten by one `coach notes`)."""
    raw = b"---\ntitle: Fresh\ntags: [a]\n---\nText long enough to be recognised when moved.\n"
    (kb / "new.md").write_bytes(raw)
    ids = tmp_path / "ids.json"
    first = {
        e.file_name: e.note.id
        for e in MarkdownNoteStore(kb, tmp_path / "t", ids_file=ids).load().notes
    }
    second = {
        e.file_name: e.note.id
        for e in MarkdownNoteStore(kb, tmp_path / "t", ids_file=ids).load().notes
    }
    assert first == second and first["struggle.md"] == "n1"
    assert (kb / "new.md").read_bytes() == raw
    (kb / "sub").mkdir()
    os.replace(kb / "new.md", kb / "sub" / "renamed.md")  # moved outside Coach
    moved = {
        e.file_name: e.note.id
        for e in MarkdownNoteStore(kb, tmp_path / "t", ids_file=ids).load().notes
    }
    assert moved["sub/renamed.md"] == first["new.md"]  # the same note: its history follows


def test_a_copy_with_the_same_id_is_a_note_of_its_own(kb: Path) -> None:
    (kb / "copy.md").write_bytes(GOOD)
    ids_file = kb.parent / "ids.json"

    def store() -> MarkdownNoteStore:
        return MarkdownNoteStore(kb, kb.parent / "kb-trash", ids_file=ids_file)

    snapshot = store().load()
    ids = {e.file_name: e.note.id for e in snapshot.notes}
    assert set(ids) == {"copy.md", "struggle.md"} and snapshot.broken == ()
    # The original (older, and the one that held it) keeps the id, though "copy.md" sorts
    # first; Obsidian's "Struggle 1.md" copies sort before their original too (review).
    assert ids["struggle.md"] == "n1" and ids["copy.md"] != "n1"
    os.utime(kb / "copy.md", (1, 1))  # even when the copy looks older, the holder keeps it
    again = {e.file_name: e.note.id for e in store().load().notes}
    assert again["struggle.md"] == "n1"


def test_new_notes_are_named_after_their_title_in_the_folder_asked_for(kb: Path) -> None:
    """Issue 14: new notes got ASCII slugs at the vault's top (a Japanese title → note.md)."""
    store = _store(kb)
    store.load()
    first = store.save(Note(id=new_note_id(), title="Struggle"))
    second = store.save(Note(id=new_note_id(), title="Struggle?"))
    japanese = store.save(Note(id=new_note_id(), title="光合成: 明反応"), folder="生物/植物")
    escape = store.save(Note(id=new_note_id(), title="Out"), folder="../elsewhere")
    assert (first.file_name, second.file_name) == ("Struggle 2.md", "Struggle 3.md")
    assert japanese.file_name == "生物/植物/光合成 明反応.md"
    assert escape.file_name == "Out.md" and not (kb.parent / "elsewhere").exists()
    assert len(_store(kb).load().notes) == 5


def test_file_stems_keep_unicode_and_replace_only_what_cannot_be_a_name() -> None:
    from coach_gui.domain.notes import note_file_stem

    assert note_file_stem("Why? Because: it's (so)!") == "Why Because it's (so)!"
    assert note_file_stem("C# [[basics]] | 2") == "C basics 2"
    assert note_file_stem("...") == "Untitled" and note_file_stem("CON") == "CON (note)"
    assert note_file_stem("Café", taken=["café"]) == "Café 2"
    assert len(note_file_stem("é" * 300).encode()) <= 200


def test_outside_edit_is_not_overwritten(kb: Path) -> None:
    store = _store(kb)
    note = store.load().notes[0].note
    (kb / "struggle.md").write_bytes(GOOD.replace(b"Body", b"Edited elsewhere"))
    with pytest.raises(NoteConflict, match="changed by another program"):
        store.save(note.model_copy(update={"title": "Mine"}))
    assert b"Edited elsewhere" in (kb / "struggle.md").read_bytes()


def test_delete_moves_the_file_to_the_system_trash_restorably(kb: Path) -> None:
    store = _store(kb)
    store.load()
    assert store.trash_location == "the system trash"
    assert store.delete("n1").where == "the system trash"
    assert not (kb / "struggle.md").exists()
    trash = Path(os.environ["XDG_DATA_HOME"]) / "Trash"
    (kept,) = (trash / "files").iterdir()  # the freedesktop trash, with its restore info
    assert kept.read_bytes() == GOOD
    info = (trash / "info" / f"{kept.name}.trashinfo").read_text(encoding="utf-8")
    assert str(kb / "struggle.md") in info
    assert _store(kb).load().notes == ()


def test_delete_uses_the_vaults_own_trash_folder_when_it_has_one(kb: Path) -> None:
    (kb / ".trash").mkdir()
    store = _store(kb)
    store.load()
    assert ".trash" in store.trash_location
    where = store.delete("n1").where
    assert Path(where) == kb / ".trash" / "struggle.md" and Path(where).read_bytes() == GOOD
    (kb / "struggle.md").write_bytes(GOOD)  # a second delete of the same name keeps both
    store.load()
    assert Path(store.delete("n1").where).name != "struggle.md"
    assert len(list((kb / ".trash").iterdir())) == 2


def test_delete_falls_back_to_coachs_trash_folder_when_the_system_has_none(
    kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from send2trash.exceptions import TrashPermissionError

    def refused(path: str) -> None:
        raise TrashPermissionError(path)

    monkeypatch.setattr("coach_gui.adapters.notes_fs.send2trash", refused)
    store = _store(kb)
    store.load()
    where = store.delete("n1").where
    assert Path(where).parent == kb.parent / "kb-trash" and Path(where).read_bytes() == GOOD


def test_subfolders_are_read_and_hidden_ones_skipped(kb: Path) -> None:
    (kb / "part2").mkdir()
    (kb / "part2" / "x.md").write_bytes(b"---\nid: n2\ntitle: Deep\n---\n")
    (kb / ".obsidian").mkdir()
    (kb / ".obsidian" / "y.md").write_bytes(b"not a note")
    names = [e.file_name for e in _store(kb).load().notes]
    assert names == ["part2/x.md", "struggle.md"]


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(NoteError, match="does not exist") as missing:
        MarkdownNoteStore(tmp_path / "nope", tmp_path / "t").load()
    assert "notes folder in Settings" in str(missing.value)
    assert "kb.path" not in str(missing.value)  # the learner's words, no setting key


def test_failed_write_keeps_the_old_file_and_says_so(
    kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _store(kb)
    note = store.load().notes[0].note

    def full_disk(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(NoteError, match="No space left on device"):
        store.save(note.model_copy(update={"title": "Lost?"}))
    assert (kb / "struggle.md").read_bytes() == GOOD
    assert [p.name for p in kb.iterdir()] == ["struggle.md"]


def test_atomic_write_keeps_mode_of_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "n.md"
    target.write_bytes(b"old")
    os.chmod(target, 0o640)
    files.atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o640


def test_sample_notes_seed_once(tmp_path: Path) -> None:
    folder = tmp_path / "kb"
    count = seed_sample_notes(folder)
    assert 6 <= count <= 10
    snapshot = MarkdownNoteStore(folder, tmp_path / "trash").load()
    assert len(snapshot.notes) == count and snapshot.broken == ()
    for entry in snapshot.notes:
        assert 3 <= len(entry.note.core_assertions) <= 5
        assert "Darwin" in entry.note.source
    (folder / snapshot.notes[0].file_name).unlink()
    assert seed_sample_notes(folder) == 0  # the learner's folder is never refilled


def test_front_matter_cache_speeds_reopening_but_never_serves_stale_notes(kb: Path) -> None:
    cache = kb.parent / "cache" / "front-matter.json"
    MarkdownNoteStore(kb, kb.parent / "t", cache_file=cache).load()
    assert cache.exists()
    (kb / "struggle.md").write_bytes(GOOD.replace(b"title: Struggle", b"title: Edited outside"))
    again = MarkdownNoteStore(kb, kb.parent / "t", cache_file=cache).load()
    assert again.notes[0].note.title == "Edited outside"
    cache.write_bytes(b"\x00garbage")  # a damaged cache costs time, not notes
    third = MarkdownNoteStore(kb, kb.parent / "t", cache_file=cache).load()
    assert third.notes[0].note.title == "Edited outside"


def test_a_front_matter_cache_from_before_the_bounds_does_not_let_a_bomb_in(kb: Path) -> None:
    """Review of issue 34: the cache of the Coach before the alias bounds (keys "b:" and a
    digest of the front matter) held the bomb's expanded value; served from it, the bomb
    was a note again after the upgrade (a 7-level one: 566 MB for `coach notes`)."""
    import hashlib
    import json

    front = "title: Laughs\nv: &v lol\nall: [" + ", ".join(["*v"] * 150) + "]\n"
    (kb / "bomb.md").write_text(f"---\n{front}---\nBody.\n", encoding="utf-8")
    expanded = {"title": "Laughs", "v": "lol", "all": ["lol"] * 150}
    old_key = "b:" + hashlib.blake2b(front.encode("utf-8"), digest_size=16).hexdigest()
    cache = kb.parent / "cache" / "front-matter.json"
    cache.parent.mkdir()
    cache.write_text(json.dumps({old_key: expanded}), encoding="utf-8")
    snapshot = MarkdownNoteStore(kb, kb.parent / "t", cache_file=cache).load()
    errors = {b.file_name: b.error for b in snapshot.broken}
    assert "aliases" in errors["bomb.md"]
    assert [e.file_name for e in snapshot.notes] == ["struggle.md"]
    assert old_key not in json.loads(cache.read_text(encoding="utf-8"))  # dropped


def test_one_entry_too_big_for_the_cache_leaves_the_others_cached(kb: Path) -> None:
    """Review of issue 34: the cache is written up to 64 MB, but the first entry past that
    ended the writing, so the notes after it (by name) were parsed again every time."""
    import json

    big = "x" * 900_000  # 100 aliases of it: 90 MB as JSON, though 300 KB as written
    (kb / "a big one.md").write_text(
        f'---\ntitle: Big\ns: &s "{big}"\nall: [{", ".join(["*s"] * 100)}]\n---\n',
        encoding="utf-8",
    )
    for n in range(3):
        (kb / f"z{n}.md").write_text(f"---\ntitle: Z{n}\n---\nBody.\n", encoding="utf-8")
    cache = kb.parent / "cache" / "front-matter.json"
    MarkdownNoteStore(kb, kb.parent / "t", cache_file=cache).load()
    titles = {v.get("title") for v in json.loads(cache.read_text(encoding="utf-8")).values()}
    assert {"Z0", "Z1", "Z2", "Struggle"} <= titles
    assert "Big" not in titles


def test_notes_and_settings_are_read_where_there_is_no_o_nonblock(
    kb: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review of issue 34: the bounded read opened every note and the settings file with
    os.O_NONBLOCK, which Windows does not have: Coach could not start there."""
    from coach_gui.config import load_config

    monkeypatch.delattr(os, "O_NONBLOCK")
    assert [e.file_name for e in _store(kb).load().notes] == ["struggle.md"]
    config = tmp_path / "coach.config.json"
    config.write_text('{"tier1": {"model": "qwen2.5:3b"}}', encoding="utf-8")
    assert load_config(config).tier1.model == "qwen2.5:3b"


def test_a_temp_file_left_by_a_killed_save_is_removed_once_it_is_stale(kb: Path) -> None:
    """A save killed mid-write leaves `.name.md.XXXX.tmp`; it is never listed as a note, and
    once it is older than any save in progress could be, loading the notes removes it."""
    import os
    import time

    from coach_gui.adapters.notes_fs import STALE_TEMP_SECONDS

    stale = kb / ".struggle.md.coach-k1llxd.tmp"
    fresh = kb / ".struggle.md.coach-wr1t1n.tmp"  # a save in another process, still running
    syncthing = kb / ".syncthing.struggle.md.tmp"  # another program's: never ours to remove
    for leftover in (stale, fresh):
        leftover.write_bytes(GOOD[:20])
    old = time.time() - STALE_TEMP_SECONDS - 60
    os.utime(stale, (old, old))
    other = kb / ".notes.tmp"  # not a note's temp file: not ours to remove
    for foreign in (other, syncthing):
        foreign.write_text("keep", encoding="utf-8")
        os.utime(foreign, (old, old))

    snapshot = _store(kb).load()

    assert [e.file_name for e in snapshot.notes] == ["struggle.md"] and snapshot.broken == ()
    assert not stale.exists()
    assert fresh.exists() and other.exists() and syncthing.exists()


# --- found in review (issue 14) -------------------------------------------------------------


def test_a_save_made_while_a_load_reads_the_files_is_not_undone(
    kb: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A load that read the files before a save and finished after it replaced the save's
    record: the next save of that note conflicted, a new note was created twice."""
    store = _store(kb)
    note = store.load().notes[0].note
    real_files = store._files
    saved: list[NoteEntry] = []

    def files_then_save() -> object:
        found = real_files()
        saved.append(store.save(note.model_copy(update={"body": "Saved meanwhile.\n"})))
        saved.append(store.save(Note(id=new_note_id(), title="Brand new")))
        return found

    monkeypatch.setattr(store, "_files", files_then_save)
    snapshot = store.load()  # read struggle.md before the save, finished after it
    monkeypatch.undo()
    listed = {e.note.id: e for e in snapshot.notes}
    assert listed["n1"].note.body == "Saved meanwhile.\n"
    assert saved[1].note.id in listed
    store.save(listed["n1"].note.model_copy(update={"body": "And again.\n"}))  # no conflict
    store.save(saved[1].note.model_copy(update={"body": "Edited.\n"}))
    assert sorted(p.name for p in kb.glob("*.md")) == ["Brand new.md", "struggle.md"]


def test_a_rename_with_a_copy_beside_it_gives_the_history_to_neither(kb: Path) -> None:
    ids_file = kb.parent / "ids.json"
    body = b"A note long enough to be recognised by its bytes alone.\n"
    (kb / "a.md").write_bytes(body)

    def ids() -> dict[str, str]:
        loaded = MarkdownNoteStore(kb, kb.parent / "t", ids_file=ids_file).load()
        return {e.file_name: e.note.id for e in loaded.notes}

    first = ids()["a.md"]
    os.replace(kb / "a.md", kb / "z.md")
    (kb / "b.md").write_bytes(body)  # which one is the renamed note? Nobody can tell
    after = ids()
    assert first not in (after["z.md"], after["b.md"])


def test_a_note_deleted_long_ago_lends_its_id_to_no_later_identical_file(kb: Path) -> None:
    ids_file = kb.parent / "ids.json"
    daily = b"## Daily note\n\n- [ ] the day's plan, from the template\n"

    def ids() -> dict[str, str]:
        loaded = MarkdownNoteStore(kb, kb.parent / "t", ids_file=ids_file).load()
        return {e.file_name: e.note.id for e in loaded.notes}

    (kb / "2024-03-01.md").write_bytes(daily)
    old = ids()["2024-03-01.md"]
    (kb / "2024-03-01.md").unlink()
    ids()  # Coach saw it gone
    (kb / "2024-03-09.md").write_bytes(daily)  # a new note from the same template
    assert ids()["2024-03-09.md"] != old


def test_a_link_to_nothing_is_not_listed_and_a_kept_both_copy_keeps_the_other_keys(
    kb: Path,
) -> None:
    (kb / "dangling.md").symlink_to(kb / "nowhere.md")
    raw = b"---\nid: n7\ntitle: Keys\ncreated: 2021-03-04\npublish: yes\n---\nTheirs.\n"
    (kb / "keys.md").write_bytes(raw)
    store = _store(kb)
    snapshot = store.load()
    assert "dangling.md" not in {b.file_name for b in snapshot.broken}
    note = next(e.note for e in snapshot.notes if e.note.id == "n7")
    copy = store.save_copy(note.model_copy(update={"body": "Mine.\n"}))
    text = (kb / copy.file_name).read_text(encoding="utf-8")
    assert "created: 2021-03-04" in text and "publish: yes" in text and "id:" not in text
    assert (kb / "keys.md").read_bytes() == raw
    again = {e.file_name: e.note.id for e in _store(kb).load().notes}
    assert again["keys.md"] == "n7" and again[copy.file_name] != "n7"
