"""Key point cards written as an Anki package or a CSV file (issue 37, ADR 0039).

genanki builds the package's collection — its schema, decks, note type, notes and cards —
into a SQLite file of ours; we then add what genanki does not write: each reviewed card's
scheduling (a review card due on Coach's due day, with FSRS's stability and difficulty in
`cards.data`, which Anki reads as the card's memory state) and its review log (`revlog`),
so FSRS in Anki continues where Coach left it. The collection says it is scheduled with
Anki's v2 scheduler or later (`schedVer` 2); without that, Anki upgrades it as a v1
collection and changes the eases of learning reviews. Its creation time is today's UTC
midnight, so a due day is a count of UTC days from today, as Anki shifts it on import.

Both files are written whole or not at all: into a temp file beside the target, synced,
then put in its place.
"""

from __future__ import annotations

import contextlib
import csv
import errno
import hashlib
import html
import io
import itertools
import json
import os
import sqlite3
import tempfile
import time
import zipfile
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

import genanki

from coach_gui.domain.anki_cards import (
    ROOT_DECK,
    ExportCancelled,
    ExportFailed,
    KeyPointCard,
    which_key_point,
)
from coach_gui.files import TEMP_MARK, fsync_dir
from coach_gui.services.ports.exports import Cancelled, CardProgress

# Coach's note type: its id must never change, or Anki would see a new note type at every
# export and keep the old cards beside the new ones.
MODEL_ID = 1_736_290_901
MODEL_NAME = "Coach key point"
STEP = 500  # cards between two progress reports (and cancel checks)
_DAY = 86_400
_FACTOR = 2500  # Anki's starting ease; FSRS does not read it
_CSS = """.card { font-family: sans-serif; font-size: 20px; text-align: center; }
.which { color: gray; font-size: 16px; margin-top: .5em; }
.keypoint { text-align: left; }
.source, .note { color: gray; font-size: 14px; margin-top: 1em; }"""
_FRONT = '<div class="title">{{Title}}</div><div class="which">{{Which}}</div>'
_BACK = (
    '{{FrontSide}}<hr id="answer"><div class="keypoint">{{KeyPoint}}</div>'
    '{{#Source}}<div class="source">{{Source}}</div>{{/Source}}'
    '<div class="note">{{Note}}</div>'
)
CSV_HEADER = (
    "note_title", "note_id", "note_file", "key_point", "key_points", "key_point_text",
    "tags", "deck", "due", "last_review", "stability", "difficulty", "reviews", "lapses",
    "suspended",
)  # fmt: skip


def coach_model() -> genanki.Model:
    return genanki.Model(
        MODEL_ID, MODEL_NAME,
        fields=[{"name": n} for n in ("Title", "Which", "KeyPoint", "Source", "Note")],
        templates=[{"name": "Key point", "qfmt": _FRONT, "afmt": _BACK}],
        css=_CSS,
    )  # fmt: skip


def deck_id(name: str) -> int:
    """A deck's id from its name, stable across exports, in genanki's advised range."""
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return (1 << 30) + int.from_bytes(digest[:4], "big") % (1 << 30)


def _html(text: str) -> str:
    return html.escape(text).replace("\r\n", "\n").replace("\n", "<br>")


def card_fields(card: KeyPointCard) -> list[str]:
    return [
        _html(card.title), which_key_point(card.number, card.count), _html(card.text),
        _html(card.source), _html(card.file_name),
    ]  # fmt: skip


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def _failed(path: Path, error: OSError) -> ExportFailed:
    reasons = {
        errno.ENOENT: "its folder does not exist",
        errno.EACCES: "you may not write there",
        errno.EPERM: "you may not write there",
        errno.EROFS: "that disk is read-only",
        errno.ENOSPC: "the disk is full",
        errno.EISDIR: "it is a folder",
    }
    reason = reasons.get(error.errno or 0, error.strerror or "the system refused")
    return ExportFailed(
        f"Coach could not write {path}: {reason}. Choose another file name or folder."
    )


@contextlib.contextmanager
def _replacing(path: Path) -> Iterator[IO[bytes]]:
    """A temp file beside `path`, put in its place once the block ends without error;
    removed otherwise. OSError becomes ExportFailed, with the reason in plain words."""
    if path.is_dir():
        raise _failed(path, IsADirectoryError(errno.EISDIR, "is a directory"))
    try:
        fd, name = tempfile.mkstemp(
            prefix=f".{path.name}.{TEMP_MARK}", suffix=".tmp", dir=path.parent
        )
    except OSError as error:
        raise _failed(path, error) from None
    tmp = Path(name)
    try:
        with os.fdopen(fd, "w+b") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise _failed(path, error) from None
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_dir(path.parent)


class _Steps:
    """Progress every STEP cards, and a stop when the learner asked for one."""

    def __init__(self, total: int, progress: CardProgress, cancelled: Cancelled) -> None:
        self.total, self._progress, self._cancelled = total, progress, cancelled

    def at(self, done: int) -> None:
        if done % STEP == 0:
            if self._cancelled():
                raise ExportCancelled()
            self._progress(done, self.total)

    def finished(self) -> None:
        if self._cancelled():
            raise ExportCancelled()
        self._progress(self.total, self.total)


class AnkiCardFiles:
    """The `CardFileWriter` port: genanki for the package, `csv` for the table."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock

    def write_anki(
        self,
        path: Path,
        cards: Sequence[KeyPointCard],
        *,
        progress: CardProgress,
        cancelled: Cancelled,
    ) -> int:
        steps = _Steps(len(cards), progress, cancelled)
        with tempfile.TemporaryDirectory(prefix="coach-export-") as work:
            database = Path(work) / "collection.anki2"
            conn = sqlite3.connect(database)
            try:
                conn.execute("PRAGMA journal_mode = OFF")  # a scratch file: rebuilt on failure
                conn.execute("PRAGMA synchronous = OFF")
                reviews = _collection(conn.cursor(), cards, self._clock(), steps)
                conn.commit()
            finally:
                conn.close()
            steps.finished()
            with _replacing(path) as handle, zipfile.ZipFile(handle, "w") as package:
                package.write(database, "collection.anki2", zipfile.ZIP_DEFLATED)
                package.writestr("media", "{}")
        return reviews

    def write_csv(
        self,
        path: Path,
        cards: Sequence[KeyPointCard],
        *,
        progress: CardProgress,
        cancelled: Cancelled,
    ) -> None:
        steps = _Steps(len(cards), progress, cancelled)
        with _replacing(path) as handle:
            # UTF-8 with a byte order mark: Excel reads the file as UTF-8 only with it, and
            # LibreOffice and Python's "utf-8-sig" take it; rows end CRLF, as RFC 4180 says.
            text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
            rows = csv.writer(text)
            rows.writerow(CSV_HEADER)
            for done, card in enumerate(cards):
                steps.at(done)
                rows.writerow(csv_row(card))
            steps.finished()
            text.flush()
            text.detach()  # the handle is closed by `_replacing`, after its fsync


def _spreadsheet_safe(text: str) -> str:
    """A cell a spreadsheet shows as text, never runs as a formula: a leading = + - @ (or
    tab, carriage return) gets an apostrophe before it (OWASP's advice for CSV files)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_row(card: KeyPointCard) -> list[str]:
    m = card.memory
    return [
        _spreadsheet_safe(card.title), card.note_id, _spreadsheet_safe(card.file_name),
        str(card.number), str(card.count), _spreadsheet_safe(card.text),
        _spreadsheet_safe(" ".join(card.tags)), card.deck,
        m.due if m else "", m.last_review if m else "",
        f"{m.stability:.4f}" if m else "", f"{m.difficulty:.4f}" if m else "",
        str(len(card.reviews)), str(m.lapses) if m else "0", "yes" if card.suspended else "",
    ]  # fmt: skip


def _collection(
    cursor: sqlite3.Cursor, cards: Sequence[KeyPointCard], now: float, steps: _Steps
) -> int:
    """genanki's collection of `cards`, with Coach's schedule and review log added."""
    model = coach_model()
    names = sorted({ROOT_DECK, *(card.deck for card in cards)})
    decks = {name: genanki.Deck(deck_id(name), name) for name in names}
    for deck in decks.values():
        deck.add_model(model)
    ids = itertools.count(int(now * 1000))
    genanki.Package(list(decks.values())).write_to_db(cursor, now, ids)
    today = datetime.fromtimestamp(now, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    conf = json.loads(cursor.execute("SELECT conf FROM col").fetchone()[0])
    conf["schedVer"] = 2
    cursor.execute("UPDATE col SET crt = ?, conf = ?", (int(today.timestamp()), json.dumps(conf)))
    taken: set[int] = set()
    reviews = 0
    for done, card in enumerate(cards):
        steps.at(done)
        note = genanki.Note(
            model=model, fields=card_fields(card), guid=card.guid, tags=list(card.tags),
            due=done,  # new cards come in the knowledge base's order
        )  # fmt: skip
        note.write_to_db(cursor, now, decks[card.deck].deck_id, ids)
        card_id = cursor.lastrowid  # the note's one card, inserted last
        if card.memory is not None and card_id is not None:
            _schedule(cursor, card_id, card, today)
            reviews += _review_log(cursor, card_id, card, taken)
        if card.suspended and card_id is not None:
            cursor.execute("UPDATE cards SET queue = -1 WHERE id = ?", (card_id,))
    return reviews


def _schedule(cursor: sqlite3.Cursor, card_id: int, card: KeyPointCard, today: datetime) -> None:
    """A review card due on Coach's due day, with FSRS's memory state (ADR 0039)."""
    m = card.memory
    assert m is not None
    due, last = _utc(m.due), _utc(m.last_review)
    interval = max(1, round((due - last).total_seconds() / _DAY))
    data = {"s": round(m.stability, 4), "d": round(m.difficulty, 4), "lrt": int(last.timestamp())}
    cursor.execute(
        "UPDATE cards SET type = 2, queue = 2, due = ?, ivl = ?, factor = ?, reps = ?,"
        " lapses = ?, data = ? WHERE id = ?",
        ((due.date() - today.date()).days, interval, _FACTOR, m.reviews, m.lapses,
         json.dumps(data), card_id),
    )  # fmt: skip


def review_log_rows(
    card_id: int, card: KeyPointCard, taken: set[int]
) -> list[tuple[int, int, int, int, int, int, int, int, int]]:
    """Anki's `revlog` rows of a card's reviews: id (the review's time in milliseconds,
    moved on by a millisecond until unused: one answer reviews several key points at the
    same instant), card id, usn, ease (Coach's rating 1..4 is Anki's), interval in days
    (until the next review; the card's own after the last), the one before, ease factor,
    time taken (unknown: 0), type (0 learning for the first, 1 review after)."""
    rows = []
    times = [_utc(r.at) for r in card.reviews]
    m = card.memory
    last_interval = 0
    for n, review in enumerate(card.reviews):
        after = times[n + 1] if n + 1 < len(times) else (_utc(m.due) if m else times[n])
        interval = max(1, round((after - times[n]).total_seconds() / _DAY))
        ident = int(times[n].timestamp() * 1000)
        while ident in taken:
            ident += 1
        taken.add(ident)
        rows.append((ident, card_id, -1, review.rating, interval, last_interval, _FACTOR, 0,
                     0 if n == 0 else 1))  # fmt: skip
        last_interval = interval
    return rows


def _review_log(cursor: sqlite3.Cursor, card_id: int, card: KeyPointCard, taken: set[int]) -> int:
    rows = review_log_rows(card_id, card, taken)
    cursor.executemany("INSERT INTO revlog VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    return len(rows)
