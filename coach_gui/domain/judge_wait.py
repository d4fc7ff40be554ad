"""How a wait for the judge stands: which try, of how many, and how long at most is left of
the whole wait (issue 33). Told by a judge that retries, at each try; the window shows it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class JudgeWait:
    attempt: int  # this try, from 1
    attempts: int  # tries at most
    seconds_left: float  # of the whole wait, every try included, when this try started
    deadline: float  # time.monotonic() when the whole wait is over
