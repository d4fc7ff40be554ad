"""The judge measured against its learner (issue 36, DESIGN §4): of the key points a judge
judged, how many the learner left as the judge said, and which way they disagreed — per
judge (cloud or this computer), model, strictness and month.

A correction in force (`corrections.in_force`) is a disagreement: "explained" where the
judge said not explained or wrong means the judge was too strict; "not explained" or
"wrong" where it said explained, too lenient; "wrong" for "not explained" (or the other way)
is neither. A correction taken back (the judge's word given back) is no disagreement.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from coach_gui.domain.corrections import correctable, in_force, judge_status
from coach_gui.domain.evals import CallResult
from coach_gui.domain.session_records import SessionRecords
from coach_gui.domain.session_state import attempt_states
from coach_gui.domain.tier2 import STRICTNESS_LEVELS, STRICTNESS_RULES, Strictness

# A suggestion needs this many corrections one way, and that way this many times the other.
SUGGEST_AFTER = 5
SUGGEST_RATIO = 3


@dataclass(frozen=True)
class Agreement:
    """One judge, model and strictness in one month (YYYY-MM, of the verdicts)."""

    judge: str  # "cloud" (Gemini) or "local" (the model on this computer)
    model: str
    strictness: Strictness
    month: str
    judged: int  # key points judged
    corrected: int  # of them, the learner's word differs from the judge's now
    too_strict: int  # the judge did not count one the learner explained
    too_lenient: int  # the judge counted one the learner did not explain (or got wrong)

    @property
    def agreement(self) -> float | None:
        """Share of the judged key points left as the judge said."""
        return (self.judged - self.corrected) / self.judged if self.judged else None

    def to_json(self) -> dict[str, object]:
        return {
            "judge": self.judge,
            "model": self.model,
            "strictness": self.strictness,
            "month": self.month,
            "judged": self.judged,
            "corrected": self.corrected,
            "too_strict": self.too_strict,
            "too_lenient": self.too_lenient,
            "agreement": None if self.agreement is None else round(self.agreement, 4),
        }


def strictness_of(request_body: str) -> Strictness:
    """The strictness a judge request was sent with, read from its system instruction
    only (the learner's answer may hold any words); a request from before strictness
    existed, or one that does not read, was standard."""
    instruction = _system_instruction(request_body)
    for level in STRICTNESS_LEVELS:
        if STRICTNESS_RULES[level] in instruction:
            return level
    return "standard"


def _system_instruction(request_body: str) -> str:
    """Gemini's `systemInstruction` parts, or the system messages of a local model's chat
    request (Ollama's or an OpenAI-compatible server's)."""
    try:
        body = json.loads(request_body)
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    texts: list[str] = []
    system = body.get("systemInstruction") or body.get("system_instruction")
    if isinstance(system, dict):
        texts += [p["text"] for p in system.get("parts", []) if isinstance(p, dict)
                  and isinstance(p.get("text"), str)]  # fmt: skip
    for message in body.get("messages", []) if isinstance(body.get("messages"), list) else []:
        if isinstance(message, dict) and message.get("role") == "system":
            content = message.get("content")
            texts += [content] if isinstance(content, str) else []
    return "\n".join(texts)


def agreement(records: Iterable[SessionRecords]) -> list[Agreement]:
    """Per judge, model, strictness and month, over every answer's verdict that counts and
    judged each key point; oldest month first."""
    counts: dict[tuple[str, str, Strictness, str], list[int]] = {}
    for session in records:
        outbox = {row.id: row for row in session.outbox}
        for state in attempt_states(session):
            verdict = state.verdict
            if verdict is None or not correctable(verdict):
                continue
            sent = outbox.get(verdict.outbox_id or "")
            judge = "local" if sent is not None and sent.provider == "local" else "cloud"
            level = strictness_of(sent.request_body) if sent is not None else "standard"
            key = (judge, verdict.judge_model, level, verdict.created_at[:7])
            found = counts.setdefault(key, [0, 0, 0, 0])
            corrected = in_force(session.corrections, verdict)
            for index in range(len(verdict.assertions)):
                found[0] += 1
                correction = corrected.get(index)
                if correction is None:
                    continue
                found[1] += 1
                judged = judge_status(verdict, index)
                if correction.status == "explained":
                    found[2] += 1
                elif judged == "explained":
                    found[3] += 1
                # "wrong" for "unexplained" (or back): a disagreement of neither way
    return [
        Agreement(judge, model, level, month, *figures)
        for (judge, model, level, month), figures in sorted(
            counts.items(), key=lambda pair: (pair[0][3], pair[0][:3])
        )
    ]


def totals(rows: Iterable[Agreement]) -> list[Agreement]:
    """The same figures over every month (`month` ""), per judge, model and strictness."""
    found: dict[tuple[str, str, Strictness], list[int]] = {}
    for row in rows:
        counts = found.setdefault((row.judge, row.model, row.strictness), [0, 0, 0, 0])
        for n, value in enumerate((row.judged, row.corrected, row.too_strict, row.too_lenient)):
            counts[n] += value
    return [Agreement(*key, "", *counts) for key, counts in sorted(found.items())]


@dataclass(frozen=True)
class Suggestion:
    """Corrections piled up one way for the strictness in use: the level that would have
    agreed more often. Never applied without the learner's yes."""

    current: Strictness
    suggested: Strictness
    too_strict: int
    too_lenient: int

    @property
    def text(self) -> str:
        return f"{self.finding[:-1]}: change it in Settings › Judge if you wish."

    @property
    def finding(self) -> str:
        """What the corrections show and the level that would have agreed more often."""
        return (
            f"At {self.current} strictness {self.why}. {self.suggested.capitalize()} "
            "strictness would have agreed with you more often."
        )

    @property
    def why(self) -> str:
        if self.too_strict > self.too_lenient:
            return (
                f"you marked {self.too_strict} key points explained that the judge did not "
                f"count (and {self.too_lenient} the other way)"
            )
        return (
            f"you marked {self.too_lenient} key points not explained that the judge "
            f"counted (and {self.too_strict} the other way)"
        )

    def to_json(self) -> dict[str, object]:
        return {
            "current": self.current,
            "suggested": self.suggested,
            "too_strict": self.too_strict,
            "too_lenient": self.too_lenient,
            "text": self.text,
        }


def suggestion(rows: Iterable[Agreement], current: Strictness) -> Suggestion | None:
    """A level to suggest when the learner's corrections at `current` lean one way."""
    mine = [r for r in rows if r.strictness == current]
    strict = sum(r.too_strict for r in mine)
    lenient = sum(r.too_lenient for r in mine)
    order = list(STRICTNESS_LEVELS)
    at = order.index(current)
    if strict >= SUGGEST_AFTER and strict >= SUGGEST_RATIO * lenient and at > 0:
        return Suggestion(current, order[at - 1], strict, lenient)
    if lenient >= SUGGEST_AFTER and lenient >= SUGGEST_RATIO * strict and at < len(order) - 1:
        return Suggestion(current, order[at + 1], strict, lenient)
    return None


@dataclass(frozen=True)
class ArmAgreement:
    """How one arm of an eval agreed with the learner on the answers it judged again: per
    key point of an answer whose recorded verdict judged each one, the arm's status
    against the learner's word now (the judge's then, unless they corrected it)."""

    arm: str
    judged: int  # key points the arm judged where the learner's word is known
    agreed: int
    too_strict: int  # the arm did not count one the learner explained
    too_lenient: int  # the arm counted one the learner did not explain (or got wrong)

    @property
    def agreement(self) -> float | None:
        return self.agreed / self.judged if self.judged else None

    def to_json(self) -> dict[str, object]:
        return {
            "arm": self.arm,
            "judged": self.judged,
            "agreed": self.agreed,
            "agreement": self.agreement,
            "too_strict": self.too_strict,
            "too_lenient": self.too_lenient,
        }


def learners_word_now(records: SessionRecords, attempt_id: str) -> tuple[str, ...] | None:
    """The learner's word on each key point of an answer's verdict as it counts now (the
    judge's, unless corrected); None when that verdict did not judge each key point."""
    for state in attempt_states(records):
        verdict = state.verdict
        if state.attempt.id != attempt_id or verdict is None:
            continue
        if not correctable(verdict):
            return None
        mine = in_force(records.corrections, verdict)
        return tuple(
            mine[n].status if n in mine else judge_status(verdict, n)
            for n in range(len(verdict.assertions))
        )
    return None


def eval_agreement(
    arms: Iterable[str],
    results: Iterable[CallResult],
    words: Mapping[int, Sequence[str]],
) -> list[ArmAgreement]:
    """Each arm's agreement with the learner's word (`words`: per item, per key point)."""
    counts = {arm: [0, 0, 0, 0] for arm in arms}
    for result in results:
        said = words.get(result.item)
        if said is None or result.arm not in counts:
            continue
        mine = counts[result.arm]
        for assessment in result.assessments:
            n = assessment.assertion
            if not 0 <= n < len(said):
                continue
            theirs, learners = assessment.status, said[n]
            mine[0] += 1
            mine[1] += theirs == learners
            mine[2] += theirs != "explained" and learners == "explained"
            mine[3] += theirs == "explained" and learners != "explained"
    return [ArmAgreement(arm, *figures) for arm, figures in counts.items()]
