"""The privacy switches as they are right now, read at every request (DESIGN §1.2, §1.8).

One `LivePrivacy` per app: the toolbar and Settings set it; the practice session, the
judging service and the Gemini adapter read it at the moment each request is made, so a
switch applies to the next request exactly as the status bar says. It holds two flags
behind a lock and does no I/O.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class PrivacySwitches:
    judge_enabled: bool
    include_assertions: bool
    provider: str = "gemini"  # who grades: "gemini", or "local" (this computer, issue 22)


class LivePrivacy:
    def __init__(self, switches: PrivacySwitches) -> None:
        self._lock = threading.Lock()
        self._now = switches

    def now(self) -> PrivacySwitches:
        with self._lock:
            return self._now

    def set(self, switches: PrivacySwitches) -> None:
        with self._lock:
            self._now = switches

    def judge_enabled(self) -> bool:
        return self.now().judge_enabled

    def provider(self) -> str:
        """Who grades now: a judge built for another provider must not send anything."""
        return self.now().provider

    def include_assertions(self) -> bool:
        """Whether assertions may go with the next request (never with the judge off)."""
        now = self.now()
        return now.judge_enabled and now.include_assertions
