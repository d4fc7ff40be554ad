"""A practice session over one note: its challenges, the learner's answers, how it ended."""

from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import AfterValidator

from coach_gui.domain.canonical import digest
from coach_gui.domain.notes import Note
from coach_gui.domain.records import Record


class SessionMode(StrEnum):
    """What the judge was allowed to do when the session started."""

    JUDGED_WITH_ASSERTIONS = "judged_with_assertions"
    JUDGED_WITHOUT = "judged_without"
    OFFLINE = "offline"


class Disposition(StrEnum):
    """How a session ended, as sealed in its trace."""

    ALL_PASSED = "all_passed"
    GAPS_FOUND = "gaps_found"
    UNJUDGED_OFFLINE = "unjudged_offline"
    JUDGE_UNAVAILABLE = "judge_unavailable"
    NO_ANSWERS = "no_answers"
    INTERRUPTED = "interrupted"


def new_id() -> str:
    return uuid.uuid4().hex


def note_digest(note: Note) -> str:
    """Digest of what the learner practised: the note's content, not where its file is."""
    return digest(note.model_dump(mode="json"))


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("an answer cannot be empty; write something or skip the challenge")
    return value


Answer = Annotated[str, AfterValidator(_not_blank)]


class PracticeSession(Record):
    id: str
    note_id: str
    note_title: str
    note_digest: str
    config_digest: str
    mode: SessionMode
    started_at: str  # ISO-8601 UTC


class Attempt(Record):
    """One submitted answer. Stored the moment it is submitted, before any judging."""

    id: str
    session_id: str
    challenge_id: str
    answer: Answer
    submitted_at: str
    status: Literal["unjudged", "judged"] = "unjudged"
    unjudged_reason: str | None = None
