"""The assertion scheduler (issue 7): memory replayed with the fsrs package itself, time
from the clock, assertions matched by their text's digest, self-ratings until a verdict."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import fsrs
import pytest
from fakes.in_ram_schedule import InRamMemoryJournal, InRamSessions

from coach_gui.domain.memory import AGAIN, GOOD, HARD, assertion_digest
from coach_gui.domain.notes import Note
from coach_gui.services.scheduler import AssertionScheduler

A, B, C = (
    "Selection acts only on inherited variation.",
    "Large change takes a long time.",
    "Struggle follows from geometric increase.",
)
NOTE = Note(id="note1", title="Natural selection", core_assertions=(A, B, C), body="Body.")
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def day(n: float) -> datetime:
    return START + timedelta(days=n)


class FixedClock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def now(self) -> str:
        return self.moment.isoformat()


@pytest.fixture
def sessions() -> InRamSessions:
    return InRamSessions()


def _scheduler(
    sessions: InRamSessions, now: datetime, retention: float = 0.9
) -> tuple[AssertionScheduler, FixedClock]:
    clock = FixedClock(now)
    return AssertionScheduler(
        sessions, InRamMemoryJournal(sessions), clock, desired_retention=retention
    ), clock


def _practise(sessions: InRamSessions, when: datetime, gaps: list[tuple[int, str]]) -> None:
    session = sessions.start("note1", when.isoformat())
    sessions.answer(session, (when + timedelta(minutes=1)).isoformat(), NOTE.core_assertions, gaps)


def _fsrs_card(ratings: list[tuple[datetime, fsrs.Rating]], retention: float = 0.9) -> fsrs.Card:
    """The package's own computation, called directly: what the scheduler must agree with."""
    scheduler = fsrs.Scheduler(
        desired_retention=retention, learning_steps=(), relearning_steps=(), enable_fuzzing=False
    )
    card = fsrs.Card(card_id=1, due=ratings[0][0])
    for when, rating in ratings:
        card, _ = scheduler.review_card(card, rating, when)
    return card


def _memory(scheduler: AssertionScheduler, text: str) -> dict[str, object]:
    today = scheduler.today({NOTE.id: NOTE}.get)
    found = [a for n in today.notes for a in n.assertions if a.memory.text == text]
    assert found, f"{text!r} is not due"
    return found[0].to_json()


@pytest.mark.parametrize("retention", [0.9, 0.8])
def test_state_after_a_scripted_history_is_the_fsrs_packages_own(
    sessions: InRamSessions, retention: float
) -> None:
    # B missed twice (once a misconception), then explained; A always explained.
    script = [(0, [(1, "unexplained")]), (1, [(1, "wrong")]), (3, []), (9, []), (30, [])]
    for n, gaps in script:
        _practise(sessions, day(n), gaps)
    scheduler, _ = _scheduler(sessions, day(400), retention)
    scheduler.refresh()
    states = {m.text: m for m in scheduler._memory.memory_for("note1")}  # type: ignore[attr-defined]

    answered = [day(n) + timedelta(minutes=1) for n, _ in script]
    expected_b = _fsrs_card(
        list(zip(answered, [fsrs.Rating.Again] * 2 + [fsrs.Rating.Good] * 3, strict=True)),
        retention,
    )
    expected_a = _fsrs_card([(t, fsrs.Rating.Good) for t in answered], retention)
    for text, expected in ((B, expected_b), (A, expected_a)):
        state = states[text]
        assert state.stability == expected.stability
        assert state.difficulty == expected.difficulty
        assert datetime.fromisoformat(state.due) == expected.due
        assert state.state == int(expected.state)
        assert state.reviews == len(script)


def test_missed_assertions_come_first_and_explained_ones_grow_their_interval(
    sessions: InRamSessions,
) -> None:
    for n in range(7):  # a week: B always missed, A and C explained
        _practise(sessions, day(n), [(1, "unexplained")])
    scheduler, clock = _scheduler(sessions, day(7))
    today = scheduler.today({NOTE.id: NOTE}.get)
    (due,) = today.notes
    assert due.assertions[0].memory.text == B
    assert due.open_gap == "unexplained"
    assert due.assertions[0].memory.last_rating == AGAIN
    clock.moment = day(400)
    (due,) = scheduler.today({NOTE.id: NOTE}.get).notes
    interval = {a.memory.text: a.interval_days for a in due.assertions}
    assert interval[A] > interval[B] and interval[C] > interval[B]


def test_each_explained_review_lengthens_the_interval() -> None:
    growth = []
    for reviews in range(1, 5):
        sessions = InRamSessions()
        for k in range(reviews):
            _practise(sessions, day(k * 10), [])
        scheduler, _ = _scheduler(sessions, day(1000))
        growth.append(_memory(scheduler, A)["interval_days"])
    assert growth == sorted(growth) and len(set(growth)) == 4


def test_several_answers_in_a_session_are_one_review_with_the_worst_rating(
    sessions: InRamSessions,
) -> None:
    session = sessions.start("note1", day(0).isoformat())
    sessions.answer(session, day(0.01).isoformat(), NOTE.core_assertions, [])
    sessions.answer(session, day(0.02).isoformat(), NOTE.core_assertions, [(0, "wrong")])
    sessions.answer(session, day(0.03).isoformat(), NOTE.core_assertions, [])
    scheduler, _ = _scheduler(sessions, day(100))
    memory = _memory(scheduler, A)
    assert memory["reviews"] == 1 and memory["last_rating"] == "again"
    assert memory["gap"] == "wrong"
    assert _memory(scheduler, B)["last_rating"] == "good"


def test_misconceptions_come_before_omissions(sessions: InRamSessions) -> None:
    _practise(sessions, day(0), [(2, "unexplained"), (0, "wrong")])
    scheduler, _ = _scheduler(sessions, day(5))
    (due,) = scheduler.today({NOTE.id: NOTE}.get).notes
    assert [a.memory.gap for a in due.assertions[:2]] == ["wrong", "unexplained"]
    assert due.open_gap == "wrong"


def test_without_assertions_sent_a_pass_is_good_and_a_fail_hard_for_all(
    sessions: InRamSessions,
) -> None:
    first = sessions.start("note1", day(0).isoformat())
    sessions.answer(first, day(0).isoformat(), NOTE.core_assertions, [(None, "unexplained")],
                    sent=False)  # fmt: skip
    scheduler, _ = _scheduler(sessions, day(300))
    assert {_memory(scheduler, t)["last_rating"] for t in (A, B, C)} == {"hard"}
    second = sessions.start("note1", day(10).isoformat())
    sessions.answer(second, day(10).isoformat(), NOTE.core_assertions, [], sent=False)
    assert {_memory(scheduler, t)["last_rating"] for t in (A, B, C)} == {"good"}


def test_reordering_assertions_or_editing_the_body_keeps_memory(sessions: InRamSessions) -> None:
    _practise(sessions, day(0), [(1, "unexplained")])
    scheduler, _ = _scheduler(sessions, day(3))
    before = _memory(scheduler, B)
    edited = NOTE.model_copy(update={"core_assertions": (B, C, " " + A), "body": "New body."})
    today = scheduler.today({NOTE.id: edited}.get)
    by_text = {a.memory.text: a for a in today.notes[0].assertions}
    assert by_text[B].index == 0 and by_text[B].to_json() == {**before, "index": 0}
    assert by_text[A].index == 2  # matched by digest despite the extra whitespace
    assert assertion_digest("Large  change\ttakes a long time.") == assertion_digest(B)


def test_a_changed_assertion_starts_fresh(sessions: InRamSessions) -> None:
    _practise(sessions, day(0), [(1, "unexplained")])
    scheduler, _ = _scheduler(sessions, day(3))
    changed = "Large change takes a very long time."
    edited = NOTE.model_copy(update={"core_assertions": (A, changed, C)})
    today = scheduler.today({NOTE.id: edited}.get)
    assert changed not in {a.memory.text for n in today.notes for a in n.assertions}
    assert B not in {a.memory.text for n in today.notes for a in n.assertions}
    # Once practised, the changed assertion has its own memory, from its first review.
    _practise_edited = sessions.start("note1", day(4).isoformat())
    sessions.answer(_practise_edited, day(4).isoformat(), edited.core_assertions, [])
    scheduler, _ = _scheduler(sessions, day(400))
    today = scheduler.today({NOTE.id: edited}.get)
    memory = {a.memory.text: a.memory for a in today.notes[0].assertions}
    assert memory[changed].reviews == 1 and memory[A].reviews == 2


def test_a_self_rating_counts_until_a_verdict_replaces_it(sessions: InRamSessions) -> None:
    session = sessions.start("note1", day(0).isoformat())
    attempt = sessions.answer(session, day(0).isoformat(), NOTE.core_assertions, None)
    scheduler, clock = _scheduler(sessions, day(1))
    assert scheduler.today({NOTE.id: NOTE}.get).notes == []  # unrated: no memory yet
    scheduler.rate_unjudged(attempt, NOTE, HARD)
    scheduler.rate_unjudged(attempt, NOTE, AGAIN)  # the learner changed their mind
    clock.moment = day(300)
    assert {_memory(scheduler, t)["last_rating"] for t in (A, B, C)} == {"again"}
    assert _memory(scheduler, A)["gap"] is None  # a self-rating opens no gap
    sessions.judge_later(attempt, day(2).isoformat(), NOTE.core_assertions, [(2, "wrong")])
    ratings = {t: _memory(scheduler, t)["last_rating"] for t in (A, B, C)}
    assert ratings == {A: "good", B: "good", C: "again"}
    assert _memory(scheduler, C)["gap"] == "wrong"


def test_the_plan_targets_due_assertions_and_names_its_gaps(sessions: InRamSessions) -> None:
    _practise(sessions, day(0), [(2, "wrong")])
    scheduler, clock = _scheduler(sessions, day(2))
    today = scheduler.today({NOTE.id: NOTE}.get)
    plan = scheduler.plan(today.notes[0])
    (gap,) = [a.memory.gap_id for a in today.notes[0].assertions if a.memory.gap_id]
    assert plan.targets[0] == 2 and set(plan.targets) <= {0, 1, 2}
    assert plan.gap_ids == (gap,)
    assert scheduler.plan(today.notes[0]).decision_id == plan.decision_id  # same decision
    clock.moment += timedelta(seconds=1)
    assert scheduler.plan(today.notes[0]).decision_id != plan.decision_id  # decided again


def test_the_forecast_counts_each_day_and_today_holds_the_overdue(
    sessions: InRamSessions,
) -> None:
    _practise(sessions, day(0), [(0, "unexplained")])
    scheduler, clock = _scheduler(sessions, day(0.5))
    today = scheduler.today({NOTE.id: NOTE}.get)
    # The open gap on A is due at once (ADR 0023), counted today and never again; B and C
    # wait for their day.
    assert [[a.memory.text for a in n.assertions] for n in today.notes] == [[A]]
    assert today.forecast[0][1] == 1 and sum(c for _, c in today.forecast) == 3
    assert len(today.forecast) == 14 and today.forecast[0][0] == "2026-11-02"
    clock.moment = day(30)
    later = scheduler.today({NOTE.id: NOTE}.get)
    assert later.forecast[0][1] == later.due == 3
    assert later.notes[0].overdue == 3


def test_deleted_notes_are_not_due(sessions: InRamSessions) -> None:
    _practise(sessions, day(0), [(0, "unexplained")])
    scheduler, _ = _scheduler(sessions, day(30))
    assert scheduler.today(lambda _: None).notes == []


def test_the_cache_is_rebuilt_when_desired_retention_changes(sessions: InRamSessions) -> None:
    _practise(sessions, day(0), [])
    high, _ = _scheduler(sessions, day(400), 0.95)
    low, _ = _scheduler(sessions, day(400), 0.8)
    assert high.fingerprint != low.fingerprint
    # Higher retention asks for the next review sooner.
    assert _memory(high, A)["interval_days"] < _memory(low, A)["interval_days"]
    assert _memory(low, A)["last_rating"] == "good" and fsrs.Rating.Good == GOOD
