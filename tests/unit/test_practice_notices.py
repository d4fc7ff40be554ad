"""What the practice pane says about a challenge's notices and a session's missed key points."""

from __future__ import annotations

from coach_gui.domain.practice import Attempt, VerdictRecord, gap_id
from coach_gui.domain.verdicts import Gap
from coach_gui.operations.practice import missed_points
from coach_gui.ui.practice.practice_widgets import notices_text

WITHDRAWN = "A challenge was withdrawn: it shares 9 words in a row with your note."


def test_a_withdrawal_repeated_for_the_same_reason_is_said_once_with_its_count() -> None:
    said = notices_text([WITHDRAWN, WITHDRAWN, WITHDRAWN, "The local model is slow."])
    assert said.splitlines() == [
        "3 challenges were withdrawn: it shares 9 words in a row with your note.",
        "The local model is slow.",
    ]
    assert notices_text([WITHDRAWN]) == WITHDRAWN


def _verdict(ident: str, gaps: list[Gap], *, sent: bool = True) -> VerdictRecord:
    return VerdictRecord(
        id=ident, attempt_id=f"attempt-{ident}", passed=not gaps, gaps=tuple(gaps),
        feedback="", assertions=("A", "B", "C"), assertions_sent=sent, judge_model="m",
        created_at="2026-12-01T10:00:00.000000+00:00", outbox_id=None,
    )  # fmt: skip


def _attempt(ident: str, minute: int) -> Attempt:
    return Attempt(
        id=ident, session_id="s1", challenge_id=f"c-{ident}", answer="an answer",
        submitted_at=f"2026-12-01T10:0{minute}:00.000000+00:00",
    )  # fmt: skip


def test_missed_points_name_each_assertion_once_wrong_outranking_unexplained() -> None:
    first = _verdict("v1", [Gap(assertion=1, problem="unexplained", explanation="skipped B")])
    second = _verdict("v2", [
        Gap(assertion=2, problem="unexplained", explanation="skipped C"),
        Gap(assertion=1, problem="wrong", explanation="B is backwards"),
    ])  # fmt: skip
    coarse = _verdict("v3", [Gap(assertion=None, problem="unexplained", explanation="vague")],
                      sent=False)  # fmt: skip
    judged = [(_attempt(v.attempt_id, n), v, False) for n, v in enumerate((first, second, coarse))]
    missed = missed_points(judged)
    assert [(m.assertion, m.problem, m.explanation) for m in missed] == [
        ("B", "wrong", "B is backwards"),
        ("C", "unexplained", "skipped C"),
    ]
    assert missed[0].gap_id == gap_id("v2", 1)  # the gap that counts is the worse one
