"""One truth about open gaps (ADR 0023), rule by rule, as Today and the gap board read it:
only verdicts judged with the assertions sent open or close a gap (rule 1); per session
the worst of them counts, and a later session closes it (rule 2); an open gap is always
due, and counted once in the forecast (rule 4)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from fakes.in_ram_schedule import InRamMemoryJournal, InRamSessions

from coach_gui.domain.memory import EASY, GOOD, HARD
from coach_gui.domain.notes import Note
from coach_gui.services.review import note_gaps
from coach_gui.services.scheduler import AssertionScheduler
from coach_gui.ui.review.gap_board import NO_GAPS, NOT_JUDGED, board_message

A, B, C = (
    "Selection acts only on inherited variation.",
    "Large change takes a long time.",
    "Struggle follows from geometric increase.",
)
NOTE = Note(id="note1", title="Natural selection", core_assertions=(A, B, C), body="Body.")
NOTE_LOOKUP = {NOTE.id: NOTE}.get
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def day(n: float) -> str:
    return (START + timedelta(days=n)).isoformat()


class Clock:
    def __init__(self) -> None:
        self.moment = day(0)

    def now(self) -> str:
        return self.moment


@pytest.fixture
def sessions() -> InRamSessions:
    return InRamSessions()


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def scheduler(sessions: InRamSessions, clock: Clock) -> AssertionScheduler:
    return AssertionScheduler(sessions, InRamMemoryJournal(sessions), clock)


def _today_gaps(scheduler: AssertionScheduler) -> set[tuple[str, str | None]]:
    """The due assertions Today shows with a gap."""
    today = scheduler.today(NOTE_LOOKUP)
    return {
        (a.memory.text, a.memory.gap) for n in today.notes for a in n.assertions if a.memory.gap
    }


def _board_gaps(sessions: InRamSessions) -> set[tuple[str, str]]:
    board = note_gaps(NOTE, sessions.records_for(sessions.session_ids()))
    return {(g.assertion_text, g.problem) for g in board.gaps}


def _session(sessions: InRamSessions, when: float, *answers: list[tuple[int, str]]) -> str:
    """A session at day `when` whose answers are judged with the assertions sent."""
    session = sessions.start(NOTE.id, day(when))
    for n, gaps in enumerate(answers):
        sessions.answer(session, day(when + 0.001 * (n + 1)), NOTE.core_assertions, gaps)
    return session


# --- rule 1: only named verdicts open or close a gap -----------------------------------------


def test_a_verdict_judged_without_the_assertions_does_not_close_a_gap(
    sessions: InRamSessions, scheduler: AssertionScheduler, clock: Clock
) -> None:
    _session(sessions, 0, [(1, "unexplained")])
    later = sessions.start(NOTE.id, day(2))
    sessions.answer(later, day(2.001), NOTE.core_assertions, [], sent=False)  # a pass, unnamed
    clock.moment = day(2.5)
    assert _today_gaps(scheduler) == {(B, "unexplained")}
    assert _board_gaps(sessions) == {(B, "unexplained")}


def test_a_fail_judged_without_the_assertions_opens_no_gap_and_says_so(
    sessions: InRamSessions, scheduler: AssertionScheduler, clock: Clock
) -> None:
    session = sessions.start(NOTE.id, day(0))
    sessions.answer(session, day(0.001), NOTE.core_assertions, [(None, "unexplained")],
                    sent=False)  # fmt: skip
    clock.moment = day(30)
    due = [a.memory for n in scheduler.today(NOTE_LOOKUP).notes for a in n.assertions]
    assert {m.last_rating for m in due} == {HARD}  # the schedule moved, for every one
    assert _today_gaps(scheduler) == set() and _board_gaps(sessions) == set()
    board = note_gaps(NOTE, sessions.records_for(sessions.session_ids()))
    assert board_message(board) == NOT_JUDGED  # never "every key point was covered"


def test_a_fail_with_the_assertions_sent_that_names_none_of_them_closes_no_gap(
    sessions: InRamSessions, scheduler: AssertionScheduler, clock: Clock
) -> None:
    """A journal from before the judge assessed each key point holds such verdicts ("fail"
    with no gap listed); one with a gap index out of range is the same: neither says which
    key point was missed, so neither may explain every one of them."""
    _session(sessions, 0, [(1, "unexplained")])
    later = sessions.start(NOTE.id, day(2))
    sessions.answer(later, day(2.001), NOTE.core_assertions, [], passed=False)
    other = sessions.start(NOTE.id, day(3))
    sessions.answer(other, day(3.001), NOTE.core_assertions, [(7, "wrong")], passed=False)
    clock.moment = day(3.5)
    assert _today_gaps(scheduler) == {(B, "unexplained")}
    assert _board_gaps(sessions) == {(B, "unexplained")}


def test_a_note_judged_on_some_key_points_only_says_which_were_not_judged() -> None:
    sessions = InRamSessions()
    session = sessions.start(NOTE.id, day(0))
    sessions.answer(session, day(0.001), (A, B), [])  # judged before C was added to the note
    board = note_gaps(NOTE, sessions.records_for(sessions.session_ids()))
    assert (board.judged, board.key_points) == (2, 3)
    assert board_message(board).endswith("1 has not been judged yet.")
    sessions.answer(session, day(0.002), NOTE.core_assertions, [])
    assert board_message(note_gaps(NOTE, sessions.records_for([session]))) == NO_GAPS


# --- rule 2: one review per session, the worst; a later session closes it --------------------


def test_a_follow_up_in_the_same_session_does_not_undo_the_miss(
    sessions: InRamSessions, scheduler: AssertionScheduler, clock: Clock
) -> None:
    _session(sessions, 0, [(1, "unexplained")], [])  # missed, then explained by a follow-up
    clock.moment = day(0.5)
    assert _today_gaps(scheduler) == {(B, "unexplained")}
    assert _board_gaps(sessions) == {(B, "unexplained")}
    _session(sessions, 1, [])  # a later session's judged answer explains it
    clock.moment = day(1.5)
    assert _today_gaps(scheduler) == set() and _board_gaps(sessions) == set()


def test_wrong_outranks_unexplained_within_a_session_and_sessions_are_counted(
    sessions: InRamSessions, scheduler: AssertionScheduler, clock: Clock
) -> None:
    _session(sessions, 0, [(1, "unexplained")])
    _session(sessions, 1, [(1, "wrong")], [(1, "unexplained")], [])
    clock.moment = day(1.5)
    assert _today_gaps(scheduler) == {(B, "wrong")}
    (gap,) = note_gaps(NOTE, sessions.records_for(sessions.session_ids())).gaps
    assert (gap.problem, gap.missed, gap.assertion_index) == ("wrong", 2, 1)


def test_a_session_judged_later_takes_its_place_by_when_it_was_answered(
    sessions: InRamSessions, scheduler: AssertionScheduler, clock: Clock
) -> None:
    first = sessions.start(NOTE.id, day(0))
    attempt = sessions.answer(first, day(0.001), NOTE.core_assertions, None)  # unjudged
    _session(sessions, 2, [])  # explained two days later
    sessions.judge_later(attempt, day(3), NOTE.core_assertions, [(1, "unexplained")])
    clock.moment = day(3.5)
    # The miss was answered before the session that explained it: no gap is open.
    assert _today_gaps(scheduler) == set() and _board_gaps(sessions) == set()


# --- rule 4: an open gap is always due, and counted once -------------------------------------


def test_an_open_gap_is_due_even_after_a_good_self_rating(
    sessions: InRamSessions, scheduler: AssertionScheduler, clock: Clock
) -> None:
    _session(sessions, 0, [(1, "unexplained")])
    later = sessions.start(NOTE.id, day(5))
    attempt = sessions.answer(later, day(5.001), NOTE.core_assertions, None)
    clock.moment = day(5.01)
    scheduler.rate_unjudged(attempt, NOTE, EASY)  # the learner thinks they know it all
    clock.moment = day(5.5)
    today = scheduler.today(NOTE_LOOKUP)
    (due,) = today.notes
    (item,) = due.assertions  # A and C wait; B's gap is due although FSRS would wait
    assert (item.memory.text, item.memory.gap, item.overdue) == (B, "unexplained", False)
    assert item.ahead and item.to_json()["ahead_of_schedule"] is True  # shown as due now
    # FSRS's own due time is kept, six days on, inside the forecast's 14 days; the gap is
    # counted today and not again on that day (A and C fall due after the 14 days).
    assert day(11) < item.memory.due < day(12)
    assert [count for _, count in today.forecast] == [1] + [0] * 13
    assert _board_gaps(sessions) == {(B, "unexplained")}


def test_a_gap_found_by_a_later_judgement_is_due_at_once(
    sessions: InRamSessions, scheduler: AssertionScheduler, clock: Clock
) -> None:
    first = sessions.start(NOTE.id, day(0))
    attempt = sessions.answer(first, day(0.001), NOTE.core_assertions, None)
    second = sessions.start(NOTE.id, day(2))
    rated = sessions.answer(second, day(2.001), NOTE.core_assertions, None)
    clock.moment = day(2.01)
    scheduler.rate_unjudged(rated, NOTE, GOOD)
    sessions.judge_later(attempt, day(3), NOTE.core_assertions, [(2, "wrong")])
    clock.moment = day(3.01)
    assert _today_gaps(scheduler) == {(C, "wrong")}
    assert _board_gaps(sessions) == {(C, "wrong")}
