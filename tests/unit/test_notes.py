"""Note records, ordering and search as the learner types."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from coach_gui.domain.notes import (
    AmbiguousNote,
    KnowledgeBaseSnapshot,
    Note,
    NoteEntry,
    NoteSearchIndex,
    ordered,
    slug,
)


def _entry(title: str, *, tags: tuple[str, ...] = (), body: str = "", file: str = "") -> NoteEntry:
    note = Note(id=slug(title) + "1", title=title, tags=tags, body=body)
    return NoteEntry(note=note, file_name=file or f"{slug(title)}.md")


def test_records_are_closed_and_frozen() -> None:
    with pytest.raises(ValidationError):
        Note(id="a", title="T", colour="red")  # type: ignore[call-arg]
    note = Note(id="a", title="T")
    with pytest.raises(ValidationError):
        note.title = "U"  # type: ignore[misc]


@pytest.mark.parametrize(
    "fields",
    [
        {"id": "a", "title": " "},
        {"id": "a", "title": "two\nlines"},
        {"id": "a b", "title": "T"},
        {"id": "a", "title": "T", "core_assertions": ("ok", "")},
        {"id": "a", "title": "T", "body": "nul\x00"},
    ],
)
def test_invalid_notes_are_rejected(fields: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Note(**fields)  # type: ignore[arg-type]


def test_notes_are_ordered_by_title_ignoring_case_and_accents() -> None:
    titles = [
        e.note.title for e in ordered([_entry("zebra"), _entry("Évolution"), _entry("apple")])
    ]
    assert titles == ["apple", "Évolution", "zebra"]


def test_search_matches_all_words_and_ranks_title_hits_first() -> None:
    index = NoteSearchIndex(
        [
            _entry("Natural selection", body="variation and inheritance"),
            _entry("Struggle for existence", tags=("selection",)),
            _entry("Geology", body="the record is imperfect; selection acts slowly"),
        ]
    )
    assert [e.note.title for e in index.search("selection")] == [
        "Natural selection",
        "Struggle for existence",
        "Geology",
    ]
    assert [e.note.title for e in index.search("SELECT slow")] == ["Geology"]
    assert [e.note.title for e in index.search("evolution")] == []
    assert len(index.search("   ")) == 3


def test_search_ignores_accents() -> None:
    index = NoteSearchIndex([_entry("Café society")])
    assert index.search("cafe") and index.search("CAFÉ")


def test_lookup_by_id_or_file_stem() -> None:
    from coach_gui.domain.notes import KnowledgeBaseSnapshot

    entry = _entry("Natural selection", file="sub/natural-selection.md")
    snapshot = KnowledgeBaseSnapshot(location="/kb", notes=(entry,))
    assert snapshot.find(entry.note.id) == entry
    assert snapshot.find("Natural-Selection") == entry
    assert snapshot.find("nothing") is None


def test_slug_is_unique_and_safe() -> None:
    assert slug("Why? Because: it's (so)!") == "why-because-it-s-so"
    assert slug("???") == "note"
    assert slug("A", taken=["a", "a-2"]) == "a-3"


def test_search_narrows_and_widens_as_the_learner_types_and_deletes() -> None:
    entries = [_entry(f"Note {i}", body=f"word{i} common") for i in range(300)]
    entries.append(_entry("Rare one", body="unusual"))
    index = NoteSearchIndex(entries)
    typed = ["u", "un", "unu", "unus", "unu", "un", "u", ""]
    counts = [len(index.search(q)) for q in typed]
    assert counts == [1, 1, 1, 1, 1, 1, 1, 301]
    assert len(index.search("common")) == 300  # a common word (per-text path)
    assert len(index.search("common word29")) == 11  # word29, word290..word299
    assert [e.note.title for e in index.search("word7 common")][:1] == ["Note 7"]


def test_query_words_match_inside_punctuated_tokens() -> None:
    index = NoteSearchIndex([_entry("T", body="Darwin's theory, (1859).")])
    assert index.search("darwin's") and index.search("theory") and index.search("1859")


# --- issue 14: aliases, tags in every form, names that are not unique -----------------------


def _vault_entry(name: str, **fields: object) -> NoteEntry:
    import hashlib

    note_id = hashlib.sha256(name.encode()).hexdigest()[:16]
    note = Note(id=note_id, title=name.split("/")[-1][:-3])
    return NoteEntry(note=note.model_copy(update=fields), file_name=name)


def test_search_finds_aliases_and_tags_in_every_form() -> None:
    notes = [
        _vault_entry("selection.md", aliases=("Survival of the fittest",), tags=("biology",)),
        _vault_entry("area/drift.md", body="Chance alone. #evolution/chance and #Evolution"),
        _vault_entry("plain.md", body="Nothing tagged, `#code` is not a tag"),
    ]
    index = NoteSearchIndex(notes)
    assert [e.file_name for e in index.search("fittest")] == ["selection.md"]
    assert [e.file_name for e in index.search("#evolution")] == ["area/drift.md"]
    assert [e.file_name for e in index.search("tag:evo")] == ["area/drift.md"]  # as you type
    assert [e.file_name for e in index.search("#evolution/chance alone")] == ["area/drift.md"]
    assert [e.file_name for e in index.search("tag:biology")] == ["selection.md"]
    assert index.search("#code") == []
    assert [e.file_name for e in index.search("no:assertions")] == [
        e.file_name for e in index.entries
    ]  # none of these has an assertion
    assert index.search("no:assertions fittest")[0].file_name == "selection.md"


def test_a_name_two_notes_share_is_an_error_listing_both() -> None:
    snapshot = KnowledgeBaseSnapshot(
        location="/kb",
        notes=(
            _vault_entry("work/Security and privacy.md"),
            _vault_entry("home/Security and privacy.md"),
        ),
    )
    with pytest.raises(AmbiguousNote) as raised:
        snapshot.find("Security and privacy")
    assert set(raised.value.file_names) == {
        "work/Security and privacy.md",
        "home/Security and privacy.md",
    }
    assert "folder" in str(raised.value)
    found = snapshot.find("work/Security and privacy")
    assert found is not None and found.file_name == "work/Security and privacy.md"
    assert snapshot.find("home/security and privacy.md") is not None
