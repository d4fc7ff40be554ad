"""Issue 37: what a key point's card says and how Anki knows it, without writing a file."""

from __future__ import annotations

from coach_gui.adapters.anki_writer import card_fields, csv_row, deck_id, review_log_rows
from coach_gui.domain.anki_cards import (
    CardReview,
    KeyPointCard,
    anki_tag,
    anki_tags,
    card_front,
    card_guid,
    deck_for,
    key_point_cards,
)
from coach_gui.domain.memory import MemoryState, ReviewRow, assertion_digest
from coach_gui.domain.notes import Note, NoteEntry

POINTS = ("Variation is heritable.", "More are born than survive.", "Variation is heritable.")


def _entry(file_name: str = "Biology/Evolution/selection.md") -> NoteEntry:
    note = Note(
        id="n1", title="Natural selection", tags=("biology", "natural selection"),
        core_assertions=POINTS, body="Darwin's idea. #evolution/darwin",
    )  # fmt: skip
    return NoteEntry(note=note, file_name=file_name)


def test_the_front_names_the_note_and_which_key_point_never_the_key_point() -> None:
    cards = key_point_cards([_entry()], {}, {})
    assert [c.text for c in cards] == list(POINTS[:2])  # a key point written twice: one card
    for card in cards:
        assert card.front == f"Natural selection — Key point {card.number} of 2"
        assert card.text not in card.front
        fields = card_fields(card)
        assert fields[0] == "Natural selection" and fields[2] == card.text
        assert card.text not in fields[0] + fields[1]
    assert card_front("T", 2, 4) == "T — Key point 2 of 4"


def test_guids_are_stable_per_note_and_key_point_and_differ_between_them() -> None:
    digest = assertion_digest(POINTS[0])
    assert card_guid("n1", digest) == card_guid("n1", digest)
    assert card_guid("n1", digest) != card_guid("n2", digest)
    assert card_guid("n1", digest) != card_guid("n1", assertion_digest(POINTS[1]))
    first, again = key_point_cards([_entry()], {}, {}), key_point_cards([_entry("x.md")], {}, {})
    assert [c.guid for c in first] == [c.guid for c in again]  # moving the file keeps them
    assert " " not in first[0].guid and len(first[0].guid) < 40


def test_tags_and_decks_are_written_as_anki_keeps_them() -> None:
    assert anki_tag("natural selection") == "natural_selection"
    assert anki_tag("#topic/evolution/") == "topic::evolution"
    assert anki_tag("  ") == ""
    assert anki_tags(["a b", "a_b", "#c"]) == ("a_b", "c")
    card = key_point_cards([_entry()], {}, {})[0]
    assert card.tags == ("biology", "natural_selection", "evolution::darwin")
    assert card.deck == "Coach::Biology::Evolution"
    assert deck_for("top.md") == "Coach"
    assert deck_id("Coach::Biology") == deck_id("Coach::Biology") != deck_id("Coach")


def _state(due: str = "2026-03-10T09:00:00.000000+00:00") -> MemoryState:
    return MemoryState(
        "n1", assertion_digest(POINTS[0]), POINTS[0], 2, 12.5, 5.25, due,
        "2026-03-01T09:00:00.000000+00:00", 3, 3, lapses=1,
    )  # fmt: skip


def test_the_review_log_keeps_every_counted_review_with_unique_ids() -> None:
    digest = assertion_digest(POINTS[0])
    at = "2026-02-01T09:00:00.000000+00:00"
    rows = [
        ReviewRow("n1", digest, "s1", at, 3, "judge", False),
        ReviewRow("n1", digest, "s2", "2026-02-05T09:00:00.000000+00:00", 1, "judge", True),
        ReviewRow("n1", digest, "s3", "2026-02-06T09:00:00.000000+00:00", 4, "self", True, True),
        ReviewRow("n1", digest, "s4", "2026-03-01T09:00:00.000000+00:00", 3, "later", True),
    ]
    card = key_point_cards([_entry()], {("n1", digest): _state()}, {("n1", digest): rows})[0]
    assert card.reviews == (
        CardReview(at, 3),
        CardReview(rows[1].at, 1),
        CardReview(rows[3].at, 3),
    )  # the undone one is not counted
    taken = {1_769_936_400_000}  # another card's review at the same instant
    log = review_log_rows(7, card, taken)
    assert [r[0] for r in log] == [1_769_936_400_001, 1_770_282_000_000, 1_772_355_600_000]
    assert [(r[3], r[8]) for r in log] == [(3, 0), (1, 1), (3, 1)]  # ease, learn then review
    assert [r[4] for r in log] == [4, 24, 9]  # days to the next review, then to the due day
    assert [r[5] for r in log] == [0, 4, 24]


def test_a_csv_cell_never_runs_as_a_formula() -> None:
    card = key_point_cards([_entry()], {}, {})[0]
    hostile = KeyPointCard(
        guid=card.guid, note_id="n1", title="=HYPERLINK(\"http://x\")", file_name="a.md",
        number=1, count=1, text="-1 is less than 0", source="", tags=("@x",), deck="Coach",
        memory=_state(),
    )  # fmt: skip
    row = csv_row(hostile)
    assert row[0] == '\'=HYPERLINK("http://x")' and row[5] == "'-1 is less than 0"
    assert row[6] == "'@x"
    assert row[8:] == [_state().due, _state().last_review, "12.5000", "5.2500", "0", "1", ""]
