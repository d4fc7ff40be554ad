"""Import an Anki package or a CSV (issue 37, DESIGN §3), for the window and the terminal:
first a preview (what would be written, what is skipped and why, how many reviews come
along), then the import itself, note by note, with progress and a cancel check, so the
window can show Progress and Cancel for a large deck. New files only; a second import of
the same deck adds nothing (its notes are "already imported"). Each note's review
history is recorded, sealed, with its key points (`domain/imported_reviews.py`).

    preview = anki_import.preview(ports, Path("deck.apkg"))
    report = anki_import.apply(ports, preview, progress=on_progress, cancelled=stop)
    report.changes  # what the window broadcasts
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import ValidationError

from coach_gui.domain.anki_notes import PlannedNote, Skipped, plan_notes
from coach_gui.domain.anki_package import Package, PackageUnreadable
from coach_gui.domain.changes import NOTES_IMPORTED, Changes
from coach_gui.domain.imported_reviews import ImportedReview, imported_review
from coach_gui.domain.memory import assertion_digest
from coach_gui.domain.notes import Note
from coach_gui.operations.app import HasClock, HasScheduler
from coach_gui.services.ports.imports import ImportFolder, PackageSource

CSV_SUFFIXES = (".csv", ".tsv", ".txt")
# Pictures and sounds copied in one import, at most: a hostile package's files, each
# small in the zip and huge unpacked, must not fill the disk.
MAX_MEDIA_BYTES = 4 * 2**30
_BATCH = 200  # notes whose reviews are stored in one transaction

Progress = Callable[[int, int], None]  # (notes done, notes to do)
Cancelled = Callable[[], bool]


class ImportPorts(HasClock, HasScheduler, Protocol):
    def package_source(self, path: Path) -> PackageSource:
        """What reads `path`: the Anki package reader, or the CSV reader for a CSV."""
        ...

    def import_folder(self) -> ImportFolder: ...


@dataclass(frozen=True)
class ImportPreview:
    """What an import of `path` would do; nothing is written yet."""

    path: Path
    kind: str  # "apkg (current format)", "apkg (legacy format)", "colpkg (…)", "csv"
    notes: tuple[PlannedNote, ...]
    skipped: tuple[Skipped, ...]
    reviews: int  # review-log entries that come along
    media: int  # media files the notes name
    location: str  # the knowledge base
    package: Package = field(repr=False)
    again: tuple[PlannedNote, ...] = field(default=(), repr=False)  # see NotesPlan.again

    @property
    def folders(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(n.folder for n in self.notes))

    def to_json(self) -> dict[str, object]:
        return {
            "file": str(self.path),
            "kind": self.kind,
            "knowledge_base": self.location,
            "notes": [
                {
                    "title": n.title,
                    "folder": n.folder,
                    "deck": n.deck,
                    "key_points": list(n.key_points),
                    "tags": list(n.tags),
                    "reviews": n.reviews,
                    "media": list(n.media),
                }
                for n in self.notes
            ],
            "skipped": [s.to_json() for s in self.skipped],
            "reviews": self.reviews,
            "media": self.media,
            "folders": list(self.folders),
        }


@dataclass(frozen=True)
class CreatedNote:
    file_name: str
    note_id: str
    title: str
    key_points: int
    reviews: int

    def to_json(self) -> dict[str, object]:
        return {"file": self.file_name, "note_id": self.note_id, "title": self.title,
                "key_points": self.key_points, "reviews": self.reviews}  # fmt: skip


@dataclass(frozen=True)
class ImportReport:
    path: Path
    kind: str
    created: tuple[CreatedNote, ...]
    skipped: tuple[Skipped, ...]
    reviews_imported: int  # review-log entries now the history of a key point
    histories: int  # key points given a history
    media_copied: int
    cancelled: bool  # stopped before the end: the notes written so far are kept

    @property
    def changes(self) -> Changes:
        return NOTES_IMPORTED

    def to_json(self) -> dict[str, object]:
        return {
            "file": str(self.path),
            "kind": self.kind,
            "created": [c.to_json() for c in self.created],
            "skipped": [s.to_json() for s in self.skipped],
            "reviews_imported": self.reviews_imported,
            "histories": self.histories,
            "media_copied": self.media_copied,
            "cancelled": self.cancelled,
        }


def preview(ports: ImportPorts, path: Path) -> ImportPreview:
    """Read `path` and plan the import. PackageUnreadable says in a sentence what is wrong
    with a damaged or unknown file."""
    package = ports.package_source(path).read(path)
    folder = ports.import_folder()
    try:
        plan = plan_notes(package, folder.imported_guids())
    except (OverflowError, ValueError, OSError):  # a date no Anki writes (day 900,000,000…)
        raise PackageUnreadable(
            f"{path.name} holds dates in its review log or schedule that Anki never writes, "
            "so its history cannot be read. Export the deck from Anki again."
        ) from None
    return ImportPreview(
        path=path,
        kind=package.kind,
        notes=plan.notes,
        skipped=plan.skipped,
        again=plan.again,
        reviews=sum(n.reviews for n in plan.notes),
        media=len(plan.media),
        location=folder.location,
        package=package,
    )


class _Media:
    """Media copied once per deck folder; a name the package lacks is reported once."""

    def __init__(self, ports: ImportPorts, plan: ImportPreview, folder: ImportFolder) -> None:
        self._source = ports.package_source(plan.path)
        self._plan = plan
        self._folder = folder
        self.copied: dict[tuple[str, str], str] = {}
        self.missing: dict[str, str] = {}  # name -> why
        self.size = 0  # bytes copied so far

    def linker(self, note: PlannedNote) -> Callable[[str], str | None]:
        def link(name: str) -> str | None:
            key = (note.folder, name)
            if key in self.copied:
                return self.copied[key]
            member = self._plan.package.media.get(name)
            if member is None:
                self.missing.setdefault(name, "it is not in the package")
                return None
            try:
                data = self._source.media(self._plan.path, member)
            except PackageUnreadable as exc:
                self.missing.setdefault(name, str(exc))
                return None
            if self.size + len(data) > MAX_MEDIA_BYTES:
                self.missing.setdefault(
                    name,
                    f"the package's pictures and sounds add up to more than "
                    f"{MAX_MEDIA_BYTES // 2**30} GB; copy the rest from Anki's media folder",
                )
                return None
            self.size += len(data)
            self.copied[key] = self._folder.copy_media(note.folder, name, data)
            return self.copied[key]

        return link


def _histories(note: PlannedNote, at: str) -> list[ImportedReview]:
    return [
        imported_review(
            note_id=note.note_id,
            digest=assertion_digest(note.key_points[index]),
            text=note.key_points[index],
            source="anki",
            card=str(history.card.id),
            reviews=history.reviews,
            due=history.due or "",
            stability=history.stability,
            difficulty=history.difficulty,
            imported_at=at,
        )
        for index, history in note.histories
    ]


def _write(
    folder: ImportFolder, planned: PlannedNote, media: _Media, at: str
) -> tuple[CreatedNote, list[ImportedReview]] | Skipped:
    """One planned note written, with its histories, or why it cannot be a note. The
    histories are made first: a note is never written without the history it comes with."""
    try:
        records = _histories(planned, at)
        note = Note(
            id=planned.note_id, title=planned.title, tags=planned.tags,
            core_assertions=planned.key_points, body=planned.body(media.linker(planned)),
        )  # fmt: skip
    except ValidationError as exc:
        reason = exc.errors()[0].get("msg", "its text cannot be a note")
        return Skipped(planned.title, f"it cannot be a note: {reason}")
    extra = {"anki_guid": planned.guid, "anki_deck": planned.deck,
             "anki_note_type": planned.notetype}  # fmt: skip
    file_name = folder.write_note(planned.folder, note, extra)
    made = CreatedNote(file_name, note.id, note.title, len(note.core_assertions), planned.reviews)
    return made, records


def apply(
    ports: ImportPorts,
    plan: ImportPreview,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> ImportReport:
    """Write the planned notes (new files only), copy their media and record their review
    histories. `cancelled` is asked before each note: the notes written by then stay,
    with their histories. `progress(done, total)` after each note, skipped or written.
    A note that cannot be written (NoteError: the folder is not writable, the disk is
    full) stops the import; what was written stays, with its histories."""
    folder = ports.import_folder()
    already = folder.imported_guids()  # another import may have run since the preview
    memory = ports.scheduler().memory
    at = ports.clock.now()
    media = _Media(ports, plan, folder)
    created: list[CreatedNote] = []
    skipped = list(plan.skipped)
    pending: list[ImportedReview] = []
    stored = histories = 0
    stopped = False
    total = len(plan.notes)
    # Notes imported before whose history never was (an import stopped by a crash or a
    # quit between a note and its batch of histories): importing again gives them it.
    wanting = [p for p in plan.again if p.guid in already]
    have = {r.note_id for r in memory.imported_reviews([p.note_id for p in wanting])}
    for planned in (p for p in wanting if p.note_id not in have):
        with contextlib.suppress(ValidationError):
            restored = _histories(planned, at)
            pending += restored
            histories += len(restored)
            stored += planned.reviews
    try:
        for done, planned in enumerate(plan.notes):
            if cancelled is not None and cancelled():
                stopped = True
                break
            if planned.guid in already:
                skipped.append(Skipped(planned.title, "already imported"))
            else:
                found = _write(folder, planned, media, at)
                if isinstance(found, Skipped):
                    skipped.append(found)
                else:
                    made, records = found
                    created.append(made)
                    pending += records
                    histories += len(records)
                    stored += made.reviews
                    if len(created) % _BATCH == 0:
                        memory.record_imported_reviews(pending)
                        pending = []
            if progress is not None:
                progress(done + 1, total)
    finally:  # the histories of the notes written so far, whatever stopped the import
        memory.record_imported_reviews(pending)
    skipped += [Skipped(f"media file {name}", why) for name, why in media.missing.items()]
    return ImportReport(
        path=plan.path, kind=plan.kind, created=tuple(created), skipped=tuple(skipped),
        reviews_imported=stored, histories=histories, media_copied=len(media.copied),
        cancelled=stopped,
    )  # fmt: skip


def import_file(
    ports: ImportPorts,
    path: Path,
    *,
    progress: Progress | None = None,
    cancelled: Cancelled | None = None,
) -> ImportReport:
    """Preview and apply in one step (the terminal's `coach import`)."""
    return apply(ports, preview(ports, path), progress=progress, cancelled=cancelled)
