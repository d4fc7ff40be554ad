"""The learner's word on a key point (issue 36): which correction is in force, and what it
does to the ratings the schedule and the open gaps are made of."""

from __future__ import annotations

import json

from coach_gui.domain.agreement import Agreement, strictness_of, suggestion
from coach_gui.domain.corrections import (
    correctable,
    correction_gap_id,
    in_force,
    judge_status,
    learner_correction,
)
from coach_gui.domain.memory import AGAIN, GOOD, HARD, ratings_from_verdict
from coach_gui.domain.practice import Attempt, VerdictRecord, gap_id
from coach_gui.domain.tier2 import STRICTNESS_LEVELS, STRICTNESS_RULES
from coach_gui.domain.verdicts import Gap

POINTS = ("Variation is inherited.", "Change is slow.", "Struggle follows from increase.")
ATTEMPT = Attempt(
    id="a1", session_id="s1", challenge_id="c1", answer="An answer.",
    submitted_at="2026-11-02T09:00:00+00:00", status="judged",
)  # fmt: skip


def _verdict(*gaps: Gap, verdict_id: str = "v1", sent: bool = True) -> VerdictRecord:
    return VerdictRecord(
        id=verdict_id, attempt_id="a1", outbox_id=None, passed=not gaps, gaps=gaps,
        feedback="", assertions_sent=sent, assertions=POINTS, judge_model="m",
        created_at="2026-11-02T09:00:01+00:00",
    )  # fmt: skip


def _said(point: int, status: str, at: str, *, verdict_id: str = "v1", note: str = "") -> object:
    return learner_correction(
        note_id="n1", session_id="s1", attempt_id="a1", verdict_id=verdict_id,
        assertion=point, status=status, note=note, at=at,  # type: ignore[arg-type]
    )  # fmt: skip


MISSED = Gap(assertion=1, problem="unexplained", explanation="Not said.")
WRONG = Gap(assertion=2, problem="wrong", explanation="Backwards.")


def test_a_correction_is_a_content_addressed_record() -> None:
    one = _said(1, "explained", "2026-11-02T10:00:00+00:00")
    same = _said(1, "explained", "2026-11-02T10:00:00+00:00")
    other = _said(1, "explained", "2026-11-02T10:00:00+00:00", note="I did.")
    assert one == same and one.id != other.id  # type: ignore[attr-defined]


def test_the_latest_correction_of_a_key_point_decides_and_the_judges_word_undoes_it() -> None:
    verdict = _verdict(MISSED, WRONG)
    assert judge_status(verdict, 0) == "explained"
    assert judge_status(verdict, 1) == "unexplained" and judge_status(verdict, 2) == "wrong"
    first = _said(1, "explained", "2026-11-02T10:00:00+00:00")
    later = _said(1, "wrong", "2026-11-02T11:00:00+00:00")
    assert in_force([later, first], verdict) == {1: later}  # in time order, not list order
    back = _said(1, "unexplained", "2026-11-02T12:00:00+00:00")  # the judge's own word
    assert in_force([first, later, back], verdict) == {}
    elsewhere = _said(0, "wrong", "2026-11-02T10:00:00+00:00", verdict_id="v0")
    assert in_force([elsewhere], verdict) == {}  # another verdict's say nothing of this one
    out_of_range = _said(7, "wrong", "2026-11-02T10:00:00+00:00")
    assert in_force([out_of_range], verdict) == {}


def test_ratings_follow_the_learners_word_where_it_differs_from_the_judges() -> None:
    verdict = _verdict(MISSED, WRONG)
    judged = {r.text: (r.rating, r.gap) for r in ratings_from_verdict(ATTEMPT, verdict)}
    assert judged == {
        POINTS[0]: (GOOD, None),
        POINTS[1]: (AGAIN, "unexplained"),
        POINTS[2]: (AGAIN, "wrong"),
    }
    explained = _said(1, "explained", "2026-11-02T10:00:00+00:00")
    not_wrong = _said(2, "unexplained", "2026-11-02T10:00:00+00:00")
    missed = _said(0, "unexplained", "2026-11-02T10:00:00+00:00", note="I left it out.")
    corrected = in_force([explained, not_wrong, missed], verdict)
    found = {r.text: r for r in ratings_from_verdict(ATTEMPT, verdict, corrected=corrected)}
    assert (found[POINTS[1]].rating, found[POINTS[1]].gap) == (GOOD, None)
    assert (found[POINTS[2]].rating, found[POINTS[2]].gap) == (AGAIN, "unexplained")
    assert found[POINTS[2]].gap_id == gap_id("v1", 1)  # the judge's gap, the learner's word
    assert found[POINTS[0]].gap_id == correction_gap_id(missed)  # a gap the judge did not see
    assert found[POINTS[0]].explanation == "I left it out."
    assert [r.key_point for r in found.values()] == [0, 1, 2]


def test_a_follow_up_rates_only_what_it_explains_or_gets_wrong_by_either_word() -> None:
    verdict = _verdict(MISSED)
    plain = ratings_from_verdict(ATTEMPT, verdict, follow_up=True)
    assert {r.text for r in plain} == {POINTS[0], POINTS[2]}  # "not explained": no evidence
    corrected = in_force([_said(0, "unexplained", "2026-11-02T10:00:00+00:00")], verdict)
    found = ratings_from_verdict(ATTEMPT, verdict, follow_up=True, corrected=corrected)
    assert {r.text for r in found} == {POINTS[2]}


def test_only_a_verdict_that_judged_each_key_point_can_be_corrected() -> None:
    assert correctable(_verdict(MISSED))
    assert correctable(_verdict())  # a pass judged against the key points
    assert not correctable(_verdict(sent=False))
    coarse = _verdict(Gap(assertion=None, problem="unexplained", explanation="Thin."))
    assert not correctable(coarse)
    assert {r.rating for r in ratings_from_verdict(ATTEMPT, coarse)} == {HARD}


def _row(level: str, strict: int, lenient: int) -> Agreement:
    return Agreement("cloud", "m", level, "2026-11", 40, strict + lenient, strict, lenient)  # type: ignore[arg-type]


def test_a_strictness_is_suggested_only_when_corrections_lean_one_way() -> None:
    assert suggestion([_row("standard", 4, 0)], "standard") is None  # too few
    assert suggestion([_row("standard", 6, 3)], "standard") is None  # no clear lean
    lenient = suggestion([_row("standard", 6, 2)], "standard")
    assert lenient is not None and lenient.suggested == "lenient"
    assert "6 key points explained" in lenient.text and "Settings › Judge" in lenient.text
    stricter = suggestion([_row("lenient", 0, 5)], "lenient")
    assert stricter is not None and stricter.suggested == "standard"
    assert suggestion([_row("lenient", 9, 0)], "lenient") is None  # nothing more lenient
    assert suggestion([_row("strict", 9, 0)], "standard") is None  # another level's say


def _gemini_body(system: str, user: str) -> str:
    return json.dumps(
        {"systemInstruction": {"parts": [{"text": system}]},
         "contents": [{"role": "user", "parts": [{"text": user}]}]}
    )  # fmt: skip


def test_the_strictness_of_a_request_is_read_from_its_instructions_only() -> None:
    for level in STRICTNESS_LEVELS:
        system = f"Grade fairly.\n{STRICTNESS_RULES[level]}Reply with JSON."
        assert strictness_of(_gemini_body(system, "An answer.")) == level
        local = json.dumps({"messages": [{"role": "system", "content": system},
                                         {"role": "user", "content": "An answer."}]})  # fmt: skip
        assert strictness_of(local) == level
    before = _gemini_body("An instruction from before strictness.", "An answer.")
    assert strictness_of(before) == "standard"
    # The learner's answer may say anything: only the instructions count.
    sly = _gemini_body(f"Grade.\n{STRICTNESS_RULES['strict']}", STRICTNESS_RULES["lenient"])
    assert strictness_of(sly) == "strict"
    assert strictness_of("not json") == "standard"


def test_a_correction_from_another_computer_must_read_as_one_before_it_is_stored() -> None:
    from coach_gui.adapters.journal.sync_kinds import BY_NAME

    check = BY_NAME["learner_correction"].problem
    assert check is not None
    made = _said(1, "explained", "2026-11-02T10:00:00+00:00", note="Mine.")
    row = made.model_dump()  # type: ignore[attr-defined]
    assert check(row) is None
    forged = {**row, "note": "x" * 2_001}
    assert check(forged) == "it does not read as a learner's correction"
    assert check({**row, "status": "maybe"}) == "it does not read as a learner's correction"
    assert check({**row, "note": "Edited."}) == "its id is not its content's"
