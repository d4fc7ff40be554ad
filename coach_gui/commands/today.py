"""`coach today [--json]`: what is due — the notes whose core assertions are due for
practice (open gaps first, then the most overdue), and the next 14 days."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, emit_json

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("today", help="list the notes and assertions due today")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--rebuild", action="store_true", help="recompute every assertion's memory from history"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.memory import RATING_NAMES
    from coach_gui.operations.app import note_catalogue
    from coach_gui.operations.today import today as due_today
    from coach_gui.operations.vocabulary import to_the_minute

    with opened_journal(house) as context:
        lookup, entries = note_catalogue(context)
        today = due_today(context, lookup, rebuild=args.rebuild, catalogue=entries)
    if args.json:
        emit_json(today.to_json())
        return EXIT_OK
    new = today.new
    if not today.notes and not (new and new.notes):
        upcoming = [(day, count) for day, count in today.forecast if count]
        if upcoming:
            day, count = upcoming[0]
            print(f"Nothing due today; next, {count} core assertion(s) on {day}.")
        else:
            print("Nothing due — practise a note to start a schedule.")
    for due in today.notes:
        gap = {"wrong": " · a key point wrong", "unexplained": " · a key point not explained"}.get(
            due.open_gap or ""
        )
        late = f", {due.overdue} overdue" if due.overdue else ""
        print(f"{due.note.title}: {len(due.assertions)} due{late}{gap or ''}")
        for item in due.assertions:
            m = item.memory
            when = f"due {to_the_minute(m.due)}"  # in the learner's own time, as the window
            if item.ahead:  # an open gap is due now (ADR 0023)
                when = f"due now (open gap; scheduled {to_the_minute(m.due)})"
            print(f"  {item.index + 1}. {m.text}")
            print(
                f"     {when} · last {item.interval_days:g} days"
                f" · stability {m.stability:.1f} · last rating {RATING_NAMES[m.last_rating]}"
            )
            if item.leech:
                print(f"     missed {m.lapses} times: consider rewording it")
    if new is not None and (new.notes or new.waiting):
        print(
            f"\nNew notes: {len(new.notes)} today ({new.begun_today} of {new.limit} begun"
            f" already; {new.waiting} never practised)"
        )
        for fresh in new.notes:
            points = len(fresh.note.core_assertions)
            print(f"  {fresh.rank}. {fresh.note.title} ({points} key points)")
    if today.held:
        print("\nHeld back:")
        for hold in today.held:
            what = f"“{hold.text}”" if hold.text else "the whole note"
            until = f" until {to_the_minute(hold.until)}" if hold.until else ""
            kind = "suspended" if hold.suspended else "buried"
            print(f"  {hold.note_id}: {what}, {kind}{until}")
    print(
        "\n" + "Next 14 days: " + "  ".join(f"{day[5:]} {count}" for day, count in today.forecast)
    )
    return EXIT_OK
