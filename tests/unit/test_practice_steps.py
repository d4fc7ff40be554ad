"""Issue 35: the steps of a practice session, one machine for the window and the terminal
(operations/practice_steps.py), driven here as a face would drive it."""

from __future__ import annotations

from coach_gui.domain.challenges import Challenge, ChallengeKind, ChallengeOrigin
from coach_gui.domain.notes import Note
from coach_gui.operations.practice import MissedPoint
from coach_gui.operations.practice_steps import PracticeSteps, Step

NOTE = Note(
    id="n1",
    title="Natural selection",
    core_assertions=(
        "Selection acts only on inherited variation.",
        "Large changes need long periods of time.",
        "Slight advantages add up over generations.",
    ),
    body="Individuals differ, and many differences are inherited.",
)


def _challenge(n: int, origin: ChallengeOrigin = "tier1") -> Challenge:
    return Challenge(id=f"c{n}", kind=ChallengeKind.EXPLAIN, text=f"Question {n}?", origin=origin)


def test_a_session_of_three_with_follow_ups_goes_challenge_follow_up_next_then_summary() -> None:
    steps = PracticeSteps(3, follow_ups=True)
    seen: list[tuple[int, bool, Step]] = []
    remaining = 3
    while steps.go_on() is Step.CHALLENGE:
        steps.main_challenge()
        remaining -= 1
        steps.asked(remaining, _challenge(steps.number))
        steps.answer_saved()
        step = steps.after_answer("my answer")
        seen.append((steps.number, steps.is_follow_up, step))
        assert step is Step.FOLLOW_UP
        parent, answer = steps.follow_up()
        assert (parent.id, answer) == (f"c{steps.number}", "my answer")
        assert steps.is_follow_up and steps.challenge is None
        steps.asked(remaining, _challenge(10 + steps.number, "follow_up"))
        steps.answer_saved()
        assert steps.after_answer("more") is Step.ANSWERED  # no follow-up on a follow-up
        assert not steps.is_follow_up
    assert [n for n, _, _ in seen] == [1, 2, 3]
    assert steps.go_on() is Step.SUMMARY
    assert (steps.saved, steps.skipped, steps.remaining) == (6, 0, 0)


def test_the_rating_comes_before_the_follow_up_and_next_passes_over_it() -> None:
    steps = PracticeSteps(2, follow_ups=True)
    steps.main_challenge()
    steps.asked(1, _challenge(1))
    assert steps.after_answer("kept unjudged", rating_awaited=True) is Step.RATE_FIRST
    assert steps.rating_done()  # a follow-up waits for the rating
    assert steps.follow_up()[1] == "kept unjudged"
    steps.asked(1, _challenge(11, "follow_up"))
    steps.after_answer("x")
    steps.main_challenge()
    steps.asked(0, _challenge(2))
    assert steps.after_answer("y", rating_awaited=True) is Step.RATE_FIRST
    assert steps.go_on() is Step.SUMMARY  # Next: the waiting follow-up is not asked
    assert not steps.rating_done()


def test_no_follow_up_when_they_are_off_offline_or_not_written() -> None:
    off = PracticeSteps(2, follow_ups=False)
    off.main_challenge()
    off.asked(1, _challenge(1))
    assert off.after_answer("a") is Step.ANSWERED
    offline = PracticeSteps(2, follow_ups=True)
    offline.offline_reason = "Ollama is not running"
    offline.main_challenge()
    offline.asked(1, _challenge(1, "builtin"))
    assert offline.after_answer("a") is Step.ANSWERED
    steps = PracticeSteps(2, follow_ups=True)
    steps.main_challenge()
    steps.asked(1, _challenge(1))
    steps.after_answer("a")
    steps.follow_up()
    steps.asked(1, None)  # the model wrote none this time
    assert not steps.is_follow_up and steps.challenge is None
    assert steps.go_on() is Step.CHALLENGE


def test_a_retry_keeps_its_number_and_a_failed_follow_up_is_passed_over() -> None:
    steps = PracticeSteps(3, follow_ups=True)
    steps.main_challenge()
    assert steps.number == 1
    assert steps.writing_failed() is False  # a main challenge: Retry or built-in
    steps.main_challenge(retry=True)
    assert steps.number == 1
    steps.asked(2, _challenge(1))
    steps.after_answer("a")
    steps.follow_up()
    assert steps.writing_failed() is True
    assert not steps.is_follow_up
    steps.main_challenge()
    assert steps.number == 2
    steps.answer_skipped()
    assert steps.skipped == 1


def test_practise_these_targets_what_was_missed_and_is_still_in_the_note() -> None:
    steps = PracticeSteps(1, follow_ups=False)
    steps.missed = (
        MissedPoint("Large changes need  long periods of time.", "unexplained", "…", "g1"),
        MissedPoint("A key point since deleted.", "wrong", "…", "g2"),
    )
    assert steps.missed_targets(NOTE) == ((1,), ("g1",))  # whitespace aside, by identity
    plan = steps.practise_missed(NOTE, "2026-12-05T10:00:00+00:00")
    assert plan is not None
    assert (plan.targets, plan.gap_ids) == ((1,), ("g1",))
    steps.missed = (steps.missed[1],)
    assert steps.practise_missed(NOTE, "2026-12-05T10:00:00+00:00") is None
