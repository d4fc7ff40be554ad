"""Issue 19's optimizer over a real journal: a simulated learner who forgets sooner than
FSRS's average one practises for most of a year on the default schedule; the fit to their
reviews predicts them better, is used only once applied, is replayed with the `fsrs`
package's own computation, sealed in every later session's decision, and reset at will."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cli_run import coach as _coach
from fakes.review_history import (
    START,
    History,
    forgetful_parameters,
    seed_journal,
    simulate,
    write_notes,
)
from fsrs import Card, Rating, Scheduler
from fsrs.scheduler import DEFAULT_PARAMETERS

from coach_gui.bootstrap import AppContext, build_context
from coach_gui.operations import optimize
from coach_gui.operations.app import note_catalogue
from coach_gui.operations.practice import open_practice
from coach_gui.operations.today import today, today_with_plans
from coach_gui.services.optimizer import Fitted, NotYet
from coach_gui.services.scheduler import stamp, utc
from coach_gui.services.stats import OPTIMIZE_MIN_REVIEWS

ASSERTIONS = 70
DAYS = 300
NOW = START + timedelta(days=DAYS + 1)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _setup(home: Path, histories: list[History]) -> int:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({
        "kb": {"path": str(home / "notes")},
        "tier1": {"ollamaUrl": f"http://127.0.0.1:{_free_port()}"},  # built-in challenges
        "judge": {"enabled": False},
    }), encoding="utf-8")  # fmt: skip
    write_notes(home / "notes", len(histories))
    home.mkdir(parents=True, exist_ok=True)
    return seed_journal(home / "journal.sqlite3", histories)


@pytest.fixture
def year(coach_home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[list[History], int]:
    monkeypatch.setenv("COACH_NOW", NOW.isoformat())
    histories = simulate(ASSERTIONS, DAYS, truth=forgetful_parameters())
    return histories, _setup(coach_home, histories)


@pytest.fixture
def context(year: tuple[list[History], int]) -> Iterator[AppContext]:
    built = build_context(seed=False)
    yield built
    built.close()


def _rows(home: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(home / "journal.sqlite3") as conn:
        return conn.execute(sql).fetchall()


def _fitted(context: AppContext) -> Fitted:
    result = optimize.fit(context)
    assert isinstance(result, Fitted), result
    return result


def _replayed(history: History, parameters: tuple[float, ...]) -> Card:
    """The `fsrs` package's own computation of one assertion's memory."""
    scheduler = Scheduler(parameters=parameters, learning_steps=(), relearning_steps=(),
                          enable_fuzzing=False)  # fmt: skip
    card = Card(card_id=1, due=history[0][0])
    for at, rating in history:
        card, _ = scheduler.review_card(card, Rating(rating), at)
    return card


def _memories_match(context: AppContext, histories: list[History], parameters: Any) -> None:
    """Far ahead every assertion is due: each one's memory in Today is the package's."""
    lookup, _ = note_catalogue(context)
    due = today(context, lookup)
    found = {a.memory.note_id: a.memory for n in due.notes for a in n.assertions}
    assert len(found) == len(histories)
    for n, history in enumerate(histories):
        card, memory = _replayed(history, tuple(parameters)), found[f"note{n}"]
        assert memory.stability == pytest.approx(card.stability, rel=1e-9)
        assert memory.difficulty == pytest.approx(card.difficulty, rel=1e-9)
        assert memory.due == stamp(card.due)


def test_the_fit_predicts_a_forgetful_learner_better_than_the_defaults_and_stores_nothing(
    context: AppContext, year: tuple[list[History], int], coach_home: Path
) -> None:
    _, reviews = year
    result = _fitted(context)
    fit = result.summary
    assert (fit.reviews, fit.assertions) == (reviews, ASSERTIONS)
    assert fit.log_loss_after < fit.log_loss_before and fit.rmse_after < fit.rmse_before
    assert result.better and not result.same
    assert result.before == tuple(DEFAULT_PARAMETERS)
    # This learner forgets sooner: the fit brings a Good first answer back sooner.
    assert result.change.first_good_days_after < result.change.first_good_days_before
    assert result.change.due_soon_after >= result.change.due_soon_before
    Scheduler(parameters=result.parameters)  # the package accepts them (it checks ranges)
    assert _rows(coach_home, "SELECT count(*) FROM fsrs_parameters") == [(0,)]
    assert not optimize.fitted_in_force(context)


def test_applied_parameters_replay_every_assertion_and_are_sealed_in_the_next_session(
    context: AppContext, year: tuple[list[History], int], coach_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    histories, _ = year
    result = _fitted(context)
    applied = optimize.apply(context, result)
    stored = _rows(coach_home, "SELECT id, parameters FROM fsrs_parameters")
    assert [(i, json.loads(p)) for i, p in stored] == [(applied.id, list(result.parameters))]

    monkeypatch.setenv("COACH_NOW", (NOW + timedelta(days=3650)).isoformat())
    later = build_context(seed=False)
    try:
        assert optimize.fitted_in_force(later)
        _memories_match(later, histories, result.parameters)
        lookup, entries = note_catalogue(later)
        _, plans = today_with_plans(later, lookup, entries)
        opened = open_practice(later, plans[0].note, later.practice_settings(), plan=plans[0].plan)
        assert opened is not None
        opened.close()
    finally:
        later.close()
    ((fields,),) = _rows(coach_home, "SELECT fields FROM scheduler_decisions")
    schedule = json.loads(fields)["schedule"]
    assert schedule["parameters_id"] == applied.id
    assert schedule["parameters"] == [round(p, 6) for p in result.parameters]


def test_back_to_the_defaults_replays_with_them_and_says_so_in_the_next_decision(
    context: AppContext, year: tuple[list[History], int], coach_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    histories, _ = year
    optimize.apply(context, _fitted(context))
    reset = optimize.reset(context)
    assert reset.parameters is None and not optimize.fitted_in_force(context)
    monkeypatch.setenv("COACH_NOW", (NOW + timedelta(days=3650)).isoformat())
    later = build_context(seed=False)
    try:
        _memories_match(later, histories, DEFAULT_PARAMETERS)
        lookup, entries = note_catalogue(later)
        _, plans = today_with_plans(later, lookup, entries)
        assert json.loads(plans[0].plan.decision or "{}")["schedule"]["parameters_id"] == reset.id
    finally:
        later.close()
    assert _rows(coach_home, "SELECT count(*) FROM fsrs_parameters") == [(2,)]


def test_too_few_reviews_says_how_many_more(
    coach_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    histories = simulate(8, 60, truth=forgetful_parameters())
    monkeypatch.setenv("COACH_NOW", (START + timedelta(days=61)).isoformat())
    reviews = _setup(coach_home, histories)
    assert reviews < OPTIMIZE_MIN_REVIEWS
    context = build_context(seed=False)
    try:
        result = optimize.fit(context)
    finally:
        context.close()
    assert isinstance(result, NotYet) and result.more == OPTIMIZE_MIN_REVIEWS - reviews


def test_coach_optimize_reports_then_applies_only_when_asked_then_resets(
    year: tuple[list[History], int], coach_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, reviews = year
    code, report, err = _coach(capsys, "optimize", "--json")
    assert code == 0, err
    assert report["status"] == "fitted" and report["applied"] is False
    assert report["reviews"] == reviews and report["assertions"] == ASSERTIONS
    assert report["parameters_in_force"] == "defaults" and report["better"] is True
    assert set(report["fit"]) >= {"log_loss_before", "log_loss_after", "rmse_before",
                                  "rmse_after", "reviews", "assertions"}  # fmt: skip
    assert len(report["parameters"]) == len(report["parameters_before"]) == 21
    assert set(report["schedule"]) == {"first_good_days_before", "first_good_days_after",
                                       "due_14_days_before", "due_14_days_after"}  # fmt: skip
    assert _rows(coach_home, "SELECT count(*) FROM fsrs_parameters") == [(0,)]

    code, applied, err = _coach(capsys, "optimize", "--apply", "--json")
    assert code == 0, err
    assert applied["applied"] is True and applied["parameters_in_force"] == "fitted"
    ((stored,),) = _rows(coach_home, "SELECT parameters FROM fsrs_parameters")
    assert json.loads(stored) == applied["parameters"]

    code, text, err = _coach(capsys, "optimize")
    assert code == 0, err
    assert "fitted to your history" in text  # what is in force now, in words

    code, reset, err = _coach(capsys, "optimize", "--reset", "--json")
    assert code == 0, err
    assert reset["status"] == "reset" and reset["parameters_in_force"] == "defaults"
    ((last,),) = _rows(coach_home, "SELECT parameters FROM fsrs_parameters ORDER BY applied_at"
                             " DESC LIMIT 1")  # fmt: skip
    assert json.loads(last) is None  # the defaults again
    code, _, err = _coach(capsys, "optimize", "--apply", "--reset")
    assert code == 2 and "either" in err


def test_coach_optimize_apply_with_too_few_reviews_fails_and_says_how_many_more(
    coach_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    histories = simulate(8, 60, truth=forgetful_parameters())
    monkeypatch.setenv("COACH_NOW", (START + timedelta(days=61)).isoformat())
    reviews = _setup(coach_home, histories)
    code, report, _ = _coach(capsys, "optimize", "--json")
    assert code == 0 and report["status"] == "not_yet"
    assert report["more_reviews_needed"] == OPTIMIZE_MIN_REVIEWS - reviews
    code, _, err = _coach(capsys, "optimize", "--apply")
    assert code == 1 and f"{OPTIMIZE_MIN_REVIEWS - reviews} more" in err
    assert _rows(coach_home, "SELECT count(*) FROM fsrs_parameters") == [(0,)]


def test_review_days_are_the_learners_own() -> None:
    """Two reviews 3 hours apart across the learner's midnight are a day apart for the
    optimizer, and the same day four hours west of UTC, where both fall on one date."""
    from coach_gui.domain.memory import ReviewRow
    from coach_gui.services.optimizer import training_items

    at = datetime(2026, 3, 1, 22, 30).isoformat() + "+00:00"
    later = stamp(utc(at) + timedelta(hours=3))
    rows = [ReviewRow("n", "d", "s1", at, 3, "judge", False),
            ReviewRow("n", "d", "s2", later, 3, "judge", False)]  # fmt: skip
    found = training_items([rows], timedelta(0))
    assert len(found.scored) == 1 and found.scored[0].long_term_review_cnt() == 1
    found = training_items([rows], timedelta(hours=-4))  # 18:30 and 21:30 local
    assert found.items == [] and found.scored == []
