"""The tamper sweep of issue 21: a journal recorded through the `coach` command line against
loopback fakes (judged answers, a judge error, a malformed reply, judging later that fails
and then succeeds, and a paired eval with a failed call), then every single-field edit of
every stored row, every row deletion, whole-session and whole-eval deletions and full
re-seals by someone without the key, each followed by `coach verify`'s own check.

Used by tests/integration/test_tamper_sweep.py (which asserts every change is caught and
no clean journal raises an alarm) and bench/tamper_sweep.py (which prints the figures).
Edits are made the way someone with the file would: SQLite directly, triggers dropped.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.evals import SqliteEvalJournal
from coach_gui.adapters.journal.trace_log import HeadSigner, append_traces
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.adapters.secrets import KeyringSigningKeys
from coach_gui.domain.practice import Disposition
from coach_gui.domain.sealing import TraceRefusal, build_session_trace_input, seal
from coach_gui.services.verify import VerifyReport, verify

KEY = "test-key"
ASSERTIONS = ["Selection acts only on inherited variation.", "Large change takes a long time."]
# Caches rebuilt from history at any time, never sealed (journal_schema v3).
DERIVED = {"assertion_memory", "assertion_memory_meta", "assertion_memory_stale"}


@contextlib.contextmanager
def _env(home: Path) -> Iterator[None]:
    names = ("COACH_HOME", "COACH_CONFIG", "COACH_TEST_KEYRING", "COACH_NOW")
    saved = {name: os.environ.get(name) for name in names}
    os.environ["COACH_HOME"] = str(home / "coach-home")
    os.environ["COACH_CONFIG"] = str(home / "config" / "coach.config.json")
    os.environ["COACH_TEST_KEYRING"] = str(home / "keyring" / "keys.json")
    os.environ.pop("COACH_NOW", None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _coach(*argv: str, stdin: str = "") -> dict[str, Any]:
    from coach_gui.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved_in = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(argv))
    finally:
        sys.stdin = saved_in
    if code != 0:
        raise AssertionError(f"coach {' '.join(argv)} exited {code}: {err.getvalue()}")
    text = out.getvalue()
    return json.loads(text) if "--json" in argv and text else {}


def record_journal(
    home: Path,
    *,
    failures: bool = True,
    practise_with_assertions: bool = True,
    correct: bool = True,
) -> Path:
    """Record the journal under `home` (its own COACH_HOME, config and keyring); returns
    the journal's path. Without `failures`, every call succeeds (no refusal is stored).
    Without `practise_with_assertions`, practice sends no assertions (so its verdicts hold
    no assessments, as every verdict before schema v5); the eval still does. Without
    `correct`, the learner corrects no key point (as before schema v12)."""
    from fakes.gemini_server import FakeGemini, Fault, passes_items_whose_answer_contains
    from fakes.ollama_server import DEFAULT_MODEL, FakeOllama

    with _env(home), FakeGemini(api_keys={KEY}) as gemini, FakeOllama() as ollama:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        notes = home / "coach-home" / "notes"
        notes.mkdir(parents=True)
        front = {"id": "note1", "title": "Natural selection", "core_assertions": ASSERTIONS}
        (notes / "natural-selection.md").write_text(
            "---\n" + yaml.safe_dump(front) + "---\nBody of the note.\n", encoding="utf-8"
        )
        config = Path(os.environ["COACH_CONFIG"])
        config.parent.mkdir(parents=True)

        def configure(include_assertions: bool) -> None:
            judge = {"includeAssertions": include_assertions, "baseUrl": gemini.url,
                     "maxRetries": 0, "timeoutSeconds": 30}  # fmt: skip
            config.write_text(
                json.dumps(
                    {
                        "kb": {"path": str(notes)},
                        "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL},
                        "judge": judge,
                    }
                ),
                encoding="utf-8",
            )

        configure(practise_with_assertions)
        _coach("key", "set", stdin=KEY + "\n")

        def practise(*answers: str) -> dict[str, Any]:
            for n in range(len(answers)):
                ollama.queue_challenge(f"Question {n}: why would this take so long?")
            path = home / "answers.json"
            path.write_text(json.dumps(list(answers)), encoding="utf-8")
            return _coach("practice", "natural-selection", "--answers", str(path), "--json")

        first = practise("It changes slowly because each step is slight.", "No idea at all.")
        judged = [i for i in first["items"] if i["assessments"]]
        if judged and correct:  # the learner's word on a key point (issue 36), sealed too
            attempt = judged[0]["attempt_id"]
            _coach("correct", attempt, "1", "wrong", "--note", "I mixed it up.", "--json")
        if not failures:
            configure(True)
            _coach("eval", "--repeats", "2", "--json")
            return home / "coach-home" / "journal.sqlite3"
        gemini.inject(Fault.SERVER_ERROR, times=None)  # the judge fails: kept unjudged
        practise("Slowly, because variation is inherited.")
        gemini._faults.clear()
        gemini.queue_reply("I think both answers are fine!")  # not a verdict: malformed
        practise("It takes long because steps are small.", "Because of time.")
        gemini.inject(Fault.QUOTA, times=None)  # judging later fails: sealed all the same
        _coach("judge-pending", "--json")
        gemini._faults.clear()
        _coach("judge-pending", "--json")  # and then succeeds
        gemini.inject(Fault.SERVER_ERROR, times=1)  # one eval call fails
        _coach("eval", "--repeats", "2", "--json")
    return home / "coach-home" / "journal.sqlite3"


# --- checking ------------------------------------------------------------------------------


def check(path: Path) -> VerifyReport:
    """What `coach verify` (the whole journal, eval runs and the signed log) reports."""
    with Journal.open(path, backup_before_migration=False) as journal:
        return verify(
            SqliteTraceJournal(journal),
            evals=SqliteEvalJournal(journal),
            keys=KeyringSigningKeys(),
        )


def _drop_triggers(conn: sqlite3.Connection) -> None:
    for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'"):
        conn.execute(f'DROP TRIGGER "{name}"')


def _flip_hex(text: str) -> str:
    last = text[-1]
    return text[:-1] + ("0" if last != "0" else "1")


def _changed_json(value: Any) -> Any:
    """The same JSON with its first string leaf or number changed (or an item added)."""
    if isinstance(value, dict):
        for key in sorted(value):
            changed = _changed_json(value[key])
            if changed != value[key]:
                return value | {key: changed}
        return value | {"x": 1}
    if isinstance(value, list):
        if value:
            return [_changed_json(value[0]), *value[1:]]
        return [0]
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, str):
        return _flip_hex(value) if _is_hex(value) else value + "x"
    return "x"


def _is_hex(text: str) -> bool:
    return len(text) >= 16 and all(c in "0123456789abcdef" for c in text)


def changed(value: Any) -> Any:
    """A different value of the same type: what one edit of one field would write."""
    if value is None:
        return "x"
    if isinstance(value, int):
        return 1 - value if value in (0, 1) else value + 1
    if isinstance(value, float):
        return value + 1.0
    if isinstance(value, bytes):
        return value + b"x"
    if _is_hex(value):
        return _flip_hex(value)
    try:
        parsed = json.loads(value)
    except ValueError:
        return value + "x"
    if isinstance(parsed, (dict, list)):
        return json.dumps(_changed_json(parsed), separators=(",", ":"), ensure_ascii=False)
    return value + "x"


@dataclass
class SweepResult:
    rows: int = 0
    edits: int = 0
    edits_refused: int = 0  # a CHECK, NOT NULL or UNIQUE constraint refused the edit itself
    refused_fields: set[str] = field(default_factory=set)  # table.column
    deletions: int = 0
    missed: list[str] = field(default_factory=list)  # changes verify did not catch
    by_reason: dict[str, int] = field(default_factory=dict)

    def caught(self, report: VerifyReport, what: str) -> None:
        if report.ok or report.first_failure is None:
            self.missed.append(what)
            return
        reason = report.first_failure.reason.split(" (")[0]
        self.by_reason[reason] = self.by_reason.get(reason, 0) + 1


def sealed_tables_of(path: Path) -> list[str]:
    conn = sqlite3.connect(path)
    try:
        return sealed_tables(conn)
    finally:
        conn.close()


def sealed_tables(conn: sqlite3.Connection) -> list[str]:
    names = conn.execute(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        " ORDER BY name"
    ).fetchall()
    return [name for (name,) in names if name not in DERIVED]


def _edit(
    conn: sqlite3.Connection,
    table: str,
    column: str,
    values: dict[str, Any],
    where: Any,
    kind: str,
) -> dict[str, Any] | None:
    """Change one field of one row to the first candidate the schema accepts: the value
    changed slightly, another value the column holds elsewhere (a plausible forgery), or
    for an empty field a value of its type. Returns the row as it now is."""
    old = values[column]
    others = [
        v
        for (v,) in conn.execute(f'SELECT DISTINCT "{column}" FROM {table}')
        if v != old and v is not None
    ]
    candidates = [changed(old), *others]
    if old is None:
        candidates.insert(0, 1 if kind == "INTEGER" else "0" * 32)
    match, args = where(values)
    for candidate in candidates:
        try:
            conn.execute(f'UPDATE {table} SET "{column}" = ? WHERE {match}', [candidate, *args])
        except sqlite3.IntegrityError:
            continue
        return values | {column: candidate}
    return None


def _has_rowid(conn: sqlite3.Connection, table: str) -> bool:
    try:
        conn.execute(f"SELECT rowid FROM {table} LIMIT 0")
    except sqlite3.OperationalError:  # WITHOUT ROWID
        return False
    return True


def sweep(path: Path, keyring: Path) -> SweepResult:
    """Every single-field edit and every row deletion of every sealed table, one at a
    time, each undone before the next; `keyring` is the recording's keyring file."""
    os.environ["COACH_TEST_KEYRING"] = str(keyring)
    result = SweepResult()
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        _drop_triggers(conn)
        for table in sealed_tables(conn):
            info = conn.execute(
                f"SELECT name, pk, type FROM pragma_table_info('{table}')"
            ).fetchall()
            columns = [name for name, _, _ in info]
            # A row is found by its rowid, or (WITHOUT ROWID) by its primary key as it is.
            keyed = ["rowid"] if _has_rowid(conn, table) else [n for n, pk, _ in info if pk]
            # An INTEGER PRIMARY KEY is the rowid itself: changing it moves the row.
            alias = [n for n, pk, kind in info if pk and kind == "INTEGER" and keyed == ["rowid"]]
            kinds = {name: kind for name, _, kind in info}
            every = keyed + [c for c in columns if c not in keyed]
            rows = [
                dict(zip(every, row, strict=True))
                for row in conn.execute(f"SELECT {', '.join(every)} FROM {table}")
            ]
            result.rows += len(rows)

            def where(values: dict[str, Any], keyed: list[str] = keyed) -> tuple[str, list[Any]]:
                return " AND ".join(f'"{k}" IS ?' for k in keyed), [values[k] for k in keyed]

            for values in rows:
                name = f"{table} row {[values[k] for k in keyed]}"
                for column in columns:
                    new = _edit(conn, table, column, values, where, kinds[column])
                    if new is None:  # no value of its kind gets past the schema's checks
                        result.edits_refused += 1
                        result.refused_fields.add(f"{table}.{column}")
                        continue
                    if [column] == alias:
                        new["rowid"] = new[column]
                    result.edits += 1
                    result.caught(check(path), f"{column} of {name}")
                    match, args = where(new)
                    conn.execute(
                        f'UPDATE {table} SET "{column}" = ? WHERE {match}',
                        [values[column], *args],
                    )
                match, args = where(values)
                conn.execute(f"DELETE FROM {table} WHERE {match}", args)
                result.deletions += 1
                result.caught(check(path), f"deleting {name}")
                marks = ", ".join("?" * len(every))
                conn.execute(
                    f"INSERT INTO {table} ({', '.join(every)}) VALUES ({marks})",
                    [values[c] for c in every],
                )
    finally:
        conn.close()
    return result


# --- deleting whole things, and re-sealing without the key ----------------------------------


def delete_session(path: Path) -> None:
    """Every row of the first session: what a learner hiding an evening would delete."""
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        _drop_triggers(conn)
        (session,) = conn.execute("SELECT id FROM sessions ORDER BY started_at LIMIT 1").fetchone()
        attempts = "SELECT id FROM attempts WHERE session_id = :s"
        cited = (
            f"SELECT outbox_id FROM verdicts WHERE attempt_id IN ({attempts}) UNION "
            f"SELECT outbox_id FROM judge_refusals WHERE attempt_id IN ({attempts})"
        )
        for statement in (
            f"DELETE FROM outbox WHERE id IN ({cited})",
            f"DELETE FROM attempt_bindings WHERE attempt_id IN ({attempts})",
            f"DELETE FROM verdicts WHERE attempt_id IN ({attempts})",
            f"DELETE FROM judge_refusals WHERE attempt_id IN ({attempts})",
            f"DELETE FROM self_ratings WHERE attempt_id IN ({attempts})",
            "DELETE FROM attempts WHERE session_id = :s",
            "DELETE FROM challenge_rejections WHERE session_id = :s",
            "DELETE FROM challenges WHERE session_id = :s",
            "DELETE FROM sealed_traces WHERE session_id = :s",
            "DELETE FROM sessions WHERE id = :s",
        ):
            conn.execute(statement, {"s": session})
    finally:
        conn.close()


def delete_eval_run(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        _drop_triggers(conn)
        conn.execute(
            "DELETE FROM sealed_traces WHERE trace_id IN (SELECT trace_id FROM eval_children)"
        )
        conn.execute("DELETE FROM eval_children")
        conn.execute("DELETE FROM eval_runs")
    finally:
        conn.close()


def reseal_without_key(path: Path, head: str) -> None:
    """Change a judge reply of the first session, then re-seal that session with Coach's
    own functions and rebuild the trace log after it; `head` says what the forger does
    with the signed head they cannot sign: "keep" it, "drop" it, or sign it with "own"
    key."""
    conn = sqlite3.connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    try:
        _drop_triggers(conn)
        (session,) = conn.execute("SELECT id FROM sessions ORDER BY started_at LIMIT 1").fetchone()
        conn.execute(
            "UPDATE outbox SET response = replace(response, 'fail', 'pass') WHERE id IN"
            " (SELECT v.outbox_id FROM verdicts v JOIN attempts a ON a.id = v.attempt_id"
            " WHERE a.session_id = ?)",
            (session,),
        )
        old = conn.execute("SELECT * FROM sessions WHERE id = ?", (session,)).fetchone()
        conn.execute("UPDATE sessions SET sealed_trace_id = NULL WHERE id = ?", (session,))
    finally:
        conn.close()
    with Journal.open(path, backup_before_migration=False) as journal:
        reader = SqliteTraceJournal(journal)
        records = reader.session_records(session)
        assert records is not None
        built = build_session_trace_input(
            records, disposition=Disposition(old["disposition"]), ended_at=old["ended_at"]
        )
        assert not isinstance(built, TraceRefusal), built
        trace = seal(built)
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("BEGIN")
        conn.execute("DELETE FROM sealed_traces WHERE trace_id = ?", (old["sealed_trace_id"],))
        conn.execute(
            "INSERT INTO sealed_traces (trace_id, session_id, kind, input_digest, body,"
            " created_at) VALUES (?, ?, 'session', ?, ?, ?)",
            (trace.trace_id, session, trace.input_digest, trace.body, trace.input.sealed_at),
        )
        conn.execute(
            "UPDATE sessions SET sealed_trace_id = ? WHERE id = ?", (trace.trace_id, session)
        )
        order = [
            trace.trace_id if trace_id == old["sealed_trace_id"] else trace_id
            for (trace_id,) in conn.execute("SELECT trace_id FROM trace_log ORDER BY position")
        ]
        signed_at = conn.execute("SELECT signed_at FROM trace_log_head").fetchone()[0]
        conn.execute("DELETE FROM trace_log")
        kept = conn.execute("SELECT * FROM trace_log_head").fetchall()
        conn.execute("DELETE FROM trace_log_head")
        forger = HeadSigner("f" * 16, b"forger's own key", fresh=True) if head == "own" else None
        append_traces(conn, order, signed_at, forger)
        if head == "keep":
            conn.executemany(
                "INSERT INTO trace_log_head VALUES (?, ?, ?, ?, ?, ?)", [tuple(r) for r in kept]
            )
        conn.execute("COMMIT")
    finally:
        conn.close()


def practise_offline(home: Path) -> None:
    """One more session, the learner's ordinary next evening (judge off; Ollama gone, so
    built-in challenges): it seals a trace and so signs a new head, if Coach may."""
    with _env(home):
        path = home / "answers-later.json"
        path.write_text(json.dumps(["Later, in my own words."]), encoding="utf-8")
        _coach("practice", "natural-selection", "--answers", str(path), "--judge", "off")


def vacuumed(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("VACUUM")
    finally:
        conn.close()


def backed_up_and_restored(home: Path) -> Path:
    """`coach backup`, then `coach restore` of that backup: the app's own round trip."""
    with _env(home):
        made = _coach("backup", "--json")
        _coach("restore", made["path"], "--json")
    return home / "coach-home" / "journal.sqlite3"
