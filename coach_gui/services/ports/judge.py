"""The judge (Tier 2) and where its verdicts and requests are recorded."""

from __future__ import annotations

from typing import Protocol

from coach_gui.domain.connections import ConnectionCheck, KeyStatus
from coach_gui.domain.practice import JudgeRefusal, VerdictRecord
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome, Tier2Payload
from coach_gui.domain.verdicts import JudgeResponse


class Judge(Protocol):
    """The Tier 2 judge (Gemini): one request for a validated payload."""

    def judge(self, payload: Tier2Payload) -> JudgeResponse:
        """Raises JudgeError subclasses; never returns a partial response."""
        ...


class VerdictJournal(Protocol):
    """Where verdicts and refusals go; recording one also updates the attempt's status."""

    def record_verdict(self, verdict: VerdictRecord) -> None: ...

    def record_refusal(self, refusal: JudgeRefusal) -> None: ...


class JudgeOutbox(Protocol):
    """Where every judge request is recorded: first as sent, then how it ended."""

    def record_sent(self, entry: OutboxEntry) -> str:
        """Record a request about to leave; returns its outbox id."""
        ...

    def record_outcome(self, outbox_id: str, outcome: OutboxOutcome) -> None: ...


class ClosableJudge(Judge, Protocol):
    """A judge holding a connection: closed when its owner is done with it."""

    def close(self) -> None: ...


class ConnectionTester(Protocol):
    """A judge that can check its key and model without sending learner data."""

    def test_connection(self) -> ConnectionCheck: ...

    def close(self) -> None: ...


class KeyVault(Protocol):
    """The Gemini API key in the OS keyring; never written anywhere else."""

    def get(self) -> str | None: ...

    def set(self, key: str) -> None: ...

    def clear(self) -> bool:
        """Remove the key; False when none was stored."""
        ...

    def status(self) -> KeyStatus: ...
