"""A simulated learner whose memory follows known FSRS parameters, practising on Coach's
default schedule: each assertion is reviewed when the defaults have it due (a few hours
either way), and recalled with the probability the learner's own parameters give. The
histories go into a real journal as judged sessions (one note, one assertion each), so
the scheduler replays them like any other."""

from __future__ import annotations

import json
import random
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml
from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS

from coach_gui.adapters.journal.database import Journal

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
History = list[tuple[datetime, int]]  # (when, rating: 1 Again or 3 Good)


def forgetful_parameters() -> tuple[float, ...]:
    """A learner who forgets much sooner than FSRS's average learner."""
    found = list(DEFAULT_PARAMETERS)
    found[0:4] = [w * 0.25 for w in found[0:4]]  # first stabilities a quarter as long
    found[8] *= 0.6  # and each recall lengthens them less
    return tuple(found)


def _scheduler(parameters: tuple[float, ...]) -> Scheduler:
    return Scheduler(parameters=parameters, learning_steps=(), relearning_steps=(),
                     enable_fuzzing=False)  # fmt: skip


def simulate(
    assertions: int, days: int, *, truth: tuple[float, ...], seed: int = 7
) -> list[History]:
    """Each assertion's reviews over `days` days, starting within the first month."""
    rng = random.Random(seed)
    schedule, memory = _scheduler(tuple(DEFAULT_PARAMETERS)), _scheduler(truth)
    end = START + timedelta(days=days)
    histories = []
    for _ in range(assertions):
        at = START + timedelta(hours=rng.uniform(0, 24 * 28))
        planned, real = Card(card_id=1, due=at), Card(card_id=1, due=at)
        rating, history = Rating.Good, []
        while at < end:
            history.append((at, int(rating)))
            planned, _ = schedule.review_card(planned, rating, at)
            real, _ = memory.review_card(real, rating, at)
            at = planned.due + timedelta(hours=rng.uniform(-6, 30))
            recalled = rng.random() < memory.get_card_retrievability(real, at)
            rating = Rating.Good if recalled else Rating.Again
        histories.append(history)
    return histories


def assertion_text(n: int) -> str:
    return f"Point {n} holds for a reason the learner can explain."


def write_notes(folder: Path, count: int) -> None:
    """One note per assertion, `note<n>` with one core assertion."""
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        front = {"id": f"note{n}", "title": f"Note {n}", "core_assertions": [assertion_text(n)]}
        (folder / f"note-{n}.md").write_text(
            "---\n" + yaml.safe_dump(front) + "---\nBody.\n", encoding="utf-8"
        )


def seed_journal(path: Path, histories: list[History]) -> int:
    """Every review as a judged session of note<n>: passed (Good) or with the assertion
    unexplained (Again). Returns how many reviews were written."""
    rows_s, rows_c, rows_a, rows_v = [], [], [], []
    for n, history in enumerate(histories):
        assertions = json.dumps([assertion_text(n)])
        for when, rating in history:
            at = when.isoformat(timespec="microseconds")
            sid, cid, aid, vid = (uuid.uuid4().hex for _ in range(4))
            rows_s.append((sid, f"note{n}", f"Note {n}", "0" * 64, "0" * 64, at))
            rows_c.append((cid, sid, "explain", "Explain it.", at))
            rows_a.append((aid, sid, cid, "An answer.", at))
            gaps = [] if rating == Rating.Good else [
                {"assertion": 0, "problem": "unexplained", "explanation": "Not why."}
            ]  # fmt: skip
            verdict = "pass" if not gaps else "fail"
            rows_v.append((vid, aid, verdict, json.dumps(gaps), assertions, at))
    with Journal.open(path) as journal, journal.write() as conn:
        conn.executemany(
            "INSERT INTO sessions (id, note_id, note_title_at_start, note_digest, config_digest,"
            " mode, started_at) VALUES (?, ?, ?, ?, ?, 'judged_with_assertions', ?)",
            rows_s,
        )
        conn.executemany(
            "INSERT INTO challenges (id, session_id, position, kind, text, origin, created_at)"
            " VALUES (?, ?, 0, ?, ?, 'builtin', ?)",
            rows_c,
        )
        conn.executemany(
            "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at, status)"
            " VALUES (?, ?, ?, ?, ?, 'judged')",
            rows_a,
        )
        conn.executemany(
            "INSERT INTO verdicts (id, attempt_id, verdict, gaps, feedback, assertions_sent,"
            " assertions, judge_model, created_at) VALUES (?, ?, ?, ?, 'ok', 1, ?, 'sim', ?)",
            rows_v,
        )
    return len(rows_s)
