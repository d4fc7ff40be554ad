"""Issue 35: the changes record the window broadcasts (DESIGN §2)."""

from __future__ import annotations

from coach_gui.operations.changes import (
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
