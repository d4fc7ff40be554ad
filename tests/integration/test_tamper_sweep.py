"""Issue 21 items 6 and 7, and its tamper sweep: everything that left the machine is sealed,
no sealed row or trace can be changed, deleted or re-sealed without the key unseen, and a
journal nobody touched never raises an alarm (after VACUUM and a backup/restore too).

The journal is recorded once through the `coach` command line against loopback fakes of
Ollama and Gemini (tests/stress/tamper_sweep.py); every check is `coach verify`'s own.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from stress import tamper_sweep as sweep

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.schema import LATEST_VERSION
from coach_gui.adapters.journal.trace_log import append_traces
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.adapters.secrets import KeyringSigningKeys
from coach_gui.cli import main
from coach_gui.services.verify import verify


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("recorded")
    sweep.record_journal(home)
    return home


@pytest.fixture
def copy(recorded: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the recorded home (journal, config, keyring) this test may change."""
    home = tmp_path / "copy"
    shutil.copytree(recorded, home)
    monkeypatch.setenv("COACH_TEST_KEYRING", str(home / "keyring" / "keys.json"))
    return home


def _journal(home: Path) -> Path:
    return home / "coach-home" / "journal.sqlite3"


def _rows(path: Path, sql: str) -> list[sqlite3.Row]:
    conn = sqlite3.connect(path)
    conn.row_factory = sqlite3.Row
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_the_recording_holds_judged_failed_malformed_and_eval_calls(copy: Path) -> None:
    path = _journal(copy)
    codes = {r[0] for r in _rows(path, "SELECT reason_code FROM judge_refusals")}
    assert {"server_error", "malformed", "quota"} <= codes
    kinds = {r[0] for r in _rows(path, "SELECT kind FROM sealed_traces")}
    assert kinds == {"session", "bound", "eval_child"}
    statuses = {r[0] for r in _rows(path, "SELECT status FROM outbox")}
    assert statuses == {"ok", "error"}
    assert sweep.check(path).ok


def test_every_request_that_left_is_covered_by_a_sealed_digest(copy: Path) -> None:
    """Item 6: on 1066d7b 18 of 24 outbox rows (errors, malformed replies, eval calls) were
    cited by no verdict and sealed nowhere."""
    path = _journal(copy)
    covered: set[str] = set()
    for (body,) in _rows(path, "SELECT body FROM sealed_traces"):
        sealed = json.loads(body)["input"]
        covered |= set(sealed.get("row_digests", {}))
        if sealed.get("outbox_digest"):
            covered.add(sealed["outbox_id"])
    outbox = {r[0] for r in _rows(path, "SELECT id FROM outbox")}
    assert outbox and outbox <= covered, sorted(outbox - covered)


def test_every_single_field_edit_and_every_row_deletion_is_caught(copy: Path) -> None:
    result = sweep.sweep(_journal(copy), copy / "keyring" / "keys.json")
    assert result.missed == []
    assert result.edits > 500 and result.deletions == result.rows > 100
    assert sweep.check(_journal(copy)).ok  # every change was undone: clean again


def test_deleting_a_whole_session_is_caught(copy: Path) -> None:
    path = _journal(copy)
    sweep.delete_session(path)
    report = sweep.check(path)
    assert report.first_failure is not None
    assert report.first_failure.reason == "missing record"  # its trace, named by the log


def test_deleting_a_whole_signed_eval_run_is_caught(copy: Path) -> None:
    path = _journal(copy)
    sweep.delete_eval_run(path)
    report = sweep.check(path)
    assert report.first_failure is not None
    assert report.first_failure.reason == "missing record"


@pytest.mark.parametrize(
    ("head", "reason"),
    [("keep", "broken chain"), ("drop", "not signed"), ("own", "signing key missing")],
)
def test_a_full_reseal_without_the_key_is_caught(copy: Path, head: str, reason: str) -> None:
    path = _journal(copy)
    sweep.reseal_without_key(path, head)
    report = sweep.check(path)
    assert report.first_failure is not None
    assert report.first_failure.id == "trace_log"
    assert report.first_failure.reason.startswith(reason)


@pytest.mark.parametrize("head", ["keep", "drop"])
def test_the_next_seal_does_not_sign_over_a_forged_log(copy: Path, head: str) -> None:
    """Review of issue 21: the next ordinary seal signed a new head over the forgery, and
    verify passed from then on."""
    path = _journal(copy)
    sweep.reseal_without_key(path, head)
    sweep.practise_offline(copy)
    report = sweep.check(path)
    assert report.first_failure is not None and report.first_failure.id == "trace_log"
    sweep.practise_offline(copy)  # and the one after that
    assert not sweep.check(path).ok


def test_a_session_deleted_and_the_log_rebuilt_stays_caught_after_more_practice(
    copy: Path,
) -> None:
    path = _journal(copy)
    sweep.delete_session(path)
    conn = sqlite3.connect(path, isolation_level=None)
    try:  # rebuild the log without the deleted traces, and drop the head
        order = [r[0] for r in conn.execute("SELECT trace_id FROM trace_log ORDER BY position")]
        stored = {r[0] for r in conn.execute("SELECT trace_id FROM sealed_traces")}
        conn.execute("DELETE FROM trace_log")
        conn.execute("DELETE FROM trace_log_head")
        append_traces(conn, [t for t in order if t in stored], "2026-12-01T00:00:00Z", None)
    finally:
        conn.close()
    sweep.practise_offline(copy)
    report = sweep.check(path)
    assert report.first_failure is not None
    assert (report.first_failure.id, report.first_failure.reason) == ("trace_log", "not signed")


def test_one_session_checked_alone_checks_the_log_too(copy: Path) -> None:
    path = _journal(copy)
    (session,) = _rows(path, "SELECT id FROM sessions ORDER BY started_at LIMIT 1")[0]
    sweep.reseal_without_key(path, "keep")
    with Journal.open(path, backup_before_migration=False) as journal:
        report = verify(SqliteTraceJournal(journal), session, keys=KeyringSigningKeys())
    assert report.first_failure is not None and report.first_failure.id == "trace_log"


def test_a_locked_keyring_is_reported_not_taken_for_no_keyring(
    copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dropped head passed while the keyring did not answer (review of issue 21)."""
    import keyring.errors
    from fakes.keyring_backend import FileKeyring

    path = _journal(copy)
    sweep.reseal_without_key(path, "drop")

    def locked(*_args: object) -> None:
        raise keyring.errors.KeyringLocked("locked")

    monkeypatch.setattr(FileKeyring, "get_password", locked)
    assert not sweep.check(path).ok  # (the eval run's signature cannot be checked either)
    with Journal.open(path, backup_before_migration=False) as journal:
        report = verify(SqliteTraceJournal(journal), keys=KeyringSigningKeys())
    assert report.first_failure is not None
    assert (report.first_failure.id, report.first_failure.reason) == (
        "trace_log",
        "keyring unavailable",
    )


def test_the_same_reseal_with_the_key_passes_so_only_the_key_is_missing(copy: Path) -> None:
    """The control for the test above: the forgery is perfect but for the signature."""
    from coach_gui.adapters.journal.trace_log import _write_head
    from coach_gui.domain.trace_log import LogEntry, signed_head

    path = _journal(copy)
    sweep.reseal_without_key(path, "drop")
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        last = LogEntry(*conn.execute("SELECT * FROM trace_log ORDER BY position DESC").fetchone())
        _write_head(
            conn, signed_head(last, "2026-12-01T00:00:00Z", KeyringSigningKeys().signing_key())
        )
    finally:
        conn.close()
    assert sweep.check(path).ok


def test_no_false_alarm_after_vacuum_or_a_backup_and_restore(copy: Path) -> None:
    path = _journal(copy)
    sweep.vacuumed(path)
    assert sweep.check(path).ok
    restored = sweep.backed_up_and_restored(copy)
    report = sweep.check(restored)
    assert report.ok and report.log is not None and report.log.size == 28


def test_verify_reports_the_head_the_count_and_the_first_failure(
    copy: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COACH_HOME", str(copy / "coach-home"))
    monkeypatch.setenv("COACH_CONFIG", str(copy / "config" / "coach.config.json"))
    assert main(["verify", "--json"]) == 0
    clean = json.loads(capsys.readouterr().out)
    head = clean["log"]["head"]
    assert clean["ok"] and clean["log"]["size"] == head["position"] == 28
    assert head["signed"] and len(head["link"]) == 64
    assert main(["verify"]) == 0
    out = capsys.readouterr().out
    assert f"head 28 {head['link'][:16]}" in out and f"key {head['key_id']}" in out
    sweep.delete_session(_journal(copy))
    assert main(["verify"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("FAIL ") and "entries checked" in captured.out
    assert "trace log: 28 traces" in captured.out and "Restore a backup" in captured.err


def _undo_v8(conn: sqlite3.Connection) -> None:
    """Take away what schema v8 added (issue 19), as an older Coach left the journal."""
    for table in ("scheduler_decisions", "review_changes", "schedule_holds", "fsrs_parameters",
                  "note_first_seen", "assertion_reviews", "assertion_review_minutes",
                  "assertion_memory_notes"):  # fmt: skip
        conn.execute(f"DROP TABLE {table}")
    conn.execute("DROP INDEX assertion_memory_by_lapses")
    conn.execute("ALTER TABLE assertion_memory DROP COLUMN lapses")
    conn.execute("ALTER TABLE assertion_memory DROP COLUMN first_review")


def _without_sync(conn: sqlite3.Connection) -> None:
    """Undo schema v9 (sync, ADR 0027), v11 (paired computers, ADR 0033), v12 (the
    learner's corrections, issue 36) and v13 (histories imported from Anki, issue 37), as a
    journal from before them has none of it."""
    for event in ("update", "delete"):
        conn.execute(f"DROP TRIGGER imported_reviews_no_{event}")
    conn.execute("DROP TABLE imported_reviews")
    for event in ("update", "delete"):
        conn.execute(f"DROP TRIGGER learner_corrections_no_{event}")
    conn.execute("DROP TABLE learner_corrections")
    for event in ("update", "delete"):
        conn.execute(f"DROP TRIGGER sync_pairings_no_{event}")
    conn.execute("DROP TABLE sync_pairings")
    for table in ("sync_records", "sync_segments"):
        for event in ("update", "delete"):
            conn.execute(f"DROP TRIGGER {table}_no_{event}")
    for table in ("sync_records", "sync_segments", "sync_state"):
        conn.execute(f"DROP TABLE {table}")


def _as_v3(path: Path) -> None:
    """Take a journal back to schema v3 (it holds no refusal, and no verdict with
    assessments): no trace log, no assessments column."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        assert conn.execute(
            "SELECT count(*) FROM verdicts WHERE assessments != '[]'"
        ).fetchone() == (0,)
        conn.execute("ALTER TABLE verdicts DROP COLUMN assessments")
        conn.execute("ALTER TABLE outbox DROP COLUMN provider")
        for name in ("trace_log_no_update", "trace_log_no_delete"):
            conn.execute(f"DROP TRIGGER {name}")
        conn.execute("DROP TABLE trace_log")
        conn.execute("DROP TABLE trace_log_head")
        conn.execute("DROP INDEX refusals_by_outbox")
        for event in ("update", "delete"):  # v4 replaces v2's, which name no refusal
            conn.execute(f"DROP TRIGGER outbox_sealed_no_{event}")
            conn.execute(
                f"CREATE TRIGGER outbox_sealed_no_{event} BEFORE {event.upper()} ON outbox"
                " BEGIN SELECT 1; END"
            )
        conn.execute("ALTER TABLE judge_refusals DROP COLUMN outbox_id")
        _without_sync(conn)
        _undo_v8(conn)
        conn.execute("PRAGMA user_version = 3")
    finally:
        conn.close()


def test_a_v3_journal_gets_its_traces_adopted_into_a_signed_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Practised (without assertions: no verdict of v3 had assessments), and an eval run.
    path = sweep.record_journal(tmp_path, failures=False, practise_with_assertions=False)
    monkeypatch.setenv("COACH_TEST_KEYRING", str(tmp_path / "keyring" / "keys.json"))
    traces = [r[0] for r in _rows(path, "SELECT trace_id FROM sealed_traces")]
    _as_v3(path)
    with Journal.open(path) as journal:
        assert journal.schema_version == LATEST_VERSION
    logged = [r[0] for r in _rows(path, "SELECT trace_id FROM trace_log ORDER BY position")]
    assert sorted(logged) == sorted(traces) and len(traces) > 2
    (head,) = _rows(path, "SELECT * FROM trace_log_head")
    assert head["position"] == len(traces) and head["signature"]  # the eval key existed
    assert sweep.check(path).ok


def test_a_v4_journal_keeps_its_verdicts_readable_and_verifiable_after_the_v5_upgrade(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18: verdicts recorded under the gaps-only contract read as before, verify, and
    the upgrade is backed up first."""
    path = sweep.record_journal(tmp_path, failures=False, practise_with_assertions=False)
    monkeypatch.setenv("COACH_TEST_KEYRING", str(tmp_path / "keyring" / "keys.json"))
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("ALTER TABLE verdicts DROP COLUMN assessments")
        conn.execute("ALTER TABLE outbox DROP COLUMN provider")  # v6
        _without_sync(conn)
        _undo_v8(conn)
        conn.execute("PRAGMA user_version = 4")
    finally:
        conn.close()
    before = _rows(path, "SELECT id, verdict, gaps FROM verdicts ORDER BY id")
    with Journal.open(path) as journal:
        assert journal.schema_version == LATEST_VERSION == 13
        report = verify(SqliteTraceJournal(journal))
    assert report.ok, report.first_failure
    after = _rows(path, "SELECT id, verdict, gaps, assessments FROM verdicts ORDER BY id")
    assert [tuple(r)[:3] for r in after] == [tuple(r) for r in before] and len(before) == 2
    assert {r["assessments"] for r in after} == {"[]"}
    (backup,) = sorted((path.parent / "backups").glob("*pre-v5*"))
    with sqlite3.connect(backup) as old:
        assert old.execute("PRAGMA user_version").fetchone() == (4,)
    monkeypatch.setenv("COACH_HOME", str(path.parent))
    capsys.readouterr()
    assert main(["sessions", "--json"]) == 0
    sessions = json.loads(capsys.readouterr().out)["sessions"]
    assert sorted((s["passed"], s["items"]) for s in sessions) == [(1, 2)]


def test_restore_refuses_a_backup_whose_log_is_broken(copy: Path, tmp_path: Path) -> None:
    path = _journal(copy)
    broken = tmp_path / "broken.sqlite3"
    shutil.copy(path, broken)
    sweep.delete_session(broken)
    with Journal.open(broken, backup_before_migration=False) as journal:
        report = verify(SqliteTraceJournal(journal))  # what restore checks: no keyring
    assert not report.ok


def test_a_journal_that_already_has_the_outbox_provider_column_upgrades_to_v6(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A development build put `outbox.provider` in v5 for a while: such a journal opens."""
    path = sweep.record_journal(tmp_path, failures=False, correct=False)  # as before v12
    monkeypatch.setenv("COACH_TEST_KEYRING", str(tmp_path / "keyring" / "keys.json"))
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        _without_sync(conn)
        _undo_v8(conn)
        conn.execute("PRAGMA user_version = 5")  # the column stays, as that build left it
    finally:
        conn.close()
    with Journal.open(path) as journal:
        assert journal.schema_version == LATEST_VERSION == 13
    assert sweep.check(path).ok


def test_a_v6_journal_gains_the_open_gaps_index_and_reads_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v7 adds only an index (an open gap is always due, ADR 0023): nothing else changes."""
    path = sweep.record_journal(tmp_path, failures=False, correct=False)  # as before v12
    monkeypatch.setenv("COACH_TEST_KEYRING", str(tmp_path / "keyring" / "keys.json"))
    before = _rows(path, "SELECT id, verdict, gaps FROM verdicts ORDER BY id")
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("DROP INDEX assertion_memory_open_gaps")
        _without_sync(conn)
        _undo_v8(conn)
        conn.execute("PRAGMA user_version = 6")
    finally:
        conn.close()
    with Journal.open(path) as journal:
        assert journal.schema_version == LATEST_VERSION == 13
    indexes = _rows(path, "SELECT name FROM sqlite_master WHERE type = 'index'")
    assert ("assertion_memory_open_gaps",) in [tuple(r) for r in indexes]
    plan = _rows(
        path,
        "EXPLAIN QUERY PLAN SELECT * FROM assertion_memory WHERE gap IS NOT NULL AND due >= ''",
    )
    assert any("assertion_memory_open_gaps" in str(tuple(r)) for r in plan)  # Today's query
    assert _rows(path, "SELECT id, verdict, gaps FROM verdicts ORDER BY id") == before
    assert sweep.check(path).ok


def test_a_v7_journal_gains_the_schedule_tables_and_rebuilds_its_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """v8 (issue 19) adds the learner's schedule decisions and the review rows; the memory
    cache made by v7 is rebuilt once, and what was recorded reads and verifies the same."""
    path = sweep.record_journal(tmp_path, failures=False, correct=False)  # as before v12
    monkeypatch.setenv("COACH_TEST_KEYRING", str(tmp_path / "keyring" / "keys.json"))
    before = _rows(path, "SELECT id, verdict, gaps FROM verdicts ORDER BY id")
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        _without_sync(conn)
        _undo_v8(conn)
        conn.execute("PRAGMA user_version = 7")
    finally:
        conn.close()
    with Journal.open(path) as journal:
        assert journal.schema_version == LATEST_VERSION == 13
        assert journal.counts()["assertion_reviews"] == 0  # derived: filled on the next read
    fingerprint = _rows(path, "SELECT value FROM assertion_memory_meta WHERE key = 'fingerprint'")
    assert fingerprint == []  # so the next read replays every note
    assert _rows(path, "SELECT id, verdict, gaps FROM verdicts ORDER BY id") == before
    assert sweep.check(path).ok
