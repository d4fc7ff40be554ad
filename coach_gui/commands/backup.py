"""`coach backup [--json]`: copy the journal into the backups folder now (SQLite's online
backup, safe while Coach runs) and print where; only the newest `journal.keepBackups`
backups are kept."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("backup", help="back the journal up now and print the file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.operations.backups import back_up

    made = back_up(house.app(seed=False))
    if args.json:
        emit_json(
            {
                "path": str(made.path),
                "size_bytes": made.path.stat().st_size,
                "folder": str(made.folder),
                "kept": [str(p) for p in made.kept],
            }
        )
    else:
        print(made.path)
        say(f"Backed up the journal ({len(made.kept)} backups kept in {made.folder}).")
    return EXIT_OK
