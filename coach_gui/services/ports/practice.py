"""What a practice session needs: its journal, Tier 1 (the local model) and a clock."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol

from coach_gui.domain.challenges import Challenge
from coach_gui.domain.connections import PullProgress
from coach_gui.domain.practice import Attempt, Disposition, PracticeSession


class JournalHealth(Protocol):
    """What `coach doctor` asks of the journal."""

    @property
    def schema_version(self) -> int: ...

    def integrity_check(self) -> list[str]:
        """Problems found (empty when the database is sound)."""
        ...

    def counts(self) -> dict[str, int]:
        """Rows per table."""
        ...


class PracticeJournal(Protocol):
    """Where a practice session is recorded as it happens; every call commits at once,
    so a crash loses nothing the learner submitted."""

    def start_session(self, session: PracticeSession, decision: str | None = None) -> None:
        """Record a new session and, when a scheduler decision chose it, that decision's
        fields (canonical JSON; the session's `scheduler_decision_id` is their id)."""
        ...

    def add_challenge(
        self,
        session_id: str,
        position: int,
        challenge: Challenge,
        created_at: str,
        *,
        parent_challenge_id: str | None = None,
    ) -> None: ...

    def add_rejection(
        self, session_id: str, kind: str, text: str, reason: str, created_at: str
    ) -> None:
        """Record that a challenge was dropped; only a digest of its text is kept."""
        ...

    def add_attempt(self, attempt: Attempt) -> None: ...

    def end_session(self, session_id: str, ended_at: str, disposition: Disposition) -> None: ...

    def open_session_ids(self) -> list[str]:
        """Sessions started but never ended (the app was killed)."""
        ...


class ReplyStream(Protocol):
    """A reply arriving piece by piece; `close()` releases its connection at once."""

    def __iter__(self) -> Iterator[str]: ...

    def __next__(self) -> str: ...

    def close(self) -> None: ...


class Tier1Model(Protocol):
    """The local model that writes challenges (Ollama on loopback)."""

    @property
    def model_name(self) -> str: ...

    def stream(
        self, messages: Sequence[Mapping[str, str]], schema: Mapping[str, Any]
    ) -> ReplyStream:
        """The reply, piece by piece. Raises Tier1Error subclasses (GenerationCancelled
        once `cancel()` was called, Tier1Unavailable when Ollama or the model is absent).
        The caller closes it when it stops reading, whether or not the reply ended."""
        ...

    def cancel(self) -> None:
        """Stop the reply being streamed, from any thread."""
        ...


class Clock(Protocol):
    def now(self) -> str:
        """The current time, ISO-8601 UTC."""
        ...


class Tier1Health(Protocol):
    """What `coach doctor` asks of Ollama."""

    def version(self) -> str: ...

    def has_model(self, model: str) -> bool: ...


class ClosableTier1(Tier1Model, Protocol):
    """Tier 1 as a session holds it: closed when the session ends."""

    def close(self) -> None: ...


class PullStream(Protocol):
    """A model download's progress lines, ending with status ``success``."""

    def __iter__(self) -> Iterator[PullProgress]: ...

    def __next__(self) -> PullProgress: ...

    def cancel(self) -> None: ...

    def close(self) -> None: ...


class LocalModelServer(Tier1Health, Protocol):
    """Ollama as the status indicator and the model download see it."""

    def pull(self, model: str) -> PullStream: ...

    def close(self) -> None: ...
