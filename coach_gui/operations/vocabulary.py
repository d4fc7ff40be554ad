"""The words and times both faces print (DESIGN §2, issue 35): how a review mode, a gap's
problem or a count is said, and a moment in the learner's own time zone. One place, so the
window, the terminal and an exported gap list say the same thing the same way; no Qt."""

from __future__ import annotations

import os
from datetime import date, datetime, timedelta
from pathlib import Path

# How each review mode is said to the learner: the Sessions view, a session's detail, an
# exported gap list and `coach sessions` alike.
MODE_LABELS = {
    "judged_with_assertions": "judged with assertions",
    "judged_without": "judged without assertions",
    "offline": "offline",
    "pending": "pending",
    "no_answers": "no answers",
}
PROBLEM_LABELS = {"unexplained": "Not explained", "wrong": "Wrong"}
# How a session ended (its sealed disposition), as `coach practice` says it at the end.
DISPOSITION_WORDS = {
    "all_passed": "every answer passed",
    "gaps_found": "gaps found",
    "unjudged_offline": "kept unjudged",
    "judge_unavailable": "kept unjudged: the judge could not be reached",
    "no_answers": "no answers",
    "interrupted": "interrupted",
}


def mode_label(mode: str) -> str:
    return MODE_LABELS.get(mode, mode.replace("_", " "))


def counted(n: int, thing: str) -> str:
    """`1 answer`, `2 answers`."""
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _local(stamp: str) -> datetime | None:
    """An ISO 8601 time (UTC as stored) in this computer's time zone; None if it is not one."""
    try:
        return datetime.fromisoformat(stamp).astimezone()
    except ValueError:
        return None


def to_the_minute(stamp: str) -> str:
    """ "2026-11-03 21:14" in the learner's time; the stamp as it is if it is not a time."""
    moment = _local(stamp)
    return stamp if moment is None else f"{moment:%Y-%m-%d %H:%M}"


def to_the_second(stamp: str) -> str:
    """ "2026-11-03 21:14:05" in the learner's time (what was sent, and when)."""
    moment = _local(stamp)
    return stamp if moment is None else f"{moment:%Y-%m-%d %H:%M:%S}"


def clock(stamp: str) -> str:
    """ "21:14" in the learner's time."""
    moment = _local(stamp)
    return stamp[11:16] if moment is None else f"{moment:%H:%M}"


def day_and_clock(stamp: str) -> str:
    """ "03 Nov 21:14" in the learner's time (when a key point falls due)."""
    moment = _local(stamp)
    return stamp if moment is None else f"{moment:%d %b %H:%M}"


def when_words(stamp: str, now: str) -> str:
    """When, in the learner's own time: "today 21:14", "yesterday 08:02", "3 Nov 21:14"."""
    moment = datetime.fromisoformat(stamp).astimezone()
    today = datetime.fromisoformat(now).astimezone().date()
    if moment.date() == today:
        day = "today"
    elif moment.date() == today - timedelta(days=1):
        day = "yesterday"
    else:
        day = f"{moment.day} {moment:%b}"
    return f"{day} {moment:%H:%M}"


def long_day(day: date) -> str:
    """ "Thursday 5 November"."""
    return f"{day:%A} {day.day} {day:%B}"


def short_path(path: str) -> str:
    """`path` with the home folder written as ~, as people read paths in a status bar."""
    home = str(Path.home())
    return "~" + path[len(home) :] if path == home or path.startswith(home + os.sep) else path
