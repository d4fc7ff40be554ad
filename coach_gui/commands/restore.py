"""`coach restore FILE [--json]`: replace the journal with a backup, after checking it (an
SQLite file that passes its integrity check, a schema no newer than this Coach's, every
sealed trace verifying). Refused while another Coach has the journal open; the journal
it replaces is kept in the backups folder."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "restore", help="replace the journal with a checked backup (close Coach first)"
    )
    parser.add_argument("file", metavar="FILE", type=Path, help="a backup of the journal")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.operations.backups import restore

    source = args.file.expanduser()
    if not source.is_file():
        raise UsageError(
            f"there is no file {source}; `coach backup --json` lists the backups ('kept')"
        )
    context = house.app(seed=False)
    say(f"Checking {source} ...")
    restored = restore(context, source)
    if args.json:
        emit_json(
            {
                "restored_from": str(restored.source),
                "journal": str(restored.journal),
                "schema_version": restored.schema_version,
                "previous_kept_as": None if restored.previous is None else str(restored.previous),
            }
        )
    else:
        print(restored.journal)
    kept = (
        f" The journal it replaced is kept as {restored.previous}."
        if restored.previous is not None
        else ""
    )
    say(f"Restored the journal from {source}; every sealed trace in it verifies.{kept}")
    return EXIT_OK
