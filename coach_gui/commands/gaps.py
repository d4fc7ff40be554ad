"""`coach gaps [SESSION] [--json]`: the open gaps now (the key points missed the last time
they were judged, by the rule Today and the gap board read: ADR 0023), then the gaps of
one session, or of every session, and how often each assertion was missed."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "gaps", help="list the open gaps, and the gaps of one session or of all"
    )
    parser.add_argument(
        "session",
        nargs="?",
        metavar="SESSION",
        help="a session id (default: every session); open gaps are then its note's",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.operations import review
    from coach_gui.operations.vocabulary import PROBLEM_LABELS, counted, to_the_minute

    with opened_journal(house, seed=False) as context:
        session_id = None
        if args.session is not None:
            session_id = review.find_session(context, args.session)
            if session_id is None:
                raise UsageError(
                    f"no session has the id {args.session}; `coach sessions` lists them"
                )
        report = review.gaps(context, session_id)
        note_id = review.note_of_session(context, session_id) if session_id else None
        opened = review.open_gaps(context, None if note_id is None else [note_id])
    if args.json:
        emit_json(
            {"session_id": session_id, "open": [g.to_json() for g in opened], **report.to_json()}
        )
        return EXIT_OK
    if opened:
        print("Open gaps now (key points missed the last time they were judged):")
        title = None
        for gap in opened:
            if gap.note_title != title:
                title = gap.note_title
                print(f"  {title}")
            sessions = counted(gap.missed, "session")
            print(f"    {gap.assertion_index + 1}. {gap.assertion_text}")
            problem = PROBLEM_LABELS.get(gap.problem, gap.problem).lower()  # the window's words
            print(f"       {problem}, missed in {sessions}")
            if gap.explanation:
                print(f"       {gap.explanation}")
        print()
    else:
        say("No open gaps.")
    if not report.gaps:
        say("No gaps found in the answers judged so far.")
        return EXIT_OK
    print("Missed most often:")
    for m in report.by_assertion:
        text = m.assertion_text or "(no assertion named: assertions were not sent)"
        print(f"  {m.missed} of {m.judged}  {m.note_title}: {text}")
    print("\nGaps:")
    for g in report.gaps:
        text = g.assertion_text or "the challenge as a whole"
        print(f"  {to_the_minute(g.started_at)}  {g.note_title}")
        print(f"    asked: {g.challenge}")
        mine = " (your word)" if g.by_learner else ""
        print(f"    {PROBLEM_LABELS.get(g.problem, g.problem).lower()}: {text}{mine}")
        print(f"    {g.explanation}")
    return EXIT_OK
