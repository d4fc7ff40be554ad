"""Looking back: sessions, their gaps, and what was sent to the judge — for the Sessions,
Gaps and Sent-to-judge views and `coach sessions`/`coach gaps` alike."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from coach_gui.domain.notes import Note
from coach_gui.domain.session_records import SentRequest
from coach_gui.files import atomic_write
from coach_gui.operations.app import App
from coach_gui.services.review import (
    GapReport,
    NoteGaps,
    OpenGap,
    SessionSummary,
    gap_report,
    list_sessions,
    note_gaps,
    open_gaps_of_notes,
)

SENT_SHOWN = 1000  # rows of the outbox the Sent-to-judge view lists
_NOTES_READ = 200  # notes whose sessions are read at once for `open_gaps`


def sessions(app: App, *, limit: int | None, offset: int = 0) -> list[SessionSummary]:
    """Sessions newest first, a page at a time (`limit=None`: all of them)."""
    return list_sessions(app.traces(), limit=limit, offset=offset)


def find_session(app: App, record_id: str) -> str | None:
    """The session a session id or trace id names, or None."""
    found = app.traces().find(record_id)
    return found[0] if found is not None else None


def gaps(app: App, session_id: str | None = None) -> GapReport:
    """The gaps of one session, or of every session."""
    return gap_report(app.traces(), session_id)


def note_of_session(app: App, session_id: str) -> str | None:
    """The id of the note a session practised."""
    found = app.traces().records_for([session_id])
    return found[0].session.note_id if found else None


def gap_board(app: App, note: Note) -> NoteGaps:
    """The gap board of `note`: its open gaps and its progress, from its own sessions."""
    scheduler = app.scheduler()
    return note_gaps(note, scheduler.history([note.id]), scheduler.undone([note.id]))


def open_gaps(app: App, note_ids: Sequence[str] | None = None) -> list[OpenGap]:
    """The open gaps of the notes in the folder now (of `note_ids` among them, if given),
    by the rule Today and the gap board read (ADR 0023)."""
    scheduler = app.scheduler()
    # Only the notes the memory cache says have one are replayed (the rest have none).
    wanted = scheduler.notes_with_open_gaps()
    if note_ids is not None:
        wanted &= set(note_ids)
    notes = [entry.note for entry in app.notes.load().notes if entry.note.id in wanted]
    found: list[OpenGap] = []
    for start in range(0, len(notes), _NOTES_READ):
        chunk = notes[start : start + _NOTES_READ]
        ids = [n.id for n in chunk]
        found += open_gaps_of_notes(chunk, scheduler.history(ids), scheduler.undone(ids))
    found.sort(key=lambda g: (g.note_title.casefold(), g.note_id, -g.missed, g.assertion_index))
    return found


def sent_to_judge(app: App, limit: int = SENT_SHOWN) -> list[SentRequest]:
    """Every request sent to the judge, the most recent first, exactly as it left, with
    the note and session whose answers it carried."""
    return app.outbox().sent(limit=limit)


def export_text(path: Path, text: str) -> None:
    """Write an export the learner asked for (gaps as Markdown), atomically."""
    atomic_write(path, text.encode("utf-8"))
