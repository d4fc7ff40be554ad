"""What a practice session needs from the config, as plain values the caller builds."""

from __future__ import annotations

from dataclasses import dataclass

from coach_gui.domain.digests import digest
from coach_gui.domain.practice import SessionMode


def judge_sampling(
    temperature: float,
    seed: int | None,
    thinking_budget: int | None,
    strictness: str = "standard",
) -> dict[str, object]:
    """How the judge samples and how strictly it grades (DESIGN §4): sealed with every
    session and every bound trace, so a verdict can be reproduced with the settings it was
    made with. The standard strictness is left out, so the digests of sessions judged
    before strictness existed read as what they were: standard."""
    found: dict[str, object] = {
        "judge_temperature": temperature,
        "judge_seed": seed,
        "judge_thinking_budget": thinking_budget,
    }
    if strictness != "standard":
        found["judge_strictness"] = strictness
    return found


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
    judge_temperature: float = 0.0
    judge_seed: int | None = None
    judge_thinking_budget: int | None = None
    judge_strictness: str = "standard"

    @property
    def mode(self) -> SessionMode:
        if not self.judge_enabled:
            return SessionMode.OFFLINE
        if self.include_assertions:
            return SessionMode.JUDGED_WITH_ASSERTIONS
        return SessionMode.JUDGED_WITHOUT

    def judge_sampling(self) -> dict[str, object]:
        return judge_sampling(
            self.judge_temperature,
            self.judge_seed,
            self.judge_thinking_budget,
            self.judge_strictness,
        )

    def digest(self) -> str:
        """The config digest sealed with a session (DESIGN §6)."""
        return digest(
            {
                "judge_enabled": self.judge_enabled,
                "include_assertions": self.include_assertions,
                "tier1_model": self.tier1_model,
                "judge_model": self.judge_model,
                **self.judge_sampling(),
            }
        )
