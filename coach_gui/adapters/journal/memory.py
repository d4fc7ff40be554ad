"""Assertion memory in the journal (ADR 0008): the learner's self-ratings, and the derived
cache of each assertion's FSRS state that the Today view reads in one indexed query.

The cache is never sealed and holds nothing that history does not: triggers (schema v3)
mark a note stale whenever a verdict, binding, seal or self-rating touches it, and
`refresh` replays stale notes while holding the write lock, so no write lands between
reading a note's history and storing its memory.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from coach_gui.adapters.journal.database import Journal
from coach_gui.domain.memory import MemoryState, SelfRating
from coach_gui.services.ports.schedule import Replay

BATCH = 200  # notes replayed per write transaction: other writers never wait long
_PARAMS = 500  # ids per query, under SQLite's limit on bound parameters
_COLUMNS = (
    "note_id, assertion_digest, assertion, state, stability, difficulty, due, last_review, "
    "last_rating, reviews, gap, gap_id"
)


def _state(row: tuple[Any, ...]) -> MemoryState:
    return MemoryState(*row)


def _chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    return [ids[n : n + _PARAMS] for n in range(0, len(ids), _PARAMS)]


def _marks(count: int) -> str:
    return ", ".join("?" * count)


def _after_stored(conn: sqlite3.Connection, rating: SelfRating) -> SelfRating:
    """A new rating is later than the one it replaces, even when that one came from a
    computer whose clock runs ahead: sync keeps the later rating (ADR 0027), so every
    computer keeps this one."""
    row = conn.execute(
        "SELECT created_at FROM self_ratings WHERE attempt_id = ? AND assertion_digest = ?",
        (rating.attempt_id, rating.digest),
    ).fetchone()
    if row is None or str(row[0]) < rating.created_at:
        return rating
    try:
        stored = datetime.fromisoformat(str(row[0]))
    except ValueError:
        return rating
    later = (stored + timedelta(microseconds=1)).isoformat(timespec="microseconds")
    return rating.model_copy(update={"created_at": later})


class SqliteMemoryJournal:
    """The `MemoryJournal` port over the journal."""

    def __init__(self, journal: Journal, *, batch: int = BATCH) -> None:
        self._journal = journal
        self._batch = batch

    def record_self_ratings(self, ratings: Sequence[SelfRating]) -> None:
        with self._journal.write() as conn:
            ratings = [_after_stored(conn, r) for r in ratings]
            conn.executemany(
                "INSERT INTO self_ratings (attempt_id, note_id, assertion_digest, assertion, "
                "rating, created_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (attempt_id, assertion_digest) DO UPDATE SET "
                "rating = excluded.rating, created_at = excluded.created_at",
                [(r.attempt_id, r.note_id, r.digest, r.text, r.rating, r.created_at)
                 for r in ratings],
            )  # fmt: skip

    def self_ratings(self, note_ids: Sequence[str]) -> list[SelfRating]:
        found: list[SelfRating] = []
        with self._journal.read() as conn:
            for chunk in _chunks(note_ids):
                rows = conn.execute(
                    "SELECT attempt_id, note_id, assertion_digest, assertion, rating, created_at "
                    f"FROM self_ratings WHERE note_id IN ({_marks(len(chunk))})",
                    list(chunk),
                )
                found += [
                    SelfRating(
                        attempt_id=row[0],
                        note_id=row[1],
                        digest=row[2],
                        text=row[3],
                        rating=row[4],
                        created_at=row[5],
                    )
                    for row in rows
                ]
        return found

    def session_ids_for_notes(self, note_ids: Sequence[str]) -> list[str]:
        found: list[tuple[str, str]] = []
        with self._journal.read() as conn:
            for chunk in _chunks(note_ids):
                found += conn.execute(
                    f"SELECT started_at, id FROM sessions WHERE note_id IN ({_marks(len(chunk))})",
                    list(chunk),
                ).fetchall()
        return [row[1] for row in sorted(found, key=tuple)]

    def refresh(self, fingerprint: str, replay: Replay) -> int:
        replayed = 0
        while True:
            with self._journal.write() as conn:
                row = conn.execute(
                    "SELECT value FROM assertion_memory_meta WHERE key = 'fingerprint'"
                ).fetchone()
                if row is None or row[0] != fingerprint:
                    self._mark_all(conn)
                    conn.execute(
                        "INSERT OR REPLACE INTO assertion_memory_meta (key, value) "
                        "VALUES ('fingerprint', ?)",
                        (fingerprint,),
                    )
                stale = [
                    r[0]
                    for r in conn.execute(
                        "SELECT note_id FROM assertion_memory_stale LIMIT ?", (self._batch,)
                    )
                ]
                if not stale:
                    return replayed
                # Our write lock is held, so this read sees every committed row, and no
                # other writer can add one before the result is stored.
                states = replay(stale)
                marks = _marks(len(stale))
                conn.execute(f"DELETE FROM assertion_memory WHERE note_id IN ({marks})", stale)
                conn.executemany(
                    f"INSERT INTO assertion_memory ({_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(s.note_id, s.digest, s.text, s.state, s.stability, s.difficulty, s.due,
                      s.last_review, s.last_rating, s.reviews, s.gap, s.gap_id)
                     for s in states],
                )  # fmt: skip
                conn.execute(
                    f"DELETE FROM assertion_memory_stale WHERE note_id IN ({marks})", stale
                )
                replayed += len(stale)

    @staticmethod
    def _mark_all(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM assertion_memory")
        conn.execute(
            "INSERT OR IGNORE INTO assertion_memory_stale (note_id) "
            "SELECT note_id FROM sessions UNION SELECT note_id FROM self_ratings"
        )

    def mark_all_stale(self) -> None:
        with self._journal.write() as conn:
            conn.execute("DELETE FROM assertion_memory_meta WHERE key = 'fingerprint'")

    def _tuples(self, sql: str, params: Sequence[str]) -> list[tuple[Any, ...]]:
        with self._journal.read() as conn:
            cursor = conn.execute(sql, params)
            cursor.row_factory = None  # plain tuples: Today reads tens of thousands of rows
            return cursor.fetchall()

    def due_before(self, until: str) -> list[MemoryState]:
        sql = f"SELECT {_COLUMNS} FROM assertion_memory WHERE due < ? ORDER BY due"
        return [_state(row) for row in self._tuples(sql, (until,))]

    def open_gaps_due_from(self, start: str) -> list[MemoryState]:
        # SQLite picks the partial index of rows with a gap (schema v7), so only those are
        # read; were the index gone, the same query scans (slower, never wrong).
        sql = f"SELECT {_COLUMNS} FROM assertion_memory WHERE gap IS NOT NULL AND due >= ?"
        return [_state(row) for row in self._tuples(sql, (start,))]

    def due_between(self, start: str, end: str) -> list[tuple[str, str, str, str]]:
        return self._tuples(
            "SELECT note_id, assertion_digest, assertion, due FROM assertion_memory "
            "WHERE due >= ? AND due < ? AND gap IS NULL",
            (start, end),
        )

    def memory_for(self, note_id: str) -> list[MemoryState]:
        sql = f"SELECT {_COLUMNS} FROM assertion_memory WHERE note_id = ? ORDER BY due"
        return [_state(row) for row in self._tuples(sql, (note_id,))]
