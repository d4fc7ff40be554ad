"""Statistics a learner can read (issue 19): reviews per day over a year, true retention
per month against the desired retention, each assertion's timeline, what is due, new,
suspended and buried, and the forecast — all computed from the review rows the memory
cache replays from history, so they always agree with it.

"True retention" is Anki's: of the reviews made when an assertion was due (on or after
the day FSRS had it due), the share recalled (rated Hard, Good or Easy — explained, by the
judge). Reviews ahead of schedule (an open gap is practised at once) and first reviews
are left out: they say nothing about remembering over the interval.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from coach_gui.domain.agreement import Agreement, agreement
from coach_gui.domain.memory import RATING_NAMES, SOURCE_WORDS, ReviewRow, assertion_digest
from coach_gui.domain.notes import NoteEntry
from coach_gui.domain.schedule_control import Hold
from coach_gui.services.ports.notes import NoteLookup
from coach_gui.services.scheduler import AssertionScheduler, hold_json, stamp, utc

YEAR_DAYS = 365
MONTHS = 12
OPTIMIZE_MIN_REVIEWS = 400  # as Anki asks: fewer, and a fit follows noise


@dataclass(frozen=True)
class MonthRetention:
    month: str  # YYYY-MM, the learner's calendar
    due: int  # reviews made when due
    recalled: int  # of those, recalled

    @property
    def rate(self) -> float | None:
        return self.recalled / self.due if self.due else None

    def to_json(self) -> dict[str, object]:
        rate = self.rate
        return {
            "month": self.month, "due_reviews": self.due, "recalled": self.recalled,
            "retention": None if rate is None else round(rate, 4),
        }  # fmt: skip


@dataclass(frozen=True)
class Counts:
    """Assertions due today (overdue among them), new notes waiting (and offered today),
    and what the learner holds back."""

    due: int
    overdue: int
    open_gaps: int
    new_waiting: int
    new_today: int
    suspended: int
    buried: int
    assertions: int  # with a memory

    def to_json(self) -> dict[str, object]:
        return {
            "due": self.due, "overdue": self.overdue, "open_gaps": self.open_gaps,
            "new_waiting": self.new_waiting, "new_today": self.new_today,
            "suspended": self.suspended, "buried": self.buried, "assertions": self.assertions,
        }  # fmt: skip


@dataclass(frozen=True)
class Leech:
    """An assertion forgotten again and again: worth rewording or splitting."""

    note_id: str
    title: str
    digest: str
    text: str
    index: int  # in the note now (a reworded key point is a new one: no longer a leech)
    lapses: int
    reviews: int

    def to_json(self) -> dict[str, object]:
        return {
            "note_id": self.note_id, "title": self.title, "digest": self.digest,
            "assertion": self.text, "index": self.index, "lapses": self.lapses,
            "reviews": self.reviews,
        }  # fmt: skip


@dataclass(frozen=True)
class TimelineEntry:
    """One review of one assertion, for its timeline."""

    at: str  # ISO-8601 UTC
    day: str  # the learner's date
    rating: int
    source: str  # "judge" | "self" | "later"
    session_id: str
    was_due: bool
    undone: bool

    @property
    def rating_name(self) -> str:
        return RATING_NAMES[self.rating]

    @property
    def source_words(self) -> str:
        return SOURCE_WORDS[self.source]  # type: ignore[index]

    def to_json(self) -> dict[str, object]:
        return {
            "at": self.at, "date": self.day, "rating": self.rating_name,
            "source": self.source, "session_id": self.session_id, "was_due": self.was_due,
            "undone": self.undone,
        }  # fmt: skip


@dataclass(frozen=True)
class Statistics:
    now: str
    days: list[tuple[str, int]]  # the learner's dates over the last year, oldest first
    retention: list[MonthRetention]  # the last 12 months, oldest first
    desired_retention: float
    counts: Counts
    forecast: list[tuple[str, int]]
    leeches: list[Leech]
    leech_lapses: int
    reviews: int  # counted reviews in all (the optimizer needs OPTIMIZE_MIN_REVIEWS)
    parameters_fitted: bool  # the learner applied fitted FSRS parameters
    held: tuple[Hold, ...]  # what the learner holds back now

    @property
    def reviews_this_year(self) -> int:
        return sum(count for _, count in self.days)

    @property
    def can_optimize(self) -> bool:
        return self.reviews >= OPTIMIZE_MIN_REVIEWS

    def to_json(self) -> dict[str, object]:
        return {
            "now": self.now,
            "counts": self.counts.to_json(),
            "reviews": self.reviews,
            "reviews_per_day": [{"date": d, "reviews": n} for d, n in self.days if n],
            "reviews_this_year": self.reviews_this_year,
            "retention": [m.to_json() for m in self.retention],
            "desired_retention": self.desired_retention,
            "forecast": [{"date": d, "due": n} for d, n in self.forecast],
            "leech_lapses": self.leech_lapses,
            "leeches": [leech.to_json() for leech in self.leeches],
            "held": [hold_json(h) for h in self.held],
            "optimizer": {
                "reviews_needed": OPTIMIZE_MIN_REVIEWS,
                "available": self.can_optimize,
                "parameters_fitted": self.parameters_fitted,
            },
        }


def _months_back(today: date, count: int) -> list[str]:
    year, month = today.year, today.month
    found = []
    for _ in range(count):
        found.append(f"{year:04d}-{month:02d}")
        year, month = (year, month - 1) if month > 1 else (year - 1, 12)
    return found[::-1]


LocalTime = Callable[[datetime], datetime]  # a UTC time on the learner's clock then


def _bins(
    minutes: list[tuple[str, int, int, int]], local_time: LocalTime
) -> tuple[dict[str, int], dict[str, tuple[int, int]]]:
    """Per-minute counts in the learner's dates (reviews) and months (due, recalled). The
    clock's offset is read once per UTC date, and once per UTC hour on a date it changes
    (offsets change on the UTC hour nearly everywhere; where a zone changed at a half
    hour — Iran until 2022, Lord Howe Island — the half hour after a change may land on
    the day before), and a minute's date from its text: a year is tens of thousands of
    minutes."""
    days: dict[str, int] = {}
    months: dict[str, list[int]] = {}

    def offset_at(moment: datetime) -> int:
        wall = local_time(moment).replace(tzinfo=None) - moment.replace(tzinfo=None)
        return round(wall.total_seconds() / 60)

    by_date: dict[str, int | None] = {}  # UTC date -> its offset, None: it changes that day
    offsets: dict[str, int] = {}  # UTC hour -> the offset then, on a day it changes
    dates: dict[tuple[str, int], str] = {}  # (UTC date, days shifted) -> the learner's
    for minute, reviews, due, recalled in minutes:
        utc_date = minute[:10]
        if utc_date not in by_date:
            midnight = datetime.fromisoformat(utc_date).replace(tzinfo=UTC)
            first, last = offset_at(midnight), offset_at(midnight + timedelta(days=1))
            by_date[utc_date] = first if first == last else None
        offset = by_date[utc_date]
        if offset is None:
            hour = minute[:13]
            offset = offsets.get(hour)
            if offset is None:
                start = datetime.fromisoformat(hour + ":00").replace(tzinfo=UTC)
                offset = offsets[hour] = offset_at(start)
        shift = (int(minute[11:13]) * 60 + int(minute[14:16]) + offset) // 1440
        day = minute[:10]
        if shift:
            found = dates.get((day, shift))
            if found is None:
                found = dates[(day, shift)] = (
                    date.fromisoformat(day) + timedelta(days=shift)
                ).isoformat()
            day = found
        days[day] = days.get(day, 0) + reviews
        month = months.setdefault(day[:7], [0, 0])
        month[0] += due
        month[1] += recalled
    return days, {m: (due, recalled) for m, (due, recalled) in months.items()}


def statistics(
    scheduler: AssertionScheduler,
    notes: NoteLookup,
    catalogue: Sequence[NoteEntry] | None,
    *,
    utc_offset: timedelta = timedelta(0),
    local_time: LocalTime | None = None,
) -> Statistics:
    """Every figure of the statistics view, from the memory cache brought up to date.
    `local_time` puts a past review on the learner's clock as it was then (daylight
    saving time included); without it, today's `utc_offset` is used for the whole year."""
    summary = scheduler.due_summary(notes, utc_offset=utc_offset, catalogue=catalogue)
    memory = scheduler.memory
    now = utc(summary.now)
    local_today = (now + utc_offset).date()
    first_day = local_today - timedelta(days=YEAR_DAYS - 1)
    months = _months_back(local_today, MONTHS)
    since = min(now - timedelta(days=YEAR_DAYS + 1), now - timedelta(days=31 * MONTHS + 1))
    shift = local_time or (lambda moment: moment + utc_offset)
    per_day, by_month = _bins(memory.review_minutes(stamp(since)), shift)
    dates = [(first_day + timedelta(days=n)).isoformat() for n in range(YEAR_DAYS)]
    days = [(d, per_day.get(d, 0)) for d in dates]
    retention = [MonthRetention(m, *by_month.get(m, (0, 0))) for m in months]
    leeches = []
    for state in memory.leeches(scheduler.settings.leech_lapses):
        note = notes(state.note_id)
        if note is None:
            continue  # its note is gone: nothing to reword
        digests = [assertion_digest(t) for t in note.core_assertions]
        if state.digest not in digests:
            continue  # reworded (or removed) since: a new key point, with a memory of its own
        index = digests.index(state.digest)
        leeches.append(Leech(state.note_id, note.title, state.digest, state.text, index,
                             state.lapses, state.reviews))  # fmt: skip
    leeches.sort(key=lambda leech: (-leech.lapses, leech.title.casefold(), leech.text))
    held = summary.held
    counts = Counts(
        due=summary.due,
        overdue=summary.overdue,
        open_gaps=summary.open_gaps,
        new_waiting=summary.new.waiting if summary.new is not None else 0,
        new_today=len(summary.new.notes) if summary.new is not None else 0,
        suspended=sum(h.suspended for h in held),
        buried=sum(not h.suspended for h in held),
        assertions=memory.assertion_count(),
    )
    applied = scheduler.applied
    return Statistics(
        now=summary.now,
        days=days,
        retention=retention,
        desired_retention=scheduler.settings.desired_retention,
        counts=counts,
        forecast=summary.forecast,
        leeches=leeches,
        leech_lapses=scheduler.settings.leech_lapses,
        reviews=memory.review_count(),
        parameters_fitted=applied is not None and applied.parameters is not None,
        held=held,
    )


def judge_agreement(scheduler: AssertionScheduler) -> list[Agreement]:
    """The judge measured against its learner (issue 36): per judge, model, strictness and
    month, over every session. Its own call, not part of `statistics`: it reads every
    session's records (seconds for 20,000 sessions), and the figures above must not wait."""
    return agreement(scheduler.judged_history())


def timeline(
    scheduler: AssertionScheduler,
    note_id: str,
    digest: str,
    *,
    utc_offset: timedelta = timedelta(0),
) -> list[TimelineEntry]:
    """Every review of one assertion, oldest first, undone ones too (marked)."""
    scheduler.refresh()
    return [
        _entry(row, utc_offset) for row in scheduler.memory.reviews(note_id=note_id, digest=digest)
    ]


def _entry(row: ReviewRow, utc_offset: timedelta) -> TimelineEntry:
    day = (utc(row.at) + utc_offset).date().isoformat()
    return TimelineEntry(
        row.at, day, row.rating, row.source, row.session_id, row.was_due, row.undone
    )
