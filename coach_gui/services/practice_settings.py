"""What a practice session needs from the config, as plain values the caller builds."""

from __future__ import annotations

from dataclasses import dataclass

from coach_gui.domain.digests import digest
from coach_gui.domain.practice import SessionMode


@dataclass(frozen=True)
class PracticeSettings:
    """What a session needs from the config, as plain values (built by the caller)."""

    challenges: int = 3
    follow_ups: bool = True
    max_regenerations: int = 2
    max_shared_words: int = 6
    max_containment: float = 0.5
    shingle_words: int = 3
    tier1_model: str = "llama3.2:3b"
    judge_enabled: bool = True
    include_assertions: bool = True
    judge_model: str = "gemini-2.5-flash"

    @property
    def mode(self) -> SessionMode:
        if not self.judge_enabled:
            return SessionMode.OFFLINE
        if self.include_assertions:
            return SessionMode.JUDGED_WITH_ASSERTIONS
        return SessionMode.JUDGED_WITHOUT

    def digest(self) -> str:
        """The config digest sealed with a session (DESIGN §6)."""
        return digest(
            {
                "judge_enabled": self.judge_enabled,
                "include_assertions": self.include_assertions,
                "tier1_model": self.tier1_model,
                "judge_model": self.judge_model,
            }
        )
