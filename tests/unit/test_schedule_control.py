"""The learner steers the schedule (issue 19): new notes under a daily limit, undo and redo
of a review, suspend/bury/resume, leeches — each checked against the `fsrs` package's own
computation on the reviews that should count."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import fsrs
import pytest
from fakes.in_ram_schedule import InRamMemoryJournal, InRamSessions

from coach_gui.domain.digests import content_id
from coach_gui.domain.memory import assertion_digest
from coach_gui.domain.notes import Note, NoteEntry
from coach_gui.services.scheduler import AssertionScheduler, ScheduleSettings

A, B = "Selection acts only on inherited variation.", "Large change takes a long time."
NOTE = Note(id="note1", title="Natural selection", core_assertions=(A, B))
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def day(n: float) -> datetime:
    return START + timedelta(days=n)


class Clock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def now(self) -> str:
        return self.moment.isoformat()


def _vault(count: int) -> list[NoteEntry]:
    # Named so the file order differs from the order the notes are listed in.
    return [
        NoteEntry(
            note=Note(id=f"n{k}", title=f"Chapter {k}", core_assertions=(f"Point of {k}.",)),
            file_name=f"Book/{count - k:02d} chapter.md",
        )
        for k in range(count)
    ]


def _scheduler(
    sessions: InRamSessions, clock: Clock, memory: InRamMemoryJournal | None = None, **settings
) -> AssertionScheduler:
    return AssertionScheduler(
        sessions,
        memory or InRamMemoryJournal(sessions),
        clock,
        settings=ScheduleSettings(**settings),
    )


def _practise(
    sessions: InRamSessions, note: Note, when: datetime, gaps: list[tuple[int, str]]
) -> str:
    session = sessions.start(note.id, when.isoformat())
    sessions.answer(session, (when + timedelta(minutes=1)).isoformat(), note.core_assertions, gaps)
    return session


def _fsrs(ratings: list[tuple[datetime, int]]) -> fsrs.Card:
    """The package itself, called directly."""
    scheduler = fsrs.Scheduler(learning_steps=(), relearning_steps=(), enable_fuzzing=False)
    card = fsrs.Card(card_id=1, due=ratings[0][0])
    for when, rating in ratings:
        card, _ = scheduler.review_card(card, fsrs.Rating(rating), when)
    return card


def _state(scheduler: AssertionScheduler, note_id: str, text: str):  # type: ignore[no-untyped-def]
    scheduler.refresh()
    (state,) = [m for m in scheduler.memory.memory_for(note_id) if m.text == text]
    return state


def _same(state, card: fsrs.Card) -> None:  # type: ignore[no-untyped-def]
    assert (state.stability, state.difficulty) == (card.stability, card.difficulty)
    assert datetime.fromisoformat(state.due) == card.due


# --- new notes -------------------------------------------------------------------------------


def test_a_new_vault_offers_new_notes_up_to_the_daily_limit_in_file_order() -> None:
    sessions, clock = InRamSessions(), Clock(day(0))
    vault = _vault(8)
    scheduler = _scheduler(sessions, clock, new_per_day=5, new_order="file")
    today = scheduler.today({e.note.id: e.note for e in vault}.get, catalogue=vault)
    assert today.notes == [] and today.new is not None
    by_file = sorted(vault, key=lambda e: e.file_name)
    assert [n.note.id for n in today.new.notes] == [e.note.id for e in by_file[:5]]
    assert [n.rank for n in today.new.notes] == [1, 2, 3, 4, 5]
    assert (today.new.limit, today.new.begun_today, today.new.waiting) == (5, 0, 8)


def test_a_begun_new_note_counts_against_today_and_its_memory_is_the_fsrs_packages() -> None:
    sessions, clock = InRamSessions(), Clock(day(0))
    vault = _vault(8)
    lookup = {e.note.id: e.note for e in vault}.get
    memory = InRamMemoryJournal(sessions)
    scheduler = _scheduler(sessions, clock, memory, new_per_day=5, new_order="file")
    first = scheduler.today(lookup, catalogue=vault).new
    assert first is not None
    begun = first.notes[0].note
    _practise(sessions, begun, day(0.01), [])
    clock.moment = day(0.02)
    later = scheduler.today(lookup, catalogue=vault).new
    assert later is not None and later.begun_today == 1
    assert [n.note.id for n in later.notes] == [n.note.id for n in first.notes[1:5]]
    assert later.waiting == 7
    card = _fsrs([(day(0.01) + timedelta(minutes=1), fsrs.Rating.Good)])
    _same(_state(scheduler, begun.id, begun.core_assertions[0]), card)
    clock.moment = day(1)  # the next day: five more
    tomorrow = scheduler.today(lookup, catalogue=vault).new
    assert tomorrow is not None and tomorrow.begun_today == 0 and len(tomorrow.notes) == 5


@pytest.mark.parametrize("order", ["oldest", "newest", "random"])
def test_new_notes_come_in_the_order_the_learner_picked(order: str) -> None:
    sessions, clock = InRamSessions(), Clock(day(0))
    memory = InRamMemoryJournal(sessions)
    early, late = _vault(4), _vault(8)[4:]  # four found on day 0, four more on day 3
    lookup = {e.note.id: e.note for e in early + late}.get
    scheduler = _scheduler(sessions, clock, memory, new_per_day=8, new_order=order)
    scheduler.today(lookup, catalogue=early)
    clock.moment = day(3)
    today = scheduler.today(lookup, catalogue=early + late).new
    assert today is not None
    ids = [n.note.id for n in today.notes]
    by_file = lambda entries: [e.note.id for e in sorted(entries, key=lambda e: e.file_name)]  # noqa: E731
    if order == "oldest":
        assert ids == by_file(early) + by_file(late)
    elif order == "newest":
        assert ids == by_file(late) + by_file(early)
    else:
        assert sorted(ids) == sorted(by_file(early + late))
        again = scheduler.today(lookup, catalogue=early + late).new
        assert again is not None and [n.note.id for n in again.notes] == ids  # all day
        clock.moment = day(4)
        other = scheduler.today(lookup, catalogue=early + late).new
        assert other is not None and [n.note.id for n in other.notes] != ids


def test_a_new_notes_decision_records_the_limit_order_and_parameters() -> None:
    sessions, clock = InRamSessions(), Clock(day(0))
    vault = _vault(3)
    scheduler = _scheduler(sessions, clock, new_per_day=2, new_order="newest")
    today = scheduler.today({e.note.id: e.note for e in vault}.get, catalogue=vault)
    (_, plan), _second = scheduler.plans(today)
    assert plan.decision is not None
    fields = json.loads(plan.decision)
    assert content_id("scheduler_decision", fields) == plan.decision_id
    assert fields["reason"] == "new_note"
    schedule = fields["schedule"]
    assert (schedule["new_limit"], schedule["new_order"], schedule["rank"]) == (2, "newest", 1)
    assert schedule["parameters"] == [round(p, 6) for p in fsrs.scheduler.DEFAULT_PARAMETERS]
    assert schedule["parameters_id"] is None and schedule["desired_retention"] == 0.9


def test_a_note_without_assertions_or_with_history_is_never_new() -> None:
    sessions, clock = InRamSessions(), Clock(day(2))
    bare = NoteEntry(note=Note(id="bare", title="Bare"), file_name="bare.md")
    practised = NoteEntry(note=NOTE, file_name="selection.md")
    _practise(sessions, NOTE, day(0), [])
    scheduler = _scheduler(sessions, clock)
    today = scheduler.today({"bare": bare.note, NOTE.id: NOTE}.get, catalogue=[bare, practised])
    assert today.new is not None and today.new.notes == [] and today.new.waiting == 0


# --- undo ------------------------------------------------------------------------------------


def test_undo_takes_back_the_last_review_and_redo_brings_it_back() -> None:
    sessions, clock = InRamSessions(), Clock(day(9))
    _practise(sessions, NOTE, day(0), [])
    missed = _practise(sessions, NOTE, day(4), [(1, "wrong")])
    scheduler = _scheduler(sessions, clock)
    both = [(day(0) + timedelta(minutes=1), 3), (day(4) + timedelta(minutes=1), 1)]
    _same(_state(scheduler, NOTE.id, B), _fsrs(both))
    assert _state(scheduler, NOTE.id, B).gap == "wrong"

    undone = scheduler.undo_last_review()
    assert undone is not None and (undone.note_id, undone.session_id) == (NOTE.id, missed)
    state = _state(scheduler, NOTE.id, B)
    _same(state, _fsrs(both[:1]))
    assert state.gap is None and state.reviews == 1  # the gap of the undone review is gone
    rows = scheduler.memory.reviews(note_id=NOTE.id, digest=assertion_digest(B))
    assert [(r.session_id, r.undone) for r in rows][-1] == (missed, True)  # kept, marked
    assert missed in sessions.sessions  # the session itself is untouched

    clock.moment = day(9.1)
    again = scheduler.undo_last_review()  # now the first session's review
    assert again is not None and again.session_id != missed
    scheduler.refresh()
    assert scheduler.memory.memory_for(NOTE.id) == [] and scheduler.last_review() is None
    vault = [NoteEntry(note=NOTE, file_name="selection.md")]
    new = scheduler.today({NOTE.id: NOTE}.get, catalogue=vault).new
    assert new is not None and [n.note.id for n in new.notes] == [NOTE.id]  # new again

    clock.moment = day(9.2)
    redone = scheduler.redo_last_undo()
    assert redone is not None and redone.session_id == again.session_id
    clock.moment = day(9.3)
    assert scheduler.redo_last_undo() is not None
    _same(_state(scheduler, NOTE.id, B), _fsrs(both))
    assert scheduler.redo_last_undo() is None  # nothing undone now


def test_nothing_to_undo_on_an_empty_history() -> None:
    scheduler = _scheduler(InRamSessions(), Clock(day(0)))
    assert scheduler.last_review() is None and scheduler.undo_last_review() is None


# --- holds -----------------------------------------------------------------------------------


def test_a_suspended_note_leaves_today_and_the_forecast_until_resumed() -> None:
    sessions, clock = InRamSessions(), Clock(day(30))
    _practise(sessions, NOTE, day(0), [])
    scheduler = _scheduler(sessions, clock)
    lookup = {NOTE.id: NOTE}.get
    before = scheduler.today(lookup)
    assert before.due == 2
    scheduler.hold(NOTE, "suspend")
    held = scheduler.today(lookup)
    assert held.notes == [] and sum(c for _, c in held.forecast) == 0
    assert [(h.note_id, h.digest, h.suspended) for h in held.held] == [(NOTE.id, None, True)]
    card = _fsrs([(day(0) + timedelta(minutes=1), 3)])
    _same(_state(scheduler, NOTE.id, A), card)  # a hold changes no memory
    clock.moment += timedelta(seconds=1)
    scheduler.hold(NOTE, "resume")
    assert scheduler.today(lookup).due == 2 and scheduler.today(lookup).held == ()


def test_a_suspended_assertion_leaves_only_itself_out() -> None:
    sessions, clock = InRamSessions(), Clock(day(30))
    _practise(sessions, NOTE, day(0), [])
    scheduler = _scheduler(sessions, clock)
    scheduler.hold(NOTE, "suspend", assertion=B)
    (due,) = scheduler.today({NOTE.id: NOTE}.get).notes
    assert [a.memory.text for a in due.assertions] == [A]


def test_a_buried_note_comes_back_at_the_learners_next_day() -> None:
    sessions, clock = InRamSessions(), Clock(day(30))  # 09:00 UTC
    _practise(sessions, NOTE, day(0), [])
    scheduler = _scheduler(sessions, clock)
    lookup = {NOTE.id: NOTE}.get
    offset = timedelta(hours=-5)  # the learner's midnight is 05:00 UTC
    hold = scheduler.hold(NOTE, "bury", utc_offset=offset)
    assert hold.until == (day(31).replace(hour=5)).isoformat(timespec="microseconds")
    assert scheduler.today(lookup, utc_offset=offset).notes == []
    clock.moment = day(31).replace(hour=4, minute=59)
    assert scheduler.today(lookup, utc_offset=offset).notes == []
    clock.moment = day(31).replace(hour=5)
    assert scheduler.today(lookup, utc_offset=offset).due == 2


def test_a_suspended_new_note_is_not_offered() -> None:
    sessions, clock = InRamSessions(), Clock(day(0))
    vault = _vault(3)
    scheduler = _scheduler(sessions, clock, new_order="file")
    first = sorted(vault, key=lambda e: e.file_name)[0].note
    scheduler.hold(first, "suspend")
    today = scheduler.today({e.note.id: e.note for e in vault}.get, catalogue=vault)
    assert today.new is not None and first.id not in [n.note.id for n in today.new.notes]


# --- leeches ---------------------------------------------------------------------------------


def test_an_assertion_forgotten_n_times_is_a_leech() -> None:
    sessions, clock = InRamSessions(), Clock(day(100))
    _practise(sessions, NOTE, day(0), [(1, "unexplained")])  # the first review: no lapse
    for n in (2, 5, 9):
        _practise(sessions, NOTE, day(n), [(1, "wrong")])
    scheduler = _scheduler(sessions, clock, leech_lapses=4)
    assert _state(scheduler, NOTE.id, B).lapses == 3
    (due,) = scheduler.today({NOTE.id: NOTE}.get).notes
    assert not any(a.leech for a in due.assertions)
    _practise(sessions, NOTE, day(20), [(1, "wrong")])
    assert _state(scheduler, NOTE.id, B).lapses == 4
    today = scheduler.today({NOTE.id: NOTE}.get)
    assert [(a.memory.text, a.memory.lapses) for _n, a in today.leeches] == [(B, 4)]
    assert today.to_json()["notes"][0]["assertions"][0]["leech"] is True  # type: ignore[index]
    assert [m.text for m in scheduler.memory.leeches(4)] == [B]


def test_misses_in_one_evening_are_one_lapse() -> None:
    sessions, clock = InRamSessions(), Clock(day(30))
    _practise(sessions, NOTE, day(0), [])
    for minutes in (0, 10, 20, 30):  # practising the open gap again and again, one evening
        _practise(sessions, NOTE, day(2) + timedelta(minutes=minutes), [(1, "wrong")])
    scheduler = _scheduler(sessions, clock, leech_lapses=2)
    assert _state(scheduler, NOTE.id, B).lapses == 1
    _practise(sessions, NOTE, day(5), [(1, "wrong")])  # missed again, another day
    assert _state(scheduler, NOTE.id, B).lapses == 2
    assert [m.text for m in scheduler.memory.leeches(2)] == [B]


def test_due_is_decided_on_the_learners_day() -> None:
    """A review at 08:00 the learner's time of a key point FSRS had due at 10:00 that day
    is a review made when due (Today listed it since midnight), whatever UTC's date."""
    sessions, clock = InRamSessions(), Clock(day(40))
    offset = timedelta(hours=10)
    first = datetime(2026, 3, 1, 1, 0, tzinfo=UTC)  # 11:00 on 1 March, the learner's time
    _practise(sessions, NOTE, first - timedelta(minutes=1), [])
    card = _fsrs([(first, 3)])
    review = (card.due + offset).replace(hour=8, minute=0) - offset - timedelta(minutes=1)
    answered = review + timedelta(minutes=1)
    assert (answered + offset).date() == (card.due + offset).date()  # the same local day
    assert answered.date() < card.due.date()  # but the day before, in UTC
    _practise(sessions, NOTE, review, [])
    scheduler = _scheduler(sessions, clock, day_offset=offset)
    scheduler.refresh()
    rows = scheduler.memory.reviews(note_id=NOTE.id, digest=assertion_digest(A))
    assert [r.was_due for r in rows] == [False, True]
    utc_only = _scheduler(sessions, clock)
    assert utc_only.fingerprint != scheduler.fingerprint  # another day, another cache
    utc_only.refresh()
    rows = utc_only.memory.reviews(note_id=NOTE.id, digest=assertion_digest(A))
    assert [r.was_due for r in rows] == [False, False]  # on UTC's days it came early


def test_a_reworded_leech_leaves_the_list() -> None:
    from coach_gui.services.stats import statistics

    sessions, clock = InRamSessions(), Clock(day(100))
    _practise(sessions, NOTE, day(0), [])
    for n in (2, 5, 9, 14):
        _practise(sessions, NOTE, day(n), [(1, "wrong")])
    scheduler = _scheduler(sessions, clock, leech_lapses=4)
    before = statistics(scheduler, {NOTE.id: NOTE}.get, None)
    assert [(leech.text, leech.index, leech.lapses) for leech in before.leeches] == [(B, 1, 4)]
    reworded = NOTE.model_copy(update={"core_assertions": (A, "Large change needs many steps.")})
    after = statistics(scheduler, {NOTE.id: reworded}.get, None)
    assert after.leeches == []  # the new wording starts fresh (ADR 0008)


@pytest.mark.parametrize(
    "zone", ["Europe/Berlin", "Asia/Kathmandu", "America/St_Johns", "Australia/Lord_Howe", "UTC"]
)
def test_a_years_minutes_land_on_the_learners_dates_as_the_clock_read_then(zone: str) -> None:
    """Daylight saving time and offsets of half and quarter hours: each minute's date is the
    one the learner's clock showed at that minute."""
    import random
    from zoneinfo import ZoneInfo

    from coach_gui.services.stats import _bins

    tz, rng = ZoneInfo(zone), random.Random(zone)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    minutes = sorted(
        {(start + timedelta(minutes=rng.randrange(0, 366 * 1440))).strftime("%Y-%m-%dT%H:%M")
         for _ in range(4000)}
    )  # fmt: skip
    rows = [(m, n % 3 + 1, n % 2, n % 2) for n, m in enumerate(minutes)]
    days, months = _bins(rows, lambda moment: moment.astimezone(tz))
    expected_days: dict[str, int] = {}
    expected_months: dict[str, list[int]] = {}
    for minute, reviews, due, recalled in rows:
        local = datetime.fromisoformat(minute).replace(tzinfo=UTC).astimezone(tz)
        key = local.date().isoformat()
        expected_days[key] = expected_days.get(key, 0) + reviews
        month = expected_months.setdefault(key[:7], [0, 0])
        month[0] += due
        month[1] += recalled
    assert days == expected_days
    assert months == {m: (d, r) for m, (d, r) in expected_months.items()}


def test_a_decision_overrides_one_from_a_computer_whose_clock_runs_ahead() -> None:
    """Issue 20's clocks hours apart: a resume or a redo made here after a suspend or an
    undo that another computer stamped three hours ahead still wins."""
    from coach_gui.domain.schedule_control import review_change, schedule_hold

    sessions, clock = InRamSessions(), Clock(day(30))
    session = _practise(sessions, NOTE, day(0), [])
    memory = InRamMemoryJournal(sessions)
    scheduler = _scheduler(sessions, clock, memory)
    lookup = {NOTE.id: NOTE}.get
    ahead = (day(30) + timedelta(hours=3)).isoformat()
    memory.record_hold(schedule_hold(NOTE.id, "suspend", ahead))  # synced from the laptop
    assert scheduler.today(lookup).notes == []
    clock.moment = day(30) + timedelta(hours=1)
    resumed = scheduler.hold(NOTE, "resume")
    assert resumed.created_at > ahead and scheduler.today(lookup).due == 2

    memory.record_review_change(review_change(NOTE.id, session, "undo", ahead))
    assert scheduler.today(lookup).notes == []  # its only review undone there
    redone = scheduler.redo_last_undo()
    assert redone is not None and scheduler.today(lookup).due == 2
    assert scheduler.last_undone() is None  # nothing left to redo: no endless offers


def test_the_statistics_counts_are_todays_with_holds_and_edited_key_points() -> None:
    """`due_summary` counts per note what Today lists row by row: a held key point, a
    suspended note, a key point reworded since and a deleted note all agree."""
    sessions, clock = InRamSessions(), Clock(day(40))
    other = Note(id="note2", title="Struggle", core_assertions=("Many die young.", "Few live."))
    gone = Note(id="note3", title="Gone", core_assertions=("Lost.",))
    third = Note(id="note4", title="Third", core_assertions=("One.", "Two.", "Three."))
    for note in (NOTE, other, gone, third):
        _practise(sessions, note, day(0), [(0, "wrong")])
    scheduler = _scheduler(sessions, clock)
    edited = other.model_copy(update={"core_assertions": ("Many die young.", "Few survive.")})
    lookup = {NOTE.id: NOTE, other.id: edited, third.id: third}.get  # note3 deleted
    scheduler.hold(NOTE, "bury", assertion=B)
    scheduler.hold(third, "suspend")
    today = scheduler.today(lookup)
    summary = scheduler.due_summary(lookup)
    assert summary.due == today.due == 2  # A of note1, and note2's unchanged key point
    assert summary.overdue == sum(n.overdue for n in today.notes)
    assert summary.open_gaps == sum(1 for n in today.notes for a in n.assertions if a.memory.gap)
    assert summary.forecast == today.forecast
