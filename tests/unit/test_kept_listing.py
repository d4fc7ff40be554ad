"""The note listing kept on disk (issue 38, ADR 0036): written from the notes as a real
vault lists them, read back as the rows the window shows at start, searchable exactly as
the index built from the notes is; anything it cannot trust is not shown."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest
from fakes.multilingual_notes import NOTES  # notes in every script Coach reads
from fakes.vaults import mixed_vault

from coach_gui import paths
from coach_gui.adapters.kept_listing import read_kept, write_kept
from coach_gui.bootstrap import kept_listing, note_store
from coach_gui.domain.note_search import KeptBroken, ListedEntry
from coach_gui.domain.notes import Note, NoteEntry, NoteSearchIndex

QUERIES = ("the", "#biology", "tag:sci", "no:assertions", "selection cell", "Ω", "选择", "x")


def _listed(tmp_path: Path) -> tuple[str, list[NoteEntry], list[KeptBroken]]:
    vault = mixed_vault(tmp_path / "vault")
    snapshot = note_store(vault.root, tmp_path / "data").load()
    broken = [KeptBroken(b.file_name, b.error) for b in snapshot.broken]
    return snapshot.location, list(snapshot.notes), broken


def _rows(entries: Sequence[ListedEntry]) -> list[tuple[str, str, str, tuple[str, ...], int]]:
    return [
        (e.note.id, e.file_name, e.note.title, tuple(e.note.tags), len(e.note.core_assertions))
        for e in entries
    ]


def test_a_kept_listing_lists_and_searches_as_the_notes_it_was_kept_from(
    tmp_path: Path,
) -> None:
    location, entries, broken = _listed(tmp_path)
    entries += [
        NoteEntry(
            note=Note(
                id=f"ml{i}",
                title=n.title,
                body=n.body,
                aliases=n.aliases,
                tags=n.tags,
                core_assertions=n.assertions,
            ),
            file_name=f"{n.lang}/{i}.md",
        )
        for i, n in enumerate(NOTES)
    ]
    index = NoteSearchIndex(entries)
    kept_file = tmp_path / "data" / "cache" / "listing.json"
    write_kept(kept_file, location, index, broken)

    kept = read_kept(kept_file, location)
    assert kept is not None
    assert _rows(kept.entries) == _rows(index.entries)  # every note, in list order
    assert [(b.file_name, b.error) for b in kept.broken] == [(b.file_name, b.error) for b in broken]
    assert broken  # the mixed vault has files that cannot be read: they are kept too
    queries = (*QUERIES, *(n.title[:2] for n in NOTES), *(a for n in NOTES for a in n.aliases))
    for query in queries:
        assert _rows(kept.index.search(query)) == _rows(index.search(query)), query


def test_a_listing_of_another_folder_is_not_shown(tmp_path: Path) -> None:
    location, entries, broken = _listed(tmp_path)
    kept_file = tmp_path / "listing.json"
    write_kept(kept_file, location, NoteSearchIndex(entries), broken)
    assert read_kept(kept_file, location + "-other") is None
    assert read_kept(tmp_path / "missing.json", location) is None


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # cut short (a full disk)
        lambda text: "",
        lambda text: "[]",
        lambda text: text.replace('"version":1', '"version":99'),
        lambda text: text.replace('"notes":[[', '"notes":[[1,', 1),  # a row of other shape
        lambda text: text.replace('"broken":[', '"broken":[7,', 1),
        lambda text: text.replace('"notes":[[', '"notes":[null,[', 1),
        lambda text: "[" * 100_000 + "]" * 100_000,  # past the parser's depth
    ],
    ids=[
        "truncated",
        "empty",
        "not-an-object",
        "newer-version",
        "bad-row",
        "bad-broken",
        "null",
        "too-deep",
    ],
)
def test_a_damaged_kept_listing_is_not_shown_and_nothing_is_raised(
    tmp_path: Path, damage: object
) -> None:
    location, entries, broken = _listed(tmp_path)
    kept_file = tmp_path / "listing.json"
    write_kept(kept_file, location, NoteSearchIndex(entries), broken)
    kept_file.write_text(damage(kept_file.read_text("utf-8")), "utf-8")  # type: ignore[operator]
    assert read_kept(kept_file, location) is None


def test_an_unwritable_cache_folder_costs_only_the_head_start(tmp_path: Path) -> None:
    location, entries, broken = _listed(tmp_path)
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the folder would be", "utf-8")
    write_kept(blocker / "listing.json", location, NoteSearchIndex(entries), broken)  # no raise
    assert read_kept(blocker / "listing.json", location) is None


def test_reading_a_kept_listing_loads_neither_pydantic_nor_the_note_parser(
    tmp_path: Path,
) -> None:
    """The frame reads it before the rest of Coach is loaded: importing pydantic alone
    would cost more than the whole listing of the sample notes."""
    location, entries, broken = _listed(tmp_path)
    kept_file = tmp_path / "listing.json"
    write_kept(kept_file, location, NoteSearchIndex(entries), broken)
    script = (
        "import sys\n"
        "from pathlib import Path\n"
        "from coach_gui.adapters.kept_listing import read_kept\n"
        f"kept = read_kept(Path({str(kept_file)!r}), {location!r})\n"
        "print(len(kept.entries), len(kept.index.search('the')))\n"
        "print(sorted(m for m in sys.modules if m.startswith(('pydantic', 'yaml',"
        " 'coach_gui.adapters.front_matter', 'coach_gui.domain.notes'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    count, loaded = done.stdout.splitlines()
    assert int(count.split()[0]) == len(entries) and int(count.split()[1]) > 0
    assert json.loads(loaded.replace("'", '"')) == []


def test_the_listing_shown_at_start_is_the_one_of_the_folder_the_settings_name(
    tmp_path: Path,
) -> None:
    vault = mixed_vault(tmp_path / "vault")
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({"kb": {"path": str(vault.root)}}), "utf-8")
    snapshot = note_store(vault.root, paths.data_dir()).load()
    index = NoteSearchIndex(list(snapshot.notes))
    write_kept(paths.kept_listing_file(paths.data_dir()), snapshot.location, index, [])

    kept = kept_listing()
    assert kept is not None and len(kept.entries) == len(snapshot.notes)
    for settings in (
        json.dumps({"kb": {"path": str(tmp_path / "elsewhere")}}),  # another folder
        json.dumps({}),  # the default folder (in Coach's data folder)
        json.dumps({"kb": {"path": 5}}),  # not a folder: the settings' check says so later
        json.dumps({"kb": "no"}),
        json.dumps({"kb": {"path": "~no-such-user-here/notes"}}),  # expanduser raises
        "[" * 100_000 + "]" * 100_000,  # deeper than the JSON parser goes
        "{not json",
        "",
    ):
        config.write_text(settings, "utf-8")
        assert kept_listing() is None, settings
    config.unlink()
    assert kept_listing() is None
