"""Sealed sessions in a real journal: sealed rows refuse change, judging later binds without
touching the sealed trace, a crash leaves nothing open, and `verify` finds any change to
any stored field (made with the triggers dropped, or by flipping bytes in the file)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fakes.assessing import assessed_for
from fakes.in_ram import TickingClock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.outbox import SqliteOutbox
from coach_gui.adapters.journal.practice import SqlitePracticeJournal
from coach_gui.adapters.journal.traces import (
    UNMARKED_GRACE,
    LivePracticeJournal,
    SqliteTraceJournal,
)
from coach_gui.domain.errors import JournalError
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import Disposition, note_digest
from coach_gui.domain.sealing import (
    TraceRefusal,
    TraceRefusalReason,
    build_bound_trace_input,
    new_binding,
)
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome, Tier2Payload
from coach_gui.domain.verdicts import JudgeResponse
from coach_gui.services.practice import PracticeRun, PracticeSettings
from coach_gui.services.sealing import judge_pending, recover_open_sessions, seal_session
from coach_gui.services.verify import Failure, VerifyReport, verify

NOTE = Note(
    id="note1",
    title="Natural selection",
    core_assertions=("Selection acts only on inherited variation.", "Large change is slow."),
    body="Individuals differ, and many differences are inherited.",
)
LONG_AFTER = datetime(2100, 1, 1, tzinfo=UTC)
OTHER = Note(id="note2", title="Opportunity cost", core_assertions=("Choosing costs the rest.",))


class OutboxJudge:
    """The `Judge` port over the real outbox: each request is recorded as sent and as
    answered, then judged by `passes` (an answer containing "because" passes)."""

    def __init__(self, journal: Journal, *, fail: bool = False) -> None:
        self._outbox = SqliteOutbox(journal)
        self.fail = fail
        self.payloads: list[Tier2Payload] = []

    def judge(self, payload: Tier2Payload) -> JudgeResponse:
        from coach_gui.domain.judge_errors import JudgeQuotaExceeded

        self.payloads.append(payload)
        outbox_id = self._outbox.record_sent(
            OutboxEntry(model="gemini-test", payload=payload.canonical(), request_body="{}")
        )
        if self.fail:
            self._outbox.record_outcome(outbox_id, OutboxOutcome(status="error", error="quota"))
            raise JudgeQuotaExceeded()
        items = []
        for index, item in enumerate(payload.items):
            ok = "because" in item.answer
            gaps = (
                []
                if ok
                else [
                    {
                        "assertion": 0 if item.core_assertions else None,
                        "problem": "unexplained",
                        "explanation": "Say what selection acts on.",
                    }
                ]
            )
            items.append(
                {
                    "index": index,
                    "verdict": "pass" if ok else "fail",
                    "gaps": gaps,
                    "feedback": "Good." if ok else "Not yet.",
                }
            )
        text = assessed_for(json.dumps({"items": items}), payload)
        self._outbox.record_outcome(
            outbox_id,
            OutboxOutcome(status="ok", response=text, tokens_in=9, tokens_out=7, latency_ms=3),
        )
        return JudgeResponse(
            raw_text=text, model="gemini-test", latency_ms=3, request_body="{}", outbox_id=outbox_id
        )


@dataclass
class Coachbook:
    """A real journal with the adapters over it, and a clock."""

    journal: Journal
    clock: TickingClock

    @property
    def traces(self) -> SqliteTraceJournal:
        # Later than anything the clock writes: a session left open is long idle.
        return SqliteTraceJournal(self.journal, now=lambda: LONG_AFTER)

    @property
    def practice_journal(self) -> SqlitePracticeJournal:
        return SqlitePracticeJournal(self.journal)

    def practise(
        self,
        answers: list[str],
        *,
        note: Note = NOTE,
        judge: OutboxJudge | None = None,
        seal: bool = True,
        reject: bool = False,
    ) -> str:
        """One session of built-in challenges, one answer each; returns its id."""
        settings = PracticeSettings(
            challenges=len(answers), follow_ups=False, judge_enabled=judge is not None
        )
        journal = LivePracticeJournal(self.journal)
        run = PracticeRun(note, settings, journal, None, self.clock, judge=judge, verdicts=journal)
        session = run.start()
        if reject:
            journal.add_rejection(session.id, "tier1", "a quoted text", "quoted", self.clock.now())
        for answer in answers:
            attempt = run.submit(run.next_challenge().challenge, answer)
            run.judge(attempt)
        if seal:
            run.finish()
            seal_session(session.id, self.traces, self.clock)
        journal.release(session.id)  # sealed, or left open as by a process that crashed
        return session.id

    def verify(self, target: str | None = None) -> VerifyReport:
        return verify(self.traces, target)

    def rows(self, sql: str, *params: object) -> list[sqlite3.Row]:
        with self.journal.read() as conn:
            return conn.execute(sql, params).fetchall()


@pytest.fixture
def book(tmp_path: Path) -> Iterator[Coachbook]:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        yield Coachbook(journal, TickingClock())


def _lookup(*notes: Note) -> Callable[[str], Note | None]:
    return {n.id: n for n in notes}.get


# --- sealing and the triggers ---------------------------------------------------------------


def test_a_sealed_session_holds_every_record_and_verifies(book: Coachbook) -> None:
    judge = OutboxJudge(book.journal)
    session_id = book.practise(["It works because of time.", "No idea."], judge=judge, reject=True)
    (session,) = book.rows("SELECT * FROM sessions")
    assert session["disposition"] == "gaps_found" and session["ended_at"] is not None
    (trace,) = book.rows("SELECT * FROM sealed_traces")
    assert session["sealed_trace_id"] == trace["trace_id"] and trace["kind"] == "session"
    body = json.loads(trace["body"])["input"]
    assert body["session_id"] == session_id
    assert len(body["challenge_ids"]) == len(body["attempt_ids"]) == len(body["verdict_ids"]) == 2
    assert len(body["row_digests"]) == 1 + 1 + 2 + 2 + 2  # session, rejection, rows, outbox
    report = book.verify()
    assert (report.ok, report.first_failure) == (True, None) and report.log is not None
    assert report.log.size == 1 and report.log.head is not None and report.log.head.signature
    assert book.verify(session_id).ok and book.verify(trace["trace_id"]).ok
    assert seal_session(session_id, book.traces, book.clock) == trace["trace_id"]  # idempotent


SEALED_CHANGES = [
    "UPDATE sessions SET note_title_at_start = 'x'",
    "DELETE FROM sessions",
    "UPDATE challenges SET text = 'x'",
    "DELETE FROM challenges",
    "UPDATE challenge_rejections SET reason = 'x'",
    "DELETE FROM challenge_rejections",
    "UPDATE attempts SET status = 'judged'",
    "DELETE FROM attempts",
    "UPDATE verdicts SET feedback = 'x'",
    "DELETE FROM verdicts",
    "UPDATE judge_refusals SET detail = 'x'",
    "DELETE FROM judge_refusals",
    "UPDATE outbox SET response = 'x'",
    "DELETE FROM outbox",
    "UPDATE sealed_traces SET created_at = 'x'",
]


@pytest.mark.parametrize("statement", SEALED_CHANGES)
def test_the_rows_of_a_sealed_session_refuse_update_and_delete(
    book: Coachbook, statement: str
) -> None:
    judge = OutboxJudge(book.journal)
    book.practise(["Slow because small steps.", "No idea."], judge=judge, reject=True)
    book.practise(["Kept."], judge=OutboxJudge(book.journal, fail=True))  # a refusal
    before = book.journal.counts()
    with (
        pytest.raises(JournalError, match="sealed records are immutable"),
        book.journal.write() as conn,
    ):
        conn.execute(statement)
    assert book.journal.counts() == before
    assert book.verify().ok


def test_a_sealed_session_takes_no_new_challenge_or_answer(book: Coachbook) -> None:
    session_id = book.practise(["Kept."])
    (challenge,) = book.rows("SELECT id FROM challenges")
    journal = book.practice_journal
    with pytest.raises(JournalError, match="immutable"):
        journal.add_rejection(session_id, "tier1", "text", "quoted", book.clock.now())
    with pytest.raises(JournalError, match="immutable"), book.journal.write() as conn:
        conn.execute(
            "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at, status)"
            " VALUES ('abc', ?, ?, 'late', 'now', 'unjudged')",
            (session_id, challenge["id"]),
        )


def test_an_open_session_still_changes_and_a_sealed_answer_judged_later_keeps_its_row(
    book: Coachbook,
) -> None:
    open_id = book.practise(["Open answer."], seal=False)
    with book.journal.write() as conn:  # nothing sealed yet: rows may still change
        conn.execute(
            "UPDATE attempts SET unjudged_reason = 'waiting' WHERE session_id = ?", (open_id,)
        )
    sealed_id = book.practise(["Sealed answer, because."])
    (row,) = book.rows("SELECT * FROM attempts WHERE session_id = ?", sealed_id)
    report = judge_pending(
        book.traces,
        OutboxJudge(book.journal),
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(NOTE),
    )
    assert [j.attempt_id for j in report.judged] == [row["id"]]
    (after,) = book.rows("SELECT * FROM attempts WHERE session_id = ?", sealed_id)
    assert dict(after) == dict(row)  # still "unjudged" in its row; judged through a binding
    (binding,) = book.rows("SELECT * FROM attempt_bindings")
    assert binding["attempt_id"] == row["id"]


# --- judging later: bound traces ------------------------------------------------------------


def test_judging_later_binds_each_verdict_and_leaves_the_original_trace_byte_identical(
    book: Coachbook,
) -> None:
    first = book.practise(["Slow because each step is slight.", "Not sure."])
    other = book.practise(["Opportunity because."], note=OTHER)
    originals = {r["trace_id"]: r["body"] for r in book.rows("SELECT * FROM sealed_traces")}
    assert book.traces.sessions_with_pending() == [first, other]
    judge = OutboxJudge(book.journal)
    report = judge_pending(
        book.traces,
        judge,
        book.practice_journal,
        book.clock,
        include_assertions=False,
        note_lookup=_lookup(NOTE, OTHER),
        batch_size=2,
    )
    assert len(judge.payloads) == 2  # three answers in batches of two
    assert all(item.core_assertions is None for p in judge.payloads for item in p.items)
    assert "not your core assertions" in report.privacy_note
    assert [j.passed for j in report.judged] == [True, False, True]
    assert report.pending == [] and len(report.bound_trace_ids) == 2
    rows = book.rows("SELECT * FROM sealed_traces ORDER BY created_at")
    for trace_id, body in originals.items():  # byte for byte unchanged
        assert next(r["body"] for r in rows if r["trace_id"] == trace_id) == body
    bound = [r for r in rows if r["kind"] == "bound"]
    assert {r["trace_id"] for r in bound} == set(report.bound_trace_ids)
    first_bound = json.loads(next(r["body"] for r in bound if r["session_id"] == first))
    assert first_bound["input"]["original_trace_id"] in originals
    bindings = book.rows(
        "SELECT * FROM attempt_bindings WHERE bound_trace_id = ?", first_bound["trace_id"]
    )
    assert first_bound["input"]["attempt_binding_ids"] == [b["id"] for b in bindings]
    assert all(
        b["original_trace_id"] == first_bound["input"]["original_trace_id"] for b in bindings
    )
    assert book.verify().ok
    for trace_id in [*originals, *report.bound_trace_ids]:
        assert book.verify(trace_id).ok, trace_id
    assert book.traces.sessions_with_pending() == []
    again = judge_pending(
        book.traces,
        judge,
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(NOTE, OTHER),
    )
    assert (again.judged, again.pending, again.sent) == ([], [], 0)
    assert "Nothing was sent" in again.privacy_note


def test_a_changed_note_keeps_its_answers_pending_with_the_reason(book: Coachbook) -> None:
    book.practise(["Slow because small steps."])
    edited = NOTE.model_copy(update={"core_assertions": ("A different point.",)})
    judge = OutboxJudge(book.journal)
    report = judge_pending(
        book.traces,
        judge,
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(edited),
    )
    assert judge.payloads == [] and report.judged == [] and report.bound_trace_ids == []
    (pending,) = report.pending
    assert pending.reason_code == "note_digest_mismatch" and "has changed" in pending.reason
    assert book.traces.sessions_with_pending() != []  # still pending, and still verifies
    assert book.verify().ok
    gone = judge_pending(
        book.traces,
        judge,
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(),
    )
    assert gone.pending[0].reason_code == "note_not_found"
    report = judge_pending(
        book.traces,
        judge,
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(NOTE),
    )
    assert [j.passed for j in report.judged] == [True] and report.pending == []
    assert "were sent" in report.privacy_note
    assert book.verify().ok


def test_a_judge_failure_keeps_answers_pending_and_nothing_is_bound(book: Coachbook) -> None:
    book.practise(["Kept whatever happens."])
    report = judge_pending(
        book.traces,
        OutboxJudge(book.journal, fail=True),
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(NOTE),
    )
    assert report.judged == [] and report.pending[0].reason_code == "quota"
    assert book.rows("SELECT * FROM attempt_bindings") == []
    assert book.verify().ok


def test_a_verdict_recorded_before_a_crash_is_bound_without_judging_again(book: Coachbook) -> None:
    session_id = book.practise(["Slow because small steps."])
    records = book.traces.session_records(session_id)
    assert records is not None
    from coach_gui.services.judging import JudgeRequestItem, judge_items

    (attempt,) = records.attempts
    item = JudgeRequestItem(attempt.id, records.challenges[0].text, attempt.answer, ())
    judge_items(
        [item],
        judge=OutboxJudge(book.journal),
        journal=book.practice_journal,
        clock=book.clock,
        include_assertions=False,
    )  # then the crash
    judge = OutboxJudge(book.journal)
    report = judge_pending(
        book.traces,
        judge,
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(NOTE),
    )
    assert judge.payloads == [] and [j.attempt_id for j in report.judged] == [attempt.id]
    assert len(report.bound_trace_ids) == 1 and book.verify().ok


def test_bindings_to_unknown_attempts_are_refused(book: Coachbook) -> None:
    session_id = book.practise(["Slow because small steps."])
    stranger_id = book.practise(["Opportunity because."], note=OTHER)
    judge_pending(
        book.traces,
        OutboxJudge(book.journal),
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(OTHER),
    )  # only the second note exists: the first session stays pending
    records = book.traces.session_records(session_id)
    stranger = book.traces.session_records(stranger_id)
    assert records is not None and stranger is not None
    verdict = stranger.verdicts[0]
    binding = new_binding(
        verdict.attempt_id, verdict.id, records.session.sealed_trace_id or "", book.clock.now()
    )
    refused = build_bound_trace_input(
        records,
        [binding],
        config_digest="c",
        sealed_at=book.clock.now(),
        note_snapshot_digest=note_digest(NOTE),
    )
    assert isinstance(refused, TraceRefusal)
    assert refused.reason_code is TraceRefusalReason.BINDING_FOR_UNKNOWN_ATTEMPT
    with pytest.raises(JournalError), book.journal.write() as conn:  # nor can one be stored
        conn.execute(
            "INSERT INTO attempt_bindings (id, attempt_id, verdict_id, original_trace_id,"
            " created_at) VALUES ('abc', 'def', ?, ?, 'now')",
            (verdict.id, records.session.sealed_trace_id),
        )


# --- crashes --------------------------------------------------------------------------------


def test_a_session_left_open_is_sealed_interrupted_with_every_answer_but_a_live_one_is_not(
    book: Coachbook,
) -> None:
    crashed = book.practise(["First.", "Second."], seal=False)
    live_journal = LivePracticeJournal(book.journal)
    run = PracticeRun(
        NOTE, PracticeSettings(challenges=1, judge_enabled=False), live_journal, None, book.clock
    )
    live = run.start()
    sealed = recover_open_sessions(book.traces, book.clock)
    assert len(sealed) == 1
    (row,) = book.rows("SELECT * FROM sessions WHERE id = ?", crashed)
    assert row["disposition"] == "interrupted" and row["sealed_trace_id"] == sealed[0]
    body = json.loads(book.rows("SELECT body FROM sealed_traces")[0]["body"])
    answers = book.rows(
        "SELECT id FROM attempts WHERE session_id = ? ORDER BY submitted_at", crashed
    )
    assert body["input"]["attempt_ids"] == [a["id"] for a in answers] and len(answers) == 2
    assert body["input"]["disposition"] == Disposition.INTERRUPTED.value
    assert book.rows("SELECT sealed_trace_id FROM sessions WHERE id = ?", live.id)[0][0] is None
    assert recover_open_sessions(book.traces, book.clock) == []  # the live one is left alone
    live_journal.release(live.id)
    assert len(recover_open_sessions(book.traces, book.clock)) == 1
    assert book.verify().ok


def test_an_open_session_no_process_marked_live_is_sealed_only_once_idle(
    book: Coachbook,
) -> None:
    book.practise(["Typed in an app that does not mark its sessions."], seal=False)
    (last,) = book.rows("SELECT max(submitted_at) FROM attempts")[0]
    active = datetime.fromisoformat(last)

    def journal_at(moment: datetime) -> SqliteTraceJournal:
        return SqliteTraceJournal(book.journal, now=lambda: moment)

    assert journal_at(active + timedelta(minutes=30)).open_session_ids() == []
    assert recover_open_sessions(journal_at(active + timedelta(minutes=30)), book.clock) == []
    idle = journal_at(active + UNMARKED_GRACE + timedelta(seconds=1))
    assert len(recover_open_sessions(idle, book.clock)) == 1


def test_an_older_journal_gains_the_v2_triggers_and_its_ended_sessions_get_sealed(
    tmp_path: Path,
) -> None:
    from coach_gui.adapters.journal.schema import LATEST_VERSION, MIGRATIONS

    path = tmp_path / "journal.sqlite3"
    with Journal.open(path, migrations=MIGRATIONS[:1]) as v1:
        Coachbook(v1, TickingClock()).practise(["Before the upgrade."], seal=False)
        with v1.write() as conn:
            conn.execute("UPDATE sessions SET ended_at = 'then', disposition = 'unjudged_offline'")
    with Journal.open(path) as journal:
        assert journal.schema_version == LATEST_VERSION
        book = Coachbook(journal, TickingClock())
        assert len(recover_open_sessions(book.traces, book.clock)) == 1
        (row,) = book.rows("SELECT * FROM sessions")
        assert row["disposition"] == "unjudged_offline" and row["ended_at"] == "then"
        assert book.verify().ok
        columns = {r["name"] for r in book.rows("PRAGMA table_info(attempt_bindings)")}
        assert "original_trace_id" in columns
    assert len(list(tmp_path.glob("backups/journal-*-pre-v2.sqlite3"))) == 1


# --- verify: tampering ----------------------------------------------------------------------


def _rich_journal(book: Coachbook) -> dict[str, str]:
    """Sessions of every kind: judged with gaps (outbox rows, a rejected challenge), judged
    later (bindings, a bound trace), judge unavailable (a refusal). Returns their ids."""
    judged = book.practise(
        ["Slow because slight steps.", "No idea."], judge=OutboxJudge(book.journal), reject=True
    )
    later = book.practise(["Later because.", "Later, unsure."])
    refused = book.practise(["Kept."], judge=OutboxJudge(book.journal, fail=True))
    judge_pending(
        book.traces,
        OutboxJudge(book.journal),
        book.practice_journal,
        book.clock,
        include_assertions=True,
        note_lookup=_lookup(NOTE),
    )  # judges the later session and retries the refused one, failing again
    return {"judged": judged, "later": later, "refused": refused}


def _flip_hex(value: str) -> str:
    return value[:-1] + ("0" if value[-1] != "0" else "1")


def _changed(column: str, value: Any, rows: dict[str, Any]) -> Any:
    """Another value of the same kind, that the table's CHECK constraints still accept."""
    if column == "kind":
        return {"session": "bound", "bound": "session", "explain": "contrast"}.get(value, "x")
    allowed = {
        "mode": "judged_without",
        "disposition": "all_passed",
        "origin": "tier1",
        "status": {"judged": "unjudged", "unjudged": "judged", "ok": "error"}.get(value, "ok"),
        "verdict": "pass" if value == "fail" else "fail",
        "provider": "local" if value == "gemini" else "gemini",  # a Gemini request passed off
    }
    if column in allowed:
        return allowed[column]
    if column == "assertions_sent":
        return 1 - value
    if isinstance(value, int):
        return value + 10
    if value is None:
        return rows.get(column, "added")
    if value.startswith(("[", "{")):
        data = json.loads(value)
        if isinstance(data, list):
            data.append(0 if column == "target_assertions" else "added")
        else:
            data["tampered"] = True
        return json.dumps(data)
    if len(value) >= 32 and all(c in "0123456789abcdef" for c in value):
        return rows.get(column, _flip_hex(value))
    return value + " (changed)"


# (table, which row, key column): the row whose every column is changed in turn.
TAMPERED_ROWS = [
    ("sessions", "judged", "id"),
    ("challenges", "judged", "id"),
    ("challenge_rejections", "judged", "id"),
    ("attempts", "judged", "id"),
    ("verdicts", "judged", "id"),
    ("outbox", "judged", "id"),
    ("judge_refusals", "refused", "id"),
    ("attempt_bindings", "later", "id"),
    ("sealed_traces", "judged", "trace_id"),
    ("sealed_traces", "later-bound", "trace_id"),
]

_WHERE = {
    "sessions": "id = :session",
    "challenges": "session_id = :session",
    "challenge_rejections": "session_id = :session",
    "attempts": "session_id = :session",
    "verdicts": "attempt_id IN (SELECT id FROM attempts WHERE session_id = :session)",
    "judge_refusals": "attempt_id IN (SELECT id FROM attempts WHERE session_id = :session)",
    "attempt_bindings": "attempt_id IN (SELECT id FROM attempts WHERE session_id = :session)",
    "outbox": "id IN (SELECT v.outbox_id FROM verdicts v JOIN attempts a ON a.id = v.attempt_id"
    " WHERE a.session_id = :session)",
    "sealed_traces": "session_id = :session AND kind = :kind",
}


def _expected(table: str, column: str, old: dict[str, Any], new: Any) -> tuple[str, str]:
    """The first failure `verify` must report after `table.column` of `old` became `new`."""
    key = old["trace_id"] if table == "sealed_traces" else old["id"]
    if column in ("id", "trace_id") and table not in ("challenge_rejections", "outbox"):
        return new, "broken chain" if table == "sessions" else "digest mismatch"
    if column in ("id", "session_id") and table in ("challenge_rejections", "outbox"):
        return key, "missing record"
    if (table, column) in {("challenges", "session_id"), ("attempts", "session_id")}:
        return key, "missing record"
    if (table, column) == ("sessions", "sealed_trace_id"):
        return key, "broken chain"
    if (table, column) == ("attempt_bindings", "bound_trace_id"):
        return key, "broken chain"
    if (table, column) in {("sealed_traces", "kind"), ("sealed_traces", "session_id")}:
        return key, "broken chain"
    return key, "digest mismatch"


@pytest.fixture(scope="module")
def rich_journal(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    path = tmp_path_factory.mktemp("rich") / "journal.sqlite3"
    with Journal.open(path) as journal:
        ids = _rich_journal(Coachbook(journal, TickingClock()))
        assert verify(SqliteTraceJournal(journal)).ok  # a clean journal raises no alarm
    return path, ids


def _every_field() -> list[tuple[str, str, str]]:
    from coach_gui.adapters.journal.schema import MIGRATIONS

    conn = sqlite3.connect(":memory:")
    for migration in MIGRATIONS:
        conn.executescript(migration.script)
        if migration.after is not None and migration.version >= 6:  # the outbox provider
            migration.after(conn)
    cases = []
    for table, which, _ in TAMPERED_ROWS:
        for (column,) in conn.execute(f"SELECT name FROM pragma_table_info('{table}')"):
            cases.append((table, which, column))
    return cases


@pytest.mark.parametrize(("table", "which", "column"), _every_field())
def test_changing_any_field_of_any_stored_record_is_caught_by_verify(
    rich_journal: tuple[Path, dict[str, str]], tmp_path: Path, table: str, which: str, column: str
) -> None:
    source, ids = rich_journal
    path = tmp_path / "journal.sqlite3"
    shutil.copy(source, path)
    session = ids[which.split("-")[0]]
    with sqlite3.connect(path) as conn:
        conn.row_factory = sqlite3.Row
        for (name,) in conn.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger'"
        ).fetchall():
            conn.execute(f'DROP TRIGGER "{name}"')
        params = {"session": session, "kind": "bound" if which.endswith("bound") else "session"}
        row = conn.execute(
            f"SELECT rowid, * FROM {table} WHERE {_WHERE[table]} LIMIT 1", params
        ).fetchone()
        assert row is not None, (table, which)
        old = dict(row)
        # Replacement ids that exist elsewhere (a plausible forgery), per column.
        queries = {
            "session_id": (
                "SELECT ?",
                _flip_hex(session)
                if table == "challenges"  # (a move would break UNIQUE (session_id, position))
                else ids["judged" if session == ids["later"] else "later"],
            ),
            "sealed_trace_id": (
                "SELECT trace_id FROM sealed_traces WHERE session_id = ? AND kind = 'bound'",
                ids["later"],
            ),
            "original_trace_id": (
                "SELECT sealed_trace_id FROM sessions WHERE id = ?",
                ids["judged"],
            ),
            "bound_trace_id": ("SELECT sealed_trace_id FROM sessions WHERE id = ?", ids["judged"]),
            "attempt_id": (
                "SELECT id FROM attempts WHERE session_id = ? AND id != :old ORDER BY id LIMIT 1",
                ids["judged"] if table == "judge_refusals" else session,
            ),
        }
        others = {}
        if column in queries:
            sql, arg = queries[column]
            sql = sql.replace(":old", repr(str(old.get("attempt_id"))))
            others[column] = conn.execute(sql, (arg,)).fetchone()[0]
        new = _changed(column, old[column], others)
        assert new != old[column]
        conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (new, old["rowid"]))
    with Journal.open(path) as journal:
        report = verify(SqliteTraceJournal(journal))
    assert not report.ok, (table, column)
    expected = _expected(table, column, old, new)
    if (table, column) == ("judge_refusals", "attempt_id"):  # moved into the first session
        expected = (old["id"], "digest mismatch")
    assert report.first_failure is not None
    assert (report.first_failure.id, report.first_failure.reason) == expected, (table, column)


def _closed_copy(source: Path, tmp_path: Path) -> Path:
    path = tmp_path / "journal.sqlite3"
    shutil.copy(source, path)
    return path


def test_flipping_a_byte_of_an_answer_in_the_file_is_caught(
    rich_journal: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    source, _ = rich_journal
    with sqlite3.connect(source) as conn:
        (attempt,) = conn.execute(
            "SELECT id FROM attempts WHERE answer = 'Later, unsure.'"
        ).fetchone()
    for replacement in (b"M", b"\xff"):  # another letter; a byte that is not UTF-8
        path = _closed_copy(source, tmp_path)
        data = bytearray(path.read_bytes())
        # The answer's row, not the copy inside the outbox payload that was sent, nor the
        # judge's evidence citing it (in the outbox reply and the verdict's assessments).
        found = [i for i in range(len(data)) if data.startswith(b"Later, unsure.", i)]
        (at,) = [i for i in found if not data[:i].endswith((b'"answer":"', b'["'))]
        data[at + 1 : at + 2] = replacement
        path.write_bytes(bytes(data))
        with Journal.open(path) as journal:
            report = verify(SqliteTraceJournal(journal))
        assert report.first_failure is not None
        assert (report.first_failure.id, report.first_failure.reason) == (
            attempt,
            "digest mismatch",
        )


def test_a_damaged_file_is_reported_as_such(
    rich_journal: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    source, _ = rich_journal
    path = _closed_copy(source, tmp_path)
    data = bytearray(path.read_bytes())
    page = 4096
    at = data.find(b"Later, unsure.")
    start = at - at % page
    data[start : start + page] = b"\x0d" * page  # the whole page holding the answers
    path.write_bytes(bytes(data))
    with Journal.open(path) as journal:
        report = verify(SqliteTraceJournal(journal))
    assert report == VerifyReport(False, 0, Failure("journal", "damaged file"))


# --- a clean journal never raises a false alarm ---------------------------------------------

_answer = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1).filter(
    lambda t: t.strip() != ""
)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(answers=st.lists(_answer, min_size=1, max_size=3), judged=st.booleans(), later=st.booleans())
def test_a_clean_journal_never_raises_a_false_alarm(
    tmp_path_factory: pytest.TempPathFactory, answers: list[str], judged: bool, later: bool
) -> None:
    path = tmp_path_factory.mktemp("clean") / "journal.sqlite3"
    with Journal.open(path) as journal:
        book = Coachbook(journal, TickingClock())
        judge = OutboxJudge(journal) if judged else None
        session_id = book.practise(answers, judge=judge)
        book.practise(answers[:1], seal=False)
        if later:
            judge_pending(
                book.traces,
                OutboxJudge(journal),
                book.practice_journal,
                book.clock,
                include_assertions=judged,
                note_lookup=_lookup(NOTE),
            )
        report = book.verify()
        assert report.ok, report
        assert book.verify(session_id).ok


@pytest.mark.parametrize(("table", "which", "_key"), TAMPERED_ROWS)
def test_deleting_any_stored_row_is_caught_by_verify(
    rich_journal: tuple[Path, dict[str, str]], tmp_path: Path, table: str, which: str, _key: str
) -> None:
    """Issue 21 item 7: deleting a session row left its traces and answers orphaned, and
    verify never looked at them."""
    source, ids = rich_journal
    path = _closed_copy(source, tmp_path)
    session = ids[which.split("-")[0]]
    with sqlite3.connect(path) as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'"):
            conn.execute(f'DROP TRIGGER "{name}"')
        params = {"session": session, "kind": "bound" if which.endswith("bound") else "session"}
        deleted = conn.execute(
            f"DELETE FROM {table} WHERE rowid = (SELECT rowid FROM {table} WHERE "
            f"{_WHERE[table]} LIMIT 1)",
            params,
        ).rowcount
        assert deleted == 1, (table, which)
    with Journal.open(path) as journal:
        report = verify(SqliteTraceJournal(journal))
    assert not report.ok, (table, which)
    assert report.first_failure is not None
    assert report.first_failure.reason in ("missing record", "broken chain", "digest mismatch")
