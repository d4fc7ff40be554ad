"""Sync figures (issue 20): importing 100,000 records from another computer (target
<= 10 s), and a normal evening's sync, a few hundred records, into that big journal
(target <= 200 ms; the window runs it off the GUI thread).

Builds the laptop's journal straight through SQL, each session sealed by the real domain
(`build_session_trace_input`, `seal`) so every check an import makes passes: a session of
two judged answers is 9 records (session, 2 challenges, 2 answers, 1 judge request,
2 verdicts, 1 trace). Then times, through the real `services.sync.sync_now` over real
folders and journals:
  * export: the laptop writes its whole history as segments;
  * import: a fresh desktop reads and stores all of it (every record checked, every
    session verified, the traces added to its trace log), as the app does it: with a
    helper process reading and checking the next segments on a second core;
  * evening: the laptop practises 30 more sessions (270 records) and syncs; the desktop
    syncs them in (median of 5 evenings).
Since issue 34 (ADR 0033) every segment is signed with its computer's Ed25519 key and
checked against the key the desktop paired (here in memory; the keyring's in the app).

    /work/main/.venv/bin/python bench/bench_sync.py [--records 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.sync import SqliteSyncJournal
from coach_gui.adapters.journal.trace_log import append_traces
from coach_gui.adapters.sync_folder import SyncFolder
from coach_gui.domain.challenges import ChallengeKind
from coach_gui.domain.practice import Attempt, Disposition, SessionMode, VerdictRecord
from coach_gui.domain.sealing import build_session_trace_input, seal
from coach_gui.domain.session_records import (
    ChallengeRecord,
    OutboxRecord,
    SessionRecord,
    SessionRecords,
    attempt_content_id,
    challenge_content_id,
    verdict_id,
)
from coach_gui.domain.verdicts import Gap
from coach_gui.services.sync import pair, sync_now

START = datetime(2026, 9, 1, 19, 0, tzinfo=UTC)
RECORDS_PER_SESSION = 9
ASSERTIONS = ("Selection acts only on inherited variation.", "Large change takes a long time.")


class Keys:
    """The trace log's signing key, in memory (the keyring's, in the app)."""

    def __init__(self) -> None:
        self.key = ("bench-key", b"k" * 32)

    def signing_key(self) -> tuple[str, bytes]:
        return self.key

    def existing_key(self) -> tuple[str, bytes] | None:
        return self.key

    def has_key(self) -> bool:
        return True


class SyncKey:
    """A computer's sync signing key, in memory (the keyring's, in the app)."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        self._key = Ed25519PrivateKey.generate()

    def public_key(self) -> bytes:
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        return self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)


KEYS: dict[str, SyncKey] = {}


def _session(n: int, when: datetime) -> tuple[SessionRecords, list[tuple[str, tuple[object, ...]]]]:
    sid = uuid.uuid4().hex
    at = when.isoformat(timespec="microseconds")
    session = SessionRecord(
        id=sid, note_id=f"note{n % 500}", note_title=f"Note {n % 500}", note_digest="0" * 64,
        config_digest="1" * 64, mode=SessionMode.JUDGED_WITH_ASSERTIONS, started_at=at,
        ended_at=None, disposition=None, scheduler_decision_id=None, gap_ids=(),
        sealed_trace_id=None,
    )  # fmt: skip
    outbox = OutboxRecord(
        id=uuid.uuid4().hex, created_at=at, model="gemini-2.5-flash",
        payload=json.dumps({"items": [{"challenge": "Why?", "answer": f"Answer {n}"}]}),
        request_body="{}", response=json.dumps({"items": []}), status="ok", error=None,
        tokens_in=120, tokens_out=80, latency_ms=900,
    )  # fmt: skip
    challenges, attempts, verdicts = [], [], []
    for k in range(2):
        c = ChallengeRecord(
            id="", session_id=sid, position=k, kind=ChallengeKind.EXPLAIN,
            text=f"Explain point {k} of note {n % 500} in your own words.", origin="builtin",
            parent_challenge_id=None, model=None, target_assertions=(), created_at=at,
        )  # fmt: skip
        c = c.model_copy(update={"id": challenge_content_id(c)})
        a = Attempt(id="", session_id=sid, challenge_id=c.id, answer=f"Answer {n}.{k}",
                    submitted_at=at, status="judged")  # fmt: skip
        a = a.model_copy(update={"id": attempt_content_id(a)})
        gaps = (Gap(assertion=1, problem="unexplained", explanation="Not why."),) if n % 7 else ()
        v = VerdictRecord(
            id="", attempt_id=a.id, outbox_id=outbox.id, passed=not gaps, gaps=gaps,
            feedback="ok", assertions_sent=True, assertions=ASSERTIONS,
            judge_model="gemini-2.5-flash", created_at=at,
        )  # fmt: skip
        challenges.append(c)
        attempts.append(a)
        verdicts.append(v.model_copy(update={"id": verdict_id(v)}))
    records = SessionRecords(
        session=session, challenges=tuple(challenges), attempts=tuple(attempts),
        verdicts=tuple(verdicts), outbox=(outbox,),
    )  # fmt: skip
    ended = (when + timedelta(minutes=4)).isoformat(timespec="microseconds")
    trace = seal(
        build_session_trace_input(records, disposition=Disposition.GAPS_FOUND, ended_at=ended)  # type: ignore[arg-type]
    )
    rows: list[tuple[str, tuple[object, ...]]] = [
        ("INSERT INTO sessions (id, note_id, note_title_at_start, note_digest, config_digest,"
         " mode, started_at, gap_ids) VALUES (?, ?, ?, ?, ?, ?, ?, '[]')",
         (sid, session.note_id, session.note_title, session.note_digest, session.config_digest,
          session.mode.value, at)),
        ("INSERT INTO outbox (id, created_at, model, payload, request_body, response, status,"
         " tokens_in, tokens_out, latency_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
         (outbox.id, at, outbox.model, outbox.payload, outbox.request_body, outbox.response,
          "ok", 120, 80, 900)),
    ]  # fmt: skip
    for c, a, v in zip(challenges, attempts, verdicts, strict=True):
        rows += [
            ("INSERT INTO challenges (id, session_id, position, kind, text, origin,"
             " target_assertions, created_at) VALUES (?, ?, ?, ?, ?, ?, '[]', ?)",
             (c.id, sid, c.position, c.kind.value, c.text, c.origin, at)),
            ("INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at, status)"
             " VALUES (?, ?, ?, ?, ?, 'judged')", (a.id, sid, c.id, a.answer, at)),
            ("INSERT INTO verdicts (id, attempt_id, outbox_id, verdict, gaps, feedback,"
             " assertions_sent, assertions, judge_model, created_at)"
             " VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, ?)",
             (v.id, a.id, outbox.id, "pass" if v.passed else "fail",
              json.dumps([g.model_dump(mode="json") for g in v.gaps]), v.feedback,
              json.dumps(list(ASSERTIONS)), v.judge_model, at)),
        ]  # fmt: skip
    rows += [
        ("INSERT INTO sealed_traces (trace_id, session_id, kind, input_digest, body, created_at)"
         " VALUES (?, ?, 'session', ?, ?, ?)",
         (trace.trace_id, sid, trace.input_digest, trace.body, ended)),
        ("UPDATE sessions SET ended_at = ?, disposition = 'gaps_found', sealed_trace_id = ?"
         " WHERE id = ?", (ended, trace.trace_id, sid)),
    ]  # fmt: skip
    return records, [*rows, ("LOG", (trace.trace_id, ended))]


def practise(journal: Journal, sessions: int, first: int, start: datetime) -> None:
    with journal.write() as conn:
        for n in range(first, first + sessions):
            _, rows = _session(n, start + timedelta(minutes=10 * (n - first)))
            for sql, params in rows:
                if sql == "LOG":
                    append_traces(conn, [str(params[0])], str(params[1]), None)
                else:
                    conn.execute(sql, params)


def sync(journal: Journal, folder: Path, device: str, name: str) -> tuple[float, object]:
    began = time.perf_counter()
    report = sync_now(
        SyncFolder(folder, device, folder.parent / f"{device}-refused.json"),
        SqliteSyncJournal(journal, device),
        KEYS.setdefault(device, SyncKey()),
        device_name=name,
        location=str(folder),
        now=lambda: datetime.now(UTC).isoformat(timespec="microseconds"),
    )
    return time.perf_counter() - began, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=100_000)
    args = parser.parse_args()
    sessions = args.records // RECORDS_PER_SESSION
    laptop_id, desktop_id = uuid.uuid4().hex, uuid.uuid4().hex
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "Sync"
        folder.mkdir()
        laptop = Journal.open(root / "laptop.sqlite3", keys=Keys())
        desktop = Journal.open(root / "desktop.sqlite3", keys=Keys())
        began = time.perf_counter()
        practise(laptop, sessions, 0, START)
        print(f"seeded the laptop: {sessions} sessions in {time.perf_counter() - began:.1f} s")

        took, report = sync(laptop, folder, laptop_id, "laptop")
        out = report.records_out  # type: ignore[attr-defined]
        size = sum(p.stat().st_size for p in folder.rglob("*.jsonl")) / 1e6
        print(f"export: {out} records in {took:.2f} s ({size:.0f} MB of segments)")
        # The laptop's writes reach the disk first: on two computers the desktop's import
        # does not share a disk with the laptop's export (here it would, for seconds).
        began = time.perf_counter()
        os.sync()
        print(f"(the laptop's writes flushed to disk in {time.perf_counter() - began:.1f} s)")
        # The desktop sees the laptop waiting, and the learner pairs it (not timed).
        _, report = sync(desktop, folder, desktop_id, "desktop")
        assert [w.device_id for w in report.waiting] == [laptop_id], report  # type: ignore[attr-defined]
        desktop_journal = SqliteSyncJournal(desktop, desktop_id)
        pair(
            SyncFolder(folder, desktop_id),
            desktop_journal,
            report.waiting[0].fingerprint,  # type: ignore[attr-defined]
            at=START.isoformat(),
            trust=True,
        )
        took, report = sync(desktop, folder, desktop_id, "desktop")
        got = report.records_in  # type: ignore[attr-defined]
        print(f"import: {got} records in {took:.2f} s (target <= 10 s)")
        assert got == out, (got, out, report)

        evenings, exports = [], []
        for day in range(5):
            evening = START + timedelta(days=200 + day)
            practise(laptop, 30, sessions + 30 * day, evening)
            took, _ = sync(laptop, folder, laptop_id, "laptop")
            exports.append(took)
            took, report = sync(desktop, folder, desktop_id, "desktop")
            assert report.records_in == 30 * RECORDS_PER_SESSION, report  # type: ignore[attr-defined]
            evenings.append(took)
        print(
            f"evening ({30 * RECORDS_PER_SESSION} records into {got} already here):"
            f" import median {statistics.median(evenings) * 1000:.0f} ms (target <= 200 ms),"
            f" export median {statistics.median(exports) * 1000:.0f} ms"
        )
        refused(folder, laptop_id, desktop, desktop_id)
        laptop.close()
        desktop.close()


def refused(folder: Path, laptop_id: str, desktop: Journal, desktop_id: str) -> None:
    """Four files of 30 MB (under the cap) in the paired laptop's folder, signed with
    no key it was paired with: the first sync reads and refuses them; the next ones
    remember the refusals and do not read them again (issue 34, second review)."""
    junk = b"x" * (30 * 1024 * 1024)
    for n in range(4):
        (folder / laptop_id / f"{90000000 + n:08d}-{n:016x}.jsonl").write_bytes(junk)
    times = []
    for _ in range(3):
        took, report = sync(desktop, folder, desktop_id, "desktop")
        assert len(report.ignored) + len(report.refused) >= 4, report  # type: ignore[attr-defined]
        times.append(took)
    print(
        f"4 planted 30 MB files: first sync {times[0] * 1000:.0f} ms (read, refused),"
        f" then {times[1] * 1000:.0f} ms and {times[2] * 1000:.0f} ms (remembered, not read)"
    )


if __name__ == "__main__":
    main()
