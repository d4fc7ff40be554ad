"""What an operation asks of the app: the ports, built by `bootstrap.AppContext` (the
composition root), which satisfies this protocol. Operations never build an adapter; the
type checker holds `AppContext` to this shape wherever the window or a command hands it in."""

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


class App(Protocol):
    @property
    def config(self) -> Config: ...

    @property
    def config_path(self) -> Path: ...

    @property
    def notes(self) -> NoteStore: ...

    @property
    def privacy(self) -> LivePrivacy:
        """The switches as they are now (DESIGN §1)."""
        ...

    @property
    def clock(self) -> Clock: ...

    @property
    def journal_path(self) -> Path: ...

    def traces(self) -> TraceJournal: ...

    def session_journal(self) -> SessionJournal: ...

    def verdict_journal(self) -> VerdictJournal: ...

    def eval_journal(self) -> EvalJournal: ...

    def outbox(self) -> Outbox: ...

    def signing_keys(self) -> EvalKeys: ...

    def backups(self) -> BackupFolder: ...

    def journal_held(self) -> AbstractContextManager[None]: ...

    def restore_journal(
        self, source: Path, refuse: Callable[[TraceJournal], str | None]
    ) -> Restored: ...

    def ollama_client(self) -> LocalModelServer: ...

    def tier1(self) -> ClosableTier1: ...

    def key_store(self) -> KeyVault: ...

    def judge(
        self, *, enabled: bool | None = None, live: bool = False, provider: str | None = None
    ) -> JudgeWithCheck: ...

    def scheduler(self) -> AssertionScheduler: ...

    def device(self) -> tuple[str, str]:
        """(id, name) of this installation as sync knows it."""
        ...

    def sync_folder(self, root: Path) -> SyncFolder: ...

    def sync_journal(self) -> SyncJournal: ...

    def sync_key(self) -> SyncKey:
        """This computer's signing key pair for sync (the private half in the keyring)."""
        ...

    def record_origin(self, record_id: str) -> tuple[str, str] | None: ...

    def sync_sources(self) -> list[tuple[str, str, dict[str, int]]]:
        """(device id, name, records) of each computer records were imported from."""
        ...

    def sync_pairings(self) -> list[Pairing]:
        """Every pairing record, in the order made."""
        ...


def notes_by_id(app: App) -> NoteLookup:
    """The notes as they are in the folder now, by id."""
    return note_catalogue(app)[0]


def note_catalogue(app: App) -> tuple[NoteLookup, list[NoteEntry]]:
    """The notes as they are in the folder now: by id, and every one of them."""
    entries = list(app.notes.load().notes)
    notes = {entry.note.id: entry.note for entry in entries}
    return notes.get, entries


@contextmanager
def judge_for(
    app: App, judge: ClosableJudge | None = None, *, live: bool = False
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
