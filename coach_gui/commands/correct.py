"""`coach correct ATTEMPT_ID KEY_POINT explained|unexplained|wrong [--note TEXT] [--json]`:
the learner's word on one key point of a judged answer (issue 36, DESIGN §4). It is a
record of its own, bound to the verdict (which never changes); from then on it is what
counts for that key point: open gaps, Today and the schedule. Giving the judge's own word
takes an earlier correction back. KEY_POINT is numbered from 1, as the window shows it;
ATTEMPT_ID is in `coach practice --json` items and `coach gaps --json`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House

_WORDS = {
    "explained": "explained",
    "unexplained": "not explained",
    "wrong": "wrong",
}


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "correct", help="correct the judge's word on one key point of a judged answer"
    )
    parser.add_argument("attempt_id", metavar="ATTEMPT_ID", help="the answer's id")
    parser.add_argument(
        "key_point", metavar="KEY_POINT", type=int, help="the key point's number (from 1)"
    )
    parser.add_argument("status", choices=tuple(_WORDS), help="what your answer did")
    parser.add_argument("--note", default="", help="why, in your own words (kept with it)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.corrections import MAX_NOTE_CHARS, CorrectionRefused
    from coach_gui.operations import schedule

    if len(args.note) > MAX_NOTE_CHARS:
        raise UsageError(f"--note holds at most {MAX_NOTE_CHARS:,} characters")
    with opened_journal(house) as context:
        try:
            done = schedule.correct(
                context, args.attempt_id, args.key_point, args.status, args.note
            )
        except CorrectionRefused as exc:
            raise UsageError(str(exc)) from None
    c = done.correction
    if c.status == done.judge:
        say(f"Key point {args.key_point} counts as the judge said: {_WORDS[c.status]}.")
    else:
        say(
            f"Key point {args.key_point} now counts as {_WORDS[c.status]} "
            f"(the judge said {_WORDS[done.judge]}); the verdict itself is kept as it was."
        )
    if args.json:
        emit_json(
            {
                "correction_id": c.id,
                "attempt_id": c.attempt_id,
                "verdict_id": c.verdict_id,
                "note_id": c.note_id,
                "key_point": c.assertion + 1,
                "text": done.text,
                "judge_status": done.judge,
                "status": c.status,
                "note": c.note,
                "in_force": c.status != done.judge,
                "at": c.created_at,
            }
        )
    return EXIT_OK
