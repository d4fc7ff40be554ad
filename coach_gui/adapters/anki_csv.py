"""A CSV file read as a package of one deck (issue 37): each row a note, its columns
question, answer and (optionally) tags separated by spaces. A first row naming the
columns (`question,answer,tags`, any case; `front`/`back` too) is a header and may put
them in another order; otherwise the columns are taken in that order. Comma, semicolon
or tab separated (as Anki's own CSV export, whose `#separator:` lines are read past);
UTF-8, with or without a BOM. The deck is named after the file."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

from coach_gui.domain.anki_package import NoteType, Package, PackageNote, PackageUnreadable
from coach_gui.files import read_limited

MAX_CSV = 64 * 2**20
_NAMES = {"question": 0, "front": 0, "answer": 1, "back": 1, "tags": 2}
CSV_TYPE = NoteType(
    id=0, name="CSV", cloze=False, fields=("Question", "Answer", "Tags"),
    question_fields=("Question",), answer_fields=("Answer",),
)  # fmt: skip


def _text(path: Path) -> str:
    try:
        raw = read_limited(path, MAX_CSV)
    except FileNotFoundError:
        raise PackageUnreadable(f"There is no file {path}. Check the name and try again.") from None
    except OSError as exc:
        raise PackageUnreadable(f"{path.name} cannot be read ({exc.strerror}).") from None
    if len(raw) > MAX_CSV:
        raise PackageUnreadable(f"{path.name} is larger than Coach reads ({MAX_CSV // 2**20} MB).")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise PackageUnreadable(
            f"{path.name} is not UTF-8 text. Save it as CSV UTF-8 and import it again."
        ) from None


def read_csv(path: Path) -> Package:
    lines = [ln for ln in _text(path).splitlines() if not ln.startswith("#")]
    text = "\n".join(lines)
    first = next((ln for ln in lines if ln.strip()), "")
    separator = max("\t;,", key=first.count)  # the one the first row uses most
    csv.field_size_limit(MAX_CSV)  # a long answer is a cell, not an error
    try:
        rows = [
            r
            for r in csv.reader(io.StringIO(text), delimiter=separator)
            if any(c.strip() for c in r)
        ]
    except csv.Error:
        raise PackageUnreadable(
            f"{path.name} does not read as CSV (a quote is never closed, say). Save it as "
            "CSV UTF-8 and import it again."
        ) from None
    order = (0, 1, 2)
    if rows and {c.strip().lower() for c in rows[0]} & {"question", "answer", "front", "back"}:
        header = [c.strip().lower() for c in rows.pop(0)]
        found = {_NAMES[h]: n for n, h in enumerate(header) if h in _NAMES}
        if 0 not in found or 1 not in found:
            raise PackageUnreadable(
                f"{path.name} has a header row without a question and an answer column. "
                "Name them question and answer (and tags, if you have them)."
            )
        order = (found[0], found[1], found.get(2, -1))
    if rows and max(len(r) for r in rows) < 2:
        raise PackageUnreadable(
            f"{path.name} has one column; Coach needs a question and an answer per row "
            "(comma, semicolon or tab separated)."
        )
    notes = []
    for number, row in enumerate(rows, start=1):
        cells = [row[i].strip() if 0 <= i < len(row) else "" for i in order]
        guid = "csv-" + hashlib.sha256(f"{cells[0]}\x1f{cells[1]}".encode()).hexdigest()[:20]
        notes.append(
            PackageNote(id=number, guid=guid, notetype_id=0, fields=(cells[0], cells[1], ""),
                        tags=tuple(cells[2].split()))
        )  # fmt: skip
    return Package(
        kind="csv", created=0, notetypes={0: CSV_TYPE}, decks={0: path.stem or "CSV"},
        notes=tuple(notes), cards=(),
    )  # fmt: skip
