"""In-RAM implementations of the service ports, recording what happened (no mocks). ("Memory"
in this project means an assertion's FSRS memory; these fakes are "in RAM".)"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from coach_gui.domain.challenges import Challenge
from coach_gui.domain.practice import (
    Attempt,
    Disposition,
    JudgeRefusal,
    PracticeSession,
    VerdictRecord,
)
from coach_gui.domain.tier1_errors import GenerationCancelled, Tier1Error
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome, Tier2Payload
from coach_gui.domain.verdicts import JudgeResponse
from coach_gui.services.ports.judge import Judge, VerdictJournal
from coach_gui.services.ports.practice import Clock, PracticeJournal, Tier1Model
from fakes.assessing import assessed_for


class TickingClock:
    """Each call is one second after the last, from a fixed start."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 11, 1, 9, 0, tzinfo=UTC)

    def now(self) -> str:
        self._now += timedelta(seconds=1)
        return self._now.isoformat()


@dataclass
class InRamPracticeJournal:
    sessions: dict[str, PracticeSession] = field(default_factory=dict)
    ended: dict[str, tuple[str, Disposition]] = field(default_factory=dict)
    challenges: list[tuple[str, int, Challenge, str | None]] = field(default_factory=list)
    rejections: list[tuple[str, str, str, str]] = field(default_factory=list)
    attempts: list[Attempt] = field(default_factory=list)
    decisions: dict[str, str] = field(default_factory=dict)  # decision id -> fields

    def start_session(self, session: PracticeSession, decision: str | None = None) -> None:
        self.sessions[session.id] = session
        if decision is not None:
            self.decisions[session.scheduler_decision_id or ""] = decision

    def add_challenge(
        self,
        session_id: str,
        position: int,
        challenge: Challenge,
        created_at: str,
        *,
        parent_challenge_id: str | None = None,
    ) -> None:
        self.challenges.append((session_id, position, challenge, parent_challenge_id))

    def add_rejection(
        self, session_id: str, kind: str, text: str, reason: str, created_at: str
    ) -> None:
        self.rejections.append((session_id, kind, text, reason))

    def add_attempt(self, attempt: Attempt) -> None:
        self.attempts.append(attempt)

    def end_session(self, session_id: str, ended_at: str, disposition: Disposition) -> None:
        self.ended[session_id] = (ended_at, disposition)

    def open_session_ids(self) -> list[str]:
        return [s for s in self.sessions if s not in self.ended]


def reply(text: str, kind: str = "explain") -> str:
    return json.dumps({"challenge": text, "kind": kind})


class ScriptedTier1:
    """Replies from a script, in pieces of a few characters. An entry may be a reply
    string or a Tier1Error to raise. Records every request's messages."""

    model_name = "scripted:1b"

    def __init__(self, script: Iterable[str | Tier1Error], piece: int = 4) -> None:
        self._script = list(script)
        self._piece = piece
        self.requests: list[list[dict[str, str]]] = []
        self._cancel = threading.Event()
        self.on_piece: Callable[[], None] | None = None

    def stream(
        self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any]
    ) -> Generator[str, None, None]:  # a generator: it closes, as a ReplyStream must
        self.requests.append([dict(m) for m in messages])
        self._cancel.clear()
        entry = self._script.pop(0)
        if isinstance(entry, Tier1Error):
            raise entry
        for i in range(0, len(entry), self._piece):
            if self._cancel.is_set():
                raise GenerationCancelled()
            if self.on_piece is not None:
                self.on_piece()
            yield entry[i : i + self._piece]

    def cancel(self) -> None:
        self._cancel.set()


def _conforms() -> tuple[Clock, PracticeJournal, Tier1Model]:
    """Type-checked only: the fakes satisfy the ports they stand in for."""
    return TickingClock(), InRamPracticeJournal(), ScriptedTier1([])


@dataclass
class InRamVerdictJournal:
    verdicts: list[VerdictRecord] = field(default_factory=list)
    refusals: list[JudgeRefusal] = field(default_factory=list)

    def record_verdict(self, verdict: VerdictRecord) -> None:
        self.verdicts.append(verdict)

    def record_refusal(self, refusal: JudgeRefusal) -> None:
        self.refusals.append(refusal)


Reply = Callable[[Tier2Payload], str]


class ScriptedJudge:
    """Answers each request with the next scripted reply: a text, a function of the
    payload that makes the text (`judged_reply`), or a JudgeError to raise; records every
    payload it was given."""

    def __init__(self, script: Iterable[str | Reply | Exception]) -> None:
        self._script = list(script)
        self.payloads: list[Tier2Payload] = []

    def judge(self, payload: Tier2Payload) -> JudgeResponse:
        self.payloads.append(payload)
        entry = self._script.pop(0)
        if isinstance(entry, Exception):
            raise entry
        if callable(entry):
            entry = entry(payload)
        return JudgeResponse(
            raw_text=entry, model="gemini-test", latency_ms=1, request_body="{}", outbox_id=None
        )


def verdict_json(*items: tuple[str, list[dict[str, object]]], feedback: str = "ok") -> str:
    """A judge reply: one (verdict, gaps) per item, indexes in order."""
    return json.dumps(
        {
            "items": [
                {"index": i, "verdict": v, "gaps": gaps, "feedback": feedback}
                for i, (v, gaps) in enumerate(items)
            ]
        }
    )


def judged_reply(*items: tuple[str, list[dict[str, object]]], feedback: str = "ok") -> Reply:
    """A judge reply in the contract of DESIGN §4, one (verdict, gaps) per item as
    `verdict_json` takes them: an item sent with assertions gets the assessments that
    say what its gaps say (`assessing.from_gaps`); one sent without keeps its gaps."""

    def reply_for(payload: Tier2Payload) -> str:
        return assessed_for(verdict_json(*items, feedback=feedback), payload)

    return reply_for


def _conforms_judge() -> tuple[Judge, VerdictJournal]:
    return ScriptedJudge([]), InRamVerdictJournal()


class InRamOutbox:
    """The judge's outbox in RAM: each request as recorded, and how it ended."""

    def __init__(self) -> None:
        self.rows: dict[str, tuple[OutboxEntry, OutboxOutcome | None]] = {}

    def record_sent(self, entry: OutboxEntry) -> str:
        outbox_id = f"{len(self.rows) + 1:064x}"
        self.rows[outbox_id] = (entry, None)
        return outbox_id

    def record_outcome(self, outbox_id: str, outcome: OutboxOutcome) -> None:
        self.rows[outbox_id] = (self.rows[outbox_id][0], outcome)
