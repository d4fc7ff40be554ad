"""Issue 19 acceptance: a simulated year of practice in a real journal, driven by Today (the
due notes and the new ones each day, answers judged, self-rated or judged later by a
recall model), and the statistics computed from it match the history they came from —
checked against a model kept beside the script, with the `fsrs` package replaying each
assertion to say whether it was due when it was reviewed."""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fsrs

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.memory import SqliteMemoryJournal
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.domain.memory import assertion_digest
from coach_gui.domain.notes import Note, NoteEntry
from coach_gui.services.scheduler import AssertionScheduler, ScheduleSettings
from coach_gui.services.stats import statistics, timeline

START = datetime(2025, 12, 1, 19, 0, tzinfo=UTC)
OFFSET = timedelta(hours=2)  # the learner's clock: an answer at 22:30 UTC is tomorrow there
DAYS = 365


class Clock:
    moment = START

    def now(self) -> str:
        return self.moment.isoformat(timespec="microseconds")


def _vault() -> list[NoteEntry]:
    return [
        NoteEntry(
            note=Note(
                id=f"note{n:02d}",
                title=f"Chapter {n}",
                core_assertions=tuple(f"Point {k} of chapter {n} holds." for k in range(3)),
            ),
            file_name=f"Book/{n:02d}.md",
        )
        for n in range(12)
    ]


class Script:
    """Writes sessions straight into the journal and keeps its own account of each review."""

    def __init__(self, journal: Journal) -> None:
        self.journal = journal
        self.count = 0
        self.reviews: dict[str, list[tuple[datetime, int, str]]] = defaultdict(list)

    def _id(self, kind: int) -> str:
        self.count += 1
        return f"{kind:02x}{self.count:030x}"

    def practise(self, note: Note, at: datetime, ratings: list[int], how: str) -> None:
        """One answer about `note`: its assertions rated `ratings` (1 Again, 3 Good) by
        the judge ("judge"), later ("later", a verdict on an unjudged answer) or the
        learner's own rating of all of them ("self", ratings[0])."""
        sid, cid, aid = self._id(1), self._id(2), self._id(3)
        stamp = at.isoformat()
        texts = list(note.core_assertions)
        with self.journal.write() as conn:
            conn.execute(
                "INSERT INTO sessions (id, note_id, note_title_at_start, note_digest,"
                " config_digest, mode, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (sid, note.id, note.title, "0" * 64, "0" * 64, "judged_with_assertions", stamp),
            )
            conn.execute(
                "INSERT INTO challenges (id, session_id, position, kind, text, origin,"
                " created_at) VALUES (?, ?, 0, 'explain', 'Explain it.', 'builtin', ?)",
                (cid, sid, stamp),
            )
            conn.execute(
                "INSERT INTO attempts (id, session_id, challenge_id, answer, submitted_at,"
                " status) VALUES (?, ?, ?, 'An answer.', ?, ?)",
                (aid, sid, cid, stamp, "judged" if how == "judge" else "unjudged"),
            )
            if how == "self":
                conn.executemany(
                    "INSERT INTO self_ratings (attempt_id, note_id, assertion_digest, assertion,"
                    " rating, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [(aid, note.id, assertion_digest(t), t, ratings[0], stamp) for t in texts],
                )
                ratings = [ratings[0]] * len(texts)
            else:
                gaps = [
                    {"assertion": k, "problem": "unexplained", "explanation": "Missed."}
                    for k, rating in enumerate(ratings)
                    if rating == 1
                ]
                later = (at + timedelta(days=1)).isoformat() if how == "later" else stamp
                conn.execute(
                    "INSERT INTO verdicts (id, attempt_id, verdict, gaps, feedback,"
                    " assertions_sent, assertions, judge_model, created_at)"
                    " VALUES (?, ?, ?, ?, 'ok', 1, ?, 'fake', ?)",
                    (self._id(4), aid, "fail" if gaps else "pass", json.dumps(gaps),
                     json.dumps(texts), later),
                )  # fmt: skip
        for text, rating in zip(texts, ratings, strict=True):
            self.reviews[text].append((at, rating, how))


def _expected_was_due(reviews: list[tuple[datetime, int, str]]) -> list[bool]:
    """Due on the learner's day: FSRS's due time and the review's, both on their clock."""
    scheduler = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card = fsrs.Card(card_id=1, due=reviews[0][0])
    found = []
    for n, (at, rating, _how) in enumerate(reviews):
        found.append(n > 0 and (card.due + OFFSET).date() <= (at + OFFSET).date())
        card, _ = scheduler.review_card(card, fsrs.Rating(rating), at)
    return found


def test_a_year_of_practice_gives_statistics_that_match_the_history(tmp_path: Path) -> None:
    rng = random.Random(19)
    vault = _vault()
    lookup = {e.note.id: e.note for e in vault}.get
    clock = Clock()
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        script = Script(journal)
        scheduler = AssertionScheduler(
            SqliteTraceJournal(journal), SqliteMemoryJournal(journal), clock,
            settings=ScheduleSettings(new_per_day=1, leech_lapses=4, day_offset=OFFSET),
        )  # fmt: skip
        for day in range(DAYS):
            clock.moment = START + timedelta(days=day, minutes=rng.randrange(0, 240))
            if day % 3 or rng.random() < 0.1:
                continue  # practice every third evening (or so): a year, quickly replayed
            today = scheduler.today(lookup, utc_offset=OFFSET, catalogue=vault)
            chosen = [n.note for n in today.notes] + [n.note for n in (today.new or []).notes]  # type: ignore[attr-defined]
            for k, note in enumerate(chosen[:3]):
                at = clock.moment + timedelta(minutes=5 * (k + 1))
                hard = note.id == "note03"  # one chapter never sticks: its points are leeches
                ratings = [1 if hard or rng.random() < 0.2 else 3 for _ in note.core_assertions]
                how = rng.choices(["judge", "self", "later"], [0.7, 0.2, 0.1])[0]
                script.practise(note, at, ratings, how)
        clock.moment = START + timedelta(days=DAYS, hours=1)
        stats = statistics(scheduler, lookup, vault, utc_offset=OFFSET)

        # Reviews per day, in the learner's dates.
        per_day = Counter(
            (at + OFFSET).date().isoformat()
            for found in script.reviews.values()
            for at, *_ in found
        )
        shown = {day: count for day, count in stats.days if count}
        assert shown == {d: n for d, n in per_day.items() if d >= stats.days[0][0]}
        assert stats.reviews == sum(per_day.values()) > 300
        assert (
            len(stats.days) == 365
            and stats.days[-1][0] == (clock.moment + OFFSET).date().isoformat()
        )

        # True retention per month: recalled among the reviews made when due.
        months: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for found in script.reviews.values():
            for (at, rating, _how), due in zip(found, _expected_was_due(found), strict=True):
                if due:
                    month = (at + OFFSET).strftime("%Y-%m")
                    months[month][0] += 1
                    months[month][1] += rating > 1
        got = {m.month: (m.due, m.recalled) for m in stats.retention if m.due}
        assert got == {
            m: (d, r) for m, (d, r) in months.items() if m in got or m >= stats.retention[0].month
        }
        assert all(0 < m.rate < 1 for m in stats.retention if m.rate is not None and m.due > 20)

        # Leeches: forgotten (missed on a later day than the review before) four times or more.
        def day(at: datetime) -> object:
            return (at + OFFSET).date()

        lapses = {
            t: sum(r == 1 and day(at) > day(found[n][0]) for n, (at, r, _h) in enumerate(found[1:]))
            for t, found in script.reviews.items()
        }
        assert {leech.text for leech in stats.leeches} == {t for t, n in lapses.items() if n >= 4}
        assert {"Chapter 3"} <= {leech.title for leech in stats.leeches}
        assert [leech.lapses for leech in stats.leeches] == [
            lapses[leech.text] for leech in stats.leeches
        ]

        # One assertion's timeline: every review, its rating and where it came from.
        text = vault[5].note.core_assertions[1]
        entries = timeline(scheduler, vault[5].note.id, assertion_digest(text), utc_offset=OFFSET)
        assert [(e.rating, e.source) for e in entries] == [
            (rating, how) for _at, rating, how in script.reviews[text]
        ]
        assert [e.day for e in entries] == [
            (at + OFFSET).date().isoformat() for at, *_ in script.reviews[text]
        ]
        assert {e.source_words for e in entries} <= {"judge", "self-rating", "judged later"}

        # The counts are Today's.
        today = scheduler.today(lookup, utc_offset=OFFSET, catalogue=vault)
        assert stats.counts.due == today.due and stats.counts.assertions == 3 * len(
            [e for e in vault if e.note.id in {n for n in scheduler.memory.reviewed_notes()}]
        )
        assert stats.counts.new_waiting == len(vault) - len(scheduler.memory.reviewed_notes())
        assert stats.to_json()["reviews_this_year"] == stats.reviews_this_year
