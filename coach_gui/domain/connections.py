"""What checking the outside services found, in plain values the window and the terminal
both show: the keyring's state, a judge connection test, a model download's progress."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class KeyStatus:
    """What `coach key status` and `coach doctor` show; never the key itself."""

    backend: str  # e.g. "SecretService.Keyring"
    has_key: bool
    usable: bool
    detail: str


@dataclass(frozen=True)
class ConnectionCheck:
    """What *Test connection* found: the key works and the model exists."""

    model: str
    latency_ms: int
    detail: str


@dataclass(frozen=True)
class PullProgress:
    """One progress line of a model download (Ollama's `/api/pull`)."""

    status: str
    digest: str | None = None
    total: int | None = None
    completed: int | None = None

    @property
    def fraction(self) -> float | None:
        """Share downloaded of the current layer, when Ollama says."""
        if self.total and self.completed is not None:
            return min(1.0, self.completed / self.total)
        return None
