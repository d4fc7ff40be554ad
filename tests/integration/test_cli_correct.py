"""The learner has the last word (issue 36): `coach correct` on a judged key point, over a
real journal and the fake Gemini on loopback. From then on the learner's word is what counts
for that key point in Today, `coach today`, the gap board, the progress chart and `coach
gaps`; the key point's next review is where FSRS puts it for that rating; the correction
survives a restart, verifies, and an edited or deleted one fails `coach verify`."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path

import fsrs
import pytest
import test_open_gaps_agreement
from test_cli_sessions import _coach
from test_open_gaps_agreement import NOTES, Month

from coach_gui.bootstrap import build_context
from coach_gui.cli import main

month = test_open_gaps_agreement.month  # the learner's month: notes, judge, clock


@pytest.fixture
def learner(request: pytest.FixtureRequest) -> Month:
    found: Month = request.getfixturevalue("month")
    return found


NS = "natural-selection"
_, _, KEY_POINTS = NOTES[NS]


def _correct(m: Month, *argv: str) -> dict[str, object]:
    code, data, err = _coach(m.capsys, "correct", *argv, "--json")
    assert code == 0, err
    return data


def _due(text: str) -> str:
    """When the key point `text` of Natural selection is next due, as Coach replays it."""
    context = build_context()
    try:
        scheduler = context.scheduler()
        scheduler.refresh()
        (state,) = [s for s in scheduler.memory.memory_for("n1") if s.text == text]
        return state.due
    finally:
        context.close()


def _fsrs_due(at: str, rating: fsrs.Rating) -> datetime:
    """An independent FSRS: one review of a new card, as Coach schedules (no steps, no fuzz)."""
    scheduler = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    when = datetime.fromisoformat(at)
    card, _ = scheduler.review_card(fsrs.Card(card_id=1, due=when), rating, when)
    return card.due


def test_a_corrected_key_point_counts_as_the_learner_says_everywhere(
    learner: Month, capsys: pytest.CaptureFixture[str]
) -> None:
    m = learner
    m.practise(0, NS, ["1u 2w"], judge="named")  # key points 2 and 3 (from 1) missed
    code, data, err = _coach(capsys, "gaps", "--json")
    assert code == 0, err
    opened = {g["key_point"]: g for g in data["open"]}
    assert sorted(opened) == [2, 3]
    attempt = opened[2]["attempt_id"]
    assert attempt and opened[3]["attempt_id"] == attempt
    judged_at = m.sessions[-1]
    m.check(0.1, {("n1", KEY_POINTS[1], "unexplained"), ("n1", KEY_POINTS[2], "wrong")})

    # "I did explain it": the gap closes everywhere, the verdict stays as it was.
    done = _correct(m, attempt, "2", "explained", "--note", "I said it takes ages.")
    assert done["judge_status"] == "unexplained" and done["status"] == "explained"
    assert done["in_force"] is True and done["text"] == KEY_POINTS[1]
    assert done["note"] == "I said it takes ages." and done["key_point"] == 2
    m.check(0.2, {("n1", KEY_POINTS[2], "wrong")})
    code, data, err = _coach(capsys, "sessions", "--json")
    assert code == 0, err
    (listed,) = [s for s in data["sessions"] if s["session_id"] == judged_at.session_id]
    assert listed["gaps"] == 1  # the session's gaps as they count now
    # The history of gaps and "missed most often" read the learner's word too.
    code, data, err = _coach(capsys, "gaps", judged_at.session_id, "--json")
    assert code == 0, err
    assert [(g["assertion_text"], g["problem"]) for g in data["gaps"]] == [(KEY_POINTS[2], "wrong")]
    assert [m_["assertion_text"] for m_ in data["by_assertion"]] == [KEY_POINTS[2]]

    # The key point's next review: where FSRS puts one review rated Good at the answer.
    answered = _answer_time(judged_at.session_id)
    assert datetime.fromisoformat(_due(KEY_POINTS[1])) == _fsrs_due(answered, fsrs.Rating.Good)
    assert datetime.fromisoformat(_due(KEY_POINTS[2])) == _fsrs_due(answered, fsrs.Rating.Again)

    # "Not wrong, only not explained"; and a gap the judge did not see.
    _correct(m, attempt, "3", "unexplained")
    _correct(m, attempt, "1", "unexplained", "--note", "I never said where variation comes from.")
    m.check(0.3, {("n1", KEY_POINTS[2], "unexplained"), ("n1", KEY_POINTS[0], "unexplained")})
    code, data, err = _coach(capsys, "gaps", "--json")
    assert code == 0, err
    mine = next(g for g in data["open"] if g["key_point"] == 1)
    assert mine["explanation"] == "I never said where variation comes from."
    history = {g["assertion_text"]: g for g in data["gaps"]}
    assert history[KEY_POINTS[0]]["by_learner"] is True  # a gap the judge did not see
    assert history[KEY_POINTS[0]]["problem"] == "unexplained"
    assert history[KEY_POINTS[2]]["problem"] == "unexplained"  # not wrong, in their word
    assert KEY_POINTS[1] not in history

    # Giving the judge's word back takes a correction back (undo).
    back = _correct(m, attempt, "2", "unexplained")
    assert back["in_force"] is False
    m.check(
        0.4,
        {
            ("n1", KEY_POINTS[1], "unexplained"),
            ("n1", KEY_POINTS[2], "unexplained"),
            ("n1", KEY_POINTS[0], "unexplained"),
        },
    )
    code, data, err = _coach(capsys, "verify", "--json")
    assert code == 0 and data["ok"], err


def _answer_time(session_id: str) -> str:
    context = build_context()
    try:
        (records,) = context.traces().records_for([session_id])
        return records.attempts[0].submitted_at
    finally:
        context.close()


def test_bad_corrections_say_why_and_change_nothing(
    learner: Month, capsys: pytest.CaptureFixture[str]
) -> None:
    m = learner
    m.practise(0, NS, ["1u"], judge="named")
    offline = m.practise(0.1, NS, ["2u"], judge="off")
    code, data, err = _coach(capsys, "gaps", "--json")
    attempt = data["open"][0]["attempt_id"]
    cases = [
        (["no-such-answer", "1", "explained"], "No answer has the id"),
        ([attempt, "9", "explained"], "give a number from 1 to 4"),
        ([attempt, "0", "explained"], "give a number from 1 to 4"),
        ([_attempt_of(offline.session_id), "1", "explained"], "has not been judged yet"),
    ]
    for argv, words in cases:
        code, _data, err = _coach(capsys, "correct", *argv, "--json")
        assert code == 2 and words in err, (argv, err)
        assert "Traceback" not in err
    with pytest.raises(SystemExit) as usage:  # argparse's own check of the word
        main(["correct", attempt, "1", "maybe"])
    assert usage.value.code == 2 and "invalid choice" in capsys.readouterr().err
    m.check(0.2, {("n1", KEY_POINTS[1], "unexplained")})


def _attempt_of(session_id: str) -> str:
    context = build_context()
    try:
        (records,) = context.traces().records_for([session_id])
        return records.attempts[0].id
    finally:
        context.close()


def test_a_correction_survives_a_restart_and_an_edited_or_deleted_one_fails_verify(
    learner: Month, capsys: pytest.CaptureFixture[str], coach_home: Path
) -> None:
    m = learner
    m.practise(0, NS, ["1u"], judge="named")
    code, data, err = _coach(capsys, "gaps", "--json")
    attempt = data["open"][0]["attempt_id"]
    _correct(m, attempt, "2", "explained")
    m.check(0.1, set())  # read by a new process's worth of objects: a fresh context
    journal = coach_home / "journal.sqlite3"
    for tamper in (
        "UPDATE learner_corrections SET status = 'wrong'",
        "UPDATE learner_corrections SET note = 'not what I wrote'",
        "DELETE FROM learner_corrections",
    ):
        copy = journal.with_name("tampered.sqlite3")
        copy.write_bytes(journal.read_bytes())
        conn = sqlite3.connect(copy, isolation_level=None)
        try:
            for event in ("update", "delete"):  # what an attacker with the file can do
                conn.execute(f"DROP TRIGGER learner_corrections_no_{event}")
            conn.execute(tamper)
        finally:
            conn.close()
        journal.with_name("journal.sqlite3").rename(journal.with_name("kept.sqlite3"))
        copy.rename(journal)
        try:
            code, data, _err = _coach(capsys, "verify", "--json")
            assert code == 1 and not data["ok"], tamper
        finally:
            journal.unlink()
            journal.with_name("kept.sqlite3").rename(journal)
    code, data, err = _coach(capsys, "verify", "--json")
    assert code == 0 and data["ok"], err


def _strictness(level: str) -> None:
    import json
    import os

    config = Path(os.environ["COACH_CONFIG"])
    settings = json.loads(config.read_text("utf-8"))
    settings["judge"]["strictness"] = level
    config.write_text(json.dumps(settings), encoding="utf-8")


def test_coach_stats_measures_the_judge_against_its_learner(
    learner: Month, capsys: pytest.CaptureFixture[str]
) -> None:
    """Counted here from what the test did, not from the journal: which key points the
    judge missed and which the learner corrected, which way."""
    m = learner
    m.practise(0, NS, ["1u 2w"], judge="named")  # 4 key points: 1 and 2 missed (0-based)
    m.practise(1, "opportunity-cost", ["0w"], judge="named")  # 3 key points: 0 wrong
    code, data, err = _coach(capsys, "gaps", "--json")
    ns = next(g["attempt_id"] for g in data["open"] if g["note_id"] == "n1")
    oc = next(g["attempt_id"] for g in data["open"] if g["note_id"] == "n2")
    _correct(m, ns, "2", "explained")  # too strict
    _correct(m, ns, "4", "unexplained")  # too lenient
    _correct(m, oc, "1", "unexplained")  # wrong -> not explained: neither way
    _correct(m, ns, "3", "explained")
    _correct(m, ns, "3", "wrong")  # taken back: the judge's word again
    m.at(2)
    _strictness("strict")  # judged strictly: all 4 explained
    answers = m.tmp_path / "strict.json"
    answers.write_text('["My answer misses none here."]', encoding="utf-8")
    code, data, err = _coach(capsys, "practice", NS, "--answers", str(answers), "--json")
    assert code == 0 and data["items"][0]["verdict"] == "pass", err
    code, stats, err = _coach(capsys, "stats", "--json")
    assert code == 0, err
    rows = {(r["strictness"], r["month"]): r for r in stats["judge_agreement"]}
    standard = rows[("standard", "2026-11")]
    assert (standard["judged"], standard["corrected"]) == (7, 3)
    assert (standard["too_strict"], standard["too_lenient"]) == (1, 1)
    assert standard["agreement"] == round(4 / 7, 4)
    assert standard["judge"] == "cloud" and standard["model"] == "gemini-2.5-flash"
    strict = rows[("strict", "2026-11")]
    assert (strict["judged"], strict["corrected"]) == (4, 0) and strict["agreement"] == 1.0
    assert stats["strictness_suggestion"] is None  # three corrections are no pattern
    code, text, err = _coach(capsys, "stats")
    assert code == 0, err
    assert "gemini-2.5-flash (cloud, standard): 4 of 7 left as judged (57%)" in text
    assert "too strict 1, too lenient 1" in text


def test_the_eval_measures_each_arm_against_the_learners_word(
    learner: Month, capsys: pytest.CaptureFixture[str]
) -> None:
    """The answers judged again, each key point against the learner's word now: counted
    here from what the test did (the fake judge reads its misses from the answer, so it
    repeats its first word; the learner corrected two key points, one each way)."""
    m = learner
    m.practise(0, NS, ["1u 2w"], judge="named")  # 4 key points: 1 unexplained, 2 wrong
    code, data, err = _coach(capsys, "gaps", "--json")
    attempt = next(g["attempt_id"] for g in data["open"] if g["note_id"] == "n1")
    _correct(m, attempt, "2", "explained")  # the judge was too strict on key point 2
    _correct(m, attempt, "4", "unexplained")  # and too lenient on key point 4
    code, data, err = _coach(capsys, "eval", "--last", "1", "--repeats", "2", "--json")
    assert code == 0, err
    arms = {a["arm"]: a for a in data["learner_agreement"]}
    on = arms["assertions_on"]
    assert (on["judged"], on["agreed"]) == (8, 4)  # 4 key points, twice; 2 agree each time
    assert (on["too_strict"], on["too_lenient"]) == (2, 2) and on["agreement"] == 0.5
    off = arms["assertions_off"]  # judged without the key points: none to compare
    assert off["judged"] == 0 and off["agreement"] is None
    code, verified, err = _coach(capsys, "verify", "--json")
    assert code == 0 and verified["ok"], err  # the figures are not part of what is signed
    code, text, err = _coach(capsys, "eval", "--last", "1", "--repeats", "2")
    assert code == 0, err
    assert "agrees with you" in text and "50% of 8" in text
