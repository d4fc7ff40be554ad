"""The paired eval's figures, verdict rule, report identity and signature, and the harness
over in-memory ports (issue 6)."""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from fakes.assessing import assessed_for
from fakes.in_ram import TickingClock

from coach_gui.domain.eval_traces import (
    EvalChildTrace,
    inspect_child,
    key_id_for,
    sign,
    signature_matches,
)
from coach_gui.domain.evals import (
    CallResult,
    ChildRef,
    EvalReport,
    ItemRef,
    arm_figures,
    build_report,
    cohen_kappa,
    fleiss_kappa,
    jaccard,
    judge_agreement,
    percentile,
    report_id,
)
from coach_gui.domain.judge_errors import JudgeQuotaExceeded
from coach_gui.domain.tier2 import Tier2Payload
from coach_gui.domain.traces import VerifyFailure
from coach_gui.domain.verdicts import Assessment, JudgeResponse
from coach_gui.services.eval_verify import EvalCheckFailed, check_eval_run
from coach_gui.services.evals import (
    AssertionsSwitchedOff,
    EvalItem,
    NothingToEvaluate,
    run_eval,
)

GAP = (0, "unexplained")


def _call(
    arm: str, repeat: int, item: int, status: str, gaps: tuple[tuple[int | None, str], ...] = ()
) -> CallResult:
    return CallResult.model_validate(
        {
            "arm": arm,
            "repeat": repeat,
            "item": item,
            "status": status,
            "gaps": gaps,
            "tokens_in": 10,
            "tokens_out": 3,
            "latency_ms": 100 + 10 * repeat + item,
        }
    )


def test_jaccard_edge_cases() -> None:
    assert jaccard(frozenset(), frozenset()) == 1.0  # two empty gap sets agree
    assert jaccard(frozenset({GAP}), frozenset()) == 0.0
    assert jaccard(frozenset({GAP, (1, "wrong")}), frozenset({GAP})) == 0.5
    assert jaccard(frozenset({GAP}), frozenset({GAP})) == 1.0


def test_nearest_rank_percentiles() -> None:
    assert percentile([], 0.5) is None
    assert percentile([7], 0.95) == 7
    assert percentile([40, 10, 30, 20], 0.5) == 20
    assert percentile(list(range(1, 101)), 0.95) == 95


def test_figures_from_scripted_results() -> None:
    results = [
        # item 0: pass, pass, pass (consistent)
        *(_call("assertions_off", r, 0, "pass") for r in range(3)),
        # item 1: pass, fail, pass (one flip: 2 of 3 pairs disagree)
        _call("assertions_off", 0, 1, "pass"),
        _call("assertions_off", 1, 1, "fail", (GAP,)),
        _call("assertions_off", 2, 1, "pass"),
        # item 2: an error in one repeat: counted, never a fail, left out of consistency
        _call("assertions_off", 0, 2, "fail", (GAP,)),
        _call("assertions_off", 1, 2, "error"),
        _call("assertions_off", 2, 2, "fail", (GAP,)),
    ]
    figures = arm_figures("assertions_off", results, repeats=3, items=3)
    assert (figures.calls, figures.passed, figures.failed, figures.errors) == (9, 5, 3, 1)
    assert figures.pass_rate == round(5 / 8, 4)  # over calls that returned a verdict
    assert (figures.items_compared, figures.items_incomplete) == (2, 1)
    assert figures.consistency == 0.5 and figures.consistent_items == 1
    assert figures.flip_rate == round((0 + 2 / 3) / 2, 4)
    assert figures.gap_agreement == round((1 + 1 / 3) / 2, 4)
    assert (figures.tokens_in, figures.tokens_out) == (90, 27)
    # nearest rank over the 8 calls with a verdict: 100 101 102 110 | 111 120 121 122
    assert figures.latency_ms_p50 == 110 and figures.latency_ms_p95 == 122
    as_json = figures.model_dump(mode="json", by_alias=True)
    assert {"pass", "fail", "error", "pass_rate", "consistency", "gap_agreement"} <= set(as_json)


def _report(
    on: Sequence[str], off: Sequence[str], repeats: int = 2, sampling: dict[str, Any] | None = None
) -> EvalReport:
    results = [
        _call(arm, r, 0, status)
        for arm, statuses in (("assertions_on", on), ("assertions_off", off))
        for r, status in enumerate(statuses)
    ]
    children = [
        ChildRef(arm=c.arm, repeat=c.repeat, item=c.item, status=c.status, trace_id=f"{n:064x}")
        for n, c in enumerate(results)
    ]
    return build_report(
        results,
        children,
        item_refs=[ItemRef(session_id="s", attempt_id="a")],
        repeats=repeats,
        concurrency=1,
        judge_model="m",
        created_at="2026-11-01T09:00:00+00:00",
        run_nonce="n",
        calls_planned=2 * repeats,
        sampling=sampling,
    )


@pytest.mark.parametrize(
    ("on", "off", "verdict"),
    [
        (["pass", "pass"], ["pass", "fail"], "pass"),  # more consistent with assertions
        (["pass", "fail"], ["fail", "pass"], "pass"),  # equally inconsistent: a tie passes
        (["fail", "fail"], ["pass", "pass"], "pass"),  # tie at 100 %: at least as consistent
        (["pass", "fail"], ["fail", "fail"], "fail"),  # less consistent with assertions
        (["error", "pass"], ["pass", "pass"], "fail"),  # nothing compared in one arm
    ],
)
def test_the_verdict_rule(on: list[str], off: list[str], verdict: str) -> None:
    report = _report(on, off)
    assert report.verdict == verdict
    assert f"Verdict: {verdict}" in report.summary


def test_report_id_and_canonical_form_round_trip() -> None:
    report = _report(["pass", "pass"], ["pass", "fail"])
    assert report.eval_run_id == report_id(report) and len(report.eval_run_id) == 64
    again = EvalReport.model_validate_json(report.canonical())
    assert again == report and again.canonical() == report.canonical()
    data = report.to_json()
    assert {"eval_run_id", "repeats", "items", "verdict", "summary", "arms", "delta"} <= set(data)
    assert data["delta"]["consistency"] == 1.0 and data["items"] == 1
    changed = report.model_copy(update={"verdict": "fail"})
    assert report_id(changed) != report.eval_run_id
    assert _report(["pass", "pass"], ["pass", "pass"], repeats=2).partial is False


def test_signature_and_key_id() -> None:
    key = bytes(range(32))
    text = _report(["pass", "pass"], ["pass", "fail"]).canonical()
    signature = sign(text, key)
    assert signature_matches(text, key, signature)
    assert not signature_matches(text.replace("pass", "fail", 1), key, signature)
    assert not signature_matches(text, bytes(32), signature)
    assert len(key_id_for(key)) == 16 and key.hex() not in key_id_for(key)


# --- the harness over in-memory ports -------------------------------------------------------


class _FlakyWithoutAssertions:
    """Passes every item sent with assertions; without them, fails the second call on each
    answer. Raises quota for answers containing "quota" (an error, not a fail)."""

    def __init__(self) -> None:
        self.payloads: list[Tier2Payload] = []
        self._lock = threading.Lock()
        self._seen: dict[str, int] = {}

    def judge(self, payload: Tier2Payload) -> JudgeResponse:
        (item,) = payload.items
        with self._lock:
            self.payloads.append(payload)
            seen = self._seen.get(item.answer, 0)
            self._seen[item.answer] = seen + (item.core_assertions is None)
        if "quota" in item.answer:
            raise JudgeQuotaExceeded()
        fail = item.core_assertions is None and seen == 1
        gaps = [{"assertion": None, "problem": "wrong", "explanation": "no"}] if fail else []
        text = assessed_for(json.dumps(
            {"items": [{"index": 0, "verdict": "fail" if fail else "pass", "gaps": gaps,
                        "feedback": "ok"}]}
        ), payload)  # fmt: skip
        return JudgeResponse(
            raw_text=text,
            model="m",
            tokens_in=5,
            tokens_out=2,
            latency_ms=9,
            request_body="{}",
            outbox_id=None,
        )


class _Store:
    def __init__(self) -> None:
        self.runs: list[tuple[EvalReport, str, str, list[EvalChildTrace]]] = []

    def store_run(
        self, report: EvalReport, signature: str, key_id: str, traces: Sequence[EvalChildTrace]
    ) -> None:
        self.runs.append((report, signature, key_id, list(traces)))

    def outbox_digest(self, outbox_id: str) -> str | None:
        return None  # these judges record no outbox


class _Keys:
    key = b"k" * 32

    def signing_key(self) -> tuple[str, bytes]:
        return key_id_for(self.key), self.key

    def key_for(self, key_id: str) -> bytes | None:
        return self.key if key_id == key_id_for(self.key) else None


def _items(*answers: str) -> list[EvalItem]:
    return [
        EvalItem(f"s{n}", f"a{n}", "Why?", answer, ("Assertion one.", "Assertion two."))
        for n, answer in enumerate(answers)
    ]


def _run(judge: _FlakyWithoutAssertions, items: list[EvalItem], **kwargs: object) -> _Store:
    store = _Store()
    run_eval(
        items,
        judge=judge,
        clock=TickingClock(),
        store=store,
        keys=_Keys(),
        repeats=3,
        concurrency=kwargs.pop("concurrency", 3),  # type: ignore[arg-type]
        include_assertions=kwargs.pop("include_assertions", True),  # type: ignore[arg-type]
        judge_model="m",
        **kwargs,  # type: ignore[arg-type]
    )
    return store


def test_harness_judges_each_item_in_both_arms_and_counts_errors_apart() -> None:
    judge = _FlakyWithoutAssertions()
    progress: list[tuple[int, int]] = []
    store = _run(
        judge,
        _items("one", "two", "quota please"),
        on_progress=lambda d, t: progress.append((d, t)),
    )
    ((report, signature, key_id, traces),) = store.runs
    on, off = report.arm("assertions_on"), report.arm("assertions_off")
    assert (on.passed, on.failed, on.errors) == (6, 0, 3)
    assert (off.passed, off.failed, off.errors) == (4, 2, 3)
    assert (on.consistency, off.consistency) == (1.0, 0.0) and report.verdict == "pass"
    assert on.items_incomplete == off.items_incomplete == 1
    assert len(traces) == len(report.children) == 18 and not report.partial
    assert sorted(progress)[-1] == (18, 18)
    sent_with = [p for p in judge.payloads if p.carries_assertions]
    assert len(sent_with) == 9 and len(judge.payloads) == 18
    assert all(len(p.items) == 1 for p in judge.payloads)  # one answer per request, as practice
    assert all(isinstance(inspect_child(t.body), EvalChildTrace) for t in traces)
    assert signature == sign(report.canonical(), _Keys.key) and key_id == key_id_for(_Keys.key)


def test_cancel_keeps_what_finished_as_a_partial_report() -> None:
    judge = _FlakyWithoutAssertions()
    stop = threading.Event()

    def progress(done: int, total: int) -> None:
        if done >= 4:
            stop.set()

    store = _run(judge, _items("one", "two"), concurrency=1, on_progress=progress, cancelled=stop)
    ((report, _, _, traces),) = store.runs
    assert report.partial and report.calls_done == len(traces) == 4 and report.calls_planned == 12
    assert len(judge.payloads) == 4
    assert "stopped early" in report.summary


def test_refusals_send_nothing() -> None:
    judge = _FlakyWithoutAssertions()
    with pytest.raises(AssertionsSwitchedOff, match="includeAssertions") as refused:
        _run(judge, _items("one"), include_assertions=False)
    assert "“Send core assertions” is off" in refused.value.learner_text  # the window's words
    assert "includeAssertions" not in refused.value.learner_text
    with pytest.raises(NothingToEvaluate):
        _run(judge, [])
    assert judge.payloads == []


class _Reader:
    def __init__(self, store: _Store) -> None:
        report, signature, key_id, traces = store.runs[0]
        from coach_gui.domain.eval_traces import StoredEvalChild, StoredEvalRun
        from coach_gui.domain.session_records import StoredTrace

        self.run = StoredEvalRun(
            id=report.eval_run_id,
            created_at=report.created_at,
            repeats=report.repeats,
            report=report.canonical(),
            signature=signature,
            key_id=key_id,
        )
        self.children = [
            StoredEvalChild(
                eval_run_id=report.eval_run_id,
                trace_id=t.trace_id,
                arm=t.input.arm,
                repeat=t.input.repeat,
                item=t.input.item,
            )
            for t in traces
        ]
        self.traces = {
            t.trace_id: StoredTrace(
                trace_id=t.trace_id,
                session_id=None,
                kind="eval_child",
                input_digest=t.input_digest,
                body=t.body,
                created_at=t.input.sealed_at,
            )
            for t in traces
        }

    def eval_run(self, eval_run_id: str) -> object:
        return self.run if eval_run_id == self.run.id else None

    def eval_run_ids(self) -> list[str]:
        return [self.run.id]

    def eval_children(self, eval_run_id: str) -> list[object]:
        return list(self.children)

    def trace_row(self, trace_id: str) -> object:
        return self.traces.get(trace_id)


def test_verification_names_what_changed() -> None:
    reader = _Reader(_run(_FlakyWithoutAssertions(), _items("one", "two")))
    run_id = reader.run.id
    assert check_eval_run(reader, _Keys(), run_id) == 13  # type: ignore[arg-type]

    class _NoKey(_Keys):
        def key_for(self, key_id: str) -> bytes | None:
            return None

    with pytest.raises(EvalCheckFailed) as failed:
        check_eval_run(reader, _NoKey(), run_id)  # type: ignore[arg-type]
    assert failed.value.reason.startswith("signing key missing")

    original = reader.run
    reader.run = original.model_copy(
        update={"report": original.report.replace('"pass"', '"fail"', 1)}
    )
    with pytest.raises(EvalCheckFailed) as failed:
        check_eval_run(reader, _Keys(), run_id)  # type: ignore[arg-type]
    assert (failed.value.record_id, failed.value.reason) == (run_id, "bad signature")
    reader.run = original

    child = reader.children[0].trace_id
    row = reader.traces[child]
    reader.traces[child] = row.model_copy(update={"body": row.body.replace('"m"', '"x"', 1)})
    with pytest.raises(EvalCheckFailed) as failed:
        check_eval_run(reader, _Keys(), run_id)  # type: ignore[arg-type]
    assert (failed.value.record_id, failed.value.reason) == (child, VerifyFailure.DIGEST_MISMATCH)
    del reader.traces[child]
    with pytest.raises(EvalCheckFailed) as failed:
        check_eval_run(reader, _Keys(), run_id)  # type: ignore[arg-type]
    assert (failed.value.record_id, failed.value.reason) == (child, "missing record")


def test_a_first_key_overwritten_by_a_concurrent_eval_still_signs_verifiably() -> None:
    """Two evals started at once on a keyring with no signing key each create one; the
    keyring keeps the last written. The report is signed with the key the keyring holds
    when it is stored, so verify (which looks the key up there) passes."""

    class _Overwritten(_Keys):
        def __init__(self) -> None:
            self.held = b"a" * 32  # this run created key A...

        def signing_key(self) -> tuple[str, bytes]:
            held, self.held = self.held, b"b" * 32  # ...then the other run wrote key B
            return key_id_for(held), held

        def key_for(self, key_id: str) -> bytes | None:
            return self.held if key_id == key_id_for(self.held) else None

    keys, store = _Overwritten(), _Store()
    run_eval(
        _items("one"), judge=_FlakyWithoutAssertions(), clock=TickingClock(), store=store,
        keys=keys, repeats=2, concurrency=1, include_assertions=True, judge_model="m",
    )  # fmt: skip
    ((report, signature, key_id, _traces),) = store.runs
    assert keys.key_for(key_id) is not None
    assert signature_matches(report.canonical(), keys.held, signature)


# --- per-assertion figures ------------------------------------------------------------------

# Fleiss (1971) as worked in most textbooks: 10 subjects, 14 raters, 5 categories, kappa 0.210.
_FLEISS_TABLE = [
    (0, 0, 0, 0, 14), (0, 2, 6, 4, 2), (0, 0, 3, 5, 6), (0, 3, 9, 2, 0), (2, 2, 8, 1, 1),
    (7, 7, 0, 0, 0), (3, 2, 6, 3, 0), (2, 5, 3, 2, 2), (6, 5, 2, 1, 0), (0, 2, 2, 3, 7),
]  # fmt: skip


def test_fleiss_kappa_matches_the_worked_example() -> None:
    categories = "abcde"
    ratings = [
        [c for c, n in zip(categories, row, strict=True) for _ in range(n)] for row in _FLEISS_TABLE
    ]
    assert fleiss_kappa(ratings, categories) == 0.2099


def test_fleiss_kappa_is_one_for_perfect_agreement_and_undefined_without_variety() -> None:
    assert fleiss_kappa([["a", "a"], ["b", "b"]], "ab") == 1.0
    assert fleiss_kappa([["a", "a"], ["a", "a"]], "ab") is None  # chance agreement is total
    assert fleiss_kappa([["a"], ["b"]], "ab") is None  # one rater
    assert fleiss_kappa([], "ab") is None
    assert fleiss_kappa([["a", "b"], ["b", "a"]], "ab") == -1.0  # systematic disagreement


def _assessed(
    arm: str, repeat: int, item: int, *statuses: str, cite: str = "slow change"
) -> CallResult:
    assessments = tuple(
        Assessment(
            assertion=n, status=s, evidence=() if s == "unexplained" else (cite,), reason="r"
        )
        for n, s in enumerate(statuses)
    )
    status = "pass" if all(s == "explained" for s in statuses) else "fail"
    return _call(arm, repeat, item, status).model_copy(update={"assessments": assessments})


def test_per_assertion_figures_compare_each_key_point_across_repeats() -> None:
    results = [
        _assessed("assertions_on", 0, 0, "explained", "unexplained"),
        _assessed("assertions_on", 1, 0, "explained", "explained", cite="Slow  CHANGE"),
        _assessed("assertions_on", 0, 1, "wrong", "explained"),
        _assessed("assertions_on", 1, 1, "wrong", "explained", cite="slow change indeed"),
    ]
    figures = arm_figures("assertions_on", results, repeats=2, items=2)
    assert figures.assertion_pairs_compared == 4
    assert figures.assertion_agreement == 0.75  # item 0's key point 2 changed
    # Item 0: {slow, change} both times (folded): 1.0; key point 2 cited once: 0.0;
    # item 1: {slow, change} vs {slow, change, indeed}: 2/3, twice.
    assert figures.evidence_stability == round((1.0 + 0.0 + 2 / 3 + 2 / 3) / 4, 4)
    assert (figures.assessments, figures.downgrades, figures.downgrade_rate) == (8, 0, 0.0)
    assert figures.assertion_kappa is not None and 0 < figures.assertion_kappa < 1


def test_an_arm_without_assessments_carries_no_per_assertion_figures() -> None:
    figures = arm_figures("assertions_off", [_call("assertions_off", 0, 0, "pass")], 1, 1)
    assert figures.assessments is None
    dumped = figures.model_dump(mode="json", by_alias=True)
    assert "assertion_agreement" not in dumped and "downgrades" not in dumped


def test_a_report_records_how_the_judge_sampled_and_warns_of_a_fixed_seed() -> None:
    sampling = {"judge_temperature": 0.0, "judge_seed": 7, "judge_thinking_budget": 0}
    report = _report(["pass", "pass"], ["pass", "fail"], sampling=sampling)
    assert report.to_json()["judge_sampling"] == sampling
    assert "fixed seed (7)" in report.summary
    unseeded = _report(
        ["pass", "pass"], ["pass", "fail"], sampling={**sampling, "judge_seed": None}
    )
    assert "seed" not in unseeded.summary
    assert "judge_sampling" not in _report(["pass"], ["pass"], repeats=1).to_json()  # as before


def test_cohen_kappa_matches_a_worked_example_and_its_edge_cases() -> None:
    # 50 subjects, two raters: 20 yes/yes, 15 no/no, 5 yes/no, 10 no/yes -> kappa 0.4.
    first = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    second = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(first, second, ("yes", "no")) == 0.4
    assert cohen_kappa([], [], ("yes", "no")) is None
    assert cohen_kappa(["yes", "yes"], ["yes", "yes"], ("yes", "no")) is None  # no variety


def test_two_judges_agree_on_each_key_points_most_frequent_status_a_tie_counting_worse() -> None:
    def call(arm: str, repeat: int, *statuses: str) -> CallResult:
        return _assessed(arm, repeat, 0, *statuses)

    results = [
        call("judge_local", 0, "explained", "explained"),
        call("judge_local", 1, "explained", "unexplained"),  # key point 2: a tie -> unexplained
        call("judge_gemini", 0, "explained", "unexplained"),
        call("judge_gemini", 1, "explained", "unexplained"),
    ]
    agreement = judge_agreement(results, repeats=2)
    assert (agreement.pairs_compared, agreement.status_agreement) == (2, 1.0)
    assert (agreement.items_compared, agreement.verdict_agreement) == (1, 1.0)  # fail, fail
    report = build_report(
        results, [], item_refs=[ItemRef(session_id="s", attempt_id="a")], repeats=2,
        concurrency=1, judge_model="m", created_at="t", run_nonce="n", calls_planned=4,
        kind="judges",
    )  # fmt: skip
    assert report.verdict == "pass" and report.judge_agreement == agreement
    assert [a.arm for a in report.arms] == ["judge_local", "judge_gemini"]
    assert report.to_json()["kind"] == "judges"
    assert "kind" not in _report(["pass"], ["pass"], repeats=1).to_json()  # as before


def test_the_judges_verdict_is_exact_at_the_bar_and_wants_agreement_beyond_chance() -> None:
    from coach_gui.domain.evals import JudgeAgreement, judges_verdict

    def agreement(agreed: int, compared: int, kappa: float | None) -> JudgeAgreement:
        return JudgeAgreement(pairs_compared=compared, pairs_agreed=agreed,
                              status_agreement=round(agreed / compared, 4), kappa=kappa,
                              items_compared=1, verdict_agreement=1.0)  # fmt: skip

    assert judges_verdict(agreement(9601, 12002, 0.7)) == "fail"  # 79.996%: below the bar
    assert judges_verdict(agreement(9602, 12002, 0.7)) == "pass"
    assert judges_verdict(agreement(9, 10, 0.0)) == "fail"  # 90%, but only by chance
    assert judges_verdict(agreement(10, 10, None)) == "pass"  # one status throughout
