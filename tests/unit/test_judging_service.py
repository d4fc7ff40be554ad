"""Judging answers over in-memory ports: what is sent, what the domain decides, and that a
failure keeps the answer unjudged with its reason."""

from __future__ import annotations

import pytest
from fakes.in_ram import (
    InRamPracticeJournal,
    InRamVerdictJournal,
    ScriptedJudge,
    ScriptedTier1,
    TickingClock,
    judged_reply,
    reply,
)

from coach_gui.domain.judge_errors import JudgeDisabled, JudgeKeyInvalid, JudgeQuotaExceeded
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import Disposition, attempt_id, challenge_id
from coach_gui.domain.privacy import LivePrivacy, PrivacySwitches
from coach_gui.domain.session_state import disposition_for
from coach_gui.domain.tier2 import Tier2Payload, revalidated
from coach_gui.domain.verdicts import JudgeResponse
from coach_gui.services.judging import JudgeOutcome, JudgeRequestItem, judge_items
from coach_gui.services.practice import PracticeRun, PracticeSettings

NOTE = Note(
    id="n1",
    title="SECRET-TITLE",
    source="SECRET-SOURCE",
    tags=("SECRET-TAG",),
    core_assertions=("Selection needs inherited variation.", "Change is slow."),
    body="SECRET-BODY text of the note.",
)
ITEM = JudgeRequestItem("a1", "Why is change slow?", "Small steps add up.", NOTE.core_assertions)


def _judge(
    script: list[object], *, include: bool = True
) -> tuple[list[object], ScriptedJudge, InRamVerdictJournal]:
    judge = ScriptedJudge(script)  # type: ignore[arg-type]
    journal = InRamVerdictJournal()
    outcomes = judge_items(
        [ITEM], judge=judge, journal=journal, clock=TickingClock(), include_assertions=include
    )
    return outcomes, judge, journal  # type: ignore[return-value]


def test_adr0021_d1_only_challenge_answer_and_assertions_are_sent() -> None:
    _, judge, _ = _judge([judged_reply(("pass", []))])
    sent = judge.payloads[0].to_json_dict()
    assert sent == {
        "items": [
            {
                "challenge": ITEM.challenge,
                "answer": ITEM.answer,
                "core_assertions": list(NOTE.core_assertions),
            }
        ]
    }


def test_adr0021_d2_switch_off_sends_exactly_challenge_and_answer() -> None:
    _, judge, journal = _judge(
        [
            judged_reply(
                ("pass", [{"assertion": None, "problem": "unexplained", "explanation": "x"}])
            )
        ],
        include=False,
    )
    assert judge.payloads[0].to_json_dict() == {
        "items": [{"challenge": ITEM.challenge, "answer": ITEM.answer}]
    }
    assert journal.verdicts[0].assertions_sent is False


def test_adr0021_d4_an_item_passes_only_when_every_assertion_is_explained() -> None:
    gap = {"assertion": 1, "problem": "unexplained", "explanation": "slowness not explained"}
    outcomes, _, journal = _judge([judged_reply(("pass", [gap]))])
    verdict = journal.verdicts[0]
    assert verdict.passed is False  # the model said pass, but left key point 2 unexplained
    assert verdict.gaps[0].assertion == 1 and verdict.gaps[0].problem == "unexplained"
    assert outcomes[0].judged  # type: ignore[attr-defined]


def test_a_malformed_verdict_keeps_the_attempt_unjudged_with_the_reason() -> None:
    outcomes, _, journal = _judge([judged_reply(("pass", []), ("pass", []))])  # an extra index
    assert journal.verdicts == []
    assert journal.refusals[0].reason_code == "malformed"
    assert not outcomes[0].judged  # type: ignore[attr-defined]


@pytest.mark.parametrize("error", [JudgeKeyInvalid(), JudgeQuotaExceeded()])
def test_judge_errors_are_recorded_as_refusals_never_as_fails(error: Exception) -> None:
    outcomes, _, journal = _judge([error])
    assert journal.verdicts == []
    assert journal.refusals[0].detail == str(error)
    assert outcomes[0].reason == str(error)  # type: ignore[attr-defined]


def test_ids_are_content_addressed() -> None:
    _, _, first = _judge([judged_reply(("fail", []))])
    _, _, second = _judge([judged_reply(("fail", []))])
    assert first.verdicts[0].id == second.verdicts[0].id  # same content, same clock
    assert len(first.verdicts[0].id) == 64


def _run(
    judge_script: list[object], **settings: object
) -> tuple[PracticeRun, InRamPracticeJournal, InRamVerdictJournal, ScriptedJudge]:
    journal, verdicts = InRamPracticeJournal(), InRamVerdictJournal()
    judge = ScriptedJudge(judge_script)  # type: ignore[arg-type]
    tier1 = ScriptedTier1([reply("Why is change slow in this account?")] * 3)
    run = PracticeRun(
        NOTE,
        PracticeSettings(**settings),
        journal,
        tier1,
        TickingClock(),
        judge=judge,
        verdicts=verdicts,
    )  # type: ignore[arg-type]
    run.start()
    return run, journal, verdicts, judge


def test_practice_judges_each_answer_after_storing_it() -> None:
    gap = {"assertion": 0, "problem": "wrong", "explanation": "variation is not created"}
    run, journal, _, judge = _run([judged_reply(("fail", [gap]))])
    challenge = run.next_challenge().challenge
    attempt = run.submit(challenge, "Selection creates new variation.")
    assert journal.attempts == [attempt] and attempt.unjudged_reason == "waiting for the judge"
    outcome = run.judge(attempt)
    assert outcome is not None and outcome.verdict is not None
    assert outcome.verdict.gaps[0].problem == "wrong"
    assert run.attempts[0].status == "judged"
    assert run.finish() is Disposition.GAPS_FOUND
    body = judge.payloads[0].canonical()
    for marker in (
        "SECRET-TITLE",
        "SECRET-SOURCE",
        "SECRET-TAG",
        "SECRET-BODY",
        "n1",
        attempt.session_id,
    ):
        assert marker not in body


def test_all_passed_and_judge_unavailable_dispositions() -> None:
    run, *_ = _run([judged_reply(("pass", []))])
    run.judge(run.submit(run.next_challenge().challenge, "answer"))
    assert run.finish() is Disposition.ALL_PASSED
    run, *_ = _run([JudgeQuotaExceeded()])
    outcome = run.judge(run.submit(run.next_challenge().challenge, "answer"))
    assert outcome is not None and "quota" in (outcome.reason or "").lower()
    assert run.finish() is Disposition.JUDGE_UNAVAILABLE


def test_judge_off_means_no_judge_call_at_all() -> None:
    run, _, _, judge = _run([judged_reply(("pass", []))], judge_enabled=False)
    attempt = run.submit(run.next_challenge().challenge, "answer")
    assert run.judge(attempt) is None and judge.payloads == []
    assert attempt.unjudged_reason == "the judge is switched off"


def test_challenge_and_attempt_ids_are_recomputable() -> None:
    run, journal, *_ = _run([judged_reply(("pass", []))])
    challenge = run.next_challenge().challenge
    attempt = run.submit(challenge, "answer")
    session_id = journal.challenges[0][0]
    assert challenge.id == challenge_id(session_id, 0, challenge)
    assert attempt.id == attempt_id(session_id, challenge.id, "answer", attempt.submitted_at)


def test_adr0021_d2_turning_the_switch_off_mid_session_stops_assertions_at_once() -> None:
    privacy = LivePrivacy(PrivacySwitches(judge_enabled=True, include_assertions=True))
    journal, verdicts = InRamPracticeJournal(), InRamVerdictJournal()
    judge = ScriptedJudge([judged_reply(("pass", []))] * 2)
    tier1 = ScriptedTier1([reply("Why is change slow in this account?")] * 2)
    run = PracticeRun(
        NOTE,
        PracticeSettings(include_assertions=True),
        journal,
        tier1,
        TickingClock(),
        judge=judge,
        verdicts=verdicts,
        privacy=privacy,
    )
    run.start()
    run.judge(run.submit(run.next_challenge().challenge, "first"))
    privacy.set(PrivacySwitches(judge_enabled=True, include_assertions=False))
    run.judge(run.submit(run.next_challenge().challenge, "second"))
    assert judge.payloads[0].carries_assertions
    assert not judge.payloads[1].carries_assertions
    assert [v.assertions_sent for v in verdicts.verdicts] == [True, False]


def test_the_judge_switch_mid_session_applies_to_the_next_answer_both_ways() -> None:
    """Off at the start, on, off, on: each answer follows the switch as it is when it is
    given; the judge is built when first switched on; none given with it on is left
    unjudged."""
    privacy = LivePrivacy(PrivacySwitches(judge_enabled=False, include_assertions=True))
    judge = ScriptedJudge([judged_reply(("pass", []))] * 2)
    built: list[ScriptedJudge] = []

    def open_judge() -> ScriptedJudge:
        built.append(judge)
        return judge

    verdicts = InRamVerdictJournal()
    run = PracticeRun(
        NOTE,
        PracticeSettings(judge_enabled=False, challenges=4),
        InRamPracticeJournal(),
        ScriptedTier1([reply("Why is change slow in this account?")] * 4),
        TickingClock(),
        verdicts=verdicts,
        privacy=privacy,
        open_judge=open_judge,
    )
    run.start()
    outcomes = []
    for judge_on, text in ((False, "one"), (True, "two"), (False, "three"), (True, "four")):
        privacy.set(PrivacySwitches(judge_enabled=judge_on, include_assertions=True))
        attempt = run.submit(run.next_challenge().challenge, text)
        assert run.will_judge(attempt) is judge_on
        outcomes.append(run.judge(attempt) if run.will_judge(attempt) else None)
    assert len(built) == 1  # built once, when first needed
    assert [p.items[0].answer for p in judge.payloads] == ["two", "four"]
    assert all(o is not None and o.judged for o in (outcomes[1], outcomes[3]))
    assert run.finish() is Disposition.UNJUDGED_OFFLINE  # "one", "three" kept for later


def test_switched_off_between_saving_and_sending_nothing_is_sent() -> None:
    privacy = LivePrivacy(PrivacySwitches(judge_enabled=True, include_assertions=True))
    judge = ScriptedJudge([judged_reply(("pass", []))])
    run = PracticeRun(
        NOTE,
        PracticeSettings(),
        InRamPracticeJournal(),
        ScriptedTier1([reply("Why is change slow in this account?")]),
        TickingClock(),
        judge=judge,
        verdicts=InRamVerdictJournal(),
        privacy=privacy,
    )
    run.start()
    attempt = run.submit(run.next_challenge().challenge, "answer")
    privacy.set(PrivacySwitches(judge_enabled=False, include_assertions=True))
    outcome = run.judge(attempt)
    assert judge.payloads == []
    assert outcome is not None and not outcome.judged
    assert outcome.refusal is not None and outcome.refusal.reason_code == "judge_off"


def _judge_with_assertions(judge: ScriptedJudge, privacy: LivePrivacy) -> list[JudgeOutcome]:
    """One answer judged with assertions, the switch read again through `privacy`."""
    return judge_items(
        [JudgeRequestItem("a1", "Why?", "Because.", NOTE.core_assertions)],
        judge=judge,
        journal=InRamVerdictJournal(),
        clock=TickingClock(),
        include_assertions=True,
        assertions_now=privacy.include_assertions,
    )


def test_assertions_switched_off_while_a_payload_waits_are_sent_without() -> None:
    """The payload was built with assertions; the judge (reading the live switch) refuses
    it; the service sends it again as the switch now says, so the answer is judged."""
    privacy = LivePrivacy(PrivacySwitches(judge_enabled=True, include_assertions=True))

    class SwitchFlippedWhileWaiting(ScriptedJudge):
        def judge(self, payload: Tier2Payload) -> JudgeResponse:
            privacy.set(PrivacySwitches(judge_enabled=True, include_assertions=False))
            checked = revalidated(payload, include_assertions=privacy.include_assertions())
            return super().judge(checked)  # as the Gemini adapter does before sending

    judge = SwitchFlippedWhileWaiting([judged_reply(("pass", []))])
    outcomes = _judge_with_assertions(judge, privacy)
    assert [p.carries_assertions for p in judge.payloads] == [False]
    assert outcomes[0].judged


def test_a_payload_the_adapter_refuses_is_a_refusal_not_a_crash() -> None:
    from coach_gui.domain.tier2 import PayloadRejected

    outcomes, _, journal = _judge([PayloadRejected("the assertions switch is off")])
    assert journal.refusals[0].reason_code == "payload_rejected"
    assert not outcomes[0].judged  # type: ignore[attr-defined]


def test_the_judge_switched_off_while_a_payload_waits_sends_nothing_at_all() -> None:
    """Found in review: with the judge switched off just before sending, the adapter's
    refusal of the assertions made the service send the answer again without them."""
    privacy = LivePrivacy(PrivacySwitches(judge_enabled=True, include_assertions=True))

    class SwitchedOffWhileWaiting(ScriptedJudge):
        def judge(self, payload: Tier2Payload) -> JudgeResponse:
            privacy.set(PrivacySwitches(judge_enabled=False, include_assertions=True))
            if not privacy.judge_enabled():  # as the Gemini adapter reads it at each request
                raise JudgeDisabled()
            return super().judge(payload)

    judge = SwitchedOffWhileWaiting([judged_reply(("pass", []))] * 2)
    outcomes = _judge_with_assertions(judge, privacy)
    assert judge.payloads == []
    assert not outcomes[0].judged and outcomes[0].refusal is not None
    assert outcomes[0].refusal.reason_code == "judge_off"


def test_an_answer_is_committed_before_any_judge_is_built() -> None:
    """Found in review: a judge switched on mid-session was built (keyring, maybe an unlock
    prompt) before the answer was committed; quitting meanwhile could lose it."""
    privacy = LivePrivacy(PrivacySwitches(judge_enabled=True, include_assertions=True))
    built: list[str] = []
    journal = InRamPracticeJournal()

    def open_judge() -> ScriptedJudge:
        built.append(f"after {len(journal.attempts)} answers stored")
        raise JudgeKeyInvalid()

    run = PracticeRun(
        NOTE,
        PracticeSettings(judge_enabled=False),
        journal,
        ScriptedTier1([reply("Why is change slow in this account?")]),
        TickingClock(),
        verdicts=InRamVerdictJournal(),
        privacy=privacy,
        open_judge=open_judge,
    )
    run.start()
    attempt = run.submit(run.next_challenge().challenge, "answer")
    assert built == [] and journal.attempts == [attempt] and run.will_judge(attempt)
    outcome = run.judge(attempt)
    assert built == ["after 1 answers stored"]
    assert outcome is not None and outcome.refusal is not None
    assert outcome.refusal.reason_code == JudgeKeyInvalid.reason_code


@pytest.mark.parametrize(
    ("answers", "passed", "off", "offline", "expected"),
    [
        (0, [], 0, False, Disposition.NO_ANSWERS),
        (2, [True, True], 0, False, Disposition.ALL_PASSED),
        (2, [True, False], 0, False, Disposition.GAPS_FOUND),
        (2, [True], 0, False, Disposition.JUDGE_UNAVAILABLE),
        (2, [], 2, True, Disposition.UNJUDGED_OFFLINE),
        (2, [True], 1, False, Disposition.UNJUDGED_OFFLINE),  # one kept while switched off
        (2, [False], 1, False, Disposition.GAPS_FOUND),  # gaps found are not hidden
        (3, [True], 1, False, Disposition.JUDGE_UNAVAILABLE),  # and one the judge failed
        (2, [True, True], 0, True, Disposition.ALL_PASSED),  # switched on mid-session
    ],
)
def test_one_rule_for_how_a_session_ended(
    answers: int, passed: list[bool], off: int, offline: bool, expected: Disposition
) -> None:
    assert (
        disposition_for(answers=answers, passed=passed, switched_off=off, offline=offline)
        is expected
    )
