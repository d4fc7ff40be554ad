"""The journal on real SQLite files: creation, forward migrations and their backups,
refusals that leave a file untouched, constraints, sealed rows, and the single writer."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from pathlib import Path

import pytest

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.schema import LATEST_VERSION, MIGRATIONS, Migration
from coach_gui.domain.errors import JournalError

NOW = "2025-01-01T12:00:00Z"
TABLES = {
    "assertion_memory",
    "assertion_memory_notes",
    "assertion_review_minutes",
    "assertion_reviews",
    "fsrs_parameters",
    "imported_reviews",
    "learner_corrections",
    "note_first_seen",
    "review_changes",
    "schedule_holds",
    "scheduler_decisions",
    "assertion_memory_meta",
    "assertion_memory_stale",
    "attempt_bindings",
    "attempts",
    "challenge_rejections",
    "challenges",
    "eval_children",
    "eval_runs",
    "judge_refusals",
    "outbox",
    "sealed_traces",
    "sync_pairings",
    "sync_records",
    "sync_segments",
    "sync_state",
    "sessions",
    "self_ratings",
    "trace_log",
    "trace_log_head",
    "verdicts",
}


def new_id() -> str:
    return uuid.uuid4().hex


def add_session(conn: sqlite3.Connection) -> str:
    session_id = new_id()
    conn.execute(
        "INSERT INTO sessions (id, note_id, note_title_at_start, note_digest, config_digest,"
        " mode, started_at) VALUES (?, 'note-1', 'Opportunity cost', 'ab', 'cd', 'offline', ?)",
        (session_id, NOW),
    )
    return session_id


def add_challenge(conn: sqlite3.Connection, session_id: str, position: int = 0) -> str:
    challenge_id = new_id()
    conn.execute(
        "INSERT INTO challenges (id, session_id, position, kind, text, origin, created_at)"
        " VALUES (?, ?, ?, 'explain', 'Explain it in your own words.', 'builtin', ?)",
        (challenge_id, session_id, position, NOW),
    )
    return challenge_id


def add_attempt(conn: sqlite3.Connection, session_id: str, challenge_id: str) -> str:
    attempt_id = new_id()
    conn.execute(
        "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at, status)"
        " VALUES (?, ?, ?, 'my answer', ?, 'unjudged')",
        (attempt_id, session_id, challenge_id, NOW),
    )
    return attempt_id


def add_trace(conn: sqlite3.Connection, session_id: str | None, kind: str = "session") -> str:
    trace_id = new_id() + new_id()
    conn.execute(
        "INSERT INTO sealed_traces (trace_id, session_id, kind, input_digest, body, created_at)"
        " VALUES (?, ?, ?, 'ef', '{}', ?)",
        (trace_id, session_id, kind, NOW),
    )
    return trace_id


def add_binding(conn: sqlite3.Connection, session_id: str) -> tuple[str, str]:
    """A judged-later attempt: its verdict and an unbound binding; returns (binding, attempt)."""
    attempt_id = add_attempt(conn, session_id, add_challenge(conn, session_id, position=9))
    verdict_id = new_id()
    conn.execute(
        "INSERT INTO verdicts (id, attempt_id, verdict, feedback, assertions_sent, judge_model,"
        " created_at) VALUES (?, ?, 'pass', 'Well explained.', 1, 'gemini-x', ?)",
        (verdict_id, attempt_id, NOW),
    )
    binding_id = new_id()
    conn.execute(
        "INSERT INTO attempt_bindings (id, attempt_id, verdict_id, created_at) VALUES (?,?,?,?)",
        (binding_id, attempt_id, verdict_id, NOW),
    )
    return binding_id, attempt_id


def build_v1_by_hand(path: Path) -> str:
    """A version-1 journal made without our adapter, holding one session."""
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0].script)
    conn.execute("PRAGMA user_version = 1")
    session_id = add_session(conn)
    conn.commit()
    conn.close()
    return session_id


def test_a_fresh_journal_is_created_at_the_latest_version_with_wal_and_foreign_keys(
    tmp_path: Path,
) -> None:
    path = tmp_path / "data" / "deeper" / "journal.sqlite3"
    with Journal.open(path) as journal:
        assert path.is_file()
        assert journal.schema_version == LATEST_VERSION
        assert journal.counts() == dict.fromkeys(sorted(TABLES), 0)
        with journal.read() as conn:
            assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
            assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        with journal.write() as conn:
            assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert not list(tmp_path.rglob("backups/*"))  # nothing to back up yet


def test_a_write_that_can_be_made_again_skips_the_disk_wait_and_the_next_one_does_not(
    tmp_path: Path,
) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with journal.write(durable=False) as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
        with journal.write() as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again
        with pytest.raises(RuntimeError), journal.write(durable=False):
            raise RuntimeError("a failed import")
        with journal.write() as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_bulk_writes_use_a_larger_cache_and_leave_the_log_small(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        with journal.bulk():
            with journal.write() as conn:
                assert conn.execute("PRAGMA cache_size").fetchone()[0] == -65536
                assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 16384
            for n in range(40):  # about 40 MB through the write-ahead log
                with journal.write() as conn:
                    conn.execute(
                        "INSERT INTO sync_state (key, value) VALUES (?, json_quote(?))",
                        (f"k{n}", "x" * 1_000_000),
                    )
            assert (tmp_path / "journal.sqlite3-wal").stat().st_size > 16 * 1024 * 1024
        with journal.write() as conn:  # SQLite's defaults again
            assert conn.execute("PRAGMA cache_size").fetchone()[0] == -2000
            assert conn.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 1000
            conn.execute("INSERT INTO sync_state (key, value) VALUES ('after', '1')")
        # Checkpointed at the end of the bulk: the next write starts the log over and
        # cuts the file back to the limit.
        assert (tmp_path / "journal.sqlite3-wal").stat().st_size <= 16 * 1024 * 1024
        assert journal.counts()["sync_state"] == 41


def test_closing_the_journal_leaves_a_read_in_progress_to_finish_then_closes_it(
    tmp_path: Path,
) -> None:
    journal = Journal.open(tmp_path / "journal.sqlite3")
    reading, closed = threading.Event(), threading.Event()
    seen: dict[str, object] = {}

    def long_read() -> None:
        with journal.read() as conn:
            reading.set()
            assert closed.wait(10)
            # Still this thread's, and still working, after the journal was closed.
            seen["count"] = conn.execute(
                "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
                " WHERE i < 200000) SELECT count(*) FROM n"
            ).fetchone()[0]
            seen["conn"] = conn
        try:
            seen["conn"].execute("SELECT 1")  # type: ignore[attr-defined]
        except sqlite3.ProgrammingError as error:
            seen["after"] = str(error)

    worker = threading.Thread(target=long_read)
    worker.start()
    assert reading.wait(10)
    journal.close()  # does not wait for the read, and does not close its connection
    closed.set()
    worker.join(10)
    assert seen["count"] == 200000
    assert "closed" in str(seen["after"])  # closed by its own thread when the read ended
    with pytest.raises(JournalError, match="closed"), journal.read():
        pass


def test_an_empty_file_is_migrated_from_v0_without_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"")
    with Journal.open(path) as journal:
        assert journal.schema_version == LATEST_VERSION
        assert set(journal.counts()) == TABLES
    assert not list(tmp_path.glob("backups/*"))


def test_an_older_journal_is_backed_up_then_migrated_keeping_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    session_id = build_v1_by_hand(path)
    v2 = Migration(
        2, "ALTER TABLE sessions ADD COLUMN label TEXT;\nCREATE TABLE extra (x INTEGER) STRICT;\n"
    )

    # The mechanism under test, not the real v2: v1, then a migration of the test's own.
    with Journal.open(path, migrations=(MIGRATIONS[0], v2)) as journal:
        assert journal.schema_version == 2
        with journal.read() as conn:
            row = conn.execute("SELECT id, label FROM sessions").fetchone()
        assert (row["id"], row["label"]) == (session_id, None)
        assert journal.counts()["extra"] == 0

    (backup,) = tmp_path.glob("backups/journal-*-pre-v2.sqlite3")  # one folder for all
    restored = tmp_path / "restored" / "journal.sqlite3"
    restored.parent.mkdir()
    restored.write_bytes(backup.read_bytes())
    # The backup is a working v1 journal.
    with Journal.open(restored, migrations=MIGRATIONS[:1]) as journal:
        assert journal.schema_version == 1
        with journal.read() as conn:
            assert [r["id"] for r in conn.execute("SELECT id FROM sessions")] == [session_id]
            columns = {r["name"] for r in conn.execute("PRAGMA table_info(sessions)")}
        assert "label" not in columns
        assert journal.integrity_check() == []


def test_a_failing_migration_leaves_the_journal_at_its_old_version(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    session_id = build_v1_by_hand(path)
    broken = Migration(2, "CREATE TABLE extra (x INTEGER) STRICT;\nSELECT * FROM no_such_table;\n")

    with pytest.raises(JournalError, match="schema v2"):
        Journal.open(path, migrations=(MIGRATIONS[0], broken))

    with Journal.open(path, migrations=MIGRATIONS[:1]) as journal:
        assert journal.schema_version == 1
        assert "extra" not in journal.counts()
        with journal.read() as conn:
            assert conn.execute("SELECT id FROM sessions").fetchone()["id"] == session_id


def test_a_journal_from_a_newer_coach_is_refused_and_left_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE future (x INTEGER)")
    conn.execute(f"PRAGMA user_version = {LATEST_VERSION + 1}")
    conn.commit()
    conn.close()
    before = path.read_bytes()

    with pytest.raises(JournalError) as caught:
        Journal.open(path)

    message = str(caught.value)
    assert f"newer Coach (schema v{LATEST_VERSION + 1})" in message
    assert "update Coach or restore a backup" in message
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["journal.sqlite3"]


def test_a_file_that_is_not_sqlite_gives_a_clear_error_and_is_not_touched(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.sqlite3"
    path.write_bytes(b"# My notes\nThese are not a database.\n")

    with pytest.raises(JournalError) as caught:
        Journal.open(path)

    assert str(path) in str(caught.value)
    assert "move it aside" in str(caught.value).lower()
    assert path.read_bytes() == b"# My notes\nThese are not a database.\n"


def test_another_programs_sqlite_database_is_not_mistaken_for_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE sessions (whatever TEXT)")
    conn.commit()
    conn.close()
    before = path.read_bytes()

    with pytest.raises(JournalError, match="not a Coach journal"):
        Journal.open(path)
    assert path.read_bytes() == before


def test_rows_pointing_at_missing_rows_are_rejected(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with pytest.raises(JournalError, match="FOREIGN KEY"), journal.write() as conn:
            add_challenge(conn, session_id=new_id())
        with journal.write() as conn:
            first, second = add_session(conn), add_session(conn)
            challenge_of_first = add_challenge(conn, first)
        # An attempt must answer a challenge of its own session.
        with pytest.raises(JournalError, match="FOREIGN KEY"), journal.write() as conn:
            add_attempt(conn, second, challenge_of_first)
        assert journal.counts()["challenges"] == 1
        assert journal.counts()["attempts"] == 0


@pytest.mark.parametrize(
    ("table", "key"),
    [("sealed_traces", "trace_id"), ("attempt_bindings", "id"), ("eval_runs", "id")],
)
def test_sealed_rows_reject_update_and_delete(tmp_path: Path, table: str, key: str) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with journal.write() as conn:
            session_id = add_session(conn)
            trace_id = add_trace(conn, session_id)
            binding_id, _ = add_binding(conn, session_id)
            run_id = new_id()
            conn.execute(
                "INSERT INTO eval_runs (id, created_at, repeats, report, signature, key_id)"
                " VALUES (?, ?, 3, '{\"verdict\":\"pass\"}', 'sig', 'key-1')",
                (run_id, NOW),
            )
        row_id = {"sealed_traces": trace_id, "attempt_bindings": binding_id, "eval_runs": run_id}
        with journal.read() as conn:
            before = tuple(
                conn.execute(f"SELECT * FROM {table} WHERE {key} = ?", (row_id[table],)).fetchone()
            )

        with (
            pytest.raises(JournalError, match="sealed records are immutable"),
            journal.write() as conn,
        ):
            conn.execute(
                f"UPDATE {table} SET created_at = '1999-01-01' WHERE {key} = ?", (row_id[table],)
            )
        with (
            pytest.raises(JournalError, match="sealed records are immutable"),
            journal.write() as conn,
        ):
            conn.execute(f"DELETE FROM {table} WHERE {key} = ?", (row_id[table],))

        with journal.read() as conn:
            after = tuple(
                conn.execute(f"SELECT * FROM {table} WHERE {key} = ?", (row_id[table],)).fetchone()
            )
        assert after == before


def test_eval_children_are_sealed_too(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with journal.write() as conn:
            run_id = new_id()
            conn.execute(
                "INSERT INTO eval_runs (id, created_at, repeats, report, signature, key_id)"
                " VALUES (?, ?, 1, '{}', 'sig', 'key-1')",
                (run_id, NOW),
            )
            child_trace = add_trace(conn, None, kind="eval_child")
            conn.execute(
                "INSERT INTO eval_children (eval_run_id, trace_id, arm, repeat, item)"
                " VALUES (?, ?, 'assertions_on', 0, 0)",
                (run_id, child_trace),
            )
        with pytest.raises(JournalError, match="immutable"), journal.write() as conn:
            conn.execute("UPDATE eval_children SET arm = 'assertions_off'")
        with pytest.raises(JournalError, match="immutable"), journal.write() as conn:
            conn.execute("DELETE FROM eval_children")
        assert journal.counts()["eval_children"] == 1


def test_a_binding_gets_its_bound_trace_once_and_nothing_else_changes(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with journal.write() as conn:
            session_id = add_session(conn)
            binding_id, _ = add_binding(conn, session_id)
            bound, other = add_trace(conn, None, "bound"), add_trace(conn, None, "bound")
        with journal.write() as conn:
            conn.execute(
                "UPDATE attempt_bindings SET bound_trace_id = ? WHERE id = ?", (bound, binding_id)
            )
        with pytest.raises(JournalError, match="immutable"), journal.write() as conn:
            conn.execute(
                "UPDATE attempt_bindings SET bound_trace_id = ? WHERE id = ?", (other, binding_id)
            )
        with journal.read() as conn:
            row = conn.execute("SELECT bound_trace_id FROM attempt_bindings").fetchone()
        assert row["bound_trace_id"] == bound


def test_a_rejected_challenge_is_kept_only_as_a_digest_and_a_reason(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with journal.read() as conn:
            columns = {r["name"] for r in conn.execute("PRAGMA table_info(challenge_rejections)")}
        assert "text" not in columns
        assert {"text_digest", "reason"} <= columns


def test_a_failing_write_rolls_back_everything_it_did(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with pytest.raises(RuntimeError, match="boom"), journal.write() as conn:
            add_session(conn)
            raise RuntimeError("boom")
        with pytest.raises(JournalError, match="CHECK"), journal.write() as conn:
            session_id = add_session(conn)
            conn.execute(
                "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at,"
                " status) VALUES (?, ?, ?, 'x', ?, 'maybe')",
                (new_id(), session_id, add_challenge(conn, session_id), NOW),
            )
        assert journal.counts()["sessions"] == 0
        assert journal.counts()["challenges"] == 0
        with journal.write() as conn:  # the writer is usable again
            add_session(conn)
        assert journal.counts()["sessions"] == 1


def test_a_write_is_on_disk_as_soon_as_it_returns(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        with journal.write() as conn:
            session_id = add_session(conn)
            attempt_id = add_attempt(conn, session_id, add_challenge(conn, session_id))
        other = sqlite3.connect(path)  # another process's view, while Coach is still open
        try:
            assert other.execute(
                "SELECT answer FROM attempts WHERE id = ?", (attempt_id,)
            ).fetchone() == ("my answer",)
        finally:
            other.close()


def test_writes_from_many_threads_are_serialized_and_none_is_lost(tmp_path: Path) -> None:
    threads_count, writes_each = 8, 25
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with journal.write() as conn:
            session_id = add_session(conn)
        failures: list[BaseException] = []

        def writer() -> None:
            try:
                for _ in range(writes_each):
                    # Read-then-write: only serialized writers get distinct positions.
                    with journal.write() as conn:
                        top = conn.execute(
                            "SELECT coalesce(max(position) + 1, 0) FROM challenges"
                        ).fetchone()[0]
                        add_challenge(conn, session_id, position=top)
                    with journal.read() as conn:
                        conn.execute("SELECT count(*) FROM challenges").fetchone()
            except BaseException as error:  # reported below, on the test thread
                failures.append(error)

        workers = [threading.Thread(target=writer) for _ in range(threads_count)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()

        assert failures == []
        with journal.read() as conn:
            positions = [r[0] for r in conn.execute("SELECT position FROM challenges ORDER BY 1")]
        assert positions == list(range(threads_count * writes_each))


def test_a_reader_is_not_blocked_by_an_open_write_and_sees_the_last_commit(
    tmp_path: Path,
) -> None:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        with journal.write() as conn:
            add_session(conn)
        write_open, read_done = threading.Event(), threading.Event()
        seen: list[int] = []

        def reader() -> None:
            assert write_open.wait(timeout=30)
            with journal.read() as conn:
                seen.append(conn.execute("SELECT count(*) FROM sessions").fetchone()[0])
            read_done.set()

        thread = threading.Thread(target=reader)
        thread.start()
        with journal.write() as conn:
            add_session(conn)
            write_open.set()
            assert read_done.wait(timeout=30)
        thread.join()
        assert seen == [1]
        assert journal.counts()["sessions"] == 2


def test_a_write_inside_a_write_is_an_error_not_a_hang(tmp_path: Path) -> None:
    with (
        Journal.open(tmp_path / "journal.sqlite3") as journal,
        pytest.raises(JournalError, match="inside another"),
        journal.write(),
        journal.write(),
    ):
        pass  # pragma: no cover


def test_a_closed_journal_says_so(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "journal.sqlite3")
    journal.close()
    journal.close()  # idempotent
    with pytest.raises(JournalError, match="closed"), journal.write():
        pass  # pragma: no cover
    with pytest.raises(JournalError, match="closed"), journal.read():
        pass  # pragma: no cover


def test_integrity_check_is_empty_on_a_clean_journal_and_names_orphans(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite3"
    with Journal.open(path) as journal:
        with journal.write() as conn:
            session_id = add_session(conn)
            add_attempt(conn, session_id, add_challenge(conn, session_id))
        assert journal.integrity_check() == []
        assert journal.counts()["attempts"] == 1

    raw = sqlite3.connect(path)  # damage it the way a bad tool would, foreign keys off
    raw.execute("PRAGMA foreign_keys = OFF")
    raw.execute(
        "INSERT INTO judge_refusals (id, attempt_id, reason_code, detail, created_at)"
        " VALUES (?, ?, 'digest_mismatch', 'x', ?)",
        (new_id(), new_id(), NOW),
    )
    raw.commit()
    raw.close()

    with Journal.open(path) as journal:
        problems = journal.integrity_check()
    assert len(problems) == 1
    assert "judge_refusals" in problems[0] and "attempts" in problems[0]


def test_two_first_opens_at_once_both_succeed(tmp_path: Path) -> None:
    """The GUI's workers (or the GUI and a command) may open a journal that does not exist
    yet at the same moment; switching it to WAL must wait, not fail as 'locked'."""
    for attempt in range(30):
        path = tmp_path / f"j{attempt}" / "journal.sqlite3"
        errors: list[BaseException] = []
        opened: list[Journal] = []

        def open_it(
            path: Path = path, opened: list[Journal] = opened, errors: list[BaseException] = errors
        ) -> None:
            try:
                opened.append(Journal.open(path))
            except BaseException as error:  # the test reports whatever went wrong
                errors.append(error)

        threads = [threading.Thread(target=open_it) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        for journal in opened:
            journal.close()
        assert errors == [], errors[0]
        assert len(opened) == 2
