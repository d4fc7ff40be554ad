"""`coach import FILE [--json]`: an Anki package (.apkg, .colpkg; current and legacy
formats) or a CSV (question, answer, optional tags) into new notes in the knowledge base,
a folder per deck, with the package's review history, so each key point's memory
continues where Anki left it (issue 37, DESIGN §3). It never changes an existing file; a
second import of the same deck adds nothing; what it skips is listed with the reason. A
damaged or unknown file is a sentence and exit 2."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House
    from coach_gui.operations.anki_import import ImportReport


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "import",
        help="import an Anki package (.apkg, .colpkg) or a CSV as new notes, with its reviews",
    )
    parser.add_argument("file", metavar="FILE", type=Path, help="the .apkg, .colpkg or .csv file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _progress(done: int, total: int) -> None:
    if sys.stderr.isatty() and (done == total or done % 100 == 0):
        print(f"\rImporting notes: {done:,} of {total:,}", end="", file=sys.stderr, flush=True)
        if done == total:
            print(file=sys.stderr)


def _plural(count: int, one: str, many: str | None = None) -> str:
    return f"{count:,} {one if count == 1 else (many or one + 's')}"


def _tell(report: ImportReport, location: str) -> None:
    if report.created:
        say(
            f"Imported {_plural(len(report.created), 'note')} from {report.path.name} into "
            f"{location}, with {_plural(report.reviews_imported, 'review')} as the history of "
            f"{_plural(report.histories, 'key point')} and "
            f"{_plural(report.media_copied, 'media file')} copied beside them."
        )
    else:
        say(f"Nothing new to import from {report.path.name}.")
    if report.cancelled:
        say("The import was stopped; the notes written so far are kept.")
    if report.skipped:
        say(f"Skipped {_plural(len(report.skipped), 'item')}:")
        for item in report.skipped:
            say(f"  {item.item}: {item.reason}")


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.anki_package import PackageUnreadable
    from coach_gui.operations import anki_import

    with opened_journal(house) as context:
        try:
            report = anki_import.import_file(context, args.file, progress=_progress)
        except PackageUnreadable as exc:
            raise UsageError(str(exc)) from None
        location = context.notes.location
    _tell(report, location)
    if args.json:
        emit_json({**report.to_json(), "knowledge_base": location})
    return EXIT_OK
