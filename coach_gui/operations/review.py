"""Looking back: sessions, their gaps, and what was sent to the judge — for the Sessions,
Gaps and Sent-to-judge views and `coach sessions`/`coach gaps` alike."""

from __future__ import annotations

from pathlib import Path

from coach_gui.domain.session_records import SentRequest
from coach_gui.files import atomic_write
from coach_gui.operations.app import App
from coach_gui.services.review import GapReport, SessionSummary, gap_report, list_sessions

SENT_SHOWN = 1000  # rows of the outbox the Sent-to-judge view lists


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


def sent_to_judge(app: App, limit: int = SENT_SHOWN) -> list[SentRequest]:
    """Every request sent to the judge, the most recent first, exactly as it left, with
    the note and session whose answers it carried."""
    return app.outbox().sent(limit=limit)


def export_text(path: Path, text: str) -> None:
    """Write an export the learner asked for (gaps as Markdown), atomically."""
    atomic_write(path, text.encode("utf-8"))
