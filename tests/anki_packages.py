"""Anki packages made by Anki's own library (issue 37's round trip): a collection with a
Basic note in HTML with a list, a picture and tags, a cloze note, a note type with a field
that fits nowhere, an image occlusion note, one card reviewed last week with a 40-day
interval (FSRS memory kept on the card), one answered Easy just now through Anki's own
scheduler, and a manual "set due date" entry in the review log; exported as the current
and the legacy `.apkg` and as a `.colpkg`. `Expected` is what Anki itself says."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path

PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


@dataclass
class Expected:
    """What Anki says of the collection the packages were made from."""

    # guid -> due date per card ord, as Anki counts it (its day, from the collection's start)
    due_days: dict[str, dict[int, date]] = field(default_factory=dict)
    # guid -> Anki's own card-info due time (seconds), per card ord
    shown_due: dict[str, dict[int, int]] = field(default_factory=dict)
    guids: dict[str, str] = field(default_factory=dict)  # our name -> guid
    reviews: int = 0  # counted review-log entries of the reviewed cards


@dataclass
class Packages:
    current: Path
    legacy: Path
    colpkg: Path
    expected: Expected


def make_packages(folder: Path) -> Packages:
    import anki.collection  # before anki.cards: alone, that is a circular import
    from anki.cards import FSRSMemoryState

    Collection, ExportAnkiPackageOptions = (
        anki.collection.Collection,
        anki.collection.ExportAnkiPackageOptions,
    )

    folder.mkdir(parents=True, exist_ok=True)
    col = Collection(str(folder / "collection.anki2"))
    try:
        col.db.execute("update col set crt = crt - 86400 * 60")  # begun two months ago
        col.close()
        col = Collection(str(folder / "collection.anki2"))
        expected = Expected()
        models = col.models
        deck = col.decks.id("Biology::Cells")
        assert deck is not None
        picture = col.media.write_data("mito chondrion.png", PNG)

        basic = col.new_note(models.by_name("Basic"))
        basic["Front"] = "What does the <b>mitochondrion</b> do?"
        basic["Back"] = (
            "<ul><li>It makes <i>ATP</i> for the cell</li><li>It has its own DNA</li></ul>"
            f'<img src="{picture}">'
        )
        basic.tags = ["biology", "cell::organelles"]
        col.add_note(basic, deck)
        expected.guids["basic"] = basic.guid

        cloze = col.new_note(models.by_name("Cloze"))
        cloze["Text"] = (
            "{{c1::Paris}} is the capital of {{c2::France::country}}. It lies on the Seine."
        )
        cloze["Back Extra"] = "Seen from the <u>Eiffel tower</u>."
        cloze.tags = ["geography"]
        col.add_note(cloze, col.decks.id("Geography"))
        expected.guids["cloze"] = cloze.guid

        sourced = models.copy(models.by_name("Basic"), add=False)
        sourced["name"] = "Basic with source"
        models.add_field(sourced, models.new_field("Source"))
        models.add(sourced)
        with_source = col.new_note(models.by_name("Basic with source"))
        with_source["Front"] = "Who wrote <i>On the Origin of Species</i>?"
        with_source["Back"] = "Charles Darwin<br>in 1859"
        with_source["Source"] = "A history of <b>biology</b>, p. 12"
        col.add_note(with_source, deck)
        expected.guids["sourced"] = with_source.guid

        occlusion = col.new_note(models.by_name("Image Occlusion"))
        occlusion["Occlusion"] = (
            "{{c1::image-occlusion:rect:left=.1:top=.1:width=.2:height=.2:oi=1}}"
        )
        occlusion["Image"] = f'<img src="{picture}">'
        col.add_note(occlusion, deck)
        expected.guids["occlusion"] = occlusion.guid

        # Reviewed 30, 25 and 7 days ago; now a 40-day interval, FSRS memory on the card.
        card = basic.cards()[0]
        today = col.sched.today
        card.type, card.queue, card.ivl, card.due = 2, 2, 40, today + 33
        card.reps, card.factor = 3, 2500
        card.memory_state = FSRSMemoryState(stability=41.5, difficulty=5.2)
        col.update_card(card)
        now = int(time.time())
        for n, (days, ease, ivl, kind) in enumerate([(30, 3, 1, 0), (25, 3, 6, 1), (7, 3, 40, 1)]):
            col.db.execute(
                "insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
                " values (?, ?, -1, ?, ?, 0, 2500, 5000, ?)",
                (now - days * 86400) * 1000 + n, card.id, ease, ivl, kind,
            )  # fmt: skip
        col.db.execute(  # a manual "set due date" (ease 0): not a review
            "insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type)"
            " values (?, ?, -1, 0, 40, 40, 2500, 0, 4)",
            (now - 6 * 86400) * 1000, card.id,
        )  # fmt: skip
        expected.reviews += 3

        # The cloze's first card answered Easy now by Anki's own scheduler (SM-2: no memory).
        first = next(c for c in cloze.cards() if c.ord == 0)
        col.decks.select(first.did)
        queued = col.sched.get_queued_cards(fetch_limit=50)
        entry = next(q for q in queued.cards if q.card.id == first.id)
        first = col.get_card(first.id)
        first.start_timer()
        easy = 3  # CardAnswer.EASY: the buttons count from 0 here
        col.sched.answer_card(col.sched.build_answer(card=first, states=entry.states, rating=easy))
        expected.reviews += 1

        for kept in (basic, cloze):
            note = col.get_note(kept.id)
            for c in note.cards():
                c = col.get_card(c.id)
                if c.type == 2:
                    moment = datetime.fromtimestamp(col.crt + c.due * 86400, UTC)
                    expected.due_days.setdefault(note.guid, {})[c.ord] = moment.date()
                    stats = col.card_stats_data(c.id)
                    expected.shown_due.setdefault(note.guid, {})[c.ord] = stats.due_date

        options = ExportAnkiPackageOptions(
            with_scheduling=True, with_media=True, with_deck_configs=False, legacy=False
        )
        current, legacy = folder / "deck.apkg", folder / "deck-legacy.apkg"
        col.export_anki_package(out_path=str(current), options=options, limit=None)
        options.legacy = True
        col.export_anki_package(out_path=str(legacy), options=options, limit=None)
        colpkg = folder / "collection.colpkg"
        col.export_collection_package(str(colpkg), include_media=True, legacy=False)
        return Packages(current, legacy, colpkg, expected)
    finally:
        col.close()
