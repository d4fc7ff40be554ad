"""The paired eval's figures and report (DESIGN §7–8, ADR 0014 shape): the same answers
judged R times with core assertions (`assertions_on`) and without (`assertions_off`).

Rules a reader of the report relies on:
- An error (quota, timeout, server error, malformed reply) is never a fail: pass rate is
  passes over calls that returned a verdict.
- Consistency, gap agreement and flip rate compare the R repeats of one answer, so they
  are measured only on answers whose R repeats in that arm all returned a verdict; an
  answer with an error (or a repeat left out by a cancel) in some repeat is counted in
  `items_incomplete` and left out, rather than compared over fewer repeats.
- Gap sets compare gaps by (assertion index, problem). Without assertions every gap names
  no assertion, so that arm's sets tell only the kinds of problem apart. Two empty sets
  agree (Jaccard 1.0).
- Flip rate: the share of pairs of repeats of one answer whose verdicts differ (the chance
  that two runs on the same answer disagree). Latency percentiles are nearest-rank over
  the calls that returned a verdict.
- Per assertion (DESIGN §4; only calls that sent assertions have assessments): over the
  (answer, assertion) pairs whose R repeats all returned a verdict, `assertion_agreement`
  is the share whose status (explained, unexplained, wrong) was the same every time, and
  `assertion_kappa` is Fleiss' kappa of those statuses with the repeats as raters (None
  with one repeat, or when every repeat gave every pair the same status, where kappa is
  undefined and agreement says 1.0). `evidence_stability` is the mean Jaccard overlap,
  between repeats, of the answer's words the judge cited for an assertion, over the pairs
  where some repeat cited any. `downgrades` counts assessments the domain overruled (an
  explained or wrong citing nothing found in the answer), `downgrade_rate` their share of
  all assessments in the arm. Arms (and reports) without assessments carry none of these.
- Verdict `pass` when `assertions_on` is at least as consistent as `assertions_off`
  (compared exactly, as fractions); `fail` otherwise, or when either arm compared nothing.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations
from typing import Any, Literal

from pydantic import ConfigDict, Field

from coach_gui.domain.digests import canonical_text, digest
from coach_gui.domain.eval_traces import ARMS, JUDGE_ARMS, Arm, CallStatus, EvalChildTrace
from coach_gui.domain.evidence import folded
from coach_gui.domain.records import Record
from coach_gui.domain.verdicts import Assessment, Status

_ROUND = 4
STATUSES: tuple[Status, ...] = ("explained", "unexplained", "wrong")


def _absent(value: object) -> bool:
    return value is None


class CallResult(Record):
    """One (arm, repeat, item) judge call as the figures see it."""

    arm: Arm
    repeat: int
    item: int
    status: CallStatus
    gaps: tuple[tuple[int | None, str], ...] = ()  # (assertion index, problem)
    assessments: tuple[Assessment, ...] = ()
    tokens_in: int | None = None
    tokens_out: int | None = None
    latency_ms: int | None = None

    @classmethod
    def from_child(cls, trace: EvalChildTrace) -> CallResult:
        child = trace.input
        return cls(
            arm=child.arm,
            repeat=child.repeat,
            item=child.item,
            status=child.status,
            gaps=tuple((gap.assertion, gap.problem) for gap in child.gaps),
            assessments=child.assessments,
            tokens_in=child.tokens_in,
            tokens_out=child.tokens_out,
            latency_ms=child.latency_ms,
        )


class ArmFigures(Record):
    model_config = ConfigDict(populate_by_name=True)

    arm: Arm
    calls: int
    passed: int = Field(alias="pass")
    failed: int = Field(alias="fail")
    errors: int = Field(alias="error")
    pass_rate: float | None
    consistency: float | None
    consistent_items: int
    items_compared: int
    items_incomplete: int
    gap_agreement: float | None
    flip_rate: float | None
    tokens_in: int
    tokens_out: int
    latency_ms_p50: int | None
    latency_ms_p95: int | None
    # Per-assertion figures (see the module docstring); left out where there are none, so
    # reports signed before they existed still recompute exactly.
    assertion_pairs_compared: int | None = Field(default=None, exclude_if=_absent)
    assertion_agreement: float | None = Field(default=None, exclude_if=_absent)
    assertion_kappa: float | None = Field(default=None, exclude_if=_absent)
    evidence_stability: float | None = Field(default=None, exclude_if=_absent)
    assessments: int | None = Field(default=None, exclude_if=_absent)
    downgrades: int | None = Field(default=None, exclude_if=_absent)
    downgrade_rate: float | None = Field(default=None, exclude_if=_absent)


class EvalDelta(Record):
    """The first arm minus the second (`assertions_on` minus `assertions_off`, or the judge
    on this computer minus Gemini); None where either side has no figure."""

    pass_rate: float | None
    consistency: float | None
    gap_agreement: float | None
    flip_rate: float | None
    error: int
    tokens_in: int
    tokens_out: int
    latency_ms_p50: int | None


class ItemRef(Record):
    session_id: str
    attempt_id: str


class ChildRef(Record):
    arm: Arm
    repeat: int
    item: int
    status: CallStatus
    trace_id: str


class JudgeAgreement(Record):
    """How far two judges agree on the same answers (a report of kind "judges"): over the
    (answer, key point) pairs both judged in every repeat, the share given the same status
    by both (each judge's status being the one it gave most often; a tie counts as the worse
    status), Cohen's kappa of those statuses, and the share of answers given the same
    verdict (again each judge's most frequent, a tie counting as fail)."""

    pairs_compared: int
    pairs_agreed: int
    status_agreement: float | None
    kappa: float | None
    items_compared: int
    verdict_agreement: float | None


AGREEMENT_BAR = Fraction(4, 5)  # judges agreeing on 80% of key points…
KAPPA_BAR = 0.6  # …and beyond chance ("substantial"): the verdict "pass"


class EvalReport(Record):
    eval_run_id: str
    created_at: str
    run_nonce: str
    repeats: int
    concurrency: int
    items: int
    item_refs: tuple[ItemRef, ...]
    judge_model: str
    partial: bool
    calls_planned: int
    calls_done: int
    verdict: Literal["pass", "fail"]
    summary: str
    arms: tuple[ArmFigures, ...]
    delta: EvalDelta
    children: tuple[ChildRef, ...]
    # How the judge sampled (temperature, seed, thinking budget); absent from reports
    # signed before it was recorded, so they still recompute.
    judge_sampling: dict[str, Any] | None = Field(default=None, exclude_if=_absent)
    # "assertions": with and without core assertions (ADR 0014); "judges": the judge on
    # this computer against Gemini, both with assertions (issue 22). Left out for the
    # first, so reports signed before it existed still recompute.
    kind: Literal["assertions", "judges"] = Field(
        default="assertions", exclude_if=lambda value: value == "assertions"
    )
    judge_agreement: JudgeAgreement | None = Field(default=None, exclude_if=_absent)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)

    def canonical(self) -> str:
        """What the id is the digest of (with the id blank) and the signature covers."""
        return canonical_text(self.to_json())

    def arm(self, name: Arm) -> ArmFigures:
        return next(figures for figures in self.arms if figures.arm == name)


def report_id(report: EvalReport) -> str:
    return digest({**report.to_json(), "eval_run_id": ""})


def jaccard(a: frozenset[Any], b: frozenset[Any]) -> float:
    """|a ∩ b| / |a ∪ b|; two empty sets agree completely."""
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


def percentile(values: Sequence[int], q: float) -> int | None:
    """Nearest-rank percentile (q in 0..1); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _mean(values: Sequence[float]) -> float | None:
    return round(sum(values) / len(values), _ROUND) if values else None


def fleiss_kappa(ratings: Sequence[Sequence[str]], categories: Sequence[str]) -> float | None:
    """Fleiss' kappa of `ratings` (one row per subject, the same number of raters in each,
    at least two); None when there are none or when chance agreement is already total
    (every rating in one category: kappa is undefined)."""
    if not ratings or len(ratings[0]) < 2:
        return None
    raters = len(ratings[0])
    counts = [[row.count(category) for category in categories] for row in ratings]
    shares = [
        sum(row[j] for row in counts) / (len(counts) * raters) for j in range(len(categories))
    ]
    observed = sum(
        (sum(n * n for n in row) - raters) / (raters * (raters - 1)) for row in counts
    ) / len(counts)
    chance = sum(p * p for p in shares)
    if chance >= 1.0:
        return None
    return round((observed - chance) / (1.0 - chance), _ROUND)


def _cited_words(assessment: Assessment) -> frozenset[str]:
    return frozenset(word for span in assessment.evidence for word in folded(span).split())


def _assertion_figures(complete: Sequence[Sequence[CallResult]]) -> dict[str, Any]:
    """The per-assertion figures of one arm's complete answers (module docstring)."""
    statuses: list[list[str]] = []
    stability: list[float] = []
    for calls in complete:  # each in repeat order (`_complete`)
        per_repeat = [{a.assertion: a for a in c.assessments} for c in calls]
        shared = set.intersection(*(set(r) for r in per_repeat)) if per_repeat else set()
        for assertion in sorted(shared):
            seen = [repeat[assertion] for repeat in per_repeat]
            statuses.append([a.status for a in seen])
            words = [_cited_words(a) for a in seen]
            if any(words):
                pairs = list(combinations(words, 2))
                stability.append(
                    sum(jaccard(a, b) for a, b in pairs) / len(pairs) if pairs else 1.0
                )
    return {
        "assertion_pairs_compared": len(statuses),
        "assertion_agreement": _mean([float(len(set(row)) == 1) for row in statuses]),
        "assertion_kappa": fleiss_kappa(statuses, STATUSES),
        "evidence_stability": _mean(stability),
    }


def _complete(results: Sequence[CallResult], arm: Arm, repeats: int) -> dict[int, list[CallResult]]:
    """Per item, the arm's calls in repeat order, for the items whose every repeat returned
    a verdict (the only ones repeats are compared on)."""
    by_item: dict[int, list[CallResult]] = defaultdict(list)
    for result in results:
        if result.arm == arm:
            by_item[result.item].append(result)
    return {
        item: sorted(calls, key=lambda c: c.repeat)
        for item, calls in by_item.items()
        if len({c.repeat for c in calls}) == repeats and all(c.status != "error" for c in calls)
    }


def arm_figures(arm: Arm, results: Sequence[CallResult], repeats: int, items: int) -> ArmFigures:
    mine = [r for r in results if r.arm == arm]
    passed = sum(r.status == "pass" for r in mine)
    failed = sum(r.status == "fail" for r in mine)
    complete = list(_complete(mine, arm, repeats).values())
    same: list[float] = []
    agreement: list[float] = []
    flips: list[float] = []
    for calls in complete:
        verdicts = [c.status for c in calls]
        same.append(float(len(set(verdicts)) == 1))
        pairs = list(combinations(calls, 2))
        if not pairs:  # one repeat: nothing to disagree with
            agreement.append(1.0)
            flips.append(0.0)
            continue
        agreement.append(
            sum(jaccard(frozenset(a.gaps), frozenset(b.gaps)) for a, b in pairs) / len(pairs)
        )
        flips.append(sum(a.status != b.status for a, b in pairs) / len(pairs))
    latencies = [r.latency_ms for r in mine if r.status != "error" and r.latency_ms is not None]
    judged = passed + failed
    assessed = [a for r in mine if r.status != "error" for a in r.assessments]
    per_assertion: dict[str, Any] = {}
    if assessed:
        downgrades = sum(a.downgraded for a in assessed)
        per_assertion = {
            **_assertion_figures(complete),
            "assessments": len(assessed),
            "downgrades": downgrades,
            "downgrade_rate": round(downgrades / len(assessed), _ROUND),
        }
    return ArmFigures.model_validate(
        {
            "arm": arm,
            "calls": len(mine),
            "pass": passed,
            "fail": failed,
            "error": len(mine) - judged,
            "pass_rate": round(passed / judged, _ROUND) if judged else None,
            "consistency": _mean(same),
            "consistent_items": int(sum(same)),
            "items_compared": len(complete),
            "items_incomplete": items - len(complete),
            "gap_agreement": _mean(agreement),
            "flip_rate": _mean(flips),
            "tokens_in": sum(r.tokens_in or 0 for r in mine),
            "tokens_out": sum(r.tokens_out or 0 for r in mine),
            "latency_ms_p50": percentile(latencies, 0.5),
            "latency_ms_p95": percentile(latencies, 0.95),
            **per_assertion,
        }
    )


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, _ROUND)


def delta(on: ArmFigures, off: ArmFigures) -> EvalDelta:
    p50 = None
    if on.latency_ms_p50 is not None and off.latency_ms_p50 is not None:
        p50 = on.latency_ms_p50 - off.latency_ms_p50
    return EvalDelta(
        pass_rate=_minus(on.pass_rate, off.pass_rate),
        consistency=_minus(on.consistency, off.consistency),
        gap_agreement=_minus(on.gap_agreement, off.gap_agreement),
        flip_rate=_minus(on.flip_rate, off.flip_rate),
        error=on.errors - off.errors,
        tokens_in=on.tokens_in - off.tokens_in,
        tokens_out=on.tokens_out - off.tokens_out,
        latency_ms_p50=p50,
    )


def verdict_for(on: ArmFigures, off: ArmFigures) -> Literal["pass", "fail"]:
    """`pass` when the assertions arm is at least as consistent (exact fractions)."""
    if not on.items_compared or not off.items_compared:
        return "fail"
    on_share = Fraction(on.consistent_items, on.items_compared)
    off_share = Fraction(off.consistent_items, off.items_compared)
    return "pass" if on_share >= off_share else "fail"


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _cells(a: ArmFigures) -> list[tuple[str, str]]:
    return [
        ("pass / fail / error", f"{a.passed} / {a.failed} / {a.errors}"),
        ("pass rate", _pct(a.pass_rate)),
        ("verdict consistency", _pct(a.consistency)),
        ("gap-set agreement", _pct(a.gap_agreement)),
        ("flip rate", _pct(a.flip_rate)),
        ("tokens in / out", f"{a.tokens_in} / {a.tokens_out}"),
        ("latency p50 / p95 (ms)", f"{a.latency_ms_p50} / {a.latency_ms_p95}"),
    ]


def _assertion_cells(a: ArmFigures) -> list[tuple[str, str]]:
    if a.assessments is None:
        return [(label, "n/a") for label in _ASSERTION_LABELS]
    kappa = "n/a" if a.assertion_kappa is None else f"{a.assertion_kappa:.2f}"
    return list(
        zip(
            _ASSERTION_LABELS,
            (
                f"{_pct(a.assertion_agreement)} of {a.assertion_pairs_compared}",
                kappa,
                _pct(a.evidence_stability),
                f"{a.downgrades} of {a.assessments} ({_pct(a.downgrade_rate)})",
            ),
            strict=True,
        )
    )


_ASSERTION_LABELS = (
    "same status per key point",
    "agreement beyond chance (Fleiss' kappa)",
    "evidence stability",
    "judgements without evidence, overruled",
)


ARM_LABELS: dict[str, str] = {
    "assertions_on": "With assertions",
    "assertions_off": "Without",
    "judge_local": "This computer",
    "judge_gemini": "Gemini",
}


def arm_labels(report: EvalReport) -> tuple[str, str]:
    """The two columns' headings, in the order of `figure_rows`."""
    first, second = report.arms
    return ARM_LABELS[first.arm], ARM_LABELS[second.arm]


def figure_rows(report: EvalReport) -> list[tuple[str, str, str]]:
    """(figure, first arm, second arm) for a side-by-side table (assertions_on and _off,
    or the judge on this computer and Gemini); the per-assertion rows only for a report
    that has them, and the two judges' agreement for a report comparing them."""
    on_arm, off_arm = report.arms
    on, off = _cells(on_arm), _cells(off_arm)
    if on_arm.assessments is not None or off_arm.assessments is not None:
        on, off = on + _assertion_cells(on_arm), off + _assertion_cells(off_arm)
    rows = [(label, a, b) for (label, a), (_, b) in zip(on, off, strict=True)]
    agreement = report.judge_agreement
    if agreement is not None:  # one figure for both judges: shown across both columns
        kappa = "n/a" if agreement.kappa is None else f"{agreement.kappa:.2f}"
        rows += [
            ("judges agree per key point",
             f"{_share(agreement.pairs_agreed, agreement.pairs_compared)} of "
             f"{agreement.pairs_compared}", ""),
            ("judges agree beyond chance (Cohen's kappa)", kappa, ""),
            ("judges give the same verdict",
             f"{_pct(agreement.verdict_agreement)} of {agreement.items_compared}", ""),
        ]  # fmt: skip
    return rows


_SEVERITY = {"explained": 0, "unexplained": 1, "wrong": 2, "pass": 0, "fail": 1}


def _modal(values: Sequence[str]) -> str:
    """The value given most often; a tie counts as the worse one (an undecided judge)."""
    counts = {value: values.count(value) for value in values}
    top = max(counts.values())
    return max((v for v, n in counts.items() if n == top), key=lambda v: _SEVERITY.get(v, 0))


def cohen_kappa(
    first: Sequence[str], second: Sequence[str], categories: Sequence[str]
) -> float | None:
    """Cohen's kappa of two raters' labels for the same subjects; None when there are none
    or when chance agreement is already total (both gave one label throughout)."""
    if not first:
        return None
    n = len(first)
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / n
    chance = sum((first.count(c) / n) * (second.count(c) / n) for c in categories)
    if chance >= 1.0:
        return None
    return round((observed - chance) / (1.0 - chance), _ROUND)


def judge_agreement(
    results: Sequence[CallResult], repeats: int, arms: tuple[Arm, Arm] = JUDGE_ARMS
) -> JudgeAgreement:
    """How far the two judges of `arms` agree, over the answers both judged in every repeat."""
    first, second = (_complete(results, arm, repeats) for arm in arms)
    items = sorted(set(first) & set(second))
    verdicts = [
        (_modal([c.status for c in first[i]]), _modal([c.status for c in second[i]])) for i in items
    ]
    statuses: list[tuple[str, str]] = []
    for item in items:
        a_runs = [{a.assertion: a.status for a in c.assessments} for c in first[item]]
        b_runs = [{a.assertion: a.status for a in c.assessments} for c in second[item]]
        shared = set.intersection(*(set(r) for r in a_runs + b_runs))
        for assertion in sorted(shared):
            statuses.append(
                (_modal([r[assertion] for r in a_runs]), _modal([r[assertion] for r in b_runs]))
            )
    return JudgeAgreement(
        pairs_compared=len(statuses),
        pairs_agreed=sum(a == b for a, b in statuses),
        status_agreement=_mean([float(a == b) for a, b in statuses]),
        kappa=cohen_kappa([a for a, _ in statuses], [b for _, b in statuses], STATUSES),
        items_compared=len(items),
        verdict_agreement=_mean([float(a == b) for a, b in verdicts]),
    )


def judges_verdict(agreement: JudgeAgreement) -> Literal["pass", "fail"]:
    """`pass` when the judges agree on at least AGREEMENT_BAR of the key points compared
    (exactly, as a fraction) and beyond chance: kappa at least KAPPA_BAR, or undefined
    because both gave one status throughout (when raw agreement says it all). Two judges
    that call nearly everything "explained" agree a lot by chance alone."""
    if not agreement.pairs_compared:
        return "fail"
    share = Fraction(agreement.pairs_agreed, agreement.pairs_compared)
    chance_only = agreement.kappa is not None and agreement.kappa < KAPPA_BAR
    return "pass" if share >= AGREEMENT_BAR and not chance_only else "fail"


def _share(agreed: int, compared: int) -> str:
    """A share to one decimal, never rounded up to the bar it misses."""
    if not compared:
        return "n/a"
    tenths = Fraction(agreed * 1000, compared).__floor__()
    return f"{tenths / 10:.1f}%"


def judges_summary(
    local: ArmFigures, gemini: ArmFigures, agreement: JudgeAgreement, verdict: str, *,
    items: int, repeats: int, partial: bool,
) -> str:  # fmt: skip
    calls = local.calls + gemini.calls
    kappa = "n/a" if agreement.kappa is None else f"{agreement.kappa:.2f}"
    text = (
        f"Judged {items} answer{'s' if items != 1 else ''} {repeats} times by the judge on "
        f"this computer and {repeats} times by Gemini, both with core assertions ({calls} "
        f"calls{', stopped early' if partial else ''}). The two judges gave the same status "
        f"to {_share(agreement.pairs_agreed, agreement.pairs_compared)} of "
        f"{agreement.pairs_compared} (answer, key "
        f"point) pairs (Cohen's kappa {kappa}) and the same verdict to "
        f"{_pct(agreement.verdict_agreement)} of {agreement.items_compared} answers. Pass "
        f"rate {_pct(local.pass_rate)} on this computer, {_pct(gemini.pass_rate)} with "
        f"Gemini; each judge repeated its own status per key point "
        f"{_pct(local.assertion_agreement)} and {_pct(gemini.assertion_agreement)} of the "
        "time. "
    )
    errors = local.errors + gemini.errors
    if errors:
        text += f"{errors} call{'s' if errors != 1 else ''} failed and count as errors, not fails. "
    if verdict == "pass":
        return text + (
            "Verdict: pass — the judge on this computer agrees with Gemini on at least 80% "
            "of key points."
        )
    if not agreement.pairs_compared:
        return text + "Verdict: fail — no key point was judged in every repeat by both judges."
    if Fraction(agreement.pairs_agreed, agreement.pairs_compared) >= AGREEMENT_BAR:
        return text + (
            "Verdict: fail — the judges agree on 80% of key points or more, but hardly more "
            f"than chance would (kappa below {KAPPA_BAR})."
        )
    return text + "Verdict: fail — the judges agree on fewer than 80% of key points."


def summary_text(
    on: ArmFigures,
    off: ArmFigures,
    verdict: str,
    *,
    items: int,
    repeats: int,
    partial: bool,
    sampling: Mapping[str, object] | None = None,
) -> str:
    calls = on.calls + off.calls
    text = (
        f"Judged {items} answer{'s' if items != 1 else ''} {repeats} times in each arm "
        f"({calls} calls{', stopped early' if partial else ''}). "
    )
    text += (
        f"With core assertions the judge gave the same verdict in every repeat for "
        f"{_pct(on.consistency)} of answers ({on.items_compared} compared), without them "
        f"for {_pct(off.consistency)} ({off.items_compared} compared); two runs on the same "
        f"answer disagreed {_pct(on.flip_rate)} vs {_pct(off.flip_rate)} of the time, and "
        f"gap sets agreed {_pct(on.gap_agreement)} vs {_pct(off.gap_agreement)}. "
        f"Pass rate {_pct(on.pass_rate)} with assertions, {_pct(off.pass_rate)} without. "
    )
    if on.assessments is not None:
        text += (
            f"Per key point, the judge gave the same status in every repeat for "
            f"{_pct(on.assertion_agreement)} of {on.assertion_pairs_compared} (answer, key "
            f"point) pairs (Fleiss' kappa "
            f"{'n/a' if on.assertion_kappa is None else f'{on.assertion_kappa:.2f}'}); the "
            f"answer's words it cited overlapped {_pct(on.evidence_stability)} between "
            f"repeats, and {on.downgrades} of {on.assessments} assessments claimed credit "
            "(or a mistake) without citing the answer and were overruled. "
        )
    if sampling is not None and sampling.get("judge_seed") is not None:
        text += (
            f"The judge ran with a fixed seed ({sampling['judge_seed']}), so repeats agree "
            "partly by construction; leave the seed unset to measure the judge itself. "
        )
    errors = on.errors + off.errors
    if errors:
        text += f"{errors} call{'s' if errors != 1 else ''} failed and count as errors, not fails. "
    if verdict == "pass":
        text += "Verdict: pass — sending assertions made the judge at least as consistent."
    elif not on.items_compared or not off.items_compared:
        text += "Verdict: fail — an arm has no answer whose every repeat returned a verdict."
    else:
        text += "Verdict: fail — the judge was less consistent with assertions than without."
    return text


Kind = Literal["assertions", "judges"]


def arms_of(kind: Kind) -> tuple[Arm, Arm]:
    """The two arms a report of `kind` compares."""
    return JUDGE_ARMS if kind == "judges" else ARMS


def computed_figures(
    results: Sequence[CallResult], kind: Kind, repeats: int, items: int
) -> tuple[tuple[ArmFigures, ArmFigures], JudgeAgreement | None, Literal["pass", "fail"]]:
    """Everything a report's figures are: each arm's, the judges' agreement (a "judges"
    report) and the verdict; what `build_report` records and `coach verify` recomputes."""
    on, off = (arm_figures(arm, results, repeats, items) for arm in arms_of(kind))
    agreement = judge_agreement(results, repeats, arms_of(kind)) if kind == "judges" else None
    verdict = judges_verdict(agreement) if agreement is not None else verdict_for(on, off)
    return (on, off), agreement, verdict


def build_report(
    results: Sequence[CallResult],
    children: Sequence[ChildRef],
    *,
    item_refs: Sequence[ItemRef],
    repeats: int,
    concurrency: int,
    judge_model: str,
    created_at: str,
    run_nonce: str,
    calls_planned: int,
    sampling: Mapping[str, object] | None = None,
    kind: Kind = "assertions",
) -> EvalReport:
    """The report with its id computed (DESIGN §6); partial when calls were left out.
    `kind` "judges": the judge on this computer against Gemini (JUDGE_ARMS)."""
    items = len(item_refs)
    (on, off), agreement, verdict = computed_figures(results, kind, repeats, items)
    partial = len(results) < calls_planned
    if agreement is not None:
        summary = judges_summary(
            on, off, agreement, verdict, items=items, repeats=repeats, partial=partial
        )
    else:
        summary = summary_text(
            on, off, verdict, items=items, repeats=repeats, partial=partial, sampling=sampling
        )
    draft = EvalReport(
        eval_run_id="",
        created_at=created_at,
        run_nonce=run_nonce,
        repeats=repeats,
        concurrency=concurrency,
        items=items,
        item_refs=tuple(item_refs),
        judge_model=judge_model,
        partial=partial,
        calls_planned=calls_planned,
        calls_done=len(results),
        verdict=verdict,
        summary=summary,
        arms=(on, off),
        delta=delta(on, off),
        children=tuple(sorted(children, key=lambda c: (c.arm, c.repeat, c.item))),
        judge_sampling=None if sampling is None else dict(sampling),
        kind=kind,
        judge_agreement=agreement,
    )
    return draft.model_copy(update={"eval_run_id": report_id(draft)})
