"""The composition root: the one place that builds adapters (ADR 0018). The window and the
terminal get an `AppContext` from `build_context`; operations see it as `operations.app.App`
and ask it for ports (journals, the judge, Tier 1, the keyring, the clock). Nothing
connects at import, and the journal opens on first use."""

from __future__ import annotations

import json
import logging
import logging.handlers
import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from coach_gui import paths
from coach_gui.domain.errors import ConfigError
from coach_gui.domain.privacy import LivePrivacy, PrivacySwitches

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from coach_gui.adapters.anki_writer import AnkiCardFiles
    from coach_gui.adapters.gemini import GeminiJudge
    from coach_gui.adapters.journal.backups import JournalBackups
    from coach_gui.adapters.journal.database import Journal
    from coach_gui.adapters.journal.evals import SqliteEvalJournal
    from coach_gui.adapters.journal.outbox import SqliteOutbox
    from coach_gui.adapters.journal.practice import SqlitePracticeJournal
    from coach_gui.adapters.journal.sync import SqliteSyncJournal
    from coach_gui.adapters.journal.traces import LivePracticeJournal, SqliteTraceJournal
    from coach_gui.adapters.local_judge import OllamaJudge
    from coach_gui.adapters.notes_fs import MarkdownNoteStore
    from coach_gui.adapters.ollama import OllamaClient
    from coach_gui.adapters.secrets import KeyringSigningKeys, KeyringSyncKey, KeyStore
    from coach_gui.adapters.sync_folder import SyncFolder
    from coach_gui.adapters.tier1_ollama import OllamaTier1
    from coach_gui.adapters.vault_watch import VaultWatcher
    from coach_gui.config import Config
    from coach_gui.domain.backups import Restored
    from coach_gui.domain.local_servers import Candidate, FoundServer
    from coach_gui.domain.note_search import KeptListing, NoteSearchIndex
    from coach_gui.domain.notes import BrokenNote, KnowledgeBaseSnapshot, NoteEntry
    from coach_gui.domain.sync_pairing import Pairing
    from coach_gui.operations.cases import UseCases
    from coach_gui.operations.keys import Keys
    from coach_gui.services.ports.imports import ImportFolder, PackageSource
    from coach_gui.services.practice_settings import PracticeSettings
    from coach_gui.services.scheduler import AssertionScheduler

LOG_FILE_NAME = "coach.log"
STRUCTURED_OUTPUT_FILE = "structured_output.json"  # what each local server took (issue 31)


_PROCESS_STARTED = datetime.now(UTC)


class SystemClock:
    """The `Clock` port: wall-clock time in UTC. `COACH_NOW` (an ISO-8601 time; tests and
    demos of scheduling) starts the clock at that moment; it then runs on in real time."""

    def now(self) -> str:
        moment = datetime.now(UTC)
        start = os.environ.get("COACH_NOW")
        if start:
            try:
                base = datetime.fromisoformat(start).astimezone(UTC)
            except ValueError:
                raise ConfigError(
                    f"COACH_NOW={start!r} is not a time like 2026-11-01T09:00:00+00:00; "
                    "fix it or unset it"
                ) from None
            moment = base + (moment - _PROCESS_STARTED)
        return moment.isoformat(timespec="microseconds")


@dataclass
class AppContext:
    config: Config
    config_path: Path
    notes: MarkdownNoteStore
    data_dir: Path
    log_file: Path
    journal_path: Path
    _journal: Journal | None = None
    _journal_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    # The privacy switches as they are now, read at each request by the session, the
    # judging service and the Gemini adapter: a view of `config`, whatever it holds then.
    privacy: LivePrivacy = field(init=False, repr=False)
    clock: SystemClock = field(default_factory=SystemClock, repr=False)
    _sync_key: KeyringSyncKey | None = field(default=None, repr=False)
    # Where the Welcome and Settings look for running model servers (issue 31): each
    # runtime's default port on loopback.
    # None: each runtime's default port (domain/local_servers.py, imported when first asked,
    # so the first paint does not wait on it).
    server_candidates: tuple[Candidate, ...] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self.privacy = _PrivacyOfConfig(self)

    @property
    def journal(self) -> Journal:
        """The journal, opened (and migrated) on first use, so start-up does not wait on it.
        Workers may ask at the same moment; it is opened once."""
        with self._journal_lock:
            if self._journal is None:
                from coach_gui.adapters.journal.backups import JournalBackups
                from coach_gui.adapters.journal.database import Journal

                keep = self.config.journal.keep_backups
                self._journal = Journal.open(self.journal_path, keep_backups=keep)
                JournalBackups(self.journal_path, keep=keep).take_daily()  # at most once a day
            return self._journal

    # --- the journal's ports -----------------------------------------------------------
    def traces(self) -> SqliteTraceJournal:
        """Sessions read back as records; sealed traces and bindings written."""
        from coach_gui.adapters.journal.traces import SqliteTraceJournal

        return SqliteTraceJournal(self.journal)

    def session_journal(self) -> LivePracticeJournal:
        """A practice session's journal: marks the session live until it is released."""
        from coach_gui.adapters.journal.traces import LivePracticeJournal

        return LivePracticeJournal(self.journal)

    def verdict_journal(self) -> SqlitePracticeJournal:
        """Where verdicts and refusals of answers judged later are written."""
        from coach_gui.adapters.journal.practice import SqlitePracticeJournal

        return SqlitePracticeJournal(self.journal)

    def eval_journal(self) -> SqliteEvalJournal:
        from coach_gui.adapters.journal.evals import SqliteEvalJournal

        return SqliteEvalJournal(self.journal)

    def outbox(self) -> SqliteOutbox:
        """Every judge request as sent, and how it ended."""
        from coach_gui.adapters.journal.outbox import SqliteOutbox

        return SqliteOutbox(self.journal)

    def signing_keys(self) -> KeyringSigningKeys:
        """The keyring key that signs eval reports and the trace log's head."""
        from coach_gui.adapters.secrets import KeyringSigningKeys

        return KeyringSigningKeys()

    def backups(self) -> JournalBackups:
        from coach_gui.adapters.journal.backups import JournalBackups

        return JournalBackups(self.journal_path, keep=self.config.journal.keep_backups)

    @contextmanager
    def journal_held(self) -> Iterator[None]:
        """No restore replaces the journal file meanwhile (waits up to 10 s for one)."""
        from coach_gui.adapters.journal import lock

        held = lock.hold_shared(self.journal_path, wait_seconds=10.0)
        try:
            yield
        finally:
            lock.release(held)

    def restore_journal(
        self, source: Path, refuse: Callable[[SqliteTraceJournal], str | None]
    ) -> Restored:
        """Replace the journal with the backup `source` once it checks out; `refuse` says
        why a copy must not be restored (its traces do not verify), or None."""
        from coach_gui.adapters.journal.restore import restore_journal
        from coach_gui.adapters.journal.traces import SqliteTraceJournal

        return restore_journal(
            source, self.backups(), lambda copy: refuse(SqliteTraceJournal(copy))
        )

    # --- sync (issue 20, ADR 0027) -------------------------------------------------------
    def device(self) -> tuple[str, str]:
        """(id, name) of this installation as sync knows it, made on first use."""
        from coach_gui.adapters.sync_folder import device_identity

        return device_identity(self.data_dir)

    def sync_folder(self, root: Path) -> SyncFolder:
        from coach_gui.adapters.sync_folder import REFUSALS_FILE, SyncFolder

        return SyncFolder(root, self.device()[0], self.data_dir / REFUSALS_FILE)

    def sync_journal(self) -> SqliteSyncJournal:
        from coach_gui.adapters.journal.sync import SqliteSyncJournal

        return SqliteSyncJournal(self.journal, self.device()[0])

    def sync_key(self) -> KeyringSyncKey:
        from coach_gui.adapters.secrets import KeyringSyncKey

        if self._sync_key is None:
            self._sync_key = KeyringSyncKey()
        return self._sync_key

    def sync_sources(self) -> list[tuple[str, str, dict[str, int]]]:
        from coach_gui.adapters.journal.sync import SqliteSyncJournal

        return SqliteSyncJournal(self.journal, None).sources()

    def sync_pairings(self) -> list[Pairing]:
        from coach_gui.adapters.journal.sync import SqliteSyncJournal

        return SqliteSyncJournal(self.journal, None).pairing_history()

    def record_origin(self, record_id: str) -> tuple[str, str] | None:
        """(device id, name) of the other device a record was imported from, or None."""
        from coach_gui.adapters.journal.sync import SqliteSyncJournal

        return SqliteSyncJournal(self.journal, None).origin_of(record_id)

    # --- the notes folder --------------------------------------------------------------
    def watch_vault(
        self, folder: Path, on_change: Callable[[frozenset[str]], None]
    ) -> VaultWatcher:
        """Watch `folder` for changes made outside Coach; `on_change` runs on the
        watcher's thread with the relative paths changed."""
        from coach_gui.adapters.vault_watch import VaultWatcher

        watcher = VaultWatcher(folder, on_change)
        watcher.start()
        return watcher

    def read_notes_folder(self, folder: Path) -> KnowledgeBaseSnapshot:
        """The notes in `folder`, read to be looked at before it is chosen: nothing is
        written there, and this context's notes folder stays what it is."""
        return note_store(folder, self.data_dir).load()

    def open_notes_folder(self, folder: Path) -> None:
        """Make `folder` the notes folder of this context (the caller saves the config)."""
        self.notes = note_store(folder, self.data_dir)

    def keep_listing(
        self, location: str, index: NoteSearchIndex[NoteEntry], broken: Sequence[BrokenNote]
    ) -> None:
        """Keep the listing of the notes folder `location` to show at the next start."""
        from coach_gui.adapters.kept_listing import write_kept
        from coach_gui.domain.note_search import KeptBroken

        kept_broken = [KeptBroken(b.file_name, b.error) for b in broken]
        write_kept(paths.kept_listing_file(self.data_dir), location, index, kept_broken)

    def ollama_client(self, *, read_timeout: float | None = None) -> OllamaClient:
        """A client for the configured local model server, in its wire format (loopback
        only; connects on first use)."""
        from coach_gui.adapters.ollama import OllamaClient

        tier1 = self.config.tier1
        timeout = tier1.read_timeout_seconds if read_timeout is None else read_timeout
        if tier1.server == "openai":
            from coach_gui.adapters.openai_compat import DialectMemory, OpenAIClient

            return OpenAIClient(
                tier1.url,
                api_key=local_server_key(),
                dialects=DialectMemory(self.data_dir / STRUCTURED_OUTPUT_FILE),
                connect_timeout=tier1.connect_timeout_seconds,
                read_timeout=timeout,
            )
        return OllamaClient(
            tier1.url, connect_timeout=tier1.connect_timeout_seconds, read_timeout=timeout
        )

    def find_local_servers(
        self, cancelled: Callable[[], bool] = lambda: False
    ) -> list[FoundServer]:
        """The model servers running on this computer, with their models (slow: a worker's)."""
        from coach_gui.adapters.discovery import find_servers
        from coach_gui.domain.local_servers import DEFAULT_CANDIDATES

        candidates = self.server_candidates or DEFAULT_CANDIDATES
        return find_servers(candidates, cancelled=cancelled)

    def tier1(self) -> OllamaTier1:
        from coach_gui.adapters.tier1_ollama import OllamaTier1

        tier1 = self.config.tier1
        return OllamaTier1(
            self.ollama_client(),
            tier1.model,
            temperature=tier1.temperature,
            seed=tier1.seed,
            keep_alive=tier1.keep_alive,
        )

    def key_store(self) -> KeyStore:
        return key_store()

    def gemini_keys(self) -> Keys:
        """The Gemini key, and its test through the judge built from the settings then."""
        from coach_gui.operations.keys import Keys

        return Keys(key_store(), lambda: self.judge(enabled=True, provider="gemini"))

    def judge(
        self, *, enabled: bool | None = None, live: bool = False, provider: str | None = None
    ) -> GeminiJudge | OllamaJudge:
        """The configured judge: Gemini with the key from the OS keyring, or the model on
        this computer (`judge.provider: local`). Raises JudgeDisabled (switched off), and
        for Gemini JudgeKeyMissing (no key) or KeyringUnavailable (no OS keyring). `live`:
        the window's judge, which reads both privacy switches at every request (a command
        keeps the config it started with, and `--judge on` its own word)."""
        config = self.config.judge
        if enabled is not None:
            config = config.model_copy(update={"enabled": enabled})
        if provider is not None:  # this judge, whichever grades now (comparing the two)
            config = config.model_copy(update={"provider": provider})
        if not config.enabled:
            from coach_gui.domain.judge_errors import JudgeDisabled

            raise JudgeDisabled()
        provider = config.provider

        def current() -> bool:  # Settings may choose another judge while this one works
            return self.privacy.provider() == provider

        if config.local:
            from coach_gui.adapters.local_judge import OllamaJudge

            return OllamaJudge.from_config(
                config,
                self.config.tier1,
                self.outbox(),
                client=self.ollama_client(read_timeout=config.local_timeout_seconds),
                include_assertions=self.privacy.include_assertions if live else None,
                enabled_now=self.privacy.judge_enabled if live else None,
                still_current=current if live else None,
            )
        from coach_gui.adapters.gemini import GeminiJudge

        return GeminiJudge.from_config(
            config,
            self.key_store().get(),
            self.outbox(),
            # The switches as they are at each request, not as when this judge was built.
            include_assertions=self.privacy.include_assertions if live else None,
            enabled_now=self.privacy.judge_enabled if live else None,
            still_current=current if live else None,
        )

    def scheduler(self) -> AssertionScheduler:
        """What is due, per core assertion (issue 7), over this journal and the system clock."""
        from coach_gui.adapters.journal.memory import SqliteMemoryJournal
        from coach_gui.operations.today import learners_day_offset
        from coach_gui.services.scheduler import AssertionScheduler, ScheduleSettings

        schedule = self.config.schedule
        return AssertionScheduler(
            self.traces(),
            SqliteMemoryJournal(self.journal),
            self.clock,
            settings=ScheduleSettings(
                desired_retention=schedule.desired_retention,
                new_per_day=schedule.new_per_day,
                new_order=schedule.new_order,
                leech_lapses=schedule.leech_lapses,
                day_offset=learners_day_offset(),
            ),
        )

    # --- importing from Anki (issue 37) ---------------------------------------------------
    def package_source(self, path: Path) -> PackageSource:
        """What reads `path`: a CSV by its suffix, else an Anki package."""
        from coach_gui.adapters.anki_sources import AnkiPackageSource, CsvSource
        from coach_gui.operations.anki_import import CSV_SUFFIXES

        if path.suffix.lower() in CSV_SUFFIXES:
            return CsvSource()
        return AnkiPackageSource()

    def import_folder(self) -> ImportFolder:
        """The knowledge base, written with new files only."""
        from coach_gui.adapters.import_folder import ImportFolder as Folder

        return Folder(Path(self.notes.location))

    def card_files(self) -> AnkiCardFiles:
        """The writer of card files for `coach export` and File › Export… (issue 37)."""
        from coach_gui.adapters.anki_writer import AnkiCardFiles

        return AnkiCardFiles()

    def practice_settings(self, *, judge_enabled: bool | None = None) -> PracticeSettings:
        from coach_gui.services.practice_settings import PracticeSettings

        config = self.config
        return PracticeSettings(
            challenges=config.tier1.challenges_per_session,
            follow_ups=config.tier1.follow_ups,
            max_regenerations=config.tier1.max_regenerations,
            max_shared_words=config.no_quote.max_shared_words,
            max_containment=config.no_quote.max_containment,
            shingle_words=config.no_quote.shingle_words,
            tier1_model=config.tier1.model,
            judge_enabled=config.judge.enabled if judge_enabled is None else judge_enabled,
            include_assertions=config.judge.include_assertions,
            judge_model=config.judge.judge_model,
            judge_temperature=config.judge.temperature,
            judge_seed=config.judge.seed,
            judge_thinking_budget=config.judge.sent_thinking_budget,
            judge_strictness=config.judge.strictness,
        )

    def close(self) -> None:
        if self._journal is not None:
            self._journal.close()
            self._journal = None


def _switches(config: Config) -> PrivacySwitches:
    return PrivacySwitches(
        config.judge.enabled, config.judge.include_assertions, config.judge.provider
    )


class _PrivacyOfConfig(LivePrivacy):
    """The live privacy switches as a view of the config in effect (issue 35): every
    request reads them from whatever config the context holds now, so there is no copy to
    keep in step when the window's one owner sets a new config."""

    def __init__(self, context: AppContext) -> None:
        super().__init__(_switches(context.config))
        self._context = context

    def now(self) -> PrivacySwitches:
        return _switches(self._context.config)  # one read of the attribute: whole, or not

    def set(self, switches: PrivacySwitches) -> None:
        raise TypeError("the switches follow the config: set the config instead")


def setup_logging(log_file: Path, *, debug: bool | None = None) -> None:
    """Log to a rotating file; the learner sees messages, the file keeps the details.
    Debug level (`debug`, else the environment's COACH_DEBUG=1) may log note and answer
    text; the default level never does."""
    if debug is None:
        debug = os.environ.get("COACH_DEBUG") == "1"
    root = logging.getLogger()
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    for old in [h for h in root.handlers if getattr(h, "_coach", False)]:
        if getattr(old, "baseFilename", None) == str(log_file.absolute()):
            return
        root.removeHandler(old)  # a new COACH_HOME (tests) gets its own log file
        old.close()
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = logging.handlers.RotatingFileHandler(
            log_file, maxBytes=1_000_000, backupCount=3, encoding="utf-8"
        )
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler._coach = True  # type: ignore[attr-defined]
    root.addHandler(handler)


def key_store() -> KeyStore:
    """The Gemini API key in the OS keyring (needs no config: `coach key` works with a
    broken one)."""
    from coach_gui.adapters.secrets import KeyStore

    return KeyStore()


class House:
    """What `coach`'s commands are given to build (DESIGN §2: only the entry points touch
    bootstrap); each is built when the command asks, so `coach key` works with a broken
    config and `coach --help` opens nothing."""

    def app(self, *, seed: bool = True) -> AppContext:
        return build_context(seed=seed)

    def gemini_keys(self) -> Keys:
        return gemini_keys()

    def local_server_keys(self) -> Keys:
        return local_server_keys()


def gemini_keys() -> Keys:
    """The Gemini key, for `coach key` (no config needed: it works with a broken one)."""
    from coach_gui.operations.keys import Keys

    return Keys(key_store())


def local_server_keys() -> Keys:
    """The local model server's key, for `coach key --local-server`."""
    from coach_gui.operations.keys import Keys

    return Keys(local_server_key_store())


def local_server_key_store() -> KeyStore:
    """The local model server's key in the OS keyring (Jan's Local API Server wants one;
    most servers want none), kept like the Gemini key."""
    from coach_gui.adapters.secrets import LOCAL_SERVER_KEY, KeyStore

    return KeyStore(LOCAL_SERVER_KEY)


def local_server_key() -> str | None:
    """The stored local server key; None when none is stored or there is no keyring (a
    server that wants one then says so, and the learner is told what to do)."""
    from coach_gui.domain.judge_errors import KeyringUnavailable

    try:
        return local_server_key_store().get()
    except KeyringUnavailable:
        return None


def note_store(kb: Path, data: Path) -> MarkdownNoteStore:
    """The store over the notes folder `kb`; Coach's own state for it lives in `data`."""
    from coach_gui.adapters.note_ids import vault_key
    from coach_gui.adapters.notes_fs import MarkdownNoteStore

    return MarkdownNoteStore(
        kb,
        paths.trash_dir(kb),
        cache_file=data / "cache" / "front-matter.json",
        ids_file=data / "note-ids" / f"{vault_key(kb)}.json",  # never inside the vault
        deleted_file=data / "deleted-notes" / f"{vault_key(kb)}.json",  # to undo a delete
        index_file=data / "note-index" / f"{vault_key(kb)}.json",  # the files as last read
    )


def use_cases(context: AppContext) -> UseCases:
    """The window's use cases over `context`, each given the ports it needs (issue 35)."""
    from coach_gui.operations import cases
    from coach_gui.operations.anki_export import Exports

    return cases.UseCases(
        practice=cases.Practice(context),
        review=cases.Review(context),
        notes=cases.Notes(context),
        settings=cases.Settings(context),
        keys=context.gemini_keys(),
        schedule=cases.Schedule(context),
        sync=cases.Sync(context),
        evals=cases.Evals(context),
        imports=cases.Imports(context),
        exports=Exports(context),
        _resources=context,
    )


def build_cases(*, seed: bool = True) -> UseCases:
    """`use_cases` over a context built as `build_context` builds it."""
    return use_cases(build_context(seed=seed))


def kept_listing() -> KeptListing | None:
    """The notes as the window last listed them, if they are of the notes folder the
    settings name now: read before the settings are validated (the frame lists them at
    once, ADR 0036), so only `kb.path` is taken from the settings file, as JSON. None when
    nothing is kept, it is another folder's, or the settings file cannot be read (the
    settings' own check then says why)."""
    from coach_gui.adapters.kept_listing import read_kept
    from coach_gui.files import read_limited

    try:
        raw = read_limited(paths.config_file(), paths.MAX_CONFIG_BYTES)
        kb = json.loads(raw).get("kb", {}).get("path")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    if len(raw) > paths.MAX_CONFIG_BYTES or not isinstance(kb, str | None):
        return None
    try:
        location = str(paths.kb_dir(kb))
    except RuntimeError:  # "~nosuchuser/notes": the settings' own check says so
        return None
    return read_kept(paths.kept_listing_file(paths.data_dir()), location)


def build_context(*, seed: bool = True) -> AppContext:
    """Load the config (ConfigError if it is bad), find the data folders, seed the sample
    knowledge base on first run, and build the note store. The journal opens lazily."""
    from coach_gui.adapters.notes_fs import seed_sample_notes
    from coach_gui.config import config_path, load_config

    cfg_path = config_path()
    config = load_config(cfg_path)
    data = paths.data_dir()
    log_file = paths.log_dir() / LOG_FILE_NAME
    setup_logging(log_file)
    kb = paths.kb_dir(config.kb.path)
    if seed and not config.kb.path:
        seed_sample_notes(kb)
    store = note_store(kb, data)
    return AppContext(
        config=config,
        config_path=cfg_path,
        notes=store,
        data_dir=data,
        log_file=log_file,
        journal_path=paths.journal_path(),
    )
