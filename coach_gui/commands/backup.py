"""`coach backup [--json]`: copy the journal into the backups folder now (SQLite's online
backup, safe while Coach runs) and print where; only the newest `journal.keepBackups`
backups are kept."""

from __future__ import annotations

import argparse

from coach_gui.commands.output import EXIT_OK, emit_json, say


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("backup", help="back the journal up now and print the file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from coach_gui.adapters.journal import lock as journal_lock
    from coach_gui.adapters.journal.backups import JournalBackups
    from coach_gui.bootstrap import build_context
    from coach_gui.domain.errors import JournalError

    context = build_context(seed=False)
    path = context.journal_path
    if not path.is_file():
        raise JournalError(f"There is no journal at {path} yet: nothing to back up.")
    backups = JournalBackups(path, keep=context.config.journal.keep_backups)
    in_use = journal_lock.hold_shared(path, wait_seconds=10.0)  # no restore meanwhile
    try:
        made = backups.take_of_file("manual")
    finally:
        journal_lock.release(in_use)
    kept = [b.path for b in backups.existing()]
    if args.json:
        emit_json(
            {
                "path": str(made),
                "size_bytes": made.stat().st_size,
                "folder": str(backups.folder),
                "kept": [str(p) for p in kept],
            }
        )
    else:
        print(made)
        say(f"Backed up the journal ({len(kept)} backups kept in {backups.folder}).")
    return EXIT_OK
