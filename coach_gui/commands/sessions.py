"""`coach sessions [--json]`: practice sessions, newest first, with how they were judged
and whether each still verifies."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say
from coach_gui.operations.vocabulary import counted, mode_label, to_the_minute

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("sessions", help="list practice sessions, newest first")
    parser.add_argument(
        "--limit", type=int, default=50, help="how many sessions (default 50; 0 for all)"
    )
    parser.add_argument("--offset", type=int, default=0, help="skip this many newest first")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.operations import review

    if args.limit < 0 or args.offset < 0:
        raise UsageError("--limit and --offset cannot be negative")
    with opened_journal(house, seed=False) as context:
        sessions = review.sessions(context, limit=args.limit or None, offset=args.offset)
    if args.json:
        emit_json({"sessions": [s.to_json() for s in sessions]})
        return EXIT_OK
    if not sessions:
        say("No practice sessions yet; `coach practice NOTE` starts one.")
    for s in sessions:
        mark = {True: "✓", False: "✗ (run coach verify)", None: "open"}[s.verified]
        print(
            f"{to_the_minute(s.started_at)}  {s.note_title}  {counted(s.items, 'answer')}, "
            f"{s.passed} passed, {counted(s.gaps, 'gap')}, {s.pending} pending  "
            f"[{mode_label(s.mode)}]  {mark}  {s.session_id}"
        )
    return EXIT_OK
