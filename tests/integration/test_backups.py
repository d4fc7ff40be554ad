"""Issue 9, item 2: journal backups (daily, before migrations, keep the last N) and
`coach backup` / `coach restore FILE`, which checks a file before it replaces anything."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from cli_run import coach as _coach
from cli_run import practise

from coach_gui.adapters.journal.backups import JournalBackups, backups_dir
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.schema import LATEST_VERSION, MIGRATIONS
from coach_gui.bootstrap import build_context

T0 = datetime(2025, 3, 1, 9, 30, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.at = T0

    def __call__(self) -> datetime:
        return self.at


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def home(coach_home: Path) -> Path:
    """A note to practise offline, the judge off, no Ollama: only files and SQLite."""
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "kb": {"path": str(coach_home / "notes")},
                "tier1": {"ollamaUrl": f"http://127.0.0.1:{_free_port()}"},
                "judge": {"enabled": False},
                "journal": {"keepBackups": 3},
            }
        ),
        encoding="utf-8",
    )
    front = {"id": "note1", "title": "Natural selection", "core_assertions": ["Slow.", "Kept."]}
    (coach_home / "notes").mkdir(parents=True)
    (coach_home / "notes" / "natural-selection.md").write_text(
        "---\n" + yaml.safe_dump(front) + "---\nBody.\n", encoding="utf-8"
    )
    return coach_home


def _practise(capsys: pytest.CaptureFixture[str], tmp_path: Path, answer: str) -> str:
    return str(practise(capsys, tmp_path, answer)["session_id"])


def _answers(journal: Path) -> list[str]:
    with sqlite3.connect(journal) as conn:
        return [row[0] for row in conn.execute("SELECT answer FROM attempts ORDER BY rowid")]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# --- automatic backups -----------------------------------------------------------------------
def test_a_backup_is_taken_at_most_once_a_day(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path).close()
    clock = Clock()
    backups = JournalBackups(path, now=clock)
    first = backups.take_daily()
    assert first is not None and first.parent == tmp_path / "backups"
    clock.at = T0 + timedelta(hours=23, minutes=59)
    assert backups.take_daily() is None
    clock.at = T0 + timedelta(days=1)
    second = backups.take_daily()
    assert second is not None and second != first
    assert [b.path for b in backups.existing()] == [second, first]
    clock.at = T0 - timedelta(days=30)  # the clock was set back: a backup in the "future"
    assert backups.take_daily() is not None  # does not stop daily backups forever


def test_coach_takes_the_daily_backup_when_it_opens_the_journal(home: Path) -> None:
    context = build_context()
    context.journal  # noqa: B018 - opening it is the point
    context.close()
    again = build_context()
    again.journal  # noqa: B018
    again.close()
    made = JournalBackups(again.journal_path).existing()
    assert [b.reason for b in made] == ["daily"]  # once, not once per open
    assert made[0].path.parent == home / "backups"


def test_only_the_newest_n_backups_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path).close()
    clock = Clock()
    backups = JournalBackups(path, keep=3, now=clock)
    made = []
    for hour in range(5):
        clock.at = T0 + timedelta(hours=hour)
        made.append(backups.take_of_file("manual"))
    (backups.folder / "my-notes.txt").write_text("not a backup")
    backups.prune()
    assert [b.path for b in backups.existing()] == made[:1:-1]  # the newest three
    assert (backups.folder / "my-notes.txt").exists()  # other files are left alone


def test_a_migration_backs_up_into_the_same_folder(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    Journal.open(path, migrations=MIGRATIONS[:1]).close()
    with Journal.open(path) as journal:
        assert journal.schema_version == LATEST_VERSION
    (backup,) = JournalBackups(path).existing()
    assert backup.reason == "pre-v2" and backup.path.parent == backups_dir(path)
    with sqlite3.connect(backup.path.as_uri() + "?mode=ro", uri=True) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert sorted(p.name for p in backups_dir(path).iterdir()) == [backup.path.name]


# --- coach backup / coach restore ------------------------------------------------------------
def test_backup_then_damage_then_restore_brings_the_answers_back(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal = home / "journal.sqlite3"
    _practise(capsys, tmp_path, "Slow, because each step is slight.")
    code, made, err = _coach(capsys, "backup", "--json")
    assert code == 0, err
    assert Path(made["path"]).parent == home / "backups" and made["path"] in made["kept"]
    code, text, _ = _coach(capsys, "backup")
    assert code == 0 and Path(text.strip()).is_file()  # the path, on stdout

    with journal.open("r+b") as handle:  # damage: garbage over the pages after the header
        handle.seek(4096)
        handle.write(os.urandom(8192))
    code, _, _ = _coach(capsys, "verify", "--json")
    assert code == 1

    code, restored, err = _coach(capsys, "restore", made["path"], "--json")
    assert code == 0, err
    assert "every sealed trace in it verifies" in err
    assert _answers(journal) == ["Slow, because each step is slight."]
    code, report, _ = _coach(capsys, "verify", "--json")
    assert code == 0 and report["ok"] and report["checked"] > 0
    kept = Path(restored["previous_kept_as"])  # the damaged journal is kept, not destroyed
    assert kept.parent == home / "backups" and kept.exists()
    _practise(capsys, tmp_path, "After the restore, Coach carries on.")
    assert len(_answers(journal)) == 2


def _refused(
    capsys: pytest.CaptureFixture[str], journal: Path, candidate: Path, expected: str
) -> None:
    before = _digest(journal)
    code, _, err = _coach(capsys, "restore", str(candidate))
    assert code == 1
    assert expected in err and "Your current journal is unchanged" in err
    assert _digest(journal) == before
    assert not list(journal.parent.glob("journal.sqlite3.restoring*"))


def _a_backup(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    _practise(capsys, tmp_path, "Kept, because it helps.")
    code, made, _ = _coach(capsys, "backup", "--json")
    assert code == 0
    copy = tmp_path / "candidate.sqlite3"
    copy.write_bytes(Path(made["path"]).read_bytes())
    return copy


def test_restore_refuses_a_file_that_is_not_a_journal_or_is_damaged(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    candidate = _a_backup(home, tmp_path, capsys)
    journal = home / "journal.sqlite3"
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"these are my holiday photos" * 100)
    _refused(capsys, journal, junk, "not an SQLite database")

    raw = bytearray(candidate.read_bytes())
    raw[4096 + 100 : 4096 + 4000] = os.urandom(3900)  # a damaged page
    candidate.write_bytes(bytes(raw))
    _refused(capsys, journal, candidate, "damaged")


def test_restore_refuses_a_journal_from_a_newer_coach(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    candidate = _a_backup(home, tmp_path, capsys)
    with sqlite3.connect(candidate) as conn:
        conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    _refused(capsys, home / "journal.sqlite3", candidate, "written by a newer Coach")


def test_restore_refuses_a_journal_whose_traces_do_not_verify(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    candidate = _a_backup(home, tmp_path, capsys)
    with sqlite3.connect(candidate) as conn:  # an answer changed behind Coach's back
        for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'"):
            conn.execute(f'DROP TRIGGER "{name}"')
        conn.execute("UPDATE attempts SET answer = 'I knew it all along.'")
    _refused(capsys, home / "journal.sqlite3", candidate, "does not verify")


def test_restore_refuses_while_the_journal_is_open(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    candidate = _a_backup(home, tmp_path, capsys)
    journal = home / "journal.sqlite3"
    with Journal.open(journal):  # another Coach window has it open
        before = _digest(journal)
        code, _, err = _coach(capsys, "restore", str(candidate))
        assert code == 1
        assert "open in another Coach" in err and "Close Coach" in err
        assert _digest(journal) == before
    code, _, err = _coach(capsys, "restore", str(candidate))  # closed: now it may
    assert code == 0, err


def test_restore_of_a_missing_file_is_a_usage_error(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = _coach(capsys, "restore", str(home / "nope.sqlite3"))
    assert code == 2 and "there is no file" in err


@pytest.mark.skipif(sys.platform == "win32", reason="the journal lock is POSIX flock")
def test_a_coach_that_was_killed_no_longer_blocks_a_restore(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    candidate = _a_backup(home, tmp_path, capsys)
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD_OPEN, str(home / "journal.sqlite3")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "open\n"
        code, _, err = _coach(capsys, "restore", str(candidate))
        assert code == 1 and "open in another Coach" in err
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    code, _, err = _coach(capsys, "restore", str(candidate))
    assert code == 0, err


_HOLD_OPEN = """
import sys, time
from pathlib import Path
from coach_gui.adapters.journal.database import Journal
journal = Journal.open(Path(sys.argv[1]))
print("open", flush=True)
time.sleep(60)
"""
