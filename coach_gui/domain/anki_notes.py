"""Anki notes as Coach notes (issue 37, ADR 0038): the plan of an import.

Each Anki note becomes a note in a folder named after its deck (`Parent::Child` becomes
`Parent/Child`): its title comes from the question side, its key points from the answer
side (one per list item or line; a cloze note has one per cloze number, the sentence with
that answer filled in and set in bold), its tags are kept (`a::b` becomes `a/b`), and the
fields that fit nowhere go into its body, with the question and answer as written and the
media they name. What cannot become a note is skipped with the reason.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from coach_gui.domain.anki_html import Link as Link
from coach_gui.domain.anki_html import (
    cloze_answer,
    cloze_key_point,
    cloze_numbers,
    cloze_question,
    key_points,
    media_names,
    plain,
    to_markdown,
)
from coach_gui.domain.anki_package import NoteType, Package, PackageNote
from coach_gui.domain.imported_reviews import CardHistory

MAX_TITLE = 120
_UNSAFE_IN_FOLDERS = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|#^\[\]]')


@dataclass(frozen=True)
class Skipped:
    item: str  # what was not imported, in the learner's words
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"item": self.item, "reason": self.reason}


@dataclass(frozen=True)
class PlannedNote:
    """One note the import would write (its body is written with the media's places)."""

    guid: str
    note_id: str
    deck: str
    folder: str  # inside the knowledge base, '/'-separated
    title: str
    key_points: tuple[str, ...]
    tags: tuple[str, ...]
    notetype: str
    sections: tuple[tuple[str, str], ...]  # (heading, HTML) for the body
    media: tuple[str, ...]  # names in the package
    histories: tuple[tuple[int, CardHistory], ...] = ()  # (key point index, card)

    def body(self, link: Link) -> str:
        parts = [f"# {self.title}"]
        for heading, html in self.sections:
            text = to_markdown(html, link)
            if text:
                parts.append(f"## {heading}\n\n{text}")
        parts.append(f"*Imported from Anki, deck {self.deck}.*")
        return "\n\n".join(parts) + "\n"

    @property
    def reviews(self) -> int:
        cards = {h.card.id: len(h.reviews) for _, h in self.histories}
        return sum(cards.values())


@dataclass(frozen=True)
class NotesPlan:
    notes: tuple[PlannedNote, ...]
    skipped: tuple[Skipped, ...]
    left_out_reviews: int = 0
    media: tuple[str, ...] = field(default=())
    # Notes a former import wrote, with the histories they came with: importing again
    # gives them any history they never got (an import stopped between the two).
    again: tuple[PlannedNote, ...] = ()


def coach_note_id(guid: str) -> str:
    """A Coach id for the Anki note `guid`: the same at every import, so a second import
    finds it."""
    return "anki-" + hashlib.sha256(guid.encode("utf-8")).hexdigest()[:24]


def deck_folder(deck: str) -> str:
    """`Parent::Child` as `Parent/Child`, each part a folder name any system can hold
    (Unicode kept)."""
    parts = []
    for part in deck.split("::"):
        name = " ".join(_UNSAFE_IN_FOLDERS.sub("-", unicodedata.normalize("NFC", part)).split())
        name = name.strip(". ")[:100].strip(". ")
        parts.append(name or "Deck")
    return "/".join(parts) or "Anki"


def coach_tag(tag: str) -> str:
    return tag.replace("::", "/").strip()


def title_of(text: str) -> str:
    """One line of at most MAX_TITLE characters, cut at a word."""
    line = " ".join(text.split())
    if len(line) <= MAX_TITLE:
        return line
    cut = line[: MAX_TITLE - 1]
    if " " in cut[MAX_TITLE // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"


def _field_map(note: PackageNote, notetype: NoteType) -> dict[str, str]:
    return {
        name: note.fields[n] if n < len(note.fields) else ""
        for n, name in enumerate(notetype.fields)
    }


def _histories(
    note: PackageNote,
    points: tuple[str, ...],
    cloze: dict[int, int],
    cards: dict[int, list[CardHistory]],
) -> tuple[tuple[int, CardHistory], ...]:
    usable = [h for h in cards.get(note.id, []) if h.usable]
    if not usable:
        return ()
    if cloze:  # key point `index` is cloze number n: card n - 1
        by_ord = {h.card.ord: h for h in usable}
        return tuple(
            (index, by_ord[number - 1]) for number, index in cloze.items() if number - 1 in by_ord
        )
    latest = max(usable, key=lambda h: h.last_review_ms)  # a reversed card: the latest's
    return tuple((index, latest) for index in range(len(points)))


def plan_note(
    note: PackageNote, package: Package, cards: dict[int, list[CardHistory]]
) -> PlannedNote | Skipped:
    notetype = package.notetypes.get(note.notetype_id)
    fields = _field_map(note, notetype) if notetype else {}
    first = next((f for f in note.fields if f.strip()), "")
    label = title_of(plain(cloze_question(to_markdown(first)))) or f"note {note.guid}"
    if notetype is None:
        return Skipped(label, "its note type is missing from the package")
    if notetype.image_occlusion or any("image-occlusion:" in f for f in note.fields):
        header = title_of(plain(to_markdown(fields.get("Header", ""))))
        return Skipped(
            f"{notetype.name} note" + (f" “{header}”" if header else ""),
            "an image occlusion note: Coach has no way to mask a picture",
        )
    if not any(plain(to_markdown(f)) for f in note.fields):
        return Skipped(label, "the note is empty")
    decks = {c.card.deck_id for c in cards.get(note.id, [])}
    deck = package.decks.get(min(decks), "Default") if decks else package.decks.get(0, "Default")
    used = set(notetype.question_fields) | set(notetype.answer_fields)
    question_html = "<br>".join(fields[f] for f in notetype.question_fields if fields.get(f))
    cloze: dict[int, int] = {}
    if notetype.cloze:
        numbers = cloze_numbers(question_html)
        if not numbers:
            return Skipped(label, "a cloze note with no cloze deletion in it")
        text = to_markdown(question_html)
        points = tuple(dict.fromkeys(cloze_key_point(text, n) for n in numbers))
        cloze = {n: points.index(cloze_key_point(text, n)) for n in numbers}
        title = title_of(plain(cloze_question(text)))
        sections = [("Text", cloze_answer(question_html))]
        sections += [(f, fields[f]) for f in notetype.answer_fields if fields.get(f)]
    else:
        answer_html = "<br>".join(fields[f] for f in notetype.answer_fields if fields.get(f))
        points = key_points(to_markdown(answer_html))
        if not points:
            return Skipped(label, "the answer side has no text to make a key point of")
        title = title_of(plain(to_markdown(question_html)))
        sections = [("Question", question_html), ("Answer", answer_html)]
    if not title:
        title = title_of(plain(points[0]))
    extra_fields = [(name, html) for name, html in fields.items() if name not in used and html]
    sections += extra_fields
    media = tuple(dict.fromkeys(n for _, html in sections for n in media_names(html)))
    return PlannedNote(
        guid=note.guid,
        note_id=coach_note_id(note.guid),
        deck=deck,
        folder=deck_folder(deck),
        title=title,
        key_points=points,
        tags=tuple(dict.fromkeys(t for t in (coach_tag(t) for t in note.tags) if t)),
        notetype=notetype.name,
        sections=tuple(sections),
        media=media,
        histories=_histories(note, points, cloze, cards),
    )


def plan_notes(package: Package, already: Iterable[str] = ()) -> NotesPlan:
    """Every note of `package` planned or skipped; `already`: the Anki ids (guids) of the
    notes a former import wrote, which are skipped as already imported."""
    done = set(already)
    histories: dict[int, list[CardHistory]] = {}
    left_out = 0
    for card in package.cards:
        history = CardHistory(card, package.reviews.get(card.id, ()), package.created)
        histories.setdefault(card.note_id, []).append(history)
    planned: list[PlannedNote] = []
    skipped: list[Skipped] = []
    again: list[PlannedNote] = []
    for note in package.notes:
        result = plan_note(note, package, histories)
        if isinstance(result, Skipped):
            skipped.append(result)
        elif note.guid in done:
            skipped.append(Skipped(result.title, "already imported"))
            if result.histories:
                again.append(result)
        else:
            planned.append(result)
            done.add(note.guid)
            left_out += sum(h.left_out for h in histories.get(note.id, []))
    if left_out:
        skipped.append(
            Skipped(
                f"{left_out} review-log entr{'y' if left_out == 1 else 'ies'}",
                "manual changes in Anki (set due date, reset, reschedule) or reviews in a"
                " filtered deck that did not count: they are not reviews",
            )
        )
    media = tuple(dict.fromkeys(m for p in planned for m in p.media))
    return NotesPlan(tuple(planned), tuple(skipped), left_out, media, tuple(again))
