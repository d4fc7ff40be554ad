"""`coach gaps [SESSION] [--json]`: the gaps of one session, or of every session, and how
often each assertion was missed."""

from __future__ import annotations

import argparse

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("gaps", help="list the gaps of one session, or of all")
    parser.add_argument(
        "session", nargs="?", metavar="SESSION", help="a session id (default: every session)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.operations import review

    with opened_journal(seed=False) as context:
        session_id = None
        if args.session is not None:
            session_id = review.find_session(context, args.session)
            if session_id is None:
                raise UsageError(
                    f"no session has the id {args.session}; `coach sessions` lists them"
                )
        report = review.gaps(context, session_id)
    if args.json:
        emit_json({"session_id": session_id, **report.to_json()})
        return EXIT_OK
    if not report.gaps:
        say("No gaps: every judged answer explained every assertion it was judged against.")
        return EXIT_OK
    print("Missed most often:")
    for m in report.by_assertion:
        text = m.assertion_text or "(no assertion named: assertions were not sent)"
        print(f"  {m.missed} of {m.judged}  {m.note_title}: {text}")
    print("\nGaps:")
    for g in report.gaps:
        text = g.assertion_text or "the challenge as a whole"
        print(f"  {g.started_at[:16].replace('T', ' ')}  {g.note_title}")
        print(f"    asked: {g.challenge}")
        print(f"    {g.problem}: {text}")
        print(f"    {g.explanation}")
    return EXIT_OK
