"""Evidence checking (DESIGN §4): the cost of the domain's check that each cited span is in
the learner's answer, for a 2,000-word answer and 10 assertions. Target: <= 1 ms per item.

Measured, p50 over `--rounds` runs each:
- the check alone: fold the answer once, look up every cited span (2 per assertion: one
  copied from the answer, one not, so half the lookups fail and scan the whole answer);
- `parse_verdicts` for a one-item reply (JSON validation, index and assessment checks,
  the evidence check, the derived gaps): what judging adds per item;
- the window's marks (`evidence_ranges` for every assertion), for an answer shown for
  the first time (its folded form and character map are built) and again (kept).

Then the same for a 2,000-character Japanese answer with 10 assertions, each citing a span
copied from inside a run of the answer (no space around it; issue 32).

    python bench/bench_evidence.py [--rounds 300]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Callable

from coach_gui.domain.evidence import FoldedAnswer, _folded_with_origins, evidence_ranges
from coach_gui.domain.tier2 import tier2_payload
from coach_gui.domain.verdicts import parse_verdicts

ASSERTIONS = 10
WORDS = 2_000
JAPANESE_CHARS = 2_000
_JAPANESE_TEXT = (
    "植物は 光を 使って 糖を 作る 葉緑体 二酸化炭素 酸素が 出る 記憶は すぐに 薄れる "
    "復習すると 長く 残る 市場の 大きさ 分業 職人 時間が たつと 変異が 積み重なる 子孫"
)
_JAPANESE_PIECES = _JAPANESE_TEXT.split()


def _japanese_answer(rng: random.Random) -> str:
    pieces: list[str] = []
    while sum(map(len, pieces)) < JAPANESE_CHARS:
        pieces.append(rng.choice(_JAPANESE_PIECES))
        if rng.random() < 0.12:
            pieces.append("。\n" if rng.random() < 0.3 else "、")
    return "".join(pieces)[:JAPANESE_CHARS]


def _answer(rng: random.Random) -> str:
    vocabulary = [
        "variation",
        "inherited",
        "selection",
        "struggle",
        "offspring",
        "slight",
        "successive",
        "advantage",
        "breeder",
        "organism",
        "generations",
        "island",
        "beak",
        "food",
        "survive",
        "preserved",
        "harmful",
        "useful",
        "the",
        "a",
        "of",
        "and",
        "that",
        "which",
        "because",
        "over",
        "time",
        "many",
        "few",
        "more",
        "less",
        "change",
    ]
    words = [rng.choice(vocabulary) for _ in range(WORDS)]
    for n in range(0, WORDS, 17):  # sentences, capitals and line breaks, as people write
        words[n] = words[n].capitalize()
    return " ".join(w + (".\n" if n % 23 == 22 else "") for n, w in enumerate(words))


def p50_ms(call: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    rounds = parser.parse_args().rounds
    rng = random.Random(3)
    answer = _answer(rng)
    words = answer.split()
    spans = []
    for n in range(ASSERTIONS):
        start = rng.randrange(0, len(words) - 12)
        found = " ".join(words[start : start + 8]).upper()  # the judge's case, folded away
        spans.append([found, f"a sentence the learner never wrote, number {n}"])
    assessments = [
        {"assertion": n, "status": "explained", "evidence": spans[n], "reason": "Explained."}
        for n in range(ASSERTIONS)
    ]
    reply = json.dumps({"items": [{"index": 0, "assessments": assessments, "gaps": [],
                                   "verdict": "pass", "feedback": "Good."}]})  # fmt: skip
    payload = tier2_payload(
        [{"challenge": "Explain natural selection.", "answer": answer,
          "core_assertions": [f"Assertion {n}." for n in range(ASSERTIONS)]}],
        include_assertions=True,
    )  # fmt: skip

    def check() -> object:
        haystack = FoldedAnswer(answer)  # the unfound spans also fold the neutralised answer
        return [haystack.holds(span) for pair in spans for span in pair]

    def parse() -> object:
        return parse_verdicts(reply, payload)

    def marks() -> object:
        return [evidence_ranges(answer, pair) for pair in spans]

    def marks_cold() -> object:
        _folded_with_origins.cache_clear()  # a verdict on an answer not shown before
        return marks()

    (verdict,) = parse_verdicts(reply, payload)
    assert verdict.passed and all(len(a.evidence) == 1 for a in verdict.assessments)
    for call in (check, parse, marks):
        p50_ms(call, 20)
    print(f"evidence, one item: {len(words):,}-word answer ({len(answer):,} characters), "
          f"{ASSERTIONS} assertions, 2 cited spans each (one not in the answer), p50 of "
          f"{rounds}:")  # fmt: skip
    print(f"  the check (fold, {2 * ASSERTIONS} lookups)         {p50_ms(check, rounds):7.3f} ms")
    print(f"  parse_verdicts, the whole item          {p50_ms(parse, rounds):7.3f} ms")
    cold = p50_ms(marks_cold, max(rounds // 5, 10))
    warm = p50_ms(marks, max(rounds // 5, 10))
    print(f"  the window's marks, first time / again  {cold:7.3f} / {warm:.3f} ms")
    _japanese(rng, rounds)


def _japanese(rng: random.Random, rounds: int) -> None:
    answer = _japanese_answer(rng)
    spans = []
    for n in range(ASSERTIONS):  # from inside a run: no space or mark at either end
        start = rng.randrange(1, len(answer) - 14)
        spans.append([answer[start : start + 9], f"答えにない文、番号{n}"])
    assessments = [
        {"assertion": n, "status": "explained", "evidence": spans[n], "reason": "説明できた。"}
        for n in range(ASSERTIONS)
    ]
    reply = json.dumps({"items": [{"index": 0, "assessments": assessments, "gaps": [],
                                   "verdict": "pass", "feedback": "よくできた。"}]})  # fmt: skip
    payload = tier2_payload(
        [{"challenge": "光合成を説明して。", "answer": answer,
          "core_assertions": [f"主張{n}。" for n in range(ASSERTIONS)]}],
        include_assertions=True,
    )  # fmt: skip
    (verdict,) = parse_verdicts(reply, payload)
    assert verdict.passed and all(len(a.evidence) == 1 for a in verdict.assessments)

    def check() -> object:
        haystack = FoldedAnswer(answer)
        return [haystack.holds(span) for pair in spans for span in pair]

    def parse() -> object:
        return parse_verdicts(reply, payload)

    print(f"evidence, one item: {len(answer):,}-character Japanese answer, {ASSERTIONS} "
          f"assertions, 2 cited spans each (one not in the answer), p50 of {rounds}:")  # fmt: skip
    print(f"  the check (fold, {2 * ASSERTIONS} lookups)         {p50_ms(check, rounds):7.3f} ms")
    print(f"  parse_verdicts, the whole item          {p50_ms(parse, rounds):7.3f} ms")


if __name__ == "__main__":
    main()
