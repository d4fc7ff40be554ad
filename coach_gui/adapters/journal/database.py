"""The journal: one SQLite file in WAL mode, migrated forward by `PRAGMA user_version`,
written by a single writer connection and read through per-thread read connections."""

from __future__ import annotations

import contextlib
import logging
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from coach_gui.adapters.journal import lock as journal_lock
from coach_gui.adapters.journal.backups import DEFAULT_KEEP, JournalBackups
from coach_gui.adapters.journal.schema import MIGRATIONS, Migration
from coach_gui.adapters.journal.trace_log import HeadKey, HeadSigner, sign_adopted
from coach_gui.domain.errors import CoachError, JournalError

log = logging.getLogger(__name__)

_SQLITE_MAGIC = b"SQLite format 3\x00"
_TRACE_LOG_VERSION = 4  # the schema that brought the trace log


class HeadKeys(Protocol):
    """Where the trace log's signing key lives (`secrets.KeyringSigningKeys`)."""

    def signing_key(self) -> HeadKey:
        """The key, created and stored first if there is none."""
        ...

    def existing_key(self) -> HeadKey | None: ...

    def has_key(self) -> bool: ...


def _utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


_BUSY_SECONDS = 10.0  # another process (the CLI beside the GUI) may hold the write lock
_WRITE_WAIT_SECONDS = 60.0  # a writer thread waits this long for our own lock
_BULK_CACHE_KIB = 65536  # the writer's page cache during `bulk()`
_BULK_CHECKPOINT_PAGES = 16384  # 64 MB of write-ahead log between checkpoints
# After a checkpoint, the write-ahead log file is cut back to this size (it otherwise
# stays as large as the largest transaction or bulk write made it).
_WAL_LIMIT_BYTES = 16 * 1024 * 1024
_REPORT = "if it keeps happening, run `coach doctor` and report it with the log file"


_BUSY = "Another Coach window or command is using it; close that one and try again."
_DAMAGED = (
    "The file is damaged; restore a backup with `coach restore FILE` (they are in the "
    "backups folder beside it)."
)
_DISK = "Check that its folder is writable and the disk is present, then try again."
# The next step for the learner, by the prefix of SQLite's error name.
_NEXT_STEPS = {
    "SQLITE_CONSTRAINT": f"Coach refused to store an inconsistent record; {_REPORT}.",
    "SQLITE_BUSY": _BUSY,
    "SQLITE_LOCKED": _BUSY,
    "SQLITE_FULL": "The disk is full; free some space and try again.",
    "SQLITE_CORRUPT": _DAMAGED,
    "SQLITE_NOTADB": _DAMAGED,
    "SQLITE_READONLY": _DISK,
    "SQLITE_CANTOPEN": _DISK,
    "SQLITE_PERM": _DISK,
    "SQLITE_IOERR": _DISK,
}


def _journal_error(path: Path, error: sqlite3.Error, doing: str) -> JournalError:
    """Turn a vendor error into ours, with the next step the learner can take."""
    name = getattr(error, "sqlite_errorname", "") or ""
    step = next((s for key, s in _NEXT_STEPS.items() if name.startswith(key)), None)
    step = step or f"Try again; {_REPORT}."
    return JournalError(f"The journal {path} could not {doing}: {error}. {step}")


def _connect(path: Path) -> sqlite3.Connection:
    # Autocommit mode: transactions are opened explicitly (BEGIN IMMEDIATE for writes).
    conn = sqlite3.connect(
        path, timeout=_BUSY_SECONDS, isolation_level=None, check_same_thread=False
    )
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    # FULL: a submitted answer survives power loss, not just a crash (NORMAL may lose it).
    conn.execute("PRAGMA synchronous = FULL")
    return conn


def _back_to_full(conn: sqlite3.Connection) -> None:
    """After a write that did not wait for the disk, every later one does again."""
    try:
        conn.execute("PRAGMA synchronous = FULL")
    except sqlite3.Error as error:  # only inside a transaction, which a write never leaves
        log.warning("the journal could not go back to waiting for the disk: %s", error)


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch to WAL. Changing the journal mode does not wait on SQLite's busy handler, so
    two first opens at once (the GUI's workers, or the GUI and a `coach` command) would
    fail with "database is locked": retry for as long as any other write would wait."""
    deadline = time.monotonic() + _BUSY_SECONDS
    while True:
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


_NULL_VALUE = re.compile(r"NULL value in (\w+)\.(\w+)")


def integrity_problems(conn: sqlite3.Connection) -> list[str]:
    """`PRAGMA integrity_check`'s findings (empty when sound), less the false "NULL value
    in T.C" SQLite 3.40 reports for a NOT NULL column of a STRICT, WITHOUT ROWID table
    (`eval_children`) that holds no NULL: each such claim is checked with a query."""
    found = [str(row[0]) for row in conn.execute("PRAGMA integrity_check")]
    if found == ["ok"]:
        return []
    tables = {str(row[0]) for row in conn.execute("SELECT name FROM sqlite_schema")}
    real: list[str] = []
    for problem in found:
        claim = _NULL_VALUE.fullmatch(problem)
        if claim is not None and claim[1] in tables:
            columns = {str(r[1]) for r in conn.execute(f"PRAGMA table_info({claim[1]})")}
            if claim[2] in columns:
                query = f'SELECT 1 FROM "{claim[1]}" WHERE "{claim[2]}" IS NULL LIMIT 1'
                if conn.execute(query).fetchone() is None:
                    continue
        real.append(problem)
    return real


def _statements(script: str) -> Iterator[str]:
    """Split a script into statements (trigger bodies included), so a migration can run
    inside our own transaction; `executescript` would commit it first."""
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            yield pending
            pending = ""


def _probe(path: Path) -> tuple[int, bool]:
    """(user_version, has tables) of an existing file, read without changing it."""
    if not path.exists() or path.stat().st_size == 0:
        return 0, False
    with path.open("rb") as handle:
        magic = handle.read(len(_SQLITE_MAGIC))
    if magic != _SQLITE_MAGIC:
        raise JournalError(
            f"{path} is not a Coach journal (it is not an SQLite database). Move it aside "
            "(rename it) or restore a backup, then start Coach again to create a fresh one."
        )
    uri = path.resolve().as_uri() + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, timeout=_BUSY_SECONDS)
    try:
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = int(conn.execute("SELECT count(*) FROM sqlite_schema").fetchone()[0])
    finally:
        conn.close()
    return version, tables > 0


def _migrate(writer: sqlite3.Connection, path: Path, migrations: Sequence[Migration]) -> None:
    """Apply each newer migration in its own transaction, rechecking the version inside
    it so two Coach processes starting together cannot both apply one."""
    writer.execute("PRAGMA foreign_keys = OFF")  # table rebuilds need it off; checked below
    try:
        for migration in migrations:
            writer.execute("BEGIN IMMEDIATE")
            try:
                if writer.execute("PRAGMA user_version").fetchone()[0] >= migration.version:
                    writer.execute("ROLLBACK")
                    continue
                for statement in _statements(migration.script):
                    writer.execute(statement)
                if migration.after is not None:
                    migration.after(writer)
                if writer.execute("PRAGMA foreign_key_check").fetchone() is not None:
                    raise sqlite3.IntegrityError("FOREIGN KEY constraint failed")
                writer.execute(f"PRAGMA user_version = {int(migration.version)}")
                writer.execute("COMMIT")
            except sqlite3.Error as error:
                if writer.in_transaction:
                    writer.execute("ROLLBACK")
                raise _journal_error(
                    path, error, f"be upgraded to schema v{migration.version} (left unchanged)"
                ) from error
    finally:
        writer.execute("PRAGMA foreign_keys = ON")


class Journal:
    """The open journal. Write with `with journal.write() as conn:` (one transaction,
    committed on exit, rolled back on error); read with `with journal.read() as conn:`
    (one consistent snapshot). Rows come back as `sqlite3.Row`."""

    def __init__(
        self,
        path: Path,
        writer: sqlite3.Connection,
        in_use: int | None = None,
        keys: HeadKeys | None = None,
    ) -> None:
        self._path = path
        self._keys = keys
        self._writer: sqlite3.Connection | None = writer
        self._in_use = in_use  # the shared lock that tells a restore we have it open
        self._write_lock = threading.Lock()
        self._writing_thread: int | None = None
        self._readers_lock = threading.Lock()
        self._readers: dict[int, tuple[threading.Thread, sqlite3.Connection]] = {}
        # Reader connections inside a read now, and those `close()` left to their own
        # thread to close when that read ends (closing one another thread is reading
        # with can crash the process).
        self._reading: set[sqlite3.Connection] = set()
        self._left: set[sqlite3.Connection] = set()

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        migrations: Sequence[Migration] = MIGRATIONS,
        keep_backups: int = DEFAULT_KEEP,
        backup_before_migration: bool = True,
        keys: HeadKeys | None = None,
    ) -> Journal:
        """Open or create the journal at `path` and migrate it to the latest schema,
        backing an existing file up first (keeping the newest `keep_backups`; not for a
        disposable copy, such as the one a restore checks, whose backups would crowd out
        the learner's own). A database
        from a newer Coach, or a file that is not a Coach journal, is refused and left
        untouched. `keys` holds the key that signs the trace log's head (default: the
        OS keyring's)."""
        if [m.version for m in migrations] != list(range(1, len(migrations) + 1)):
            raise JournalError("Coach's journal migrations are out of order; report this bug.")
        latest = migrations[-1].version
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_dir():
                raise JournalError(f"{path} is a folder, not a journal; move it aside.")
            version, has_tables = _probe(path)
        except OSError as error:
            raise JournalError(
                f"Coach cannot use {path} for its journal ({error.strerror}: {error.filename}). "
                "Check the folder's permissions, or set COACH_HOME to a writable folder."
            ) from error
        except sqlite3.Error as error:
            raise _journal_error(path, error, "be opened") from error
        if version > latest:
            raise JournalError(
                f"{path} was written by a newer Coach (schema v{version}); update Coach or "
                f"restore a backup (this Coach knows schemas up to v{latest})."
            )
        if version == 0 and has_tables:
            raise JournalError(
                f"{path} is an SQLite database but not a Coach journal. Move it aside or "
                "restore a backup, then start Coach again to create a fresh one."
            )
        writer: sqlite3.Connection | None = None
        in_use = journal_lock.hold_shared(path, wait_seconds=_BUSY_SECONDS)
        try:
            writer = _connect(path)
            _use_wal(writer)  # readers never block the writer
            writer.execute(f"PRAGMA journal_size_limit = {_WAL_LIMIT_BYTES}")
            if version < latest:
                if version > 0 and backup_before_migration:
                    JournalBackups(path, keep=keep_backups).take(writer, f"pre-v{version + 1}")
                _migrate(writer, path, migrations)
        except BaseException as error:
            if writer is not None:
                writer.close()
            journal_lock.release(in_use)
            if isinstance(error, sqlite3.Error):
                raise _journal_error(path, error, "be opened") from error
            if isinstance(error, OSError):
                raise JournalError(
                    f"Coach could not back up {path} before upgrading it ({error}). "
                    "Free some disk space or check the folder's permissions."
                ) from error
            raise
        journal = cls(path, writer, in_use, keys)
        if version < _TRACE_LOG_VERSION <= latest:
            try:
                journal._sign_adopted_log()
            except BaseException:
                journal.close()
                raise
        return journal

    # --- the trace log's signing key (issue 21) ----------------------------------------------
    def head_key(self) -> HeadSigner | None:
        """The key that signs the trace log's head, read from the keyring at each seal
        (created if there is none), or None when the keyring does not answer. Call it
        before `write()`: a keyring that asks to be unlocked must not hold the writer."""
        keys = self.signing_keys()
        try:
            existing = keys.existing_key()
            if existing is not None:
                return HeadSigner(*existing, fresh=False)
            created = keys.signing_key()
            again = keys.existing_key()  # another Coach may have stored its own meanwhile
            if again is not None and again[0] != created[0]:
                return HeadSigner(*again, fresh=False)
            return HeadSigner(*created, fresh=True)
        except CoachError as error:  # sealing goes on; verify reports the gap
            log.info("the trace log's head is left unsigned: %s", type(error).__name__)
            return None

    def signing_keys(self) -> HeadKeys:
        if self._keys is None:
            from coach_gui.adapters.secrets import KeyringSigningKeys

            self._keys = KeyringSigningKeys()
        return self._keys

    def _sign_adopted_log(self) -> None:
        """Sign the head of the traces just adopted into the log, if a key exists already
        (one made for eval reports); otherwise the first seal signs it."""
        try:
            has_key = self.signing_keys().has_key()
        except CoachError:
            return
        signer = self.head_key() if has_key else None
        if signer is not None:
            with self.write() as conn:
                sign_adopted(conn, _utc_now(), signer)

    @property
    def path(self) -> Path:
        return self._path

    @property
    def schema_version(self) -> int:
        with self.read() as conn:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])

    @contextlib.contextmanager
    def write(self, *, durable: bool = True) -> Iterator[sqlite3.Connection]:
        """The single writer, in one IMMEDIATE transaction. Do not call commit() inside.
        `durable=False` is for a write that can be made again from what it came from (a
        sync segment, still in the sync folder): its commit does not wait for the disk,
        so a power cut may take it back (never half of it); a crash of Coach does not."""
        if self._writing_thread == threading.get_ident():
            raise JournalError("Coach started a journal write inside another; report this bug.")
        if not self._write_lock.acquire(timeout=_WRITE_WAIT_SECONDS):
            raise JournalError("The journal stayed busy for a minute; try again.")
        try:
            if self._writer is None:
                raise JournalError("The journal is closed; restart Coach.")
            conn = self._writer
            self._writing_thread = threading.get_ident()
            try:
                if not durable:
                    conn.execute("PRAGMA synchronous = NORMAL")
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                if conn.in_transaction:
                    conn.execute("COMMIT")
            except BaseException as error:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                if isinstance(error, sqlite3.Error):
                    raise _journal_error(self._path, error, "save a change") from error
                raise
            finally:
                if not durable:
                    _back_to_full(conn)
        finally:
            self._writing_thread = None
            self._write_lock.release()

    @contextlib.contextmanager
    def bulk(self) -> Iterator[None]:
        """Many write transactions in a row (a first sync's import of a long history): the
        writer keeps a larger page cache and checkpoints the write-ahead log every 64 MB
        instead of every 4 MB, then checkpoints once at the end (ADR 0027 has the
        figures). How durable each transaction is stays the caller's (`write`)."""
        with self.write() as conn:
            before = [
                (name, int(conn.execute(f"PRAGMA {name}").fetchone()[0]))
                for name in ("cache_size", "wal_autocheckpoint")
            ]
            conn.execute(f"PRAGMA cache_size = -{_BULK_CACHE_KIB}")
            conn.execute(f"PRAGMA wal_autocheckpoint = {_BULK_CHECKPOINT_PAGES}")
        try:
            yield
        finally:
            try:
                with self.write() as conn:
                    for name, value in before:
                        conn.execute(f"PRAGMA {name} = {value}")
                self._checkpoint()
            except JournalError as error:  # closed meanwhile: nothing left to put back
                log.info("the journal's bulk settings were not put back: %s", error)

    def _checkpoint(self) -> None:
        """Copy the write-ahead log into the file, as far as no reader needs it (never
        waits for one), so the log does not stay as large as a bulk write made it."""
        with self._write_lock:
            if self._writer is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._writer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """This thread's read-only connection, in one snapshot (WAL: never blocked by the
        writer). It does not see a write still open in the same thread."""
        conn, outer = self._reader()  # outer: not inside a read of this thread already
        try:
            if outer:
                conn.execute("BEGIN")
            yield conn
        except sqlite3.Error as error:
            raise _journal_error(self._path, error, "be read") from error
        finally:
            if outer:
                if conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                with self._readers_lock:
                    self._reading.discard(conn)
                    left = conn in self._left
                    self._left.discard(conn)
                if left:  # the journal was closed while this thread read
                    conn.close()

    def _reader(self) -> tuple[sqlite3.Connection, bool]:
        """This thread's reader connection, and whether this is its outermost read (then
        it counts as reading until the read ends)."""
        ident, me = threading.get_ident(), threading.current_thread()
        with self._readers_lock:
            if self._writer is None:
                raise JournalError("The journal is closed; restart Coach.")
            entry = self._readers.get(ident)
            if entry is not None and entry[0] is me:
                conn = entry[1]
            else:
                # Close the connections of threads that have ended (or whose id was reused).
                for key, (thread, stale) in list(self._readers.items()):
                    if key == ident or not thread.is_alive():
                        stale.close()
                        del self._readers[key]
                try:
                    conn = _connect(self._path)
                    conn.execute("PRAGMA query_only = ON")
                except sqlite3.Error as error:
                    raise _journal_error(self._path, error, "be read") from error
                self._readers[ident] = (me, conn)
            outer = not conn.in_transaction
            if outer:
                self._reading.add(conn)
            return conn, outer

    def integrity_check(self) -> list[str]:
        """Problems found by SQLite's integrity and foreign-key checks; empty when sound."""
        try:
            with self.read() as conn:
                problems = integrity_problems(conn)
                orphans = conn.execute("PRAGMA foreign_key_check").fetchall()
        except JournalError as error:
            return [str(error)]
        problems += [f"{row[0]} row {row[1]} refers to a missing {row[2]} row" for row in orphans]
        return problems

    def counts(self) -> dict[str, int]:
        """Rows per table, by table name."""
        with self.read() as conn:
            names = [
                str(row[0])
                for row in conn.execute(
                    "SELECT name FROM sqlite_schema WHERE type = 'table' "
                    "AND name NOT LIKE 'sqlite%' ORDER BY name"
                )
            ]
            return {
                name: int(conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0])
                for name in names
            }

    def close(self) -> None:
        """Wait for a write in progress, then close every connection; one another thread
        is reading with is closed by that thread when its read ends. Idempotent."""
        with self._write_lock, self._readers_lock:
            for _, conn in self._readers.values():
                if conn in self._reading:  # its thread closes it when its read ends
                    self._left.add(conn)
                else:
                    conn.close()
            self._readers.clear()
            if self._writer is not None:
                with contextlib.suppress(sqlite3.Error):
                    self._writer.execute("PRAGMA optimize")
                self._writer.close()
                self._writer = None
            journal_lock.release(self._in_use)
            self._in_use = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
