"""Sealing (DESIGN §6, ADR-0233), pure: deterministic ids, the identity chain in its order,
every refusal code, and how a stored trace is checked."""

from __future__ import annotations

import hashlib
import json
import random
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coach_gui.domain import digests
from coach_gui.domain.challenges import Challenge, ChallengeKind
from coach_gui.domain.digests import canonical_json, digest
from coach_gui.domain.practice import (
    Attempt,
    Disposition,
    JudgeRefusal,
    SessionMode,
    VerdictRecord,
    attempt_id,
    challenge_id,
    content_id,
)
from coach_gui.domain.sealing import (
    POLICY_VERSION,
    AttemptBinding,
    PracticeTraceInput,
    SealedPracticeTrace,
    TraceRefusal,
    TraceRefusalReason,
    VerifyFailure,
    build_bound_trace_input,
    build_session_trace_input,
    identity_chain,
    new_binding,
    seal,
    verify_trace,
)
from coach_gui.domain.session_records import (
    BrokenRow,
    ChallengeRecord,
    OutboxRecord,
    RejectionRecord,
    SessionRecord,
    SessionRecords,
    StoredBinding,
    StoredTrace,
    attempt_content_id,
    challenge_content_id,
    verdict_id,
)
from coach_gui.domain.session_state import attempt_states
from coach_gui.domain.verdicts import Gap

T0 = "2026-11-01T09:00:00+00:00"
SESSION = "5e55a0" * 5 + "ab"
NOTE_DIGEST = digest({"note": "natural selection"})
CONFIG_DIGEST = digest({"judge_enabled": False})
ASSERTIONS = ("Selection acts only on inherited variation.", "Large change takes long.")
R = TraceRefusalReason


def _at(second: int) -> str:
    return f"2026-11-01T09:00:{second:02d}+00:00"


def _challenge(position: int, text: str, session: str = SESSION) -> ChallengeRecord:
    body = Challenge(id="x", kind=ChallengeKind.EXPLAIN, text=text, origin="builtin")
    return ChallengeRecord(
        id=challenge_id(session, position, body),
        session_id=session,
        position=position,
        kind=ChallengeKind.EXPLAIN,
        text=text,
        origin="builtin",
        parent_challenge_id=None,
        model=None,
        target_assertions=(),
        created_at=_at(position),
    )


def _attempt(challenge: ChallengeRecord, answer: str, second: int) -> Attempt:
    return Attempt(
        id=attempt_id(challenge.session_id, challenge.id, answer, _at(second)),
        session_id=challenge.session_id,
        challenge_id=challenge.id,
        answer=answer,
        submitted_at=_at(second),
        status="unjudged",
        unjudged_reason="the judge is switched off",
    )


def _verdict(
    attempt: Attempt, passed: bool, second: int, outbox: str | None = None
) -> VerdictRecord:
    gaps = () if passed else (Gap(assertion=1, problem="unexplained", explanation="Say why."),)
    fields = {
        "attempt_id": attempt.id,
        "outbox_id": outbox,
        "passed": passed,
        "gaps": [g.model_dump(mode="json") for g in gaps],
        "feedback": "ok",
        "assertions_sent": True,
        "assertions": list(ASSERTIONS),
        "judge_model": "gemini-test",
        "created_at": _at(second),
    }
    return VerdictRecord(
        id=content_id("verdict", fields),
        attempt_id=attempt.id,
        outbox_id=outbox,
        passed=passed,
        gaps=gaps,
        feedback="ok",
        assertions_sent=True,
        assertions=ASSERTIONS,
        judge_model="gemini-test",
        created_at=_at(second),
    )


def _refusal(attempt: Attempt, second: int) -> JudgeRefusal:
    fields = {"attempt_id": attempt.id, "reason_code": "quota", "detail": "Quota used up."}
    fields["created_at"] = _at(second)
    return JudgeRefusal(id=content_id("judge_refusal", fields), **fields)


def _outbox(outbox_id: str = "0b" * 16) -> OutboxRecord:
    return OutboxRecord(
        id=outbox_id,
        created_at=T0,
        model="gemini-test",
        payload="{}",
        request_body="{}",
        response="{}",
        status="ok",
        error=None,
        tokens_in=3,
        tokens_out=4,
        latency_ms=5,
    )


def _session(**changes: object) -> SessionRecord:
    fields: dict[str, object] = {
        "id": SESSION,
        "note_id": "note1",
        "note_title": "Natural selection",
        "note_digest": NOTE_DIGEST,
        "config_digest": CONFIG_DIGEST,
        "mode": SessionMode.OFFLINE,
        "started_at": T0,
        "ended_at": None,
        "disposition": None,
        "scheduler_decision_id": None,
        "gap_ids": (),
        "sealed_trace_id": None,
    }
    fields.update(changes)
    return SessionRecord(**fields)  # type: ignore[arg-type]


def _records(
    answers: tuple[str, ...] = ("Variation first.", "Slowly."), **extra: object
) -> SessionRecords:
    challenges = tuple(_challenge(i, f"Challenge {i}?") for i in range(len(answers)))
    pairs = enumerate(zip(challenges, answers, strict=True))
    attempts = tuple(_attempt(c, a, 10 + i) for i, (c, a) in pairs)
    rejection = RejectionRecord(
        id="4e" * 16,
        session_id=SESSION,
        kind="tier1",
        text_digest=digest("quoted"),
        reason="quoted",
        created_at=T0,
    )
    fields: dict[str, object] = {
        "session": _session(),
        "challenges": challenges,
        "rejections": (rejection,),
        "attempts": attempts,
    }
    fields.update(extra)
    return SessionRecords(**fields)  # type: ignore[arg-type]


def _sealed_session(records: SessionRecords) -> tuple[SessionRecords, SealedPracticeTrace]:
    """`records` sealed as an offline session, as the journal would hold them afterwards."""
    built = build_session_trace_input(
        records, disposition=Disposition.UNJUDGED_OFFLINE, ended_at=_at(30)
    )
    assert isinstance(built, PracticeTraceInput), built
    trace = seal(built)
    session = records.session.model_copy(
        update={
            "ended_at": _at(30),
            "disposition": Disposition.UNJUDGED_OFFLINE,
            "sealed_trace_id": trace.trace_id,
        }
    )
    stored = StoredTrace(
        trace_id=trace.trace_id,
        session_id=SESSION,
        kind="session",
        input_digest=trace.input_digest,
        body=trace.body,
        created_at=_at(30),
    )
    return records.model_copy(update={"session": session, "traces": (stored,)}), trace


def _judged_later(records: SessionRecords) -> tuple[SessionRecords, list[AttemptBinding]]:
    """Every answer of a sealed session judged later: verdicts recorded, bindings made."""
    assert records.session.sealed_trace_id is not None
    verdicts = tuple(_verdict(a, i == 0, 40 + i) for i, a in enumerate(records.attempts))
    bindings = [
        new_binding(v.attempt_id, v.id, records.session.sealed_trace_id, _at(50)) for v in verdicts
    ]
    return records.model_copy(update={"verdicts": verdicts}), bindings


def _bound(records: SessionRecords, bindings: list[AttemptBinding], **changes: object) -> object:
    fields: dict[str, object] = {
        "config_digest": CONFIG_DIGEST,
        "sealed_at": _at(55),
        "note_snapshot_digest": NOTE_DIGEST,
    }
    fields.update(changes)
    return build_bound_trace_input(records, bindings, **fields)  # type: ignore[arg-type]


# --- determinism ----------------------------------------------------------------------------

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1)
_answers = st.lists(_text.filter(lambda t: t.strip() != ""), min_size=1, max_size=4)


@settings(max_examples=60, deadline=None)
@given(answers=_answers, seed=st.integers(0, 2**16))
def test_sealing_is_deterministic_whatever_the_order_key_order_or_unicode_form(
    answers: list[str], seed: int
) -> None:
    first = _sealed_session(_records(tuple(answers)))[1]
    assert _sealed_session(_records(tuple(answers)))[1] == first  # same records, same ids
    # The records in another order: the same trace.
    shuffled = _records(tuple(answers))
    rng = random.Random(seed)
    challenges, attempts = list(shuffled.challenges), list(shuffled.attempts)
    rng.shuffle(challenges)
    rng.shuffle(attempts)
    reordered = shuffled.model_copy(
        update={"challenges": tuple(challenges), "attempts": tuple(attempts)}
    )
    assert _sealed_session(reordered)[1].trace_id == first.trace_id
    # The answers in the other Unicode normal form: the same ids all the way up.
    nfd = tuple(unicodedata.normalize("NFD", a) for a in answers)
    assert _sealed_session(_records(nfd))[1].trace_id == first.trace_id
    # The input read back from JSON with its keys in another order: the same trace.
    raw = first.input.model_dump(mode="json")
    keys = list(raw)
    rng.shuffle(keys)
    again = PracticeTraceInput.model_validate_json(json.dumps({k: raw[k] for k in keys}))
    assert seal(again) == first
    assert verify_trace(first.body) is None


@settings(max_examples=30, deadline=None)
@given(answers=_answers, other=_text.filter(lambda t: t.strip() != ""))
def test_a_different_answer_gives_a_different_trace(answers: list[str], other: str) -> None:
    changed = [*answers[:-1], answers[-1] + other]
    assert unicodedata.normalize("NFC", changed[-1]) != unicodedata.normalize("NFC", answers[-1])
    first = _sealed_session(_records(tuple(answers)))[1]
    second = _sealed_session(_records(tuple(changed)))[1]
    assert first.trace_id != second.trace_id
    assert first.input.attempt_ids[-1] != second.input.attempt_ids[-1]


def test_the_trace_id_is_the_digest_of_its_canonical_form_with_the_id_blank() -> None:
    trace = _sealed_session(_records())[1]
    blank = {**json.loads(trace.body), "trace_id": ""}
    assert trace.trace_id == digest(blank)
    assert trace.input_digest == digest(trace.input.model_dump(mode="json"))
    assert trace.body == canonical_json(json.loads(trace.body))


_any_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)))
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | _any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_any_text, inner, max_size=4),
    max_leaves=12,
)


def _nfd(value: object) -> object:
    if isinstance(value, str):
        return unicodedata.normalize("NFD", value)
    if isinstance(value, list):
        return [_nfd(v) for v in value]
    if isinstance(value, dict):
        return {_nfd(k): _nfd(v) for k, v in value.items()}  # type: ignore[misc]
    return value


def _reference_digest(value: object) -> str:
    """The digest by its definition: SHA-256 of the (slow, reference) canonical JSON."""
    return hashlib.sha256(digests.canonical_json(value).encode("utf-8")).hexdigest()


@settings(max_examples=300, deadline=None)
@given(value=_json_values)
def test_the_fast_digest_is_exactly_the_canonical_digest(value: object) -> None:
    assert digests.digest(value) == _reference_digest(value)
    assert digests.canonical_text(value) == digests.canonical_json(value)
    decomposed = _nfd(value)
    assert digests.digest(decomposed) == _reference_digest(decomposed)


@settings(max_examples=100, deadline=None)
@given(
    text=_any_text.filter(str.strip),
    answer=_any_text.filter(str.strip),
    position=st.integers(0, 99),
)
def test_ids_recomputed_from_stored_fields_are_the_ids_practice_gave(
    text: str, answer: str, position: int
) -> None:
    challenge = _challenge(position, text)  # made with practice.challenge_id
    attempt = _attempt(challenge, answer, 1)  # made with practice.attempt_id
    assert challenge_content_id(challenge) == challenge.id
    assert attempt_content_id(attempt) == attempt.id
    nfd_challenge = challenge.model_copy(update={"text": unicodedata.normalize("NFD", text)})
    assert challenge_content_id(nfd_challenge) == challenge.id
    verdict = _verdict(attempt, False, 2)  # made with practice.content_id
    assert verdict_id(verdict) == verdict.id


# --- the identity chain ---------------------------------------------------------------------

DESIGN_ORDER = [
    "note_snapshot",
    "config",
    "gap",
    "scheduler_decision",
    "session",
    "challenge",
    "attempt",
    "attempt_binding",
    "verdict",
    "judge_refusal",
]


def test_the_identity_chain_is_in_the_design_order() -> None:
    trace_input = PracticeTraceInput(
        policy_version=POLICY_VERSION,
        kind="bound",
        session_id="s1",
        note_snapshot_digest="n",
        config_digest="c",
        gap_ids=("g1", "g2"),
        scheduler_decision_id="d",
        challenge_ids=("c1", "c2"),
        attempt_ids=("a1",),
        attempt_binding_ids=("b1",),
        verdict_ids=("v1",),
        judge_refusal_ids=("r1", "r2"),
        disposition=Disposition.ALL_PASSED,
        original_trace_id="t0",
        sealed_at=T0,
    )
    chain = identity_chain(trace_input)
    assert [(link.kind, link.id) for link in chain] == [
        ("note_snapshot", "n"),
        ("config", "c"),
        ("gap", "g1"),
        ("gap", "g2"),
        ("scheduler_decision", "d"),
        ("session", "s1"),
        ("challenge", "c1"),
        ("challenge", "c2"),
        ("attempt", "a1"),
        ("attempt_binding", "b1"),
        ("verdict", "v1"),
        ("judge_refusal", "r1"),
        ("judge_refusal", "r2"),
    ]
    kinds = [link.kind for link in chain]
    assert kinds == sorted(kinds, key=DESIGN_ORDER.index)
    assert seal(trace_input).upstream_identity_chain == chain


def test_a_session_trace_holds_every_record_in_order_and_the_digest_of_each_row() -> None:
    refusal_records = _records()
    refused = refusal_records.model_copy(
        update={"refusals": (_refusal(refusal_records.attempts[1], 20),)}
    )
    trace = _sealed_session(refused)[1]
    assert trace.input.challenge_ids == tuple(c.id for c in refused.challenges)
    assert trace.input.attempt_ids == tuple(a.id for a in refused.attempts)
    assert trace.input.judge_refusal_ids == (refused.refusals[0].id,)
    assert trace.input.attempt_binding_ids == ()
    rows = {SESSION, "4e" * 16, *trace.input.challenge_ids, *trace.input.attempt_ids}
    assert set(trace.input.row_digests) == rows


# --- refusals -------------------------------------------------------------------------------


def _session_refusal(case: str) -> object:
    records = _records()
    a0, a1 = records.attempts
    c0 = records.challenges[0]
    build = build_session_trace_input
    kwargs: dict[str, object] = {"disposition": Disposition.UNJUDGED_OFFLINE, "ended_at": _at(30)}
    if case == "policy":
        return build(records, policy_version=POLICY_VERSION + 1, **kwargs)  # type: ignore[arg-type]
    if case == "sealed":
        records = records.model_copy(update={"session": _session(sealed_trace_id="ab" * 32)})
    elif case == "note":
        return build(records, note_snapshot_digest=digest("other note"), **kwargs)  # type: ignore[arg-type]
    elif case == "broken":
        broken = BrokenRow(table="verdicts", id="ee" * 32, problem="not a verdict")
        records = records.model_copy(update={"broken": (broken,)})
    elif case == "id":
        changed = a0.model_copy(update={"answer": "changed afterwards"})
        records = records.model_copy(update={"attempts": (changed, a1)})
    elif case == "other_session":
        records = records.model_copy(
            update={"challenges": (*records.challenges, _challenge(5, "?", "0" * 32))}
        )
    elif case == "duplicate":
        records = records.model_copy(update={"challenges": (c0, *records.challenges)})
    elif case == "unknown_challenge":
        records = records.model_copy(update={"challenges": records.challenges[1:]})
    elif case == "unknown_attempt_verdict":
        stranger = _attempt(_challenge(7, "Elsewhere?"), "x", 1)
        records = records.model_copy(update={"verdicts": (_verdict(stranger, True, 20),)})
    elif case == "unknown_attempt_refusal":
        stranger = _attempt(_challenge(7, "Elsewhere?"), "x", 1)
        records = records.model_copy(update={"refusals": (_refusal(stranger, 20),)})
    elif case == "outbox":
        records = records.model_copy(update={"verdicts": (_verdict(a0, True, 20, "0b" * 16),)})
    elif case == "binding_before_seal":
        binding = new_binding(a0.id, "ee" * 32, "ab" * 32, _at(40))
        records = records.model_copy(
            update={"bindings": (StoredBinding(binding=binding, bound_trace_id=None),)}
        )
    return build(records, **kwargs)  # type: ignore[arg-type]


def _bound_refusal(case: str) -> object:
    records, _ = _sealed_session(_records())
    judged, bindings = _judged_later(records)
    a0 = judged.attempts[0]
    trace_id = judged.session.sealed_trace_id
    assert trace_id is not None
    if case == "policy":
        return _bound(judged, bindings, policy_version=POLICY_VERSION + 1)
    if case == "unsealed":
        return _bound(_records(), bindings)
    if case == "no_original":
        return _bound(judged.model_copy(update={"traces": ()}), bindings)
    if case == "note":
        return _bound(judged, bindings, note_snapshot_digest=digest("edited note"))
    if case == "none":
        return _bound(judged, [])
    if case == "unknown_attempt":
        stranger = _attempt(_challenge(7, "Elsewhere?"), "x", 1)
        return _bound(judged, [new_binding(stranger.id, judged.verdicts[0].id, trace_id, _at(50))])
    if case == "unknown_verdict":
        return _bound(judged, [new_binding(a0.id, "ee" * 32, trace_id, _at(50))])
    if case == "verdict_mismatch":
        return _bound(judged, [new_binding(a0.id, judged.verdicts[1].id, trace_id, _at(50))])
    if case == "other_trace":
        return _bound(judged, [new_binding(a0.id, judged.verdicts[0].id, "cd" * 32, _at(50))])
    if case == "id":
        return _bound(judged, [bindings[0].model_copy(update={"created_at": _at(51)})])
    if case == "twice":
        again = new_binding(a0.id, judged.verdicts[0].id, trace_id, _at(51))
        return _bound(judged, [bindings[0], again])
    if case == "in_session":  # judged when the session was sealed: nothing to bind
        verdict = _verdict(a0, True, 20)
        in_session = _records().model_copy(update={"verdicts": (verdict,)})
        sealed, _ = _sealed_session(in_session)
        binding = new_binding(a0.id, verdict.id, sealed.session.sealed_trace_id or "", _at(50))
        return _bound(sealed, [binding])
    if case == "refusal":
        return _bound(judged, bindings, judge_refusal_ids=["ff" * 32])
    raise AssertionError(case)


REFUSALS: list[tuple[str, str, TraceRefusalReason]] = [
    ("session", "policy", R.UNSUPPORTED_POLICY_VERSION),
    ("session", "sealed", R.ALREADY_SEALED),
    ("session", "note", R.NOTE_DIGEST_MISMATCH),
    ("session", "broken", R.UNREADABLE_RECORD),
    ("session", "id", R.RECORD_ID_MISMATCH),
    ("session", "other_session", R.RECORD_FROM_OTHER_SESSION),
    ("session", "duplicate", R.DUPLICATE_RECORD),
    ("session", "unknown_challenge", R.ATTEMPT_FOR_UNKNOWN_CHALLENGE),
    ("session", "unknown_attempt_verdict", R.VERDICT_FOR_UNKNOWN_ATTEMPT),
    ("session", "unknown_attempt_refusal", R.REFUSAL_FOR_UNKNOWN_ATTEMPT),
    ("session", "outbox", R.MISSING_OUTBOX_RECORD),
    ("session", "binding_before_seal", R.SESSION_NOT_SEALED),
    ("bound", "policy", R.UNSUPPORTED_POLICY_VERSION),
    ("bound", "unsealed", R.SESSION_NOT_SEALED),
    ("bound", "no_original", R.MISSING_ORIGINAL_TRACE),
    ("bound", "note", R.NOTE_DIGEST_MISMATCH),
    ("bound", "none", R.NO_BINDINGS),
    ("bound", "unknown_attempt", R.BINDING_FOR_UNKNOWN_ATTEMPT),
    ("bound", "unknown_verdict", R.BINDING_FOR_UNKNOWN_VERDICT),
    ("bound", "verdict_mismatch", R.BINDING_VERDICT_MISMATCH),
    ("bound", "other_trace", R.ORIGINAL_TRACE_MISMATCH),
    ("bound", "id", R.RECORD_ID_MISMATCH),
    ("bound", "twice", R.ATTEMPT_ALREADY_JUDGED),
    ("bound", "in_session", R.ATTEMPT_ALREADY_JUDGED),
    ("bound", "refusal", R.REFUSAL_FOR_UNKNOWN_ATTEMPT),
]


@pytest.mark.parametrize(("path", "case", "code"), REFUSALS)
def test_inputs_that_do_not_hang_together_are_refused_with_a_reason_code(
    path: str, case: str, code: TraceRefusalReason
) -> None:
    result = _session_refusal(case) if path == "session" else _bound_refusal(case)
    assert isinstance(result, TraceRefusal), result
    assert result.reason_code is code
    assert result.detail


def test_every_refusal_code_is_exercised() -> None:
    assert {code for _, _, code in REFUSALS} == set(TraceRefusalReason)


def test_a_refused_policy_version_says_to_update_coach() -> None:
    result = _session_refusal("policy")
    assert isinstance(result, TraceRefusal) and "update Coach" in result.detail


# --- bound traces ---------------------------------------------------------------------------


def test_a_bound_trace_carries_the_bindings_and_leaves_the_original_as_it_was() -> None:
    records, original = _sealed_session(_records())
    before = original.body
    judged, bindings = _judged_later(records)
    built = _bound(judged, list(reversed(bindings)))
    assert isinstance(built, PracticeTraceInput), built
    bound = seal(built)
    assert bound.input.kind == "bound" and bound.input.original_trace_id == original.trace_id
    assert bound.input.attempt_binding_ids == tuple(b.id for b in bindings)  # answer order
    assert bound.input.attempt_ids == tuple(a.id for a in records.attempts)
    assert bound.input.verdict_ids == tuple(v.id for v in judged.verdicts)
    assert bound.input.disposition is Disposition.GAPS_FOUND  # the second answer had a gap
    assert verify_trace(bound.body) is None
    assert original.body == before and verify_trace(original.body) is None
    assert bound.trace_id != original.trace_id


def test_answers_count_as_judged_through_their_binding_not_their_row() -> None:
    records, _ = _sealed_session(_records())
    judged, bindings = _judged_later(records)
    assert [s.judged for s in attempt_states(records)] == [False, False]
    dangling = attempt_states(judged)  # verdicts recorded, bindings not yet (a crash)
    assert [s.judged for s in dangling] == [False, False]
    assert [s.dangling for s in dangling] == list(judged.verdicts)
    stored = tuple(StoredBinding(binding=b, bound_trace_id="be" * 32) for b in bindings)
    bound = attempt_states(judged.model_copy(update={"bindings": stored}))
    assert [s.verdict for s in bound] == list(judged.verdicts)
    assert all(s.attempt.status == "unjudged" for s in bound)  # the sealed row never changed


# --- checking a stored trace ----------------------------------------------------------------


def _tampered(body: str, change: object) -> str:
    data = json.loads(body)
    change(data)  # type: ignore[operator]
    return canonical_json(data)


def test_verify_trace_names_what_does_not_match() -> None:
    body = _sealed_session(_records())[1].body
    assert verify_trace(body) is None

    def answer_added(data: dict) -> None:  # type: ignore[type-arg]
        data["input"]["attempt_ids"].append("ff" * 32)

    def chain_reordered(data: dict) -> None:  # type: ignore[type-arg]
        data["upstream_identity_chain"].reverse()

    def digest_redone(data: dict) -> None:  # type: ignore[type-arg]
        data["input"]["disposition"] = "all_passed"
        data["input_digest"] = digest(data["input"])

    def newer_policy(data: dict) -> None:  # type: ignore[type-arg]
        data["input"]["policy_version"] = POLICY_VERSION + 1

    assert verify_trace(_tampered(body, answer_added)) is VerifyFailure.DIGEST_MISMATCH
    assert verify_trace(_tampered(body, chain_reordered)) is VerifyFailure.BROKEN_CHAIN
    assert verify_trace(_tampered(body, digest_redone)) is VerifyFailure.DIGEST_MISMATCH
    assert verify_trace(_tampered(body, newer_policy)) is VerifyFailure.UNSUPPORTED_POLICY_VERSION
    assert verify_trace(json.dumps(json.loads(body), indent=1)) is VerifyFailure.DIGEST_MISMATCH
    assert verify_trace(body[:-1]) is VerifyFailure.DIGEST_MISMATCH
    assert verify_trace("[]") is VerifyFailure.DIGEST_MISMATCH


def test_adr_0014_digests_are_over_nfc_text_and_every_other_change_shows() -> None:
    """An NFC/NFD rewrite is the same text (ADR 0014); any other change of a character is
    not. The journal keeps the exact bytes; only the seal is taken over NFC."""
    nfc = {"answer": "Caf\u00e9 cr\u00e8me, na\u00efve"}
    nfd = {"answer": unicodedata.normalize("NFD", nfc["answer"])}
    assert nfd != nfc and digest(nfd) == digest(nfc)
    for changed in (
        "Cafe cr\u00e8me, na\u00efve",
        "Caf\u00e9 cr\u00e8me, naive",
        "Caf\u00e9 cr\u00e8me,  na\u00efve",
    ):
        assert digest({"answer": changed}) != digest(nfc)
