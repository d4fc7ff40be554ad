"""What an operation asks of the app: the ports, built by `bootstrap.AppContext` (the
composition root), which satisfies these protocols. Operations never build an adapter;
each is typed on the small set of ports it uses, and the type checker holds `AppContext`
to every set wherever bootstrap hands it in."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Protocol

from coach_gui.config import Config
from coach_gui.domain.backups import Restored
from coach_gui.domain.eval_traces import StoredEvalRun
from coach_gui.domain.notes import NoteEntry
from coach_gui.domain.privacy import LivePrivacy
from coach_gui.domain.session_records import OutboxRecord, SentRequest
from coach_gui.domain.sync_pairing import Pairing
from coach_gui.services.ports.backups import BackupFolder
from coach_gui.services.ports.evals import EvalRunReader, EvalStore, SigningKeyLookup, SigningKeys
from coach_gui.services.ports.judge import ClosableJudge, ConnectionTester, KeyVault, VerdictJournal
from coach_gui.services.ports.notes import NoteLookup, NoteStore
from coach_gui.services.ports.practice import (
    Clock,
    ClosableTier1,
    LocalModelServer,
    PracticeJournal,
)
from coach_gui.services.ports.sealing import TraceJournal
from coach_gui.services.ports.sync import SyncFolder, SyncJournal, SyncKey
from coach_gui.services.scheduler import AssertionScheduler


class SessionJournal(PracticeJournal, VerdictJournal, Protocol):
    """A practice session's journal: it marks the session live until released."""

    def release(self, session_id: str) -> None: ...


class EvalJournal(EvalStore, EvalRunReader, Protocol):
    def recent_runs(self, limit: int = 50) -> list[StoredEvalRun]: ...


class EvalKeys(SigningKeys, SigningKeyLookup, Protocol): ...


class Outbox(Protocol):
    def entries(self, limit: int = 200) -> list[OutboxRecord]:
        """The most recent rows first."""
        ...

    def sent(self, limit: int = 200) -> list[SentRequest]:
        """The most recent rows first, each with the sessions it came from."""
        ...


class JudgeWithCheck(ClosableJudge, ConnectionTester, Protocol): ...


# --- the ports, in the small sets each operation asks for (issue 35) --------------------
# An operation is typed on the set it uses, so the type checker holds it to those ports;
# the use cases (operations/cases.py) are built with the sets their operations need.


class HasConfig(Protocol):
    @property
    def config(self) -> Config: ...


class HasClock(Protocol):
    @property
    def clock(self) -> Clock: ...


class HasNotes(Protocol):
    @property
    def notes(self) -> NoteStore: ...


class HasTraces(Protocol):
    def traces(self) -> TraceJournal: ...


class HasScheduler(Protocol):
    def scheduler(self) -> AssertionScheduler: ...


class HasJudge(Protocol):
    def judge(
        self, *, enabled: bool | None = None, live: bool = False, provider: str | None = None
    ) -> JudgeWithCheck: ...


class HasSigningKeys(Protocol):
    def eval_journal(self) -> EvalJournal: ...

    def signing_keys(self) -> EvalKeys: ...


class ReviewPorts(HasNotes, HasTraces, HasScheduler, Protocol):
    """Sessions, gaps and what was sent (operations/review.py)."""

    def outbox(self) -> Outbox: ...


class SchedulePorts(HasClock, HasScheduler, Protocol):
    """Today, holds, undo, statistics and the optimizer (today, schedule, optimize)."""


class JudgingPorts(HasConfig, HasClock, HasNotes, HasTraces, HasJudge, Protocol):
    """Answers kept unjudged, judged now (operations/judging.py)."""

    def verdict_journal(self) -> VerdictJournal: ...


class PracticePorts(HasClock, HasTraces, HasJudge, Protocol):
    """A session from opening to seal (operations/practice.py)."""

    @property
    def privacy(self) -> LivePrivacy:
        """The switches as they are now (DESIGN §1)."""
        ...

    def session_journal(self) -> SessionJournal: ...

    def ollama_client(self) -> LocalModelServer: ...

    def tier1(self) -> ClosableTier1: ...


class EvalPorts(HasConfig, HasClock, HasTraces, HasJudge, HasSigningKeys, Protocol):
    """The paired eval and its reports (operations/evals.py)."""

    @property
    def config_path(self) -> Path: ...


class SyncPorts(HasConfig, HasClock, Protocol):
    """The sync folder (operations/sync.py)."""

    def device(self) -> tuple[str, str]:
        """(id, name) of this installation as sync knows it."""
        ...

    def sync_folder(self, root: Path) -> SyncFolder: ...

    def sync_journal(self) -> SyncJournal: ...

    def sync_key(self) -> SyncKey:
        """This computer's signing key pair for sync (the private half in the keyring)."""
        ...


class VerifyPorts(HasTraces, HasSigningKeys, Protocol):
    """Every seal checked, and where records came from (operations/verify.py)."""

    def record_origin(self, record_id: str) -> tuple[str, str] | None: ...

    def sync_sources(self) -> list[tuple[str, str, dict[str, int]]]:
        """(device id, name, records) of each computer records were imported from."""
        ...

    def sync_pairings(self) -> list[Pairing]:
        """Every pairing record, in the order made."""
        ...


class BackupPorts(Protocol):
    """The journal's copies (operations/backups.py)."""

    @property
    def journal_path(self) -> Path: ...

    def backups(self) -> BackupFolder: ...

    def journal_held(self) -> AbstractContextManager[None]: ...

    def restore_journal(
        self, source: Path, refuse: Callable[[TraceJournal], str | None]
    ) -> Restored: ...


class App(
    ReviewPorts,
    SchedulePorts,
    JudgingPorts,
    PracticePorts,
    EvalPorts,
    SyncPorts,
    VerifyPorts,
    BackupPorts,
    Protocol,
):
    """Every port: what `bootstrap.AppContext` provides and the terminal's commands are
    given (the window is given use cases instead)."""

    def key_store(self) -> KeyVault: ...


def notes_by_id(app: HasNotes) -> NoteLookup:
    """The notes as they are in the folder now, by id."""
    return note_catalogue(app)[0]


def note_catalogue(app: HasNotes) -> tuple[NoteLookup, list[NoteEntry]]:
    """The notes as they are in the folder now: by id, and every one of them."""
    entries = list(app.notes.load().notes)
    notes = {entry.note.id: entry.note for entry in entries}
    return notes.get, entries


@contextmanager
def judge_for(
    app: HasJudge, judge: ClosableJudge | None = None, *, live: bool = False
) -> Iterator[ClosableJudge]:
    """`judge` when the caller built one (and closes it), else one built here and closed
    after. `live`: the window's judge, reading the switches at every request."""
    if judge is not None:
        yield judge
        return
    built = app.judge(live=live)
    try:
        yield built
    finally:
        built.close()
