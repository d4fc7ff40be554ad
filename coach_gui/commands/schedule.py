"""`coach schedule undo|redo|suspend|bury|resume [NOTE] [--assertion N] [--json]`: take
back the last review (or count it again), and hold a note or one of its key points back
from Today (suspend until resumed, bury until tomorrow) or let it back (ADR 0026)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "schedule", help="undo or redo the last review; suspend, bury or resume a note"
    )
    parser.add_argument("action", choices=("undo", "redo", "suspend", "bury", "resume"))
    parser.add_argument(
        "note", nargs="?", help="the note's id or file name (suspend, bury, resume)"
    )
    parser.add_argument(
        "--assertion", type=int, metavar="N", help="only the note's Nth key point (from 1)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.errors import NoteNotFound
    from coach_gui.operations import schedule
    from coach_gui.operations.vocabulary import to_the_minute

    if args.action in ("undo", "redo"):
        if args.note is not None or args.assertion is not None:
            raise UsageError(
                f"`coach schedule {args.action}` takes no note: it acts on the last review"
            )
        with opened_journal(house) as context:
            if args.action == "undo":
                done = schedule.undo_last_review(context)
            else:
                done = schedule.redo_review(context)
        result: dict[str, object] = {"action": args.action, "done": done is not None}
        if done is not None:
            result |= {"note_id": done.note_id, "session_id": done.session_id, "at": done.at}
            say(
                f"The review of {to_the_minute(done.at)} "
                + ("no longer counts; its answers and verdicts stay in the history."
                   if args.action == "undo" else "counts again.")
            )  # fmt: skip
        else:
            say("Nothing to undo." if args.action == "undo" else "No undone review to redo.")
        if args.json:
            emit_json(result)
        return EXIT_OK
    if args.note is None:
        raise UsageError(f"`coach schedule {args.action}` needs a note: its id or file name")
    with opened_journal(house) as context:
        entry = context.notes.load().find(args.note)
        if entry is None:
            raise NoteNotFound(
                f"no note with id or file name {args.note!r}; `coach notes` lists them"
            )
        note = entry.note
        assertion = None
        if args.assertion is not None:
            if not 1 <= args.assertion <= len(note.core_assertions):
                count = len(note.core_assertions)
                raise UsageError(f"--assertion must be between 1 and {count} for {note.title!r}")
            assertion = note.core_assertions[args.assertion - 1]
        hold = schedule.hold(context, note, args.action, assertion=assertion)
    what = f"key point {args.assertion} of {note.title!r}" if assertion else repr(note.title)
    say(
        {
            "suspend": f"Suspended {what}: Today leaves it out until you resume it.",
            "bury": f"Buried {what} until tomorrow.",
            "resume": f"Resumed {what}: Today lists it again when it is due.",
        }[args.action]
    )
    if args.json:
        emit_json({
            "action": args.action, "note_id": note.id, "assertion": assertion,
            "until": hold.until, "id": hold.id,
        })  # fmt: skip
    return EXIT_OK
