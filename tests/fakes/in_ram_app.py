"""A fake of the use cases' ports, in RAM: what `operations.cases.Schedule` is built with
in bootstrap (a scheduler over the journal and the clock), made instead of a session
history the test adds to, its memory journal and a clock the test moves. The use case and
the operations under it then get unit tests with no journal on disk and no window
(tests/unit/test_use_cases.py); `_conforms` and mypy hold the fake to the ports."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from coach_gui.operations.app import SchedulePorts
from coach_gui.services.scheduler import AssertionScheduler, ScheduleSettings
from fakes.in_ram_schedule import InRamMemoryJournal, InRamSessions


@dataclass
class MovableClock:
    moment: datetime

    def now(self) -> str:
        return self.moment.isoformat()


@dataclass
class InRamSchedulePorts:
    """The schedule's ports: `sessions` as the journal would read them, one memory
    journal for every scheduler asked for (as the journal's tables are one)."""

    clock: MovableClock
    sessions: InRamSessions = field(default_factory=InRamSessions)
    settings: ScheduleSettings = field(default_factory=ScheduleSettings)
    memory: InRamMemoryJournal = field(init=False)

    def __post_init__(self) -> None:
        self.memory = InRamMemoryJournal(self.sessions)

    def scheduler(self) -> AssertionScheduler:
        return AssertionScheduler(self.sessions, self.memory, self.clock, settings=self.settings)


def _conforms(ports: InRamSchedulePorts) -> SchedulePorts:
    return ports
