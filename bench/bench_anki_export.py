"""Export figures (issue 37): `coach export --anki` and `--csv` of a 20,000-card deck with
200,000 reviews — time and peak memory.

Seeds the journal's memory straight through SQL (the derived rows the export reads: one
memory row per key point and ten review rows each, the scheduler's fingerprint stored so
nothing is replayed), 4,000 notes of five key points in 40 folders, then times the
operation the window and the terminal call. Peak memory twice: the process's peak
resident size (ru_maxrss, includes the journal's pages and genanki) after a plain run,
and Python's own peak (tracemalloc) over a second run, which tracemalloc slows.

    .venv/bin/python bench/bench_anki_export.py [--notes 4000] [--points 5] [--reviews 10]

Measured here (2 cores, 2026-12-06): Anki package 4.1 s, 130 MB Python peak, 211 MB
process peak resident, 5.1 MB file; CSV 1.7 s, 3.7 MB file.
"""

from __future__ import annotations

import argparse
import resource
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from coach_gui.adapters.anki_writer import AnkiCardFiles
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.memory import SqliteMemoryJournal
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.domain.memory import assertion_digest
from coach_gui.domain.notes import KnowledgeBaseSnapshot, Note, NoteEntry
from coach_gui.operations.anki_export import ExportFormat, export
from coach_gui.services.scheduler import AssertionScheduler, stamp

START = datetime(2025, 6, 1, 19, 0, tzinfo=UTC)


class Clock:
    def now(self) -> str:
        return stamp(datetime.now(UTC))


class Notes:
    """The notes folder as the store gives it: read once, kept in memory."""

    def __init__(self, entries: list[NoteEntry]) -> None:
        self._snapshot = KnowledgeBaseSnapshot(location="bench", notes=tuple(entries))

    def load(self, *, fresh: bool = False) -> KnowledgeBaseSnapshot:
        return self._snapshot


@dataclass
class Ports:
    notes: Notes
    journal: Journal

    def scheduler(self) -> AssertionScheduler:
        j = self.journal
        return AssertionScheduler(SqliteTraceJournal(j), SqliteMemoryJournal(j), Clock())

    def card_files(self) -> AnkiCardFiles:
        return AnkiCardFiles()


def make_notes(count: int, points: int) -> list[NoteEntry]:
    return [
        NoteEntry(
            note=Note(
                id=f"note{n}", title=f"Note {n}", tags=("bench", f"topic {n % 7}"),
                core_assertions=tuple(f"Point {k} of note {n}." for k in range(points)),
            ),
            file_name=f"Folder {n % 40}/Note {n}.md",
        )
        for n in range(count)
    ]  # fmt: skip


def seed(journal: Journal, entries: list[NoteEntry], reviews: int) -> int:
    memory, rows = [], []
    for entry in entries:
        note = entry.note
        for text in note.core_assertions:
            digest = assertion_digest(text)
            times = [START + timedelta(days=3 * k, minutes=len(rows) % 997) for k in range(reviews)]
            for k, at in enumerate(times):
                rating = 1 if k % 6 == 5 else 3
                rows.append(
                    (note.id, digest, f"s{len(rows)}", stamp(at), rating, "judge", k > 0, 0)
                )
            due, last = stamp(times[-1] + timedelta(days=20)), stamp(times[-1])
            memory.append((note.id, digest, text, 2, 30.0, 5.0, due, last, 3, reviews, None,
                           None, 1, stamp(times[0])))  # fmt: skip
    fingerprint = Ports(Notes([]), journal).scheduler().fingerprint
    with journal.write() as conn:
        conn.executemany(
            "INSERT INTO assertion_memory (note_id, assertion_digest, assertion, state, stability,"
            " difficulty, due, last_review, last_rating, reviews, gap, gap_id, lapses,"
            " first_review) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            memory,
        )
        conn.executemany(
            "INSERT INTO assertion_reviews (note_id, assertion_digest, session_id, at, rating,"
            " source, was_due, undone) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.execute("DELETE FROM assertion_memory_stale")
        conn.execute(
            "INSERT OR REPLACE INTO assertion_memory_meta (key, value) VALUES ('fingerprint', ?)",
            (fingerprint,),
        )
    return len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=4000)
    parser.add_argument("--points", type=int, default=5)
    parser.add_argument("--reviews", type=int, default=10, help="reviews per key point")
    args = parser.parse_args()
    entries = make_notes(args.notes, args.points)
    with tempfile.TemporaryDirectory() as work, Journal.open(Path(work) / "j.sqlite3") as journal:
        seeded = seed(journal, entries, args.reviews)
        ports = Ports(Notes(entries), journal)
        print(f"{len(entries) * args.points:,} key points, {seeded:,} reviews")
        formats: tuple[ExportFormat, ...] = ("anki", "csv")
        for format in formats:
            path = Path(work) / f"coach.{'apkg' if format == 'anki' else 'csv'}"
            began = time.perf_counter()
            result = export(ports, path, format)
            seconds = time.perf_counter() - began
            rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
            tracemalloc.start()
            export(ports, path, format)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            print(
                f"{format:>4}: {seconds:6.2f} s, {result.cards:,} cards, {result.reviews:,}"
                f" reviews, {path.stat().st_size / 1e6:.1f} MB file; peak Python memory"
                f" {peak / 1e6:.0f} MB, process peak resident {rss:.0f} MB (after {format})"
            )


if __name__ == "__main__":
    main()
