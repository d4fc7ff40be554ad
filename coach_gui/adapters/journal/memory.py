"""Assertion memory in the journal (ADR 0008): the learner's self-ratings, and the derived
cache of each assertion's FSRS state that the Today view reads in one indexed query.

The cache is never sealed and holds nothing that history does not: triggers (schema v3)
mark a note stale whenever a verdict, binding, seal or self-rating touches it, and
`refresh` replays stale notes while holding the write lock, so no write lands between
reading a note's history and storing its memory.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.trace_log import append_traces, log_record
from coach_gui.domain.corrections import LearnerCorrection
from coach_gui.domain.imported_reviews import ImportedReview
from coach_gui.domain.memory import MemoryState, ReviewRow, SelfRating
from coach_gui.domain.schedule_control import (
    AppliedParameters,
    FitSummary,
    ReviewChange,
    ScheduleHold,
)
from coach_gui.services.ports.schedule import Replay

BATCH = 200  # notes replayed per write transaction: other writers never wait long
_PARAMS = 500  # ids per query, under SQLite's limit on bound parameters
_COLUMNS = (
    "note_id, assertion_digest, assertion, state, stability, difficulty, due, last_review, "
    "last_rating, reviews, gap, gap_id, lapses, first_review"
)
_REVIEW_COLUMNS = "note_id, assertion_digest, session_id, at, rating, source, was_due, undone"


def _state(row: tuple[Any, ...]) -> MemoryState:
    return MemoryState(*row)


def _review(row: tuple[Any, ...]) -> ReviewRow:
    note_id, digest, session_id, at, rating, source, was_due, undone = row
    return ReviewRow(note_id, digest, session_id, at, rating, source, bool(was_due), bool(undone))


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
                states, rows = replay(stale)
                marks = _marks(len(stale))
                conn.execute(f"DELETE FROM assertion_memory WHERE note_id IN ({marks})", stale)
                conn.execute(f"DELETE FROM assertion_reviews WHERE note_id IN ({marks})", stale)
                conn.execute(
                    f"DELETE FROM assertion_memory_notes WHERE note_id IN ({marks})", stale
                )
                conn.executemany(
                    f"INSERT INTO assertion_memory ({_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(s.note_id, s.digest, s.text, s.state, s.stability, s.difficulty, s.due,
                      s.last_review, s.last_rating, s.reviews, s.gap, s.gap_id, s.lapses,
                      s.first_review)
                     for s in states],
                )  # fmt: skip
                first: dict[str, str] = {}
                for state in states:
                    if state.note_id not in first or state.first_review < first[state.note_id]:
                        first[state.note_id] = state.first_review
                conn.executemany(
                    "INSERT INTO assertion_memory_notes (note_id, first_review) VALUES (?, ?)",
                    list(first.items()),
                )
                conn.executemany(
                    f"INSERT INTO assertion_reviews ({_REVIEW_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [(r.note_id, r.digest, r.session_id, r.at, r.rating, r.source,
                      int(r.was_due), int(r.undone))
                     for r in rows],
                )  # fmt: skip
                conn.execute(
                    f"DELETE FROM assertion_memory_stale WHERE note_id IN ({marks})", stale
                )
                replayed += len(stale)

    @staticmethod
    def _mark_all(conn: sqlite3.Connection) -> None:
        conn.execute("DELETE FROM assertion_memory")
        conn.execute("DELETE FROM assertion_memory_notes")
        conn.execute("DELETE FROM assertion_reviews")
        conn.execute(
            "INSERT OR IGNORE INTO assertion_memory_stale (note_id) "
            "SELECT note_id FROM sessions UNION SELECT note_id FROM self_ratings"
            " UNION SELECT note_id FROM imported_reviews"
        )

    def mark_all_stale(self) -> None:
        with self._journal.write() as conn:
            conn.execute("DELETE FROM assertion_memory_meta WHERE key = 'fingerprint'")

    def _tuples(self, sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        with self._journal.read() as conn:
            cursor = conn.execute(sql, params)
            cursor.row_factory = None  # plain tuples: Today reads tens of thousands of rows
            return cursor.fetchall()

    def _of_notes(self, sql: str, note_ids: Sequence[str] | None) -> list[tuple[Any, ...]]:
        """The rows `sql` (a SELECT with no WHERE) finds for these notes, or for all."""
        if note_ids is None:
            return self._tuples(sql, ())
        rows: list[tuple[Any, ...]] = []
        for chunk in _chunks(note_ids):
            rows += self._tuples(f"{sql} WHERE note_id IN ({_marks(len(chunk))})", chunk)
        return rows

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

    # --- the learner's decisions ------------------------------------------------------------
    def record_review_change(self, change: ReviewChange) -> None:
        key = self._journal.head_key()  # before the writer: the keyring may ask to unlock
        with self._journal.write() as conn:
            stored = conn.execute(
                "INSERT OR IGNORE INTO review_changes (id, note_id, session_id, action,"
                " created_at) VALUES (?, ?, ?, ?, ?)",
                (change.id, change.note_id, change.session_id, change.action, change.created_at),
            )
            log_record(conn, stored.rowcount == 1, change.id, change.created_at, key)

    def review_changes(self, note_ids: Sequence[str] | None = None) -> list[ReviewChange]:
        rows = self._of_notes(
            "SELECT id, note_id, session_id, action, created_at FROM review_changes", note_ids
        )
        changes = [
            ReviewChange(id=r[0], note_id=r[1], session_id=r[2], action=r[3], created_at=r[4])
            for r in rows
        ]
        return sorted(changes, key=lambda c: (c.created_at, c.id))

    def record_correction(self, correction: LearnerCorrection) -> None:
        key = self._journal.head_key()  # before the writer: the keyring may ask to unlock
        c = correction
        with self._journal.write() as conn:
            stored = conn.execute(
                "INSERT OR IGNORE INTO learner_corrections (id, note_id, session_id, attempt_id,"
                " verdict_id, assertion, status, note, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (c.id, c.note_id, c.session_id, c.attempt_id, c.verdict_id, c.assertion,
                 c.status, c.note, c.created_at),
            )  # fmt: skip
            log_record(conn, stored.rowcount == 1, c.id, c.created_at, key)

    def record_imported_reviews(self, records: Sequence[ImportedReview]) -> int:
        """Store review histories imported from Anki in one transaction, each logged as
        it is stored (their notes go stale); how many were new."""
        if not records:
            return 0
        key = self._journal.head_key()
        stored: list[str] = []
        with self._journal.write() as conn:
            for r in records:
                cursor = conn.execute(
                    "INSERT OR IGNORE INTO imported_reviews (id, note_id, assertion_digest,"
                    " assertion, source, card, reviews, due, stability, difficulty, imported_at)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (r.id, r.note_id, r.digest, r.text, r.source, r.card,
                     json.dumps([list(x) for x in r.reviews], separators=(",", ":")), r.due,
                     repr(r.stability), repr(r.difficulty), r.imported_at),
                )  # fmt: skip
                if cursor.rowcount == 1:
                    stored.append(r.id)
            if stored:
                append_traces(conn, stored, records[-1].imported_at, key)
        return len(stored)

    def imported_reviews(self, note_ids: Sequence[str] | None = None) -> list[ImportedReview]:
        """Every imported review history (of these notes). A row that no longer reads as
        one (changed outside Coach) is left out of the schedule; `coach verify` names it."""
        rows = self._of_notes(
            "SELECT id, note_id, assertion_digest, assertion, source, card, reviews, due,"
            " stability, difficulty, imported_at FROM imported_reviews",
            note_ids,
        )
        found: list[ImportedReview] = []
        for r in rows:
            with contextlib.suppress(ValueError, TypeError):  # pydantic's errors are ValueErrors
                found.append(
                    ImportedReview(
                        id=r[0], note_id=r[1], digest=r[2], text=r[3], source=r[4], card=r[5],
                        reviews=tuple((str(at), int(rating)) for at, rating in json.loads(r[6])),
                        due=r[7], stability=float(r[8]), difficulty=float(r[9]),
                        imported_at=r[10],
                    )
                )  # fmt: skip
        return found

    def session_of_attempt(self, attempt_id: str) -> str | None:
        rows = self._tuples("SELECT session_id FROM attempts WHERE id = ?", (attempt_id,))
        return str(rows[0][0]) if rows else None

    def record_hold(self, hold: ScheduleHold) -> None:
        key = self._journal.head_key()
        with self._journal.write() as conn:
            stored = conn.execute(
                "INSERT OR IGNORE INTO schedule_holds (id, note_id, assertion_digest, assertion,"
                " action, until, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (hold.id, hold.note_id, hold.digest, hold.text, hold.action, hold.until,
                 hold.created_at),
            )  # fmt: skip
            log_record(conn, stored.rowcount == 1, hold.id, hold.created_at, key)

    def holds(self) -> list[ScheduleHold]:
        rows = self._tuples(
            "SELECT id, note_id, assertion_digest, assertion, action, until, created_at"
            " FROM schedule_holds ORDER BY created_at, id",
            (),
        )
        return [
            ScheduleHold(id=r[0], note_id=r[1], digest=r[2], text=r[3], action=r[4],
                         until=r[5], created_at=r[6])
            for r in rows
        ]  # fmt: skip

    def record_parameters(self, applied: AppliedParameters) -> None:
        key = self._journal.head_key()
        with self._journal.write() as conn:
            stored = conn.execute(
                "INSERT OR IGNORE INTO fsrs_parameters (id, parameters, fit, applied_at)"
                " VALUES (?, ?, ?, ?)",
                (
                    applied.id,
                    json.dumps(None if applied.parameters is None else list(applied.parameters)),
                    json.dumps(None if applied.fit is None else applied.fit.model_dump()),
                    applied.applied_at,
                ),
            )
            log_record(conn, stored.rowcount == 1, applied.id, applied.applied_at, key)

    def parameters(self) -> AppliedParameters | None:
        rows = self._tuples(
            "SELECT id, parameters, fit, applied_at FROM fsrs_parameters"
            " ORDER BY applied_at DESC, id DESC LIMIT 1",
            (),
        )
        if not rows:
            return None
        found, values, fit, at = rows[0]
        values, fit = json.loads(values), json.loads(fit)
        return AppliedParameters(
            id=found,
            parameters=None if values is None else tuple(float(v) for v in values),
            fit=None if fit is None else FitSummary.model_validate(fit, strict=False),
            applied_at=at,
        )

    def first_seen(self, note_ids: Sequence[str], now: str) -> dict[str, str]:
        seen: dict[str, str] = {}
        for chunk in _chunks(note_ids):
            seen.update(
                self._tuples(
                    "SELECT note_id, first_seen FROM note_first_seen"
                    f" WHERE note_id IN ({_marks(len(chunk))})",
                    chunk,
                )
            )
        unseen = [n for n in dict.fromkeys(note_ids) if n not in seen]
        if unseen:
            with self._journal.write() as conn:
                conn.executemany(
                    "INSERT OR IGNORE INTO note_first_seen (note_id, first_seen) VALUES (?, ?)",
                    [(n, now) for n in unseen],
                )
            seen.update((n, now) for n in unseen)
        return seen

    # --- the derived review rows ------------------------------------------------------------
    def notes_begun_since(self, start: str) -> int:
        rows = self._tuples(
            "SELECT count(*) FROM assertion_memory_notes WHERE first_review >= ?", (start,)
        )
        return int(rows[0][0])

    def reviewed_notes(self) -> set[str]:
        return {r[0] for r in self._tuples("SELECT note_id FROM assertion_memory_notes", ())}

    def reviews(
        self, *, note_id: str | None = None, digest: str | None = None, since: str = ""
    ) -> list[ReviewRow]:
        where, params = ["at >= ?"], [since]
        if note_id is not None:
            where.append("note_id = ?")
            params.append(note_id)
        if digest is not None:
            where.append("assertion_digest = ?")
            params.append(digest)
        sql = (
            f"SELECT {_REVIEW_COLUMNS} FROM assertion_reviews"
            f" WHERE {' AND '.join(where)} ORDER BY at, session_id"
        )
        return [_review(row) for row in self._tuples(sql, params)]

    def review_minutes(self, since: str) -> list[tuple[str, int, int, int]]:
        # Kept per minute by triggers (schema v8); `since` is a full time, a minute's key
        # its first 16 characters, so the minute `since` falls in is counted whole.
        return self._tuples(
            "SELECT minute, reviews, due, recalled FROM assertion_review_minutes WHERE minute >= ?",
            (since[:16],),
        )

    def due_rows(
        self, until: str, note_id: str | None = None
    ) -> list[tuple[str, str, str, str, str | None]]:
        if note_id is not None:
            return self._tuples(
                "SELECT note_id, assertion_digest, assertion, due, gap FROM assertion_memory"
                " WHERE note_id = ? AND (due < ? OR gap IS NOT NULL)",
                (note_id, until),
            )
        return self._tuples(
            "SELECT note_id, assertion_digest, assertion, due, gap FROM assertion_memory"
            " WHERE due < ? UNION ALL SELECT note_id, assertion_digest, assertion, due, gap"
            " FROM assertion_memory WHERE gap IS NOT NULL AND due >= ?",
            (until, until),
        )

    def due_by_note(self, until: str, start: str) -> list[tuple[str, str, int, int, int]]:
        return self._tuples(
            "SELECT note_id, group_concat(assertion, char(31)), count(*), sum(due < ?),"
            " sum(gap IS NOT NULL) FROM assertion_memory WHERE due < ? OR gap IS NOT NULL"
            " GROUP BY note_id",
            (start, until),
        )

    def review_count(self) -> int:
        # The per-minute counts hold every counted review (triggers, schema v8): one row a
        # minute to add up, not one a review.
        found = self._tuples("SELECT sum(reviews) FROM assertion_review_minutes", ())
        return int(found[0][0] or 0)

    def assertion_count(self) -> int:
        return int(self._tuples("SELECT count(*) FROM assertion_memory", ())[0][0])

    def leeches(self, lapses: int) -> list[MemoryState]:
        sql = f"SELECT {_COLUMNS} FROM assertion_memory WHERE lapses >= ? AND lapses > 0"
        return [_state(row) for row in self._tuples(sql, (lapses,))]
