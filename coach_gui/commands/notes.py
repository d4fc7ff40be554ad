"""`coach notes [--json]`."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("notes", help="list the notes in the knowledge base")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


_SHOWN_BROKEN = 10  # lines on stderr; --json has every one


def run(args: argparse.Namespace, house: House) -> int:

    context = house.app()
    snapshot = context.notes.load()
    for broken in snapshot.broken[:_SHOWN_BROKEN]:
        say(f"coach: {broken.file_name}: {broken.error}")
    if len(snapshot.broken) > _SHOWN_BROKEN:
        more = len(snapshot.broken) - _SHOWN_BROKEN
        say(f"coach: and {more} more files could not be read (`coach notes --json` lists all)")
    if args.json:
        emit_json(
            {
                "location": snapshot.location,
                "notes": [
                    {
                        "id": e.note.id,
                        "title": e.note.title,
                        "source": e.note.source,
                        "tags": list(e.note.all_tags),
                        "aliases": list(e.note.aliases),
                        "core_assertions": list(e.note.core_assertions),
                        "file": e.file_name,
                    }
                    for e in snapshot.notes
                ],
                "broken": [{"file": b.file_name, "error": b.error} for b in snapshot.broken],
            }
        )
        return EXIT_OK
    if not snapshot.notes and snapshot.broken:
        say(f"None of the Markdown files in {snapshot.location} could be read (see above).")
    elif not snapshot.notes:
        say(f"No notes in {snapshot.location} yet. Open Coach and press Ctrl+N to write one.")
    width = max((len(e.note.title) for e in snapshot.notes), default=5)
    for entry in snapshot.notes:
        note = entry.note
        tags = f"  [{', '.join(note.all_tags)}]" if note.all_tags else ""
        print(f"{note.title:<{width}}  {len(note.core_assertions)} assertions  {entry.stem}{tags}")
    return EXIT_OK
