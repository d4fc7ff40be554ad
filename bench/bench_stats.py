"""Statistics view data and Today with new notes on a big history (issue 19 figures:
statistics ready in <= 200 ms, Today unchanged at <= 100 ms, on 10,000 notes x 5
assertions and 100,000 reviews).

Seeds a journal straight through SQL: 20,000 sessions of one judged answer each (every
answer reviews the note's five assertions: 100,000 reviews) spread over a year, one
assertion in six missed; 1,000 more notes were never practised (new). Then times, with
the memory cache up to date (the view's case after the first start):
  * today: what is due plus today's new notes, the catalogue of 11,000 notes given;
  * statistics: everything the statistics view shows (it includes a Today);
  * timeline: one assertion's reviews.

    .venv/bin/python bench/bench_stats.py [--notes 10000] [--sessions 20000]
"""

from __future__ import annotations

import argparse
import json
import statistics as stat
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.memory import SqliteMemoryJournal
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.domain.memory import assertion_digest
from coach_gui.domain.notes import Note, NoteEntry
from coach_gui.services.scheduler import AssertionScheduler
from coach_gui.services.stats import judge_agreement, statistics, timeline

START = datetime(2025, 11, 1, 19, 0, tzinfo=UTC)
NOW = START + timedelta(days=366)


class Clock:
    def now(self) -> str:
        return NOW.isoformat(timespec="microseconds")


def _hex(kind: int, n: int) -> str:
    return f"{kind:02x}{n:030x}"


def make_notes(count: int) -> list[NoteEntry]:
    return [
        NoteEntry(
            note=Note(
                id=f"note{n}",
                title=f"Note {n}",
                core_assertions=tuple(
                    f"Assertion {k} of note {n} says something." for k in range(5)
                ),
            ),
            file_name=f"Folder {n % 40}/Note {n}.md",
        )
        for n in range(count)
    ]


def seed(journal: Journal, entries: list[NoteEntry], sessions: int) -> None:
    rows_s, rows_c, rows_a, rows_v = [], [], [], []
    for s in range(sessions):
        note = entries[s % len(entries)].note
        when = (START + timedelta(days=365 * s / sessions)).isoformat()
        sid, cid, aid = _hex(1, s), _hex(2, s), _hex(3, s)
        rows_s.append(
            (sid, note.id, note.title, "0" * 64, "0" * 64, "judged_with_assertions", when)
        )
        rows_c.append((cid, sid, 0, "explain", f"Challenge {s}?", "builtin", when))
        rows_a.append((aid, sid, cid, f"Answer {s}", when))
        gaps = (
            [{"assertion": s % 5, "problem": "unexplained", "explanation": "x"}]
            if s % 6 == 0
            else []
        )
        rows_v.append((_hex(4, s), aid, "fail" if gaps else "pass", json.dumps(gaps), "ok",
                       json.dumps(list(note.core_assertions)), when))  # fmt: skip
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


def _timed(fn, repeats: int) -> tuple[float, float, object]:  # type: ignore[no-untyped-def]
    wall, cpu, result = [], [], None
    for _ in range(repeats):
        began, began_cpu = time.perf_counter(), time.process_time()
        result = fn()
        wall.append((time.perf_counter() - began) * 1000)
        cpu.append((time.process_time() - began_cpu) * 1000)
    return stat.median(wall), stat.median(cpu), result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--new", type=int, default=1_000)
    parser.add_argument("--sessions", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    entries = make_notes(args.notes + args.new)
    practised = entries[: args.notes]
    lookup = {e.note.id: e.note for e in entries}.get
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "journal.sqlite3"
        with Journal.open(path) as journal:
            began = time.perf_counter()
            seed(journal, practised, args.sessions)
            print(f"seeded {args.notes} notes x 5 assertions, {args.sessions} sessions "
                  f"({args.sessions * 5} reviews) over a year, {args.new} new notes, "
                  f"in {time.perf_counter() - began:.1f} s")  # fmt: skip
            began = time.perf_counter()
            scheduler(journal).refresh()
            print(f"rebuild from history: {time.perf_counter() - began:.1f} s (once)")
            first = scheduler(journal).today(lookup, catalogue=entries)  # notes first seen
            assert first.new is not None
            plain = _timed(lambda: scheduler(journal).today(lookup), args.repeats)
            with_new = _timed(lambda: scheduler(journal).today(lookup, catalogue=entries),
                              args.repeats)  # fmt: skip
            stats = _timed(lambda: statistics(scheduler(journal), lookup, entries), args.repeats)
            agreed = _timed(lambda: judge_agreement(scheduler(journal)), 1)
            text = practised[7].note.core_assertions[2]
            line = _timed(
                lambda: timeline(scheduler(journal), practised[7].note.id, assertion_digest(text)),
                args.repeats,
            )
        s = stats[2]
        print(f"reviews counted: {s.reviews}; this year {s.reviews_this_year}; "  # type: ignore[attr-defined]
              f"due {s.counts.due}; new offered {s.counts.new_today} of {s.counts.new_waiting}")  # type: ignore[attr-defined]  # fmt: skip
        print(f"today without new notes: median {plain[0]:.1f} ms wall, {plain[1]:.1f} ms CPU")
        print(f"today with new notes (11,000-note catalogue): median {with_new[0]:.1f} ms wall, "
              f"{with_new[1]:.1f} ms CPU (target <= 100 ms)")  # fmt: skip
        print(f"statistics view data: median {stats[0]:.1f} ms wall, {stats[1]:.1f} ms CPU "
              f"(target <= 200 ms)")  # fmt: skip
        print(f"the judge and you (issue 36, its own worker task after the figures above): "
              f"{agreed[0]:.0f} ms wall over {args.sessions:,} sessions")  # fmt: skip
        print(f"one assertion's timeline ({len(line[2])} reviews): {line[0]:.1f} ms")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
