"""The note files as last read (issue 38, ADR 0036), on a real file system: a listing reads
only the files whose stamp changed since, and lists exactly what reading every file lists —
whatever another program did to the folder in between — without writing into it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from fakes.vaults import file_hashes, mixed_vault, obsidian_vault

from coach_gui.adapters import note_index, notes_fs
from coach_gui.adapters.front_matter import ParsedFile
from coach_gui.adapters.note_index import RACY_NS, IndexedFile, stamp_of
from coach_gui.bootstrap import note_store
from coach_gui.domain.notes import KnowledgeBaseSnapshot, Note


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written by the test count as settled at once: a learner's notes were written
    long before Coach opens them; here they are a moment old."""
    monkeypatch.setattr(note_index, "RACY_NS", -(10**12))


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The files of the notes folder the store opens, relative to it ('/'-separated)."""
    opened: list[str] = []
    real = notes_fs.read_limited
    vault = tmp_path / "vault"

    def counting(path: str | os.PathLike[str], limit: int) -> bytes:
        where = Path(path)  # as reached from the folder, through any link
        if where.is_relative_to(vault):
            opened.append(where.relative_to(vault).as_posix())
        return real(path, limit)

    monkeypatch.setattr(notes_fs, "read_limited", counting)
    return opened


def _seen(snapshot: KnowledgeBaseSnapshot) -> tuple[object, ...]:
    return (
        [(e.file_name, e.note) for e in snapshot.notes],
        [(b.file_name, b.error) for b in snapshot.broken],
        snapshot.attachments,
    )


def _fresh(vault: Path, data: Path) -> KnowledgeBaseSnapshot:
    """Every file read, as with no index (a copy of the ids Coach keeps, none of its index)."""
    scratch = data.parent / f"{data.name}-fresh"
    shutil.rmtree(scratch, ignore_errors=True)
    shutil.copytree(data, scratch, ignore=shutil.ignore_patterns("note-index"))
    return note_store(vault, scratch).load()


def test_unchanged_files_are_not_read_again_and_list_as_reading_them_does(
    tmp_path: Path, settled: None, reads: list[str]
) -> None:
    vault = obsidian_vault(tmp_path / "vault")
    data = tmp_path / "data"
    first = note_store(vault.root, data).load()
    assert len(reads) >= len(first.notes)
    assert (data / "note-index").is_dir()
    reads.clear()
    before = file_hashes(vault.root)

    again = note_store(vault.root, data).load()  # another start
    unreadable = {b.file_name for b in first.broken}
    assert unreadable and set(reads) == unreadable  # read again: they may be fixed by now
    assert _seen(again) == _seen(first)
    assert file_hashes(vault.root) == before  # the index is kept in Coach's data folder


def test_what_another_program_did_meanwhile_is_read_and_nothing_else(
    tmp_path: Path, settled: None, reads: list[str]
) -> None:
    vault = mixed_vault(tmp_path / "vault")
    data = tmp_path / "data"
    note_store(vault.root, data).load()
    edited = next(
        n for n in vault.notes
        if f"title: {n.title}\n" in (vault.root / n.rel_path).read_text("utf-8")
    )  # fmt: skip
    path = vault.root / edited.rel_path
    text = path.read_text("utf-8")
    same_size = text.replace(f"title: {edited.title}", f"title: {edited.title[::-1]}", 1)
    assert len(same_size) == len(text) and same_size != text
    mtime = path.stat().st_mtime_ns
    path.write_text(same_size, "utf-8")
    os.utime(path, ns=(mtime, mtime))  # a sync client restoring the time: still seen
    replaced = next(n for n in vault.notes if n.rel_path != edited.rel_path)
    swap = vault.root / "swap.tmp"
    swap.write_bytes((vault.root / replaced.rel_path).read_bytes().replace(b"\n", b"\n\n", 3))
    os.replace(swap, vault.root / replaced.rel_path)  # an editor's atomic save: a new file
    gone = next(n for n in vault.notes if n.rel_path not in (edited.rel_path, replaced.rel_path))
    (vault.root / gone.rel_path).unlink()
    (vault.root / "New from the phone.md").write_text("# New from the phone\n\nText.\n", "utf-8")
    reads.clear()

    snapshot = note_store(vault.root, data).load()
    opened = set(reads)
    assert _seen(snapshot) == _seen(_fresh(vault.root, data))
    titles = {e.file_name: e.note.title for e in snapshot.notes}
    assert titles[edited.rel_path] == edited.title[::-1]
    assert "New from the phone.md" in titles and gone.rel_path not in titles
    unreadable = {b.file_name for b in snapshot.broken}
    assert opened - unreadable == {edited.rel_path, replaced.rel_path, "New from the phone.md"}


def test_ids_without_front_matter_and_shared_ids_come_out_as_a_full_read_gives_them(
    tmp_path: Path, settled: None
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "plain.md").write_text("# Plain\n\nNo front matter: Coach keeps its id.\n", "utf-8")
    copy = "---\nid: shared1\ntitle: Shared\n---\nOne of two files with one id.\n"
    (vault / "a.md").write_text(copy, "utf-8")
    (vault / "b.md").write_text(copy.replace("One", "The other"), "utf-8")
    data = tmp_path / "data"
    first = note_store(vault, data).load()
    again = note_store(vault, data).load()
    assert _seen(again) == _seen(first)
    assert len({e.note.id for e in again.notes}) == 3  # the copy got an id of its own
    (vault / "a.md").unlink()  # the holder is gone: the other file's own id is its again
    third = note_store(vault, data).load()
    assert _seen(third) == _seen(_fresh(vault, data))
    assert {e.note.id for e in third.notes if e.file_name == "b.md"} == {"shared1"}


def test_a_save_is_read_back_as_saved(tmp_path: Path, settled: None) -> None:
    vault = obsidian_vault(tmp_path / "vault")
    data = tmp_path / "data"
    store = note_store(vault.root, data)
    entry = store.load().notes[0]
    store.save(entry.note.model_copy(update={"core_assertions": ("Saved in Coach.",)}))
    listed = {e.file_name: e.note for e in note_store(vault.root, data).load().notes}
    assert listed[entry.file_name].core_assertions == ("Saved in Coach.",)


@pytest.mark.parametrize(
    "damage",
    ["", "{", "[]", "[" * 100_000 + "]" * 100_000, "other folder"],
    ids=["empty", "cut", "not-an-object", "too-deep", "other-folder"],
)
def test_a_damaged_or_other_folders_index_costs_only_a_full_read(
    tmp_path: Path, settled: None, reads: list[str], damage: str
) -> None:
    vault = mixed_vault(tmp_path / "vault")
    data = tmp_path / "data"
    first = note_store(vault.root, data).load()
    (index,) = (data / "note-index").iterdir()
    if damage == "other folder":  # a whole index, of the folder this one was copied from
        kept = json.loads(index.read_text("utf-8"))
        assert len(kept["files"]) == len(first.notes)
        kept["location"] = str(tmp_path / "elsewhere")
        damage = json.dumps(kept)
    index.write_text(damage, "utf-8")
    reads.clear()
    assert _seen(note_store(vault.root, data).load()) == _seen(first)
    assert set(reads) >= {e.file_name for e in first.notes}  # every note read again


def test_a_row_that_breaks_a_notes_rules_is_read_from_its_file(
    tmp_path: Path, settled: None, reads: list[str]
) -> None:
    vault = obsidian_vault(tmp_path / "vault")
    data = tmp_path / "data"
    first = note_store(vault.root, data).load()
    (index,) = (data / "note-index").iterdir()
    kept = json.loads(index.read_text("utf-8"))
    kept["files"][0][6] = "two\nlines"  # a title no note may have
    kept["files"][1] = kept["files"][1][:5]  # cut short
    index.write_text(json.dumps(kept), "utf-8")
    reads.clear()
    assert _seen(note_store(vault.root, data).load()) == _seen(first)
    assert len(set(reads) - {b.file_name for b in first.broken}) == 2


def test_a_file_changed_just_before_it_was_read_is_read_again_next_time() -> None:
    """Racily clean (as git calls it): written again within one tick of the file
    system's clock, a file may keep its stamp; so a stamp that was not settled when the file
    was read is never trusted."""
    note = Note(id="n1", title="T")
    parsed = ParsedFile(note=note, front_matter_text=None)
    now = 1_800_000_000_000_000_000
    stamp = (now - RACY_NS // 2, now - RACY_NS // 2, 10, 7)
    assert not IndexedFile(stamp, now, "d", "r", parsed).still(stamp)
    settled_stamp = (now - RACY_NS, now - RACY_NS, 10, 7)
    indexed = IndexedFile(settled_stamp, now, "d", "r", parsed)
    assert indexed.still(settled_stamp)
    assert not indexed.still((now - RACY_NS, now - RACY_NS + 1, 10, 7))  # written since
    assert not indexed.still((now - RACY_NS, now - RACY_NS, 11, 7))
    assert not indexed.still((now - RACY_NS, now - RACY_NS, 10, 8))  # replaced


def test_a_stamp_is_the_files_times_size_and_inode(tmp_path: Path) -> None:
    path = tmp_path / "n.md"
    path.write_text("x", "utf-8")
    info = path.stat()
    assert stamp_of(info) == (info.st_mtime_ns, info.st_ctime_ns, 1, info.st_ino)


def _as_if_unchanged(data: Path, vault: Path, rel_path: str) -> None:
    """Give the index row of `rel_path` the file's stamp as it is now: what Windows shows
    after an in-place rewrite of the same size with its modification time put back (its
    st_ctime is the creation time)."""
    (index,) = (data / "note-index").iterdir()
    kept = json.loads(index.read_text("utf-8"))
    for row in kept["files"]:
        if row[0] == rel_path:
            row[1] = list(stamp_of((vault / rel_path).stat()))
    index.write_text(json.dumps(kept), "utf-8")


def test_f5_and_a_file_seen_to_differ_are_read_whatever_their_stamp(
    tmp_path: Path, settled: None
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "apple.md").write_text("---\ntitle: Apple\n---\nA fruit.\n", "utf-8")
    data = tmp_path / "data"
    store = note_store(vault, data)
    assert [e.note.title for e in store.load().notes] == ["Apple"]
    (vault / "apple.md").write_text("---\ntitle: Grape\n---\nA fruit.\n", "utf-8")
    _as_if_unchanged(data, vault, "apple.md")
    assert [e.note.title for e in store.load().notes] == ["Apple"]  # the stamp is believed …
    assert [e.note.title for e in store.load(fresh=True).notes] == ["Grape"]  # … but not by F5

    (vault / "apple.md").write_text("---\ntitle: Pear\n---\nA fruit.\n", "utf-8")
    _as_if_unchanged(data, vault, "apple.md")
    store.load()
    assert store.changed_elsewhere({"apple.md"})  # the watcher's report: the bytes differ
    assert [e.note.title for e in store.load().notes] == ["Pear"]  # read again, stamp or not
