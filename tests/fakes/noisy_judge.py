"""A noise model for the fake judge (`FakeGemini.reply_for`): each answer has a true verdict
(it passes when it contains `word`), and each call flips it with probability `p_without`
when no assertions were sent and `p_with` when they were.

Flips are seeded and keyed by (answer, assertions sent, how many times this answer was
judged that way before), so the figures a run gives do not depend on the order in which
concurrent calls arrive; `flips` lets a test work out the expected figures itself.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter

from fakes.assessing import from_gaps
from fakes.gemini_server import PromptItem, RecordedRequest, prompt_items, verdict_json


class NoisyVerdicts:
    def __init__(
        self,
        *,
        p_without: float,
        p_with: float,
        seed: int = 7,
        word: str = "because",
        latency_seconds: float = 0.0,
    ) -> None:
        self.p_without, self.p_with, self.seed, self.word = p_without, p_with, seed, word
        self.latency_seconds = latency_seconds
        self._seen: Counter[tuple[str, bool]] = Counter()
        self._lock = threading.Lock()

    def passes_truly(self, answer: str) -> bool:
        return self.word.lower() in answer.lower()

    def flips(self, answer: str, with_assertions: bool, occurrence: int) -> bool:
        p = self.p_with if with_assertions else self.p_without
        return random.Random(f"{self.seed}|{answer}|{with_assertions}|{occurrence}").random() < p

    def verdicts(self, answer: str, with_assertions: bool, repeats: int) -> list[bool]:
        """The verdicts the first `repeats` calls on `answer` get (True: pass)."""
        truth = self.passes_truly(answer)
        return [truth != self.flips(answer, with_assertions, k) for k in range(repeats)]

    def _decide(self, item: PromptItem) -> bool:
        key = (item.answer, item.assertions is not None)
        with self._lock:
            occurrence = self._seen[key]
            self._seen[key] += 1
        return self.passes_truly(item.answer) != self.flips(item.answer, key[1], occurrence)

    def __call__(self, request: RecordedRequest) -> str:
        if self.latency_seconds:
            time.sleep(self.latency_seconds)
        return verdict_json(request, self._decide)


class FlippingAssessments:
    """A `reply_for` whose assessment of each assertion flips between explained (citing the
    answer) and unexplained from one call to the next with probability `p`, seeded and
    keyed by (answer, assertion, occurrence) like `NoisyVerdicts`; without assertions,
    every item passes. `statuses(answer, n, repeats)` says what the first calls gave."""

    def __init__(self, *, p: float, seed: int = 11) -> None:
        self.p, self.seed = p, seed
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()

    def status(self, answer: str, assertion: int, occurrence: int) -> str:
        draw = random.Random(f"{self.seed}|{answer}|{assertion}|{occurrence}").random()
        return "unexplained" if draw < self.p else "explained"

    def __call__(self, request: RecordedRequest) -> str:
        items = []
        for item in prompt_items(request):
            assessments = []
            if item.assertions is not None:
                with self._lock:
                    occurrence = self._seen[item.answer]
                    self._seen[item.answer] += 1
                gaps = [
                    {"assertion": n, "problem": "unexplained", "explanation": "Not explained."}
                    for n in range(len(item.assertions))
                    if self.status(item.answer, n, occurrence) == "unexplained"
                ]
                assessments = from_gaps(item.answer, len(item.assertions), gaps)
            passed = all(a["status"] == "explained" for a in assessments)
            items.append({"index": item.index, "assessments": assessments, "gaps": [],
                          "verdict": "pass" if passed else "fail", "feedback": "ok"})  # fmt: skip
        return json.dumps({"items": items})
