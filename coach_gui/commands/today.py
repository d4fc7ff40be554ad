"""`coach today [--json]`: what is due — the notes whose core assertions are due for
practice (open gaps first, then the most overdue), and the next 14 days."""

from __future__ import annotations

import argparse

from coach_gui.commands.output import EXIT_OK, emit_json


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("today", help="list the notes and assertions due today")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--rebuild", action="store_true", help="recompute every assertion's memory from history"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.memory import RATING_NAMES
    from coach_gui.operations.app import notes_by_id
    from coach_gui.operations.today import today as due_today

    with opened_journal() as context:
        today = due_today(context, notes_by_id(context), rebuild=args.rebuild)
    if args.json:
        emit_json(today.to_json())
        return EXIT_OK
    if not today.notes:
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
            when = f"due {m.due[:16].replace('T', ' ')} UTC"
            if item.ahead:  # an open gap is due now (ADR 0023)
                when = f"due now (open gap; scheduled {m.due[:16].replace('T', ' ')} UTC)"
            print(f"  {item.index + 1}. {m.text}")
            print(
                f"     {when} · last {item.interval_days:g} days"
                f" · stability {m.stability:.1f} · last rating {RATING_NAMES[m.last_rating]}"
            )
    print(
        ("\n" if today.notes else "")
        + "Next 14 days: "
        + "  ".join(f"{day[5:]} {count}" for day, count in today.forecast)
    )
    return EXIT_OK
