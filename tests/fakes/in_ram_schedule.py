"""In-memory implementations of the scheduler's ports: a session history built answer by
answer, and the memory journal (its cache is simply rebuilt on every refresh)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from coach_gui.domain.corrections import LearnerCorrection
from coach_gui.domain.imported_reviews import ImportedReview
from coach_gui.domain.memory import MemoryState, ReviewRow, SelfRating
from coach_gui.domain.practice import (
    Attempt,
    SessionMode,
    VerdictRecord,
    attempt_id,
    new_id,
)
from coach_gui.domain.schedule_control import AppliedParameters, ReviewChange, ScheduleHold
from coach_gui.domain.session_records import SessionRecord, SessionRecords, StoredTrace
from coach_gui.domain.trace_log import StoredLog
from coach_gui.domain.verdicts import Gap
from coach_gui.services.ports.schedule import MemoryJournal, Replay
from coach_gui.services.ports.sealing import SessionReader


@dataclass
class InRamSessions:
    """A `SessionReader` over sessions added by the test, one answer at a time."""

    sessions: dict[str, SessionRecords] = field(default_factory=dict)

    def start(self, note_id: str, started_at: str) -> str:
        session = SessionRecord(
            id=new_id(), note_id=note_id, note_title=note_id, note_digest="0" * 64,
            config_digest="0" * 64, mode=SessionMode.JUDGED_WITH_ASSERTIONS,
            started_at=started_at, ended_at=None, disposition=None,
            scheduler_decision_id=None, gap_ids=(), sealed_trace_id=None,
        )  # fmt: skip
        self.sessions[session.id] = SessionRecords(session=session)
        return session.id

    def answer(
        self,
        session_id: str,
        at: str,
        assertions: Sequence[str],
        gaps: Sequence[tuple[int | None, str]] | None = None,
        *,
        sent: bool = True,
        passed: bool | None = None,
    ) -> Attempt:
        """An answer at `at`; judged against `assertions` with `gaps` ((index, problem)),
        or left unjudged when `gaps` is None."""
        records = self.sessions[session_id]
        challenge_id = new_id()
        attempt = Attempt(
            id=attempt_id(session_id, challenge_id, f"answer {at}", at),
            session_id=session_id, challenge_id=challenge_id, answer=f"answer {at}",
            submitted_at=at, status="unjudged" if gaps is None else "judged",
        )  # fmt: skip
        verdicts = records.verdicts
        if gaps is not None:
            verdicts += (self._verdict(attempt, at, assertions, gaps, sent, passed),)
        self.sessions[session_id] = records.model_copy(
            update={"attempts": (*records.attempts, attempt), "verdicts": verdicts}
        )
        return attempt

    def judge_later(
        self, attempt: Attempt, at: str, assertions: Sequence[str], gaps: Sequence[tuple[int, str]]
    ) -> None:
        records = self.sessions[attempt.session_id]
        verdict = self._verdict(attempt, at, assertions, gaps, True, None)
        self.sessions[attempt.session_id] = records.model_copy(
            update={"verdicts": (*records.verdicts, verdict)}
        )

    @staticmethod
    def _verdict(
        attempt: Attempt,
        at: str,
        assertions: Sequence[str],
        gaps: Sequence[tuple[int | None, str]],
        sent: bool,
        passed: bool | None,
    ) -> VerdictRecord:
        return VerdictRecord(
            id=new_id(), attempt_id=attempt.id, outbox_id=None,
            passed=not gaps if passed is None else passed,
            gaps=tuple(Gap(assertion=i, problem=p, explanation="x") for i, p in gaps),  # type: ignore[arg-type]
            feedback="", assertions_sent=sent, assertions=tuple(assertions),
            judge_model="fake", created_at=at,
        )  # fmt: skip

    # --- SessionReader --------------------------------------------------------------------------
    def session_ids(
        self, *, newest_first: bool = False, limit: int | None = None, offset: int = 0
    ) -> list[str]:
        ids = sorted(self.sessions, key=lambda s: self.sessions[s].session.started_at)
        ids = ids[::-1] if newest_first else ids
        return ids[offset : None if limit is None else offset + limit]

    def records_for(self, session_ids: Sequence[str]) -> list[SessionRecords]:
        return [self.sessions[s] for s in session_ids if s in self.sessions]

    def trace_row(self, trace_id: str) -> StoredTrace | None:
        return None

    def scheduler_decision(self, decision_id: str) -> str | None:
        return None  # decisions are not kept here

    def schedule_records(self) -> list[tuple[str, str, dict[str, object]]]:
        return []  # the schedule's records live in InRamMemoryJournal

    def find(self, record_id: str) -> tuple[str | None, str | None] | None:
        return (record_id, None) if record_id in self.sessions else None

    def orphaned_ids(self) -> list[str]:
        return []  # records live inside their session here: none can lose it

    def trace_log(self) -> StoredLog:
        return StoredLog([], None, [])  # nothing is sealed here


@dataclass
class InRamMemoryJournal:
    """A `MemoryJournal` in memory; it replays every note on each refresh."""

    sessions: InRamSessions
    ratings: dict[tuple[str, str], SelfRating] = field(default_factory=dict)
    cache: dict[tuple[str, str], MemoryState] = field(default_factory=dict)
    refreshed: list[str] = field(default_factory=list)  # the fingerprints used
    rows: list[ReviewRow] = field(default_factory=list)
    changes: list[ReviewChange] = field(default_factory=list)
    hold_records: list[ScheduleHold] = field(default_factory=list)
    learner_corrections: list[LearnerCorrection] = field(default_factory=list)
    imported: list[ImportedReview] = field(default_factory=list)
    applied: list[AppliedParameters] = field(default_factory=list)
    seen: dict[str, str] = field(default_factory=dict)

    def record_self_ratings(self, ratings: Sequence[SelfRating]) -> None:
        for rating in ratings:
            self.ratings[(rating.attempt_id, rating.digest)] = rating

    def self_ratings(self, note_ids: Sequence[str]) -> list[SelfRating]:
        return [r for r in self.ratings.values() if r.note_id in note_ids]

    def session_ids_for_notes(self, note_ids: Sequence[str]) -> list[str]:
        return [
            s for s in self.sessions.session_ids() if self.sessions.sessions[s].session.note_id
            in note_ids
        ]  # fmt: skip

    def refresh(self, fingerprint: str, replay: Replay) -> int:
        self.refreshed.append(fingerprint)
        notes = sorted(
            {r.session.note_id for r in self.sessions.sessions.values()}
            | {r.note_id for r in self.imported}
        )
        states, self.rows = replay(notes)
        self.cache = {(m.note_id, m.digest): m for m in states}
        self.rows.sort(key=lambda r: (r.at, r.session_id))
        return len(notes)

    def mark_all_stale(self) -> None:
        pass  # every refresh rebuilds

    def due_before(self, until: str) -> list[MemoryState]:
        return sorted((m for m in self.cache.values() if m.due < until), key=lambda m: m.due)

    def open_gaps_due_from(self, start: str) -> list[MemoryState]:
        found = (m for m in self.cache.values() if m.gap is not None and m.due >= start)
        return sorted(found, key=lambda m: m.due)

    def due_between(self, start: str, end: str) -> list[tuple[str, str, str, str]]:
        return [
            (m.note_id, m.digest, m.text, m.due)
            for m in self.cache.values()
            if start <= m.due < end and m.gap is None
        ]

    def memory_for(self, note_id: str) -> list[MemoryState]:
        return [m for m in self.cache.values() if m.note_id == note_id]

    def record_review_change(self, change: ReviewChange) -> None:
        self.changes.append(change)

    def review_changes(self, note_ids: Sequence[str] | None = None) -> list[ReviewChange]:
        found = [c for c in self.changes if note_ids is None or c.note_id in note_ids]
        return sorted(found, key=lambda c: (c.created_at, c.id))

    def record_correction(self, correction: LearnerCorrection) -> None:
        """Kept with the session it corrects, as the journal gives them (`records_for`)."""
        if correction in self.learner_corrections:
            return
        self.learner_corrections.append(correction)
        records = self.sessions.sessions.get(correction.session_id)
        if records is not None:
            mine = sorted((*records.corrections, correction), key=lambda c: (c.created_at, c.id))
            self.sessions.sessions[correction.session_id] = records.model_copy(
                update={"corrections": tuple(mine)}
            )

    def record_imported_reviews(self, records: Sequence[ImportedReview]) -> int:
        new = [r for r in records if r not in self.imported]
        self.imported += new
        return len(new)

    def imported_reviews(self, note_ids: Sequence[str] | None = None) -> list[ImportedReview]:
        return [r for r in self.imported if note_ids is None or r.note_id in note_ids]

    def session_of_attempt(self, attempt_id: str) -> str | None:
        for records in self.sessions.sessions.values():
            if any(a.id == attempt_id for a in records.attempts):
                return records.session.id
        return None

    def record_hold(self, hold: ScheduleHold) -> None:
        self.hold_records.append(hold)

    def holds(self) -> list[ScheduleHold]:
        return sorted(self.hold_records, key=lambda h: (h.created_at, h.id))

    def record_parameters(self, applied: AppliedParameters) -> None:
        self.applied.append(applied)

    def parameters(self) -> AppliedParameters | None:
        return max(self.applied, key=lambda a: (a.applied_at, a.id)) if self.applied else None

    def first_seen(self, note_ids: Sequence[str], now: str) -> dict[str, str]:
        for note_id in note_ids:
            self.seen.setdefault(note_id, now)
        return {n: self.seen[n] for n in note_ids}

    def notes_begun_since(self, start: str) -> int:
        first: dict[str, str] = {}
        for m in self.cache.values():
            first[m.note_id] = min(first.get(m.note_id, m.first_review), m.first_review)
        return sum(at >= start for at in first.values())

    def reviewed_notes(self) -> set[str]:
        return {m.note_id for m in self.cache.values()}

    def reviews(
        self, *, note_id: str | None = None, digest: str | None = None, since: str = ""
    ) -> list[ReviewRow]:
        return [
            r for r in self.rows
            if r.at >= since and note_id in (None, r.note_id) and digest in (None, r.digest)
        ]  # fmt: skip

    def review_minutes(self, since: str) -> list[tuple[str, int, int, int]]:
        minutes: dict[str, list[int]] = {}
        for r in self.rows:
            if r.at >= since and not r.undone:
                found = minutes.setdefault(r.at[:16], [0, 0, 0])
                found[0] += 1
                found[1] += r.was_due
                found[2] += r.was_due and r.rating > 1
        return [(m, n, due, recalled) for m, (n, due, recalled) in sorted(minutes.items())]

    def due_rows(
        self, until: str, note_id: str | None = None
    ) -> list[tuple[str, str, str, str, str | None]]:
        return [
            (m.note_id, m.digest, m.text, m.due, m.gap)
            for m in self.cache.values()
            if (m.due < until or m.gap is not None) and note_id in (None, m.note_id)
        ]

    def due_by_note(self, until: str, start: str) -> list[tuple[str, str, int, int, int]]:
        by_note: dict[str, list[MemoryState]] = {}
        for m in self.cache.values():
            if m.due < until or m.gap is not None:
                by_note.setdefault(m.note_id, []).append(m)
        return [
            (note_id, "\x1f".join(m.text for m in found), len(found),
             sum(m.due < start for m in found), sum(m.gap is not None for m in found))
            for note_id, found in by_note.items()
        ]  # fmt: skip

    def review_count(self) -> int:
        return sum(not r.undone for r in self.rows)

    def assertion_count(self) -> int:
        return len(self.cache)

    def leeches(self, lapses: int) -> list[MemoryState]:
        return [m for m in self.cache.values() if m.lapses >= lapses and m.lapses > 0]


def _conforms() -> tuple[SessionReader, MemoryJournal]:
    sessions = InRamSessions()
    return sessions, InRamMemoryJournal(sessions)
