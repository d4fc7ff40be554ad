"""Backups and restores at the edges: a clock set back, an older file that is refused, a
plain copy of a WAL-mode journal, committed rows still in the current journal's WAL, and
ordinary commands while another Coach has the journal open."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from coach_gui.adapters.journal.backups import JournalBackups
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.restore import RestoreRefused, restore_journal
from coach_gui.adapters.journal.schema import MIGRATIONS
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.bootstrap import build_context
from coach_gui.operations.backups import why_not_restore

T0 = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)


def traces_verify(journal: Journal) -> str | None:
    """The check `coach restore` makes of a copy: its sealed traces verify."""
    return why_not_restore(SqliteTraceJournal(journal))


class Clock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at


def _journal_with_rows(path: Path, n: int) -> None:
    with Journal.open(path) as journal, journal.write() as conn:
        conn.execute("CREATE TABLE IF NOT EXISTS zz(x)")
        conn.executemany("INSERT INTO zz VALUES (?)", [(i,) for i in range(n)])


def test_a_clock_set_back_never_prunes_the_backup_just_taken(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path).close()
    clock = Clock()
    backups = JournalBackups(path, keep=3, now=clock)
    for day in range(3):
        clock.at = T0 + timedelta(days=day)
        backups.take_daily()
    clock.at = T0 - timedelta(days=30)  # the clock was set back: new stamps sort oldest
    made = backups.take_of_file("manual")
    assert made.exists()  # the only backup of the data as it is now
    assert len(backups.existing()) == 3


def test_a_restore_keeps_the_journal_it_replaces_even_with_the_clock_behind(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data" / "journal.sqlite3"
    path.parent.mkdir()
    _journal_with_rows(path, 5)
    clock = Clock()
    backups = JournalBackups(path, keep=3, now=clock)
    for day in range(3):
        clock.at = T0 + timedelta(days=day)
        backups.take_of_file("daily")
    source = backups.existing()[-1].path
    _journal_with_rows(path, 5)  # 10 rows now: the learner's newer work
    clock.at = T0 - timedelta(days=1)
    restored = restore_journal(source, backups, traces_verify)
    assert restored.previous is not None and restored.previous.exists()
    with sqlite3.connect(restored.previous) as conn:
        assert conn.execute("SELECT COUNT(*) FROM zz").fetchone() == (10,)


def test_a_refused_restore_of_an_older_file_leaves_the_backups_alone(tmp_path: Path) -> None:
    path = tmp_path / "data" / "journal.sqlite3"
    path.parent.mkdir()
    _journal_with_rows(path, 1)
    backups = JournalBackups(path, keep=3)
    for _ in range(3):
        backups.take_of_file("manual")
    before = sorted(b.path.name for b in backups.existing())
    old = tmp_path / "old.sqlite3"
    Journal.open(old, migrations=MIGRATIONS[:1]).close()  # a v1 journal: migrated to check
    with pytest.raises(RestoreRefused, match="unchanged"):
        restore_journal(old, backups, lambda _journal: "refused by the check.")
    assert sorted(b.path.name for b in backups.existing()) == before


def test_a_plain_copy_of_a_wal_mode_journal_can_be_restored(tmp_path: Path) -> None:
    path = tmp_path / "data" / "journal.sqlite3"
    path.parent.mkdir()
    Journal.open(path).close()
    copy = tmp_path / "mycopy.sqlite3"
    shutil.copyfile(path, copy)  # copied by hand while Coach was closed
    assert copy.read_bytes()[18:20] == b"\x02\x02"  # the WAL-mode header
    restored = restore_journal(copy, JournalBackups(path), traces_verify)
    assert restored.journal == path


def test_a_restore_keeps_rows_still_in_the_current_journals_wal(tmp_path: Path) -> None:
    path = tmp_path / "data" / "journal.sqlite3"
    path.parent.mkdir()
    Journal.open(path).close()
    good = JournalBackups(path).take_of_file("manual")
    # A Coach killed with committed rows still in the WAL (never checkpointed).
    script = textwrap.dedent(f"""
        import os, sqlite3
        c = sqlite3.connect({str(path)!r}, isolation_level=None)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA wal_autocheckpoint=0")
        c.execute("CREATE TABLE zz(x)")
        c.execute("INSERT INTO zz VALUES (42)")
        os._exit(0)
    """)
    subprocess.run([sys.executable, "-c", script], check=True)
    assert Path(f"{path}-wal").stat().st_size > 0
    restored = restore_journal(good, JournalBackups(path), traces_verify)
    assert restored.previous is not None
    with sqlite3.connect(restored.previous) as conn:
        assert conn.execute("SELECT x FROM zz").fetchall() == [(42,)]
    assert not Path(f"{path}-wal").exists()  # nothing of the old WAL is left to replay


def test_coach_sessions_works_while_another_coach_has_the_journal_open() -> None:
    context = build_context()
    try:
        assert context.journal.schema_version >= 1  # opened: holds its shared lock
        done = subprocess.run(
            [sys.executable, "-m", "coach_gui", "sessions", "--json"],
            env=dict(os.environ), capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
    finally:
        context.close()
    assert done.returncode == 0, done.stderr
