"""What is due today (ADR 0008): the notes whose core assertions are due, in the learner's
own day — for the Today view and `coach today` alike."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from coach_gui.domain.notes import Note, NoteEntry
from coach_gui.domain.practice import GapPlan
from coach_gui.operations.app import SchedulePorts
from coach_gui.services.ports.notes import NoteLookup
from coach_gui.services.scheduler import Today


@dataclass(frozen=True)
class DuePractice:
    """One due (or new) note to practise, and the decision to practise it, sealed with the
    session. The decision is made when it is first asked for — when the learner starts
    the note — not for every note Today lists (thousands, each hashed)."""

    note: Note
    decide: Callable[[], GapPlan] = field(repr=False, compare=False)

    @functools.cached_property
    def plan(self) -> GapPlan:
        return self.decide()


def learners_day_offset() -> timedelta:
    """This computer's UTC offset now: "today" starts at the learner's midnight."""
    return datetime.now().astimezone().utcoffset() or timedelta(0)


def today(
    app: SchedulePorts,
    notes: NoteLookup,
    *,
    rebuild: bool = False,
    catalogue: Sequence[NoteEntry] | None = None,
) -> Today:
    """Bring the memory cache up to date (from history when `rebuild`) and read what is
    due today and over the next 14 days; with the `catalogue` of every note, today's new
    notes too."""
    scheduler = app.scheduler()
    if rebuild:
        scheduler.forget()
    return scheduler.today(notes, utc_offset=learners_day_offset(), catalogue=catalogue)


def today_with_plans(
    app: SchedulePorts, notes: NoteLookup, catalogue: Sequence[NoteEntry] | None = None
) -> tuple[Today, list[DuePractice]]:
    """What is due (then today's new notes), and for each note the plan its session will
    be sealed with."""
    scheduler = app.scheduler()
    due = scheduler.today(notes, utc_offset=learners_day_offset(), catalogue=catalogue)
    return due, [DuePractice(note, decide) for note, decide in scheduler.deciders(due)]
