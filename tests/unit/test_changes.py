"""Issue 35: the changes record the window broadcasts (DESIGN §2)."""

from __future__ import annotations

from coach_gui.domain.changes import (
    ANSWERS_JUDGED,
    NOTES_LISTED,
    RECORDS_ARRIVED,
    REVIEW_TAKEN_BACK,
    SCHEDULE_CHANGED,
    SESSION_SEALED,
    Changes,
)


def test_records_combine_and_say_what_they_touch() -> None:
    both = NOTES_LISTED | SCHEDULE_CHANGED
    assert both == Changes(notes=True, schedule=True)
    assert both.touches(Changes(schedule=True))
    assert not both.touches(Changes(sessions=True, verdicts=True, reviews=True))
    assert not Changes().touches(Changes(notes=True, schedule=True))


def test_only_what_was_made_here_goes_to_the_other_computers() -> None:
    assert SESSION_SEALED.made_here
    assert ANSWERS_JUDGED.made_here
    assert not RECORDS_ARRIVED.made_here  # came from them: sending it back would loop
    assert not REVIEW_TAKEN_BACK.made_here
    assert not (NOTES_LISTED | SCHEDULE_CHANGED).made_here


def test_what_a_mutating_operation_returns_says_what_it_changed() -> None:
    """The window broadcasts the record an operation's result carries (DESIGN §2); it does
    not choose one itself."""
    from coach_gui.domain.practice import Disposition
    from coach_gui.domain.schedule_control import applied_parameters, schedule_hold
    from coach_gui.domain.sync import SyncReport
    from coach_gui.operations.practice import SessionEnded
    from coach_gui.services.judge_later import JudgePendingReport
    from coach_gui.services.scheduler import UndoneReview

    at = "2026-12-05T10:00:00+00:00"
    hold = schedule_hold("note-1", "suspend", at)
    assert hold.changes == SCHEDULE_CHANGED
    assert applied_parameters(None, None, at).changes == SCHEDULE_CHANGED
    assert UndoneReview("note-1", "s1", at, "undo").changes == REVIEW_TAKEN_BACK
    assert JudgePendingReport(assertions_sent=True).changes == ANSWERS_JUDGED
    ended = SessionEnded("s1", "Natural selection", 1, 0, Disposition.UNJUDGED_OFFLINE)
    assert ended.changes == SESSION_SEALED
    quiet = SyncReport("d1", "laptop", "/sync")
    assert quiet.changes == Changes()  # nothing came in: nothing to read again
    quiet.records_in = 3
    assert quiet.changes == RECORDS_ARRIVED and not quiet.changes.made_here
