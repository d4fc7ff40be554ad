"""The parent's checks after each kill in the crash stress (issue 9, item 1): no
acknowledged save lost, no torn note file, `PRAGMA integrity_check` ok, crash recovery
seals every interrupted session, every acknowledged answer and seal is in the journal,
every trace verifies, every backup is whole."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from coach_gui.adapters import front_matter
from coach_gui.adapters.journal.backups import JournalBackups
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.bootstrap import SystemClock
from coach_gui.domain.errors import CoachError
from coach_gui.services.sealing import recover_open_sessions
from coach_gui.services.verify import verify
from stress.crash_child import HEADER, note_content, note_version


@dataclass
class ChainState:
    """What the parent knows of one data folder across its trials."""

    versions: dict[str, int] = field(default_factory=dict)  # note id -> version on disk
    answers: dict[str, str] = field(default_factory=dict)  # acknowledged attempt -> answer
    sealed: dict[str, str] = field(default_factory=dict)  # acknowledged session -> trace
    temp_files: set[str] = field(default_factory=set)  # left by cut writes, seen so far


def _sample_bytes() -> dict[str, bytes]:
    folder = resources.files("coach_gui") / "resources" / "sample_kb"
    return {i.name: i.read_bytes() for i in folder.iterdir() if i.name.endswith(".md")}


def check_notes(home: Path, state: ChainState, acks: list[dict[str, Any]]) -> list[str]:
    problems: list[str] = []
    samples = _sample_bytes()
    acked: dict[str, int] = dict(state.versions)
    for ack in acks:
        if ack["op"] == "save":
            acked[ack["id"]] = max(acked.get(ack["id"], 0), ack["v"])
    on_disk: dict[str, int] = {}
    kb = home / "kb"
    for path in sorted(kb.rglob("*.md")) if kb.is_dir() else []:
        raw = path.read_bytes()
        try:
            note = front_matter.parse(raw).note
        except CoachError as error:
            problems.append(f"torn note file {path.name}: does not parse ({error})")
            continue
        version = note_version(note.body)
        if version == 0:
            if samples.get(path.name) != raw:
                problems.append(f"torn note file {path.name}: not a whole version")
            continue
        expected = note_content(note.id, version)
        whole = (
            note.body == expected["body"] and note.core_assertions == expected["core_assertions"]
        )
        if not whole or HEADER.match(note.body)[1] != note.id:  # type: ignore[index]
            problems.append(f"torn note file {path.name}: a mix of versions")
            continue
        on_disk[note.id] = version
    for note_id, version in acked.items():
        found = on_disk.get(note_id)
        if found is None:
            problems.append(f"acknowledged save lost: note {note_id} v{version} has no file")
        elif found not in (version, version + 1):  # +1: a save cut before its ack
            problems.append(f"acknowledged save lost: note {note_id} is v{found}, acked v{version}")
    for note_id, version in on_disk.items():
        if note_id not in acked and version != 1:
            problems.append(f"note {note_id} appeared at v{version} without any save")
    state.versions = {**acked, **on_disk}  # the next child starts from what is on disk
    return problems


def check_journal(
    home: Path, state: ChainState, acks: list[dict[str, Any]]
) -> tuple[int, list[str]]:
    for ack in acks:
        if ack["op"] == "answer":
            state.answers[ack["attempt"]] = ack["answer"]
        elif ack["op"] == "sealed":
            state.sealed[ack["session"]] = ack["trace"]
    path = home / "journal.sqlite3"
    if not path.exists():
        return 0, [] if not state.answers else ["the journal is gone"]
    problems: list[str] = []
    try:
        journal = Journal.open(path)
    except CoachError as error:
        return 0, [f"the journal does not open: {error}"]
    try:
        problems += [f"integrity_check: {p}" for p in journal.integrity_check()]
        recovered = recover_open_sessions(SqliteTraceJournal(journal), SystemClock())
        with journal.read() as conn:
            open_left = conn.execute(
                "SELECT count(*) FROM sessions WHERE sealed_trace_id IS NULL"
            ).fetchone()[0]
            stored = dict(conn.execute("SELECT id, answer FROM attempts").fetchall())
            traces = dict(conn.execute("SELECT id, sealed_trace_id FROM sessions").fetchall())
        if open_left:
            problems.append(f"{open_left} sessions still open after crash recovery")
        for attempt, answer in state.answers.items():
            if stored.get(attempt) != answer:
                problems.append(f"acknowledged answer {attempt} lost or changed")
        for session, trace in state.sealed.items():
            if traces.get(session) != trace:
                problems.append(f"acknowledged seal of session {session} lost")
        report = verify(SqliteTraceJournal(journal))
        if not report.ok:
            problems.append(f"verify failed: {report.first_failure}")
    finally:
        journal.close()
    return len(recovered), problems


def check_backups(home: Path) -> list[str]:
    problems = []
    for backup in JournalBackups(home / "journal.sqlite3").existing():
        conn = sqlite3.connect(backup.path.as_uri() + "?mode=ro", uri=True)
        try:
            result = conn.execute("PRAGMA integrity_check").fetchone()[0]
        except sqlite3.DatabaseError as error:
            result = str(error)
        finally:
            conn.close()
        if result != "ok":
            problems.append(f"backup {backup.path.name} is not whole: {result}")
    return problems


def new_temp_files(home: Path, state: ChainState) -> int:
    """Temp files a cut write left behind since the last trial (Coach ignores them)."""
    found = {str(p) for p in home.rglob(".*.tmp")}
    new = found - state.temp_files
    state.temp_files |= found
    return len(new)
