"""The schedule's use case (`operations.cases.Schedule`, what the window is given) over a
fake of its ports in RAM (tests/fakes/in_ram_app.py): the operations under it are tested
with no journal on disk and no window (issue 35)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from fakes.in_ram_app import InRamSchedulePorts, MovableClock

from coach_gui.domain.changes import REVIEW_TAKEN_BACK, SCHEDULE_CHANGED
from coach_gui.domain.notes import Note
from coach_gui.operations.cases import Schedule
from coach_gui.operations.optimize import NotYet

A, B = "Selection acts only on inherited variation.", "Large change takes a long time."
NOTE = Note(id="note1", title="Natural selection", core_assertions=(A, B))
OTHER = Note(id="note2", title="Variation under domestication", core_assertions=(A,))
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
NOTES = {NOTE.id: NOTE, OTHER.id: OTHER}.get


def _practised(
    ports: InRamSchedulePorts, note: Note, days: float, gaps: list[tuple[int, str]]
) -> str:
    when = START + timedelta(days=days)
    session = ports.sessions.start(note.id, when.isoformat())
    answered = (when + timedelta(minutes=1)).isoformat()
    ports.sessions.answer(session, answered, note.core_assertions, gaps)
    return session


def _due(schedule: Schedule) -> list[tuple[str, str | None]]:
    today, _plans = schedule.today(NOTES, None)
    return [(due.note.id, due.open_gap) for due in today.notes]


def test_a_hold_takes_a_note_off_today_and_says_what_it_changed() -> None:
    ports = InRamSchedulePorts(MovableClock(START + timedelta(days=2)))
    _practised(ports, NOTE, 0, [(1, "wrong")])  # a misconception: due again soon
    schedule = Schedule(ports)
    assert _due(schedule) == [(NOTE.id, "wrong")]

    held = schedule.hold(NOTE, "suspend")
    assert (held.note_id, held.action, held.changes) == (NOTE.id, "suspend", SCHEDULE_CHANGED)
    today, _plans = schedule.today(NOTES, None)
    assert today.notes == [] and [h.note_id for h in today.held] == [NOTE.id]

    schedule.hold(NOTE, "resume")
    assert _due(schedule) == [(NOTE.id, "wrong")]


def test_undo_takes_back_only_the_review_the_learner_was_shown() -> None:
    ports = InRamSchedulePorts(MovableClock(START + timedelta(days=9)))
    _practised(ports, OTHER, 0, [])
    last = _practised(ports, NOTE, 4, [(1, "unexplained")])
    schedule = Schedule(ports)
    shown = schedule.last_review()
    assert shown is not None and (shown.note_id, shown.session_id) == (NOTE.id, last)
    assert schedule.undo_last_review(expected_session="another session") is None
    assert schedule.last_review() == shown  # nothing was taken back

    undone = schedule.undo_last_review(expected_session=last)
    assert undone is not None and undone.changes == REVIEW_TAKEN_BACK
    redo = schedule.last_undone()  # what Redo would count again
    assert redo is not None and (redo.session_id, redo.action) == (last, "redo")
    assert (NOTE.id, "unexplained") not in _due(schedule)  # its gap went with it
    ports.clock.moment += timedelta(minutes=5)
    redone = schedule.redo_review(expected_session=last)
    assert redone is not None and redone.session_id == last
    assert schedule.last_undone() is None


def test_the_fit_says_not_yet_on_a_short_history_and_nothing_is_in_force() -> None:
    ports = InRamSchedulePorts(MovableClock(START + timedelta(days=3)))
    _practised(ports, NOTE, 0, [])
    result, in_force = Schedule(ports).fit()
    assert in_force is False
    assert isinstance(result, NotYet)
