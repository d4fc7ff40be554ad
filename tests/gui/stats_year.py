"""A simulated year of practice for the statistics view: sessions written into a real
journal as `coach practice` writes them (one answer each; judged with the key points,
judged later, or rated by the learner), on a spaced schedule with misses, a month off,
and one key point missed again and again (a leech). What was written is returned, so a
test can work out what the learner should read from the history itself.

    year = simulate_year(context.journal, notes, NOW)
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from coach_gui.adapters.journal.database import Journal
from coach_gui.domain.memory import AGAIN, EASY, GOOD, HARD, assertion_digest
from coach_gui.domain.notes import Note

HOLIDAY = (150, 186)  # days ago: a month without practice


@dataclass(frozen=True)
class Review:
    """One session's review of one key point, as written."""

    note_id: str
    digest: str
    text: str
    session_id: str
    at: datetime  # UTC
    rating: int
    source: str  # "judge" | "self" | "later"


@dataclass(frozen=True)
class Year:
    now: datetime
    reviews: list[Review]  # in time order
    leech: tuple[str, str]  # (note id, digest) of the key point missed again and again


def _hex(kind: int, n: int) -> str:
    return f"{kind:02x}{n:030x}"


def _days_ago_plan(rng: random.Random, start: int) -> list[int]:
    """The days (ago) a note is practised: intervals growing while it is explained,
    back to a day or two after a miss; never in the month off."""
    days, ago, interval = [], start, 1.0
    while ago > 0:
        if HOLIDAY[0] <= ago < HOLIDAY[1]:
            ago = HOLIDAY[0] - 1 - rng.randrange(3)
            continue
        days.append(ago)
        if rng.random() < 0.12:  # an extra session the same day, now and then
            days.append(ago)
        interval = 1.0 if rng.random() < 0.15 else min(interval * 1.8, 14.0)
        ago -= max(1, round(interval + rng.uniform(-0.3, 0.3) * interval))
    return days


def simulate_year(
    journal: Journal, notes: Sequence[Note], now: datetime, *, seed: int = 19
) -> Year:
    """Practise each note of `notes` over the year before `now`, and return what was
    written. The first note's first key point is missed at every review but its first."""
    rng = random.Random(seed)
    plans: list[tuple[datetime, Note]] = []
    for n, note in enumerate(notes):
        for ago in _days_ago_plan(rng, 320 - 9 * n):
            at = (now - timedelta(days=ago)).replace(hour=8, minute=0, second=0, microsecond=0)
            plans.append((at + timedelta(minutes=rng.randrange(12 * 60)), note))
    plans.sort(key=lambda p: p[0])
    leech_note = notes[0]
    leech = (leech_note.id, assertion_digest(leech_note.core_assertions[0]))
    seen_leech = 0
    reviews: list[Review] = []
    rows: dict[str, list[tuple[object, ...]]] = {k: [] for k in ("s", "c", "a", "v", "r")}
    for s, (at, note) in enumerate(plans):
        sid, cid, aid = _hex(1, s), _hex(2, s), _hex(3, s)
        when = at.isoformat(timespec="microseconds")
        texts = list(note.core_assertions)
        pick = rng.random()
        source = "self" if pick < 0.15 else "later" if pick < 0.25 else "judge"
        rows["s"].append((sid, note.id, note.title, "0" * 64, "0" * 64,
                          "judged_with_assertions", when))  # fmt: skip
        rows["c"].append((cid, sid, 0, "explain", f"Challenge {s}?", "builtin", when))
        rows["a"].append((aid, sid, cid, f"Answer {s}", when,
                          "judged" if source == "judge" else "unjudged"))  # fmt: skip
        if source == "self":
            rating = rng.choice((AGAIN, HARD, HARD, GOOD, GOOD, GOOD, EASY, EASY))
            for text in dict.fromkeys(texts):
                rows["r"].append((aid, note.id, assertion_digest(text), text, rating, when))
                reviews.append(
                    Review(note.id, assertion_digest(text), text, sid, at, rating, source)
                )
            continue
        gaps = []
        for index, text in enumerate(texts):
            is_leech = note.id == leech[0] and index == 0
            missed = (seen_leech > 0) if is_leech else rng.random() < 0.05
            seen_leech += is_leech
            if missed:
                problem = "wrong" if rng.random() < 0.3 else "unexplained"
                gaps.append({"assertion": index, "problem": problem, "explanation": "Not so."})
            reviews.append(Review(note.id, assertion_digest(text), text, sid, at,
                                  AGAIN if missed else GOOD, source))  # fmt: skip
        judged_at = at + (timedelta(days=1) if source == "later" else timedelta(seconds=5))
        rows["v"].append((_hex(4, s), aid, "fail" if gaps else "pass", json.dumps(gaps),
                          "Feedback.", json.dumps(texts),
                          judged_at.isoformat(timespec="microseconds")))  # fmt: skip
    with journal.write() as conn:
        conn.executemany(
            "INSERT INTO sessions (id, note_id, note_title_at_start, note_digest, config_digest,"
            " mode, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows["s"],
        )
        conn.executemany(
            "INSERT INTO challenges (id, session_id, position, kind, text, origin, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            rows["c"],
        )
        conn.executemany(
            "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at, status)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows["a"],
        )
        conn.executemany(
            "INSERT INTO verdicts (id, attempt_id, verdict, gaps, feedback, assertions_sent,"
            " assertions, judge_model, created_at) VALUES (?, ?, ?, ?, ?, 1, ?, 'sim', ?)",
            rows["v"],
        )
        conn.executemany(
            "INSERT INTO self_ratings (attempt_id, note_id, assertion_digest, assertion,"
            " rating, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            rows["r"],
        )
    reviews.sort(key=lambda r: (r.at, r.session_id))
    return Year(now, reviews, leech)
