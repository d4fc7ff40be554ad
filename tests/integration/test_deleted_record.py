"""Issue 17, ADR 0024: what Coach keeps about its deletes never costs a note. Two notes of
the same name deleted in one second both stay in the vault's `.trash`; a restore whose
note is back says so even when the trash keeps its name; a damaged or hand-edited record
loses no other delete, is never written over, and never makes Coach move a file from
outside the trash folders or remove a trash info that is not the note's. Real files, the
real send2trash into this test's own freedesktop trash (tests/conftest.py)."""

from __future__ import annotations

import json
import os
import pathlib
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from coach_gui.adapters import note_trash, notes_fs
from coach_gui.adapters.notes_fs import MarkdownNoteStore
from coach_gui.domain.errors import NoteNotFound

BODY = b"# N\n\nThe note body, long enough to be recognised by its bytes.\n"


def _store(vault: Path, data: Path) -> MarkdownNoteStore:
    return MarkdownNoteStore(
        vault,
        vault.parent / f"{vault.name}-trash",
        ids_file=data / "note-ids.json",
        deleted_file=data / "deleted-notes.json",
    )


def _ids(store: MarkdownNoteStore) -> dict[str, str]:
    return {e.file_name: e.note.id for e in store.load().notes}


def _trash() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "Trash"


def test_same_named_notes_deleted_in_one_second_all_stay_in_the_vault_trash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    class OneSecond(datetime):  # every delete in the same second, on any machine
        @classmethod
        def now(cls, tz: Any = None) -> OneSecond:
            return cls(2025, 3, 1, 10, 0, 0, tzinfo=tz)

    monkeypatch.setattr(notes_fs, "datetime", OneSecond)
    vault = tmp_path / "vault"
    (vault / ".trash").mkdir(parents=True)
    raws = {}
    for folder in "abc":
        (vault / folder).mkdir()
        raws[folder] = f"# Index {folder}\n\nThe index of folder {folder}, long enough.\n".encode()
        (vault / folder / "index.md").write_bytes(raws[folder])
    store = _store(vault, tmp_path / "data")
    ids = _ids(store)
    gones = [store.delete(ids[f"{f}/index.md"]) for f in "abc"]
    kept = sorted(p.name for p in (vault / ".trash").iterdir())
    assert len(kept) == 3 and len({g.where for g in gones}) == 3
    assert sorted((vault / ".trash" / name).read_bytes() for name in kept) == sorted(raws.values())

    for gone in store.deleted():
        restored = store.restore(gone.key)
        assert restored.entry.note.id == gone.note_id
    for folder in "abc":
        assert (vault / folder / "index.md").read_bytes() == raws[folder]
    assert list((vault / ".trash").iterdir()) == []


def test_a_restore_is_done_once_the_note_is_back_even_if_the_trash_keeps_its_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "N.md").write_bytes(BODY)
    data = tmp_path / "data"
    store = _store(vault, data)
    note_id = _ids(store)["N.md"]
    gone = store.delete(note_id)
    files = _trash() / "files"
    real_unlink = pathlib.Path.unlink

    def refused_in_the_trash(self: Path, missing_ok: bool = False) -> None:
        if self.parent == files:  # a read-only trash, a file manager holding it open
            raise PermissionError(13, "Permission denied", str(self))
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(pathlib.Path, "unlink", refused_in_the_trash)
    restored = store.restore(gone.key)  # no error: the note is back
    monkeypatch.setattr(pathlib.Path, "unlink", real_unlink)
    assert (restored.entry.file_name, restored.entry.note.id) == ("N.md", note_id)
    assert (vault / "N.md").read_bytes() == BODY
    assert store.deleted() == ()
    with pytest.raises(NoteNotFound):  # a retry cannot make a second copy of the note
        store.restore(gone.key)
    assert sorted(p.name for p in vault.iterdir()) == ["N.md"]
    assert _ids(_store(vault, data)) == {"N.md": note_id}


def _record(data: Path) -> Path:
    return data / "deleted-notes.json"


def _delete_one(tmp_path: Path, name: str = "A.md") -> tuple[Path, Path, dict[str, Any]]:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)
    (vault / name).write_bytes(BODY)
    data = tmp_path / "data"
    store = _store(vault, data)
    store.delete(_ids(store)[name])
    (entry,) = json.loads(_record(data).read_text())["deleted"]
    return vault, data, entry


@pytest.mark.parametrize(
    "change",
    [
        {"kind": "system", "deleted_at": "2025-01-01T10:00:00"},  # no time zone
        {"deleted_at": "yesterday"},
        {"note_id": "my note"},
        {"file_name": ""},
        {"file_name": "../outside.md"},
        {"stored": 3},
        {"own_id": "no"},
        {"kind": "elsewhere"},
        {"info": "/tmp/not-a-trash/A.md.trashinfo"},
    ],
)
def test_a_damaged_entry_is_skipped_and_the_others_still_restore(
    tmp_path: Path, change: dict[str, Any]
) -> None:
    vault, data, good = _delete_one(tmp_path)
    (vault / "B.md").write_bytes(BODY.replace(b"# N", b"# B"))
    store = _store(vault, data)
    b_id = _ids(store)["B.md"]
    store.delete(b_id)
    listed = json.loads(_record(data).read_text())["deleted"]
    bad = dict(good, **change)
    _record(data).write_text(json.dumps({"deleted": [bad, listed[1]]}))

    again = _store(vault, data)  # File › Deleted notes… after a restart
    (only,) = again.deleted()
    assert (only.file_name, only.note_id) == ("B.md", b_id)
    assert again.restore(only.key).entry.note.id == b_id
    assert (vault / "B.md").exists() and not (vault / "A.md").exists()
    kept = json.loads(_record(data).read_text())["deleted"]
    assert kept == [bad]  # what this Coach cannot use stays in the record as it was


def test_a_record_naming_a_file_outside_the_trash_never_moves_it(tmp_path: Path) -> None:
    vault, data, entry = _delete_one(tmp_path)
    other = vault / "Other.md"
    other.write_bytes(BODY)  # the learner's own note, with the same bytes
    forged = dict(entry, kind="folder", stored=str(other), info="", where=str(other))
    _record(data).write_text(json.dumps({"deleted": [forged]}))
    store = _store(vault, data)
    assert store.deleted() == ()
    with pytest.raises(NoteNotFound):
        store.restore(forged["key"])
    assert other.read_bytes() == BODY and not (vault / "A.md").exists()


def test_an_unreadable_record_is_kept_aside_never_written_over(tmp_path: Path) -> None:
    vault, data, _entry = _delete_one(tmp_path)
    damaged = b'{"deleted": [{"key": "half a line'
    _record(data).write_bytes(damaged)
    (vault / "B.md").write_bytes(BODY.replace(b"# N", b"# B"))
    store = _store(vault, data)
    assert store.deleted() == ()
    gone = store.delete(_ids(store)["B.md"])
    (aside,) = data.glob("deleted-notes.unreadable-*.json")
    assert aside.read_bytes() == damaged  # as it was, for whoever mends it
    assert [e["key"] for e in json.loads(_record(data).read_text())["deleted"]] == [gone.key]


def test_a_trash_info_that_names_another_file_is_left_alone(tmp_path: Path) -> None:
    vault, data, entry = _delete_one(tmp_path)
    info = Path(entry["info"])
    assert info.parent == _trash() / "info"
    other = info.read_text().replace(str(vault / "A.md"), str(tmp_path / "Elsewhere.md"))
    info.write_text(other)  # the info is not this note's any more
    store = _store(vault, data)
    (gone,) = store.deleted()
    store.restore(gone.key)
    assert (vault / "A.md").read_bytes() == BODY
    assert info.read_text() == other


def test_a_note_the_trash_hid_from_coach_on_linux_gets_no_recycle_bin_advice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(note_trash, "PLATFORM", "linux")
    monkeypatch.setattr(note_trash, "find_trashed", lambda _source, _before: None)
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "A.md").write_bytes(BODY)
    store = _store(vault, tmp_path / "data")
    store.delete(_ids(store)["A.md"])
    (gone,) = store.deleted()
    assert not gone.restorable
    assert "Recycle Bin" not in gone.advice and "“A.md”" in gone.advice
    assert "file manager" in gone.advice
