"""Issue 37's conversions, without Anki: a field's HTML as Markdown, cloze deletions as key
points, a note planned or skipped with the reason, a CSV read as a deck, the protobuf
reader, and the replay continuing from the card as Anki left it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from coach_gui.adapters.anki_csv import read_csv
from coach_gui.adapters.anki_proto import fields_of, text_field, varint_field
from coach_gui.domain.anki_html import (
    cloze_key_point,
    cloze_numbers,
    cloze_question,
    key_points,
    media_names,
    to_markdown,
)
from coach_gui.domain.anki_notes import Skipped, deck_folder, plan_notes, title_of
from coach_gui.domain.anki_package import (
    Memory,
    NoteType,
    Package,
    PackageCard,
    PackageNote,
    PackageReview,
    PackageUnreadable,
)
from coach_gui.domain.imported_reviews import imported_review
from coach_gui.domain.memory import assertion_digest
from coach_gui.services.scheduler import fsrs_scheduler, note_memory


def test_html_becomes_markdown_with_lists_marks_links_and_media() -> None:
    html = (
        "<div>The <b>cell</b> has <i>organelles</i>&nbsp;such as:</div>"
        "<ol><li>the nucleus</li><li>the <u>mitochondrion</u></li></ol>"
        '<img src="a b.png"> [sound:say.mp3] <a href="https://example.org">more</a>'
        "<script>alert(1)</script><br><pre>x = 1\ny = 2</pre>"
    )
    links = {"a b.png": "attachments/a b.png", "say.mp3": "attachments/say.mp3"}
    assert to_markdown(html, links.get).splitlines() == [
        "The **cell** has *organelles* such as:",
        "1. the nucleus",
        "2. the mitochondrion",
        "",
        "![](<attachments/a b.png>) [say.mp3](<attachments/say.mp3>) [more](<https://example.org>)",
        "```",
        "x = 1",
        "y = 2",
        "```",
    ]
    assert media_names(html) == ["a b.png", "say.mp3"]
    assert to_markdown('<img src="gone.png">') == ""  # not copied: no link to nothing


def test_key_points_are_list_items_or_lines_each_once() -> None:
    assert key_points(to_markdown("<ul><li>One</li><li>Two</li><li>One</li></ul>")) == (
        "One",
        "Two",
    )
    assert key_points(to_markdown("Paris<br>on the <b>Seine</b><div><br></div>")) == (
        "Paris",
        "on the **Seine**",
    )
    assert key_points(to_markdown('<img src="x.png">')) == ()


def test_each_cloze_number_is_a_key_point_and_the_title_hides_them() -> None:
    text = (
        "{{c1::Ottawa}} is the capital of {{c2::Canada::country}}. It has {{c1::1 million}} people."
    )
    assert cloze_numbers(text) == [1, 2]
    assert cloze_question(text) == "[…] is the capital of [country]. It has […] people."
    assert cloze_key_point(text, 1) == (
        "**Ottawa** is the capital of Canada. It has **1 million** people."
    )
    assert cloze_key_point(text, 2) == "Ottawa is the capital of **Canada**."
    assert (
        cloze_key_point("日本の首都は{{c1::東京}}です。大きい。", 1)
        == "日本の首都は**東京**です。大きい。"
    )


def test_titles_and_deck_folders_are_safe_and_keep_unicode() -> None:
    assert deck_folder("Langues::Français: verbes/irréguliers") == (
        "Langues/Français- verbes-irréguliers"
    )
    assert deck_folder("::..") == "Deck/Deck"
    long = "word " * 60
    assert len(title_of(long)) <= 120 and title_of(long).endswith("…")


BASIC = NoteType(1, "Basic", False, ("Front", "Back", "Notes"), ("Front",), ("Back",))
CLOZE = NoteType(2, "Cloze", True, ("Text", "Back Extra"), ("Text",), ("Back Extra",))
OCCLUSION = NoteType(3, "Image Occlusion", True, ("Occlusion", "Image"), ("Occlusion",), (), True)


def _package(
    *notes: PackageNote,
    cards: tuple[PackageCard, ...] = (),
    reviews: dict[int, tuple[PackageReview, ...]] | None = None,
) -> Package:
    return Package(
        kind="apkg (current format)",
        created=int(datetime(2026, 10, 1, 4, tzinfo=UTC).timestamp()),
        notetypes={1: BASIC, 2: CLOZE, 3: OCCLUSION},
        decks={1: "Default", 7: "Lang::日本語"},
        notes=notes,
        cards=cards,
        reviews=reviews or {},
    )


def test_notes_that_cannot_be_notes_are_skipped_with_the_reason() -> None:
    plan = plan_notes(
        _package(
            PackageNote(1, "g1", 1, ("", "", ""), ()),
            PackageNote(2, "g2", 1, ("Question only?", "", ""), ()),
            PackageNote(3, "g3", 3, ("{{c1::image-occlusion:rect:left=.1}}", "<img>"), ()),
            PackageNote(4, "g4", 2, ("No deletion here.", ""), ()),
            PackageNote(5, "g5", 9, ("Odd type", "x"), ()),
            PackageNote(6, "g6", 1, ("Kept?", "Yes", "a note"), ("t::u",)),
        ),
        already={"g6"},
    )
    assert plan.notes == ()
    assert [s.reason for s in plan.skipped] == [
        "the note is empty",
        "the answer side has no text to make a key point of",
        "an image occlusion note: Coach has no way to mask a picture",
        "a cloze note with no cloze deletion in it",
        "its note type is missing from the package",
        "already imported",
    ]
    assert plan.skipped[-1] == Skipped("Kept?", "already imported")


def _review(card: int, days_ago: int, ease: int, kind: int = 1) -> PackageReview:
    at = datetime(2026, 12, 5, 12, tzinfo=UTC) - timedelta(days=days_ago)
    return PackageReview(int(at.timestamp() * 1000), card, ease, 1, kind)


def test_the_replay_continues_from_the_card_as_anki_left_it() -> None:
    created = datetime(2026, 10, 1, 4, tzinfo=UTC)
    card = PackageCard(11, 6, 7, 0, 2, 2, 100, 40, 2500, Memory(41.5, 5.2))
    log = (_review(11, 30, 3, 0), _review(11, 7, 3), _review(11, 6, 0, 4))
    plan = plan_notes(
        _package(
            PackageNote(6, "g6", 1, ("Capital of Japan?", "Tokyo", "Edo before"), ("geo",)),
            cards=(card,),
            reviews={11: log},
        )
    )
    (note,) = plan.notes
    assert note.folder == "Lang/日本語" and note.tags == ("geo",)
    assert note.reviews == 2 and plan.left_out_reviews == 1
    assert "## Notes\n\nEdo before" in note.body(lambda name: None)
    ((index, history),) = note.histories
    assert index == 0
    record = imported_review(
        note_id=note.note_id, digest=assertion_digest("Tokyo"), text="Tokyo", source="anki",
        card="11", reviews=history.reviews, due=history.due or "",
        stability=history.stability, difficulty=history.difficulty,
        imported_at="2026-12-05T12:00:00.000000+00:00",
    )  # fmt: skip
    states, rows = note_memory(note.note_id, [], [], fsrs_scheduler(), imported=[record])
    (state,) = states
    assert state.due == (created + timedelta(days=100)).isoformat(timespec="microseconds")
    assert state.stability == 41.5 and state.difficulty == 5.2 and state.reviews == 2
    assert [r.source for r in rows] == ["imported", "imported"]
    # Replaying the log alone would have it due within days of the last review.
    alone, _ = note_memory(
        note.note_id, [], [], fsrs_scheduler(),
        imported=[record.model_copy(update={"due": record.reviews[-1][0]})],
    )  # fmt: skip
    assert alone[0].due < state.due


def test_a_csv_with_or_without_a_header_is_a_deck_named_after_the_file(tmp_path: Path) -> None:
    plain = tmp_path / "Plain deck.csv"
    plain.write_text("Q one;A one;t1 t2\nQ two;A two\n", encoding="utf-8")
    package = read_csv(plain)
    assert package.decks == {0: "Plain deck"}
    assert [n.fields[:2] for n in package.notes] == [("Q one", "A one"), ("Q two", "A two")]
    assert package.notes[0].tags == ("t1", "t2")
    headed = tmp_path / "h.csv"
    headed.write_text("\ufefftags,Answer,Question\nx,B,A\n", encoding="utf-8")
    (note,) = read_csv(headed).notes
    assert note.fields[:2] == ("A", "B") and note.tags == ("x",)
    one = tmp_path / "one.csv"
    one.write_text("just one column\nanother\n", encoding="utf-8")
    with pytest.raises(PackageUnreadable, match="one column"):
        read_csv(one)
    latin = tmp_path / "latin.csv"
    latin.write_bytes("caf\xe9,x\n".encode("latin-1"))
    with pytest.raises(PackageUnreadable, match="not UTF-8"):
        read_csv(latin)


def test_the_protobuf_reader_reads_varints_and_strings_and_refuses_junk() -> None:
    message = b"\x08\x01" + b"\x12\x05hello" + b"\xf8\x0f\x07"  # 1: 1, 2: "hello", 255: 7
    found = fields_of(message)
    assert varint_field(found, 1) == 1 and text_field(found, 2) == "hello"
    assert varint_field(found, 255) == 7
    for junk in (b"\x12\x09short", b"\x08", b"\x0b"):
        with pytest.raises(ValueError):
            fields_of(junk)


def test_a_forged_history_from_another_computer_is_refused_before_it_is_stored() -> None:
    """Found by review: a rating of 9, a time that is no time, or no due day passed the
    sync check and then stopped every schedule read (the row cannot be deleted)."""
    import json

    from pydantic import ValidationError

    from coach_gui.adapters.journal.sync_kinds import _imported_problem
    from coach_gui.domain.imported_reviews import imported_review
    from coach_gui.domain.memory import assertion_digest

    good = dict(
        note_id="n1", digest=assertion_digest("key one"), text="key one", source="anki",
        card="1", reviews=[("2025-01-01T00:00:00+00:00", 3)], due="2025-02-01T00:00:00+00:00",
        stability=5.0, difficulty=5.0, imported_at="2025-03-01T00:00:00+00:00",
    )  # fmt: skip
    record = imported_review(**good)  # type: ignore[arg-type]
    row = {
        "id": record.id, "note_id": record.note_id, "assertion_digest": record.digest,
        "assertion": record.text, "source": record.source, "card": record.card,
        "reviews": json.dumps([list(r) for r in record.reviews]), "due": record.due,
        "stability": repr(record.stability), "difficulty": repr(record.difficulty),
        "imported_at": record.imported_at,
    }  # fmt: skip
    assert _imported_problem(row) is None
    forged = {
        "reviews": json.dumps([["2025-01-01T00:00:00+00:00", 9]]),
        "due": "",
        "imported_at": "yesterday",
    }
    for key, value in forged.items():
        assert _imported_problem({**row, key: value}) is not None, key
    for bad in (
        {"reviews": [("2025-01-01T00:00:00+00:00", 9)]},
        {"reviews": [("yesterday", 3)]},
        {"due": ""},
        {"stability": float("inf")},
    ):
        with pytest.raises(ValidationError):
            imported_review(**{**good, **bad})  # type: ignore[arg-type]
