"""Fitting FSRS to the learner's own reviews (issue 19, ADR 0028): the parameters that
predict best when they forget, found by `fsrs-rs-python` (the Rust optimizer Anki uses),
with the fit of the parameters in use and of the fitted ones measured on the same reviews.

Pure: the review histories, the time and the learner's UTC offset come in; nothing is
stored here (the learner's yes goes through `AssertionScheduler.apply_parameters`).
Each review after an assertion's first is one training item: the assertion's history up
to and including it, with the days between reviews counted in the learner's own days.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TypeVar

import fsrs_rs_python as rs
from fsrs import Card, Rating
from fsrs.scheduler import DEFAULT_PARAMETERS

from coach_gui.domain.memory import ReviewRow
from coach_gui.domain.schedule_control import FitSummary
from coach_gui.services.scheduler import FORECAST_DAYS, fsrs_scheduler, utc
from coach_gui.services.stats import OPTIMIZE_MIN_REVIEWS

T = TypeVar("T")
Progress = Callable[[int, int, str], None]  # (step done, steps, what is being done)
STEPS = 4
_DECIMALS = 6  # the parameters as stored and sealed (ScheduleFields rounds the same)


@dataclass(frozen=True)
class NotYet:
    """Too few reviews for a fit worth having."""

    reviews: int
    assertions: int
    needed: int = OPTIMIZE_MIN_REVIEWS

    @property
    def more(self) -> int:
        return max(self.needed - self.reviews, 0)


@dataclass(frozen=True)
class Unusable:
    """The fit ran but gave nothing Coach can schedule with (or could not run)."""

    reviews: int
    assertions: int


@dataclass(frozen=True)
class ScheduleChange:
    """How the schedule would change: the first interval after a Good first answer, and
    about how many assertions would fall due within the next 14 days (the overdue among
    them), with the parameters in use and with the fitted ones."""

    first_good_days_before: int
    first_good_days_after: int
    due_soon_before: int
    due_soon_after: int

    def to_json(self) -> dict[str, object]:
        return {
            "first_good_days_before": self.first_good_days_before,
            "first_good_days_after": self.first_good_days_after,
            "due_14_days_before": self.due_soon_before,
            "due_14_days_after": self.due_soon_after,
        }


@dataclass(frozen=True)
class Fitted:
    """Parameters fitted to the learner's reviews, checked by the `fsrs` package."""

    parameters: tuple[float, ...]
    before: tuple[float, ...]  # the parameters in use when it was fitted
    summary: FitSummary
    change: ScheduleChange

    @property
    def better(self) -> bool:
        """The fitted parameters predict the reviews better (log-loss is what the fit
        minimises): only then is Apply offered."""
        return self.summary.log_loss_after < self.summary.log_loss_before

    @property
    def same(self) -> bool:
        return self.parameters == tuple(round(p, _DECIMALS) for p in self.before)


FitResult = NotYet | Unusable | Fitted


def local_day(at: str, utc_offset: timedelta) -> date:
    return (utc(at) + utc_offset).date()


@dataclass(frozen=True)
class TrainingSet:
    """The optimizer's input: `items` to fit on (each review after an assertion's first
    day, with its history up to it), `scored` to measure a fit on (those made on a later
    day than the review before: the optimizer's evaluation refuses same-day ones), and
    each assertion's `whole` history, for its memory now."""

    items: list[rs.FSRSItem]
    scored: list[rs.FSRSItem]
    whole: list[rs.FSRSItem]


def training_items(histories: Sequence[Sequence[ReviewRow]], utc_offset: timedelta) -> TrainingSet:
    """Days between reviews are the learner's calendar days (Anki's rule); an item that
    spans no day teaches nothing, and the optimizer refuses it."""
    found = TrainingSet([], [], [])
    for rows in histories:
        if not rows:
            continue
        days = [local_day(r.at, utc_offset) for r in rows]
        reviews = [rs.FSRSReview(rows[0].rating, 0)]
        spans = False
        for n in range(1, len(rows)):
            elapsed = (days[n] - days[n - 1]).days
            spans = spans or elapsed > 0
            reviews.append(rs.FSRSReview(rows[n].rating, elapsed))
            if spans:
                item = rs.FSRSItem(list(reviews))
                found.items.append(item)
                if elapsed > 0:
                    found.scored.append(item)
        found.whole.append(rs.FSRSItem(reviews))
    return found


def _guarded(call: Callable[[], T]) -> T | None:
    """The Rust optimizer reports bad input by panicking (a BaseException): None then."""
    try:
        return call()
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException:  # pyo3's PanicException, ValueError("NotEnoughData"), ...
        return None


def _accepted(parameters: Sequence[float]) -> bool:
    """The `fsrs` package checks each parameter's range; Coach schedules only with
    parameters it accepts."""
    try:
        fsrs_scheduler(0.9, parameters)
    except ValueError:
        return False
    return True


def _first_good_days(parameters: Sequence[float], desired_retention: float) -> int:
    scheduler = fsrs_scheduler(desired_retention, parameters)
    start = datetime(2000, 1, 1, 12, tzinfo=UTC)
    card, _ = scheduler.review_card(Card(card_id=1, due=start), Rating.Good, start)
    return round((card.due - start).total_seconds() / 86_400)


def _due_soon(
    parameters: Sequence[float],
    whole: Sequence[rs.FSRSItem],
    last_days: Sequence[date],
    desired_retention: float,
    horizon: date,
) -> int:
    """About how many assertions fall due by `horizon`: each one's memory after its whole
    history, and its next interval from its last review (both by the optimizer's model)."""
    model = rs.FSRS(list(parameters))
    states = model.memory_state_batch(list(whole))
    count = 0
    for state, last in zip(states, last_days, strict=True):
        interval = max(round(model.next_interval(state.stability, desired_retention, 3)), 1)
        count += last + timedelta(days=interval) <= horizon
    return count


def fit_parameters(
    histories: Sequence[Sequence[ReviewRow]],
    current: Sequence[float],
    *,
    desired_retention: float,
    now: str,
    utc_offset: timedelta,
    progress: Progress | None = None,
) -> FitResult:
    """Fit FSRS to these histories (each assertion's counted reviews, in time order) and
    measure the parameters in use (`current`) and the fitted ones on the same reviews."""
    step = progress or (lambda _done, _total, _text: None)
    reviews = sum(len(rows) for rows in histories)
    assertions = sum(1 for rows in histories if rows)
    if reviews < OPTIMIZE_MIN_REVIEWS:
        return NotYet(reviews, assertions)
    step(0, STEPS, "Reading your reviews")
    found = training_items(histories, utc_offset)
    items, whole = found.items, found.whole
    unusable = Unusable(reviews, assertions)
    if not found.scored:
        return unusable
    step(1, STEPS, "Fitting the schedule to them")
    start = list(DEFAULT_PARAMETERS)
    computed = _guarded(lambda: rs.FSRS(start).compute_parameters(items))
    if computed is None or len(computed) != len(DEFAULT_PARAMETERS):
        return unusable
    fitted = tuple(round(float(p), _DECIMALS) for p in computed)
    if not _accepted(fitted):
        return unusable
    step(2, STEPS, "Comparing the fit with the schedule in use")
    before = _guarded(lambda: rs.FSRS(list(current)).evaluate(found.scored))
    after = _guarded(lambda: rs.FSRS(list(fitted)).evaluate(found.scored))
    if before is None or after is None:
        return unusable
    summary = FitSummary(
        reviews=reviews,
        assertions=assertions,
        log_loss_before=round(before.log_loss, 6),
        log_loss_after=round(after.log_loss, 6),
        rmse_before=round(before.rmse_bins, 6),
        rmse_after=round(after.rmse_bins, 6),
    )
    step(3, STEPS, "Working out how the schedule would change")
    last_days = [local_day(rows[-1].at, utc_offset) for rows in histories if rows]
    horizon = local_day(now, utc_offset) + timedelta(days=FORECAST_DAYS - 1)
    soon_before = _guarded(lambda: _due_soon(current, whole, last_days, desired_retention, horizon))
    soon_after = _guarded(lambda: _due_soon(fitted, whole, last_days, desired_retention, horizon))
    if soon_before is None or soon_after is None:
        return unusable
    change = ScheduleChange(
        first_good_days_before=_first_good_days(current, desired_retention),
        first_good_days_after=_first_good_days(fitted, desired_retention),
        due_soon_before=soon_before,
        due_soon_after=soon_after,
    )
    step(4, STEPS, "Done")
    return Fitted(fitted, tuple(float(p) for p in current), summary, change)


def not_yet_text(result: NotYet) -> str:
    """Why there is no fit yet, and how far off one is, in the learner's words."""
    return (f"not yet: {result.reviews:,} review(s) so far, and a fit worth having needs "
            f"{result.needed:,}; {result.more:,} more to go")  # fmt: skip


def fit_json(result: FitResult, *, fitted_in_force: bool) -> dict[str, object]:
    """`coach optimize --json`: what the fit found (the keys scripts may rely on)."""
    payload: dict[str, object] = {
        "status": {NotYet: "not_yet", Unusable: "unusable", Fitted: "fitted"}[type(result)],
        "reviews": result.summary.reviews if isinstance(result, Fitted) else result.reviews,
        "assertions": (
            result.summary.assertions if isinstance(result, Fitted) else result.assertions
        ),
        "reviews_needed": OPTIMIZE_MIN_REVIEWS,
        "more_reviews_needed": result.more if isinstance(result, NotYet) else 0,
        "parameters_in_force": "fitted" if fitted_in_force else "defaults",
        "fit": None,
        "better": False,
        "parameters_before": None,
        "parameters": None,
        "schedule": None,
    }
    if isinstance(result, Fitted):
        payload.update(
            fit=result.summary.model_dump(),
            better=result.better,
            parameters_before=[round(p, _DECIMALS) for p in result.before],
            parameters=list(result.parameters),
            schedule=result.change.to_json(),
        )
    return payload
