"""The learner steers their schedule (issue 19, ADR 0026): undo and redo the last review,
suspend, bury and resume a note or one assertion, read the statistics and an assertion's
timeline — once, for the window and `coach stats`/`coach schedule` alike."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from coach_gui.domain.agreement import Agreement
from coach_gui.domain.corrections import Corrected, KeyPointStatus
from coach_gui.domain.notes import Note, NoteEntry
from coach_gui.domain.schedule_control import HoldAction, ScheduleHold
from coach_gui.operations.app import SchedulePorts
from coach_gui.operations.today import learners_day_offset
from coach_gui.services.ports.notes import NoteLookup
from coach_gui.services.scheduler import UndoneReview
from coach_gui.services.stats import OPTIMIZE_MIN_REVIEWS as OPTIMIZE_MIN_REVIEWS  # re-exported
from coach_gui.services.stats import MonthRetention as MonthRetention  # re-exported
from coach_gui.services.stats import Statistics, TimelineEntry
from coach_gui.services.stats import judge_agreement as compute_judge_agreement
from coach_gui.services.stats import statistics as compute_statistics
from coach_gui.services.stats import timeline as compute_timeline


def statistics(
    app: SchedulePorts, notes: NoteLookup, catalogue: Sequence[NoteEntry] | None = None
) -> Statistics:
    """Every figure of the statistics view, in the learner's own days."""
    return compute_statistics(app.scheduler(), notes, catalogue, utc_offset=learners_day_offset())


def judge_agreement(app: SchedulePorts) -> list[Agreement]:
    """How often the learner left the judge's word as it was (issue 36), per judge, model,
    strictness and month (slow on a long history: on a worker)."""
    return compute_judge_agreement(app.scheduler())


def timeline(app: SchedulePorts, note_id: str, digest: str) -> list[TimelineEntry]:
    """Every review of one assertion, oldest first (undone ones marked)."""
    return compute_timeline(app.scheduler(), note_id, digest, utc_offset=learners_day_offset())


def undo_last_review(
    app: SchedulePorts, expected_session: str | None = None
) -> UndoneReview | None:
    """Take back the latest review (None: nothing to undo, or the latest is no longer
    `expected_session`'s, the one the learner was shown). Its records stay."""
    return app.scheduler().undo_last_review(expected_session)


def correct(
    app: SchedulePorts, attempt_id: str, key_point: int, status: KeyPointStatus, note: str = ""
) -> Corrected:
    """The learner's word on key point `key_point` (1-based, as the screen numbers them)
    of answer `attempt_id`'s verdict (issue 36). CorrectionRefused says why it cannot be."""
    return app.scheduler().correct(attempt_id, key_point - 1, status, note)


def redo_review(app: SchedulePorts, expected_session: str | None = None) -> UndoneReview | None:
    """Count again the review undone last (None: nothing undone, or not the one shown)."""
    return app.scheduler().redo_last_undo(expected_session)


def last_review(app: SchedulePorts) -> UndoneReview | None:
    """What Undo would take back now."""
    return app.scheduler().last_review()


def last_undone(app: SchedulePorts) -> UndoneReview | None:
    """What Redo would count again now (`at`: when that review was made)."""
    return app.scheduler().last_undone()


def hold(
    app: SchedulePorts, note: Note, action: HoldAction, *, assertion: str | None = None
) -> ScheduleHold:
    """Suspend, bury (until the learner's next day) or resume a note or one assertion."""
    return app.scheduler().hold(note, action, assertion=assertion, utc_offset=learners_day_offset())


@dataclass(frozen=True)
class KeyPoint:
    """A key point with a memory, in a note still in the folder: one the statistics view
    can show the timeline of."""

    note_id: str
    title: str
    digest: str
    text: str
    index: int | None  # in the note now; None when its text changed since
    reviews: int
    lapses: int


def key_points(app: SchedulePorts, notes: NoteLookup) -> list[KeyPoint]:
    """Every key point with a memory, by note title then place in the note (read after
    `statistics`, which brings the memory up to date). One read of every memory row (all
    are due before the end of time), not one per note: 10,000 notes are one query."""
    found = []
    for state in app.scheduler().memory.due_before("9999-12-31"):
        note = notes(state.note_id)
        if note is None:
            continue  # its note is gone
        texts = note.core_assertions
        index = texts.index(state.text) if state.text in texts else None
        found.append(KeyPoint(state.note_id, note.title, state.digest, state.text, index,
                              state.reviews, state.lapses))  # fmt: skip
    found.sort(key=lambda k: (k.title.casefold(), k.note_id, k.index is None, k.index or 0, k.text))
    return found
