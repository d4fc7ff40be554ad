"""`coach verify` and the sessions list on a large journal.

Generates a journal of N sealed sessions (default 100,000) built with the real sealing
code: three challenges and three answers each; two thirds judged during practice (a
verdict and an outbox row per answer), the rest practised offline and judged later (a
verdict, a binding and a bound trace per session). Then measures:

- `coach verify` over the whole journal (the real command, in this process): records
  checked per second, records being the rows of every table it covers;
- the first page of the sessions list (`services.review.list_sessions`, newest first, each
  row verified as the Sessions view shows it): cold (journal just opened) and warm.

    python bench/bench_verify.py [--sessions 100000]

Targets (issue 5): ≥ 20,000 records/s for verify; ≤ 100 ms for the first page with
100,000 sessions. Prints figures only.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The tests' file keyring (fakes.keyring_backend), so the bench signs as Coach does.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from coach_gui.adapters.journal.trace_log import HeadSigner, append_traces
from coach_gui.domain.challenges import Challenge, ChallengeKind
from coach_gui.domain.digests import digest
from coach_gui.domain.practice import (
    Attempt,
    Disposition,
    SessionMode,
    VerdictRecord,
    attempt_id,
    challenge_id,
)
from coach_gui.domain.sealing import (
    PracticeTraceInput,
    build_bound_trace_input,
    build_session_trace_input,
    new_binding,
    seal,
)
from coach_gui.domain.session_records import (
    ChallengeRecord,
    OutboxRecord,
    SessionRecord,
    SessionRecords,
    StoredTrace,
    verdict_id,
)
from coach_gui.domain.verdicts import Gap

ASSERTIONS = ("Selection acts only on inherited variation.", "Large change takes long.")
COVERED = (
    "sessions",
    "challenges",
    "challenge_rejections",
    "attempts",
    "verdicts",
    "judge_refusals",
    "attempt_bindings",
    "outbox",
    "sealed_traces",
)


def _at(n: int) -> str:
    return f"2025-{1 + n // 2_419_200 % 12:02d}-01T00:00:00.{n:09d}+00:00"


def _verdict(attempt: Attempt, passed: bool, when: str, outbox: str | None) -> VerdictRecord:
    gaps = () if passed else (Gap(assertion=1, problem="unexplained", explanation="Say why."),)
    record = VerdictRecord(
        id="",
        attempt_id=attempt.id,
        outbox_id=outbox,
        passed=passed,
        gaps=gaps,
        feedback="Good." if passed else "Not yet.",
        assertions_sent=True,
        assertions=ASSERTIONS,
        judge_model="gemini-2.5-flash",
        created_at=when,
    )
    return record.model_copy(update={"id": verdict_id(record)})


def _session(n: int) -> dict[str, Any]:
    """One session's rows, sealed (and, for one in three, judged later and bound)."""
    sid = digest({"bench-session": n})[:32]
    offline = n % 3 == 2
    session = SessionRecord(
        id=sid,
        note_id=f"note{n % 500}",
        note_title=f"Note {n % 500}",
        note_digest=digest({"note": n % 500}),
        config_digest=digest({"offline": offline}),
        mode=SessionMode.OFFLINE if offline else SessionMode.JUDGED_WITH_ASSERTIONS,
        started_at=_at(n * 10),
        ended_at=None,
        disposition=None,
        scheduler_decision_id=None,
        gap_ids=(),
        sealed_trace_id=None,
    )
    challenges, attempts, verdicts, outbox = [], [], [], []
    for i in range(3):
        text = f"Challenge {i} of session {n}: explain it in your own words."
        fields: dict[str, Any] = {
            "session_id": sid,
            "position": i,
            "kind": ChallengeKind.EXPLAIN,
            "text": text,
            "origin": "builtin",
            "parent_challenge_id": None,
            "model": None,
            "target_assertions": (),
            "created_at": _at(n * 10 + i),
        }
        body = Challenge(id="x", kind=ChallengeKind.EXPLAIN, text=text, origin="builtin")
        challenges.append(ChallengeRecord(id=challenge_id(sid, i, body), **fields))
        answer = f"Answer {i} of session {n}, in the learner's own words."
        when = _at(n * 10 + 3 + i)
        attempt = Attempt(
            id=attempt_id(sid, challenges[-1].id, answer, when),
            session_id=sid,
            challenge_id=challenges[-1].id,
            answer=answer,
            submitted_at=when,
            status="unjudged" if offline else "judged",
            unjudged_reason="the judge is switched off" if offline else None,
        )
        attempts.append(attempt)
        if not offline:
            box = OutboxRecord(
                id=digest({"outbox": n, "i": i})[:32],
                created_at=when,
                model="gemini-2.5-flash",
                payload='{"items":[]}',
                request_body="{}",
                response='{"items":[]}',
                status="ok",
                error=None,
                tokens_in=120,
                tokens_out=40,
                latency_ms=900,
            )
            outbox.append(box)
            verdicts.append(_verdict(attempt, i != 1, when, box.id))
    records = SessionRecords(
        session=session,
        challenges=tuple(challenges),
        attempts=tuple(attempts),
        verdicts=tuple(verdicts),
        outbox=tuple(outbox),
    )
    ended = _at(n * 10 + 7)
    disposition = Disposition.UNJUDGED_OFFLINE if offline else Disposition.GAPS_FOUND
    built = build_session_trace_input(records, disposition=disposition, ended_at=ended)
    assert isinstance(built, PracticeTraceInput), built
    trace = seal(built)
    session = session.model_copy(
        update={"ended_at": ended, "disposition": disposition, "sealed_trace_id": trace.trace_id}
    )
    rows: dict[str, Any] = {
        "session": session,
        "challenges": challenges,
        "attempts": attempts,
        "verdicts": verdicts,
        "outbox": outbox,
        "traces": [trace],
        "bindings": [],
    }
    if offline:  # judged later
        later = [_verdict(a, i != 1, _at(n * 10 + 8), None) for i, a in enumerate(attempts)]
        bindings = [new_binding(v.attempt_id, v.id, trace.trace_id, _at(n * 10 + 9)) for v in later]
        stored = StoredTrace(
            trace_id=trace.trace_id,
            session_id=sid,
            kind="session",
            input_digest=trace.input_digest,
            body=trace.body,
            created_at=ended,
        )
        sealed = records.model_copy(
            update={"session": session, "verdicts": tuple(later), "traces": (stored,)}
        )
        bound_input = build_bound_trace_input(
            sealed,
            bindings,
            config_digest=digest({"later": True}),
            sealed_at=_at(n * 10 + 9),
            note_snapshot_digest=session.note_digest,
        )
        assert isinstance(bound_input, PracticeTraceInput), bound_input
        rows["verdicts"] = later
        rows["bindings"] = bindings
        rows["traces"].append(seal(bound_input))
    return rows


_SIGNER: HeadSigner | None = None


def generate(path: Path, count: int) -> None:
    from coach_gui.adapters.journal.database import Journal
    from coach_gui.adapters.secrets import KeyringSigningKeys

    global _SIGNER
    key_id, key = KeyringSigningKeys().signing_key()  # the bench's own file keyring
    _SIGNER = HeadSigner(key_id, key, fresh=True)
    Journal.open(path).close()  # the real schema, all migrations
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous = OFF")
    started = time.perf_counter()
    batch: list[dict[str, Any]] = []
    for n in range(count):
        batch.append(_session(n))
        if len(batch) == 2000 or n == count - 1:
            _insert(conn, batch)
            batch = []
            sys.stderr.write(f"\rgenerated {n + 1} sessions")
    conn.commit()
    conn.close()
    sys.stderr.write(f" in {time.perf_counter() - started:.0f} s\n")


def _insert(conn: sqlite3.Connection, batch: list[dict[str, Any]]) -> None:
    with conn:
        for rows in batch:
            s = rows["session"]
            conn.execute(
                "INSERT INTO sessions (id, note_id, note_title_at_start, note_digest,"
                " config_digest, mode, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    s.id,
                    s.note_id,
                    s.note_title,
                    s.note_digest,
                    s.config_digest,
                    s.mode.value,
                    s.started_at,
                ),
            )
            conn.executemany(
                "INSERT INTO challenges (id, session_id, position, kind, text, origin, model,"
                " target_assertions, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, '[]', ?)",
                [
                    (
                        c.id,
                        c.session_id,
                        c.position,
                        c.kind.value,
                        c.text,
                        c.origin,
                        c.model,
                        c.created_at,
                    )
                    for c in rows["challenges"]
                ],
            )
            conn.executemany(
                "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at, status,"
                " unjudged_reason) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        a.id,
                        a.session_id,
                        a.challenge_id,
                        a.answer,
                        a.submitted_at,
                        a.status,
                        a.unjudged_reason,
                    )
                    for a in rows["attempts"]
                ],
            )
            conn.executemany(
                "INSERT INTO outbox (id, created_at, model, payload, request_body, response,"
                " status, tokens_in, tokens_out, latency_ms) VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        o.id,
                        o.created_at,
                        o.model,
                        o.payload,
                        o.request_body,
                        o.response,
                        o.status,
                        o.tokens_in,
                        o.tokens_out,
                        o.latency_ms,
                    )
                    for o in rows["outbox"]
                ],
            )
            conn.executemany(
                "INSERT INTO verdicts (id, attempt_id, outbox_id, verdict, gaps, feedback,"
                " assertions_sent, assertions, judge_model, created_at)"
                " VALUES (?,?,?,?,?,?,?,?,?,?)",
                [
                    (
                        v.id,
                        v.attempt_id,
                        v.outbox_id,
                        "pass" if v.passed else "fail",
                        json.dumps([g.model_dump(mode="json") for g in v.gaps]),
                        v.feedback,
                        int(v.assertions_sent),
                        json.dumps(list(v.assertions)),
                        v.judge_model,
                        v.created_at,
                    )
                    for v in rows["verdicts"]
                ],
            )
            first, *bound = rows["traces"]
            conn.execute(
                "INSERT INTO sealed_traces (trace_id, session_id, kind, input_digest, body,"
                " created_at) VALUES (?, ?, 'session', ?, ?, ?)",
                (first.trace_id, s.id, first.input_digest, first.body, first.input.sealed_at),
            )
            append_traces(conn, [first.trace_id], first.input.sealed_at, _SIGNER)
            conn.execute(
                "UPDATE sessions SET ended_at = ?, disposition = ?, sealed_trace_id = ?"
                " WHERE id = ?",
                (s.ended_at, s.disposition.value, s.sealed_trace_id, s.id),
            )
            conn.executemany(
                "INSERT INTO attempt_bindings (id, attempt_id, verdict_id, original_trace_id,"
                " created_at) VALUES (?, ?, ?, ?, ?)",
                [
                    (b.id, b.attempt_id, b.verdict_id, b.original_trace_id, b.created_at)
                    for b in rows["bindings"]
                ],
            )
            for trace in bound:
                conn.execute(
                    "INSERT INTO sealed_traces (trace_id, session_id, kind, input_digest, body,"
                    " created_at) VALUES (?, ?, 'bound', ?, ?, ?)",
                    (trace.trace_id, s.id, trace.input_digest, trace.body, trace.input.sealed_at),
                )
                append_traces(conn, [trace.trace_id], trace.input.sealed_at, _SIGNER)
                conn.executemany(
                    "UPDATE attempt_bindings SET bound_trace_id = ? WHERE id = ?",
                    [(trace.trace_id, b) for b in trace.input.attempt_binding_ids],
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="generate into (or reuse) this journal file")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coach-bench-") as tmp:
        root = Path(tmp)
        os.environ.update(
            # A keyring of the bench's own (a JSON file), never the developer's.
            PYTHON_KEYRING_BACKEND="fakes.keyring_backend.FileKeyring",
            COACH_TEST_KEYRING=str(root / "keyring.json"),
            COACH_HOME=str(root / "home"),
            COACH_CONFIG=str(root / "config" / "coach.config.json"),
            XDG_CONFIG_HOME=str(root / "xdg-config"),
        )
        path = root / "home" / "journal.sqlite3"
        path.parent.mkdir(parents=True)
        if args.keep is not None and args.keep.exists():
            path.write_bytes(args.keep.read_bytes())
        else:
            generate(path, args.sessions)
            if args.keep is not None:
                args.keep.write_bytes(path.read_bytes())
        measure(path)


def measure(path: Path) -> None:
    from coach_gui.adapters.journal.database import Journal
    from coach_gui.adapters.journal.traces import SqliteTraceJournal
    from coach_gui.cli import main as coach
    from coach_gui.services.review import PAGE, list_sessions

    with Journal.open(path) as journal:
        counts = journal.counts()
    records = sum(counts[t] for t in COVERED)
    size = path.stat().st_size / 1e6
    print(f"journal: {counts['sessions']:,} sessions, {records:,} records, {size:,.0f} MB")

    pages = []
    for _ in range(5):
        started = time.perf_counter()
        journal = Journal.open(path)
        opened = time.perf_counter()
        rows = list_sessions(SqliteTraceJournal(journal), limit=PAGE)
        done = time.perf_counter()
        pages.append((done - started, done - opened))
        journal.close()
    assert len(rows) == PAGE and all(r.verified for r in rows)
    with Journal.open(path) as journal:
        reader = SqliteTraceJournal(journal)
        list_sessions(reader, limit=PAGE)
        warm = []
        for _ in range(10):
            started = time.perf_counter()
            list_sessions(reader, limit=PAGE)
            warm.append(time.perf_counter() - started)
    print(
        f"sessions list, first page of {PAGE} (each verified): "
        f"open + page {statistics.median(p[0] for p in pages) * 1000:.1f} ms, "
        f"page after open {statistics.median(p[1] for p in pages) * 1000:.1f} ms, "
        f"warm {statistics.median(warm) * 1000:.1f} ms (median; target <= 100 ms)"
    )

    devnull = open(os.devnull, "w")  # noqa: SIM115
    real_stdout = sys.stdout
    sys.stdout = devnull
    started, cpu = time.perf_counter(), time.process_time()
    try:
        code = coach(["verify", "--json"])
    finally:
        sys.stdout = real_stdout
        devnull.close()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"coach verify: exit {code}, {seconds:.1f} s, {records / seconds:,.0f} records/s "
        f"({records / cpu:,.0f} per CPU second; target >= 20,000/s)"
    )


if __name__ == "__main__":
    main()
