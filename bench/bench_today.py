"""Today view data with a big history (issue 7 figure: ready in <= 100 ms with 10,000 notes
x 5 assertions and 100,000 attempts).

Seeds a journal straight through SQL (sessions of two judged answers each, spread over 60
days, one assertion in seven missed), then times:
  * rebuild: the memory cache replayed from all history (once: a new journal, or a change
    of desired retention);
  * today: opening the journal and reading what is due with the cache up to date (what the
    Today view waits for on each start), and the same again in the open process;
  * plans: the scheduling decisions for every due note.

    /tmp/venv/bin/python bench/bench_today.py [--notes 10000] [--attempts 100000]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.memory import SqliteMemoryJournal
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.domain.notes import Note
from coach_gui.services.scheduler import AssertionScheduler

START = datetime(2026, 9, 1, 9, 0, tzinfo=UTC)
NOW = START + timedelta(days=61)


class Clock:
    def now(self) -> str:
        return NOW.isoformat(timespec="microseconds")


def _hex(kind: int, n: int) -> str:
    return f"{kind:02x}{n:030x}"


def make_notes(count: int) -> dict[str, Note]:
    return {
        f"note{n}": Note(
            id=f"note{n}",
            title=f"Note {n}",
            core_assertions=tuple(f"Assertion {k} of note {n} says something." for k in range(5)),
        )
        for n in range(count)
    }


def seed(journal: Journal, notes: dict[str, Note], attempts: int) -> None:
    per_session = 2
    sessions = attempts // per_session
    ids = list(notes)
    rows_s, rows_c, rows_a, rows_v = [], [], [], []
    for s in range(sessions):
        note = notes[ids[s % len(ids)]]
        when = START + timedelta(days=60 * s / sessions)
        sid = _hex(1, s)
        rows_s.append((sid, note.id, note.title, "0" * 64, "0" * 64,
                       "judged_with_assertions", when.isoformat()))  # fmt: skip
        for k in range(per_session):
            n = s * per_session + k
            at = (when + timedelta(minutes=k)).isoformat()
            cid, aid = _hex(2, n), _hex(3, n)
            rows_c.append((cid, sid, k, "explain", f"Challenge {n}?", "builtin", at))
            rows_a.append((aid, sid, cid, f"Answer {n}", at))
            missed = n % 7 == 0
            gaps = [{"assertion": n % 5, "problem": "unexplained", "explanation": "x"}]
            rows_v.append((_hex(4, n), aid, "fail" if missed else "pass",
                           json.dumps(gaps if missed else []), "ok",
                           json.dumps(list(note.core_assertions)), at))  # fmt: skip
    with journal.write() as conn:
        conn.executemany(
            "INSERT INTO sessions (id, note_id, note_title_at_start, note_digest, config_digest,"
            " mode, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows_s,
        )
        conn.executemany(
            "INSERT INTO challenges (id, session_id, position, kind, text, origin, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows_c,
        )
        conn.executemany(
            "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at, status)"
            " VALUES (?, ?, ?, ?, ?, 'judged')",
            rows_a,
        )
        conn.executemany(
            "INSERT INTO verdicts (id, attempt_id, verdict, gaps, feedback, assertions_sent,"
            " assertions, judge_model, created_at) VALUES (?, ?, ?, ?, ?, 1, ?, 'bench', ?)",
            rows_v,
        )


def scheduler(journal: Journal) -> AssertionScheduler:
    return AssertionScheduler(SqliteTraceJournal(journal), SqliteMemoryJournal(journal), Clock())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    notes = make_notes(args.notes)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite3"
        with Journal.open(path) as journal:
            began = time.perf_counter()
            seed(journal, notes, args.attempts)
            print(f"seeded {args.notes} notes x 5 assertions, {args.attempts} attempts "
                  f"in {time.perf_counter() - began:.1f} s")  # fmt: skip
            began = time.perf_counter()
            replayed = scheduler(journal).refresh()
            print(f"rebuild: {replayed} notes replayed from history in "
                  f"{time.perf_counter() - began:.1f} s (once; kept up to date after)")  # fmt: skip
        cold: list[float] = []
        warm: list[float] = []
        cpu: list[float] = []
        for _ in range(args.repeats):
            began = time.perf_counter()
            with Journal.open(path) as journal:
                today = scheduler(journal).today(notes.get)
                cold.append((time.perf_counter() - began) * 1000)
                began, began_cpu = time.perf_counter(), time.process_time()
                today = scheduler(journal).today(notes.get)
                warm.append((time.perf_counter() - began) * 1000)
                cpu.append((time.process_time() - began_cpu) * 1000)
                began = time.perf_counter()
                plans = scheduler(journal).plans(today)
                plan_ms = (time.perf_counter() - began) * 1000
        print(f"due: {len(today.notes)} notes, {today.due} assertions; "
              f"forecast {[c for _, c in today.forecast]}")  # fmt: skip
        print(f"today (open journal + read): median {statistics.median(cold):.1f} ms, "
              f"max {max(cold):.1f} ms (target <= 100 ms)")  # fmt: skip
        print(f"today (journal already open): median {statistics.median(warm):.1f} ms, "
              f"CPU {statistics.median(cpu):.1f} ms (wall time: busy machine)")  # fmt: skip
        print(f"plans for {len(plans)} due notes: {plan_ms:.1f} ms")


if __name__ == "__main__":
    main()
