"""`coach doctor`: one check per thing Coach depends on, each with a detail a person can act on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from coach_gui.domain.errors import CoachError
from coach_gui.services.ports import JournalHealth, NoteStore


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str

    def to_json(self) -> dict[str, object]:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


def check_notes(store: NoteStore) -> Check:
    try:
        snapshot = store.load()
    except CoachError as exc:
        return Check("knowledge base", False, str(exc))
    notes = len(snapshot.notes)
    assertions = sum(len(e.note.core_assertions) for e in snapshot.notes)
    detail = f"{notes} notes, {assertions} core assertions in {snapshot.location}"
    if snapshot.broken:
        listed = "; ".join(f"{b.file_name}: {b.error}" for b in snapshot.broken)
        return Check(
            "knowledge base",
            False,
            f"{detail}; {len(snapshot.broken)} file(s) could not be read — {listed}",
        )
    return Check("knowledge base", True, detail)


def check_journal(open_journal: Callable[[], JournalHealth], location: str) -> Check:
    try:
        journal = open_journal()
        problems = journal.integrity_check()
        counts = journal.counts()
    except CoachError as exc:
        return Check("journal", False, str(exc))
    if problems:
        return Check(
            "journal",
            False,
            f"{location} failed its integrity check ({problems[0]}); restore a backup",
        )
    sessions = counts.get("sessions", 0)
    attempts = counts.get("attempts", 0)
    return Check(
        "journal",
        True,
        f"{location} (schema v{journal.schema_version}, {sessions} sessions, "
        f"{attempts} answers; integrity ok)",
    )
