"""What an operation changed, for the faces to bring what they show up to date (DESIGN §2,
as Anki's `OpChanges`): the window broadcasts a record once and each view decides whether
it reads again; the terminal prints and exits, so it needs none.

The records below are the ones the window's operations make; `Changes` itself is open for
more (`sessions | schedule` is a record too)."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Changes:
    notes: bool = False  # the notes were listed again (a save, a folder, another program)
    sessions: bool = False  # a session was sealed
    verdicts: bool = False  # answers were judged
    reviews: bool = False  # a review was counted or taken back: the key points' memory
    schedule: bool = False  # when key points fall due: holds, retention, parameters
    synced: bool = False  # the records came from another computer

    def __or__(self, other: Changes) -> Changes:
        return Changes(
            **{f.name: getattr(self, f.name) or getattr(other, f.name) for f in fields(self)}
        )

    def touches(self, wanted: Changes) -> bool:
        """True when this record changed something `wanted` names."""
        return any(getattr(self, f.name) and getattr(wanted, f.name) for f in fields(self))

    @property
    def made_here(self) -> bool:
        """Sessions or verdicts made on this computer: what sync takes to the others."""
        return (self.sessions or self.verdicts) and not self.synced


NOTES_LISTED = Changes(notes=True)
SESSION_SEALED = Changes(sessions=True, verdicts=True, reviews=True)
ANSWERS_JUDGED = Changes(verdicts=True, reviews=True)
REVIEW_TAKEN_BACK = Changes(reviews=True)  # Undo review, Redo review
KEY_POINT_CORRECTED = Changes(verdicts=True, reviews=True)  # the learner's word on a verdict
NOTES_IMPORTED = Changes(notes=True, reviews=True)  # coach import, File › Import…
SCHEDULE_CHANGED = Changes(schedule=True)  # suspend, bury, resume; Settings; parameters
RECORDS_ARRIVED = Changes(sessions=True, verdicts=True, reviews=True, synced=True)
