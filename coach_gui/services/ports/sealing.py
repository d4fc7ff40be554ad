"""What sealing, judging later, verification and review need from the journal.

One real adapter (`adapters.journal.traces.SqliteTraceJournal`) implements them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from coach_gui.domain.session_records import AttemptBinding, SessionRecords, StoredTrace
from coach_gui.domain.trace_log import StoredLog
from coach_gui.domain.traces import SealedPracticeTrace


class TraceRowReader(Protocol):
    """What checking one session needs beyond its records (`check_session`)."""

    def trace_row(self, trace_id: str) -> StoredTrace | None: ...

    def scheduler_decision(self, decision_id: str) -> str | None:
        """The stored fields (canonical JSON) of a scheduler decision; None when the
        journal does not keep them (sessions started before schema v8)."""
        ...


class SessionReader(TraceRowReader, Protocol):
    """Reads sessions back as domain records."""

    def session_ids(
        self, *, newest_first: bool = False, limit: int | None = None, offset: int = 0
    ) -> list[str]:
        """Session ids, oldest first (in the order they were started) unless `newest_first`."""
        ...

    def records_for(self, session_ids: Sequence[str]) -> list[SessionRecords]:
        """Each session's records, with the learner's corrections of its verdicts, in the
        order given; unknown ids are left out. A row that no longer reads as its record is
        listed in `broken`, never raised."""
        ...

    def schedule_records(self) -> list[tuple[str, str, dict[str, object]]]:
        """(kind, stored id, stored fields) of every record of the learner's schedule
        decisions (undo/redo, holds, applied parameters): each id is its fields' content id."""
        ...

    def find(self, record_id: str) -> tuple[str | None, str | None] | None:
        """(session id, trace id) for a session id or a trace id; None when it is neither."""
        ...

    def orphaned_ids(self) -> list[str]:
        """Ids of records whose owner is gone: traces, challenges, rejections and answers
        of a session whose row was deleted, verdicts and refusals of a deleted answer,
        eval children of a deleted eval run and eval traces no run lists (issue 21)."""
        ...

    def trace_log(self) -> StoredLog:
        """The trace log, its signed head and every stored trace's id (ADR 0015)."""
        ...


class TraceJournal(SessionReader, Protocol):
    """Where sealed traces and bindings are written."""

    def session_records(self, session_id: str) -> SessionRecords | None: ...

    def store_session_trace(
        self, trace: SealedPracticeTrace, *, expected: SessionRecords
    ) -> str | None:
        """Store `trace` and mark its session sealed (with the trace's end time and
        disposition) in one transaction, if the session's records are still `expected`.
        Returns the session's trace id (another process's, if it sealed it first), or
        None when records were added meanwhile (read them again and retry)."""
        ...

    def store_bound_trace(
        self, new_bindings: Sequence[AttemptBinding], trace: SealedPracticeTrace
    ) -> None:
        """Insert `new_bindings` and `trace`, and mark every binding the trace carries as
        bound to it, in one transaction."""
        ...

    def open_session_ids(self) -> list[str]:
        """Sessions not sealed yet that no running Coach is practising (left by a crash)."""
        ...

    def sessions_with_pending(self) -> list[str]:
        """Sealed sessions with an answer that no sealed verdict or binding judges, or a
        binding whose bound trace was never sealed."""
        ...
