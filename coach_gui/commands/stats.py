"""`coach stats [--json]`: what the statistics view shows — reviews over the last year,
true retention per month against the desired retention, what is due, new, suspended and
buried, the leeches, and the next 14 days."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, emit_json

if TYPE_CHECKING:
    from coach_gui.bootstrap import House
    from coach_gui.domain.agreement import Agreement


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("stats", help="review statistics, retention and leeches")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _percent(rate: float | None) -> str:
    return "no reviews due" if rate is None else f"{rate:.0%}"


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.agreement import suggestion
    from coach_gui.operations.app import note_catalogue
    from coach_gui.operations.schedule import judge_agreement, statistics

    with opened_journal(house) as context:
        lookup, entries = note_catalogue(context)
        stats = statistics(context, lookup, entries)
        agreed = judge_agreement(context)
        suggested = suggestion(agreed, context.config.judge.strictness)
    if args.json:
        emit_json(
            {
                **stats.to_json(),
                "judge_agreement": [row.to_json() for row in agreed],
                "strictness_suggestion": None if suggested is None else suggested.to_json(),
            }
        )
        return EXIT_OK
    c = stats.counts
    print(f"Due today: {c.due} key point(s), {c.overdue} overdue, {c.open_gaps} with an open gap.")
    print(
        f"New notes: {c.new_today} offered today, {c.new_waiting} never practised."
        f" Held back: {c.suspended} suspended, {c.buried} buried until tomorrow."
    )
    busiest = max(stats.days, key=lambda d: d[1])
    active = sum(1 for _, n in stats.days if n)
    print(
        f"Reviews in the last year: {stats.reviews_this_year} on {active} day(s)"
        + (f"; busiest {busiest[0]} with {busiest[1]}." if busiest[1] else ".")
    )
    print(f"True retention per month (desired {stats.desired_retention:.0%}):")
    for month in stats.retention:
        if month.due:
            print(f"  {month.month}: {_percent(month.rate)} of {month.due} due review(s)")
    if not any(m.due for m in stats.retention):
        print("  no reviews were due yet in the last 12 months")
    if stats.leeches:
        print(f"Leeches (missed {stats.leech_lapses} times or more; consider rewording them):")
        for leech in stats.leeches:
            print(f"  {leech.title}: {leech.text} (missed {leech.lapses} times)")
    print("Next 14 days: " + "  ".join(f"{day[5:]} {n}" for day, n in stats.forecast))
    _print_agreement(agreed)
    if suggested is not None:
        print(suggested.text)
    if stats.can_optimize:
        fitted = "fitted to your history" if stats.parameters_fitted else "the defaults"
        print(f"Schedule: {fitted}; {stats.reviews} reviews, enough to fit it again.")
    else:
        print(f"Schedule: the defaults until {400 - stats.reviews} more review(s) allow a fit.")
    return EXIT_OK


def _print_agreement(rows: Sequence[Agreement]) -> None:
    """The judge measured against you: per judge, model and strictness, all months."""
    from coach_gui.domain.agreement import totals

    summed = totals(rows)
    if not summed:
        return
    print("The judge and you (key points judged one by one; your corrections):")
    for r in summed:
        where = "this computer" if r.judge == "local" else "cloud"
        print(
            f"  {r.model} ({where}, {r.strictness}): {r.judged - r.corrected} of {r.judged} left"
            f" as judged ({r.agreement or 0:.0%}); too strict {r.too_strict}, too lenient"
            f" {r.too_lenient}"
        )
