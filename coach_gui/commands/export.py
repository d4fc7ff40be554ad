"""`coach export --anki FILE.apkg | --csv FILE.csv [--json]`: the knowledge base as cards,
one per key point (issue 37). The Anki package keeps the tags and the review history, so
FSRS in Anki continues where Coach left it; the CSV file is for everything else. The
file is written whole or not at all."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "export", help="write every key point as a card: an Anki package or a CSV file"
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--anki", metavar="FILE.apkg", type=Path,
        help="an Anki package, with tags and review history",
    )  # fmt: skip
    where.add_argument("--csv", metavar="FILE.csv", type=Path, help="a CSV file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def _progress(done: int, total: int) -> None:
    """One line on a terminal, rewritten in place; nothing when stderr is a file or pipe."""
    if sys.stderr.isatty():
        sys.stderr.write(f"\rWriting cards: {done:,} of {total:,}")
        sys.stderr.flush()


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.anki_cards import ExportFailed
    from coach_gui.operations.anki_export import export

    if args.anki is None and args.csv is None:
        raise UsageError(
            "say which file to write: --anki FILE.apkg for Anki, or --csv FILE.csv for a "
            "spreadsheet."
        )
    path = (args.anki or args.csv).expanduser().absolute()
    with opened_journal(house) as context:
        try:
            result = export(context, path, "anki" if args.anki else "csv", progress=_progress)
        except ExportFailed as exc:
            raise UsageError(str(exc)) from None
        finally:
            if sys.stderr.isatty():
                sys.stderr.write("\r\x1b[K")  # the progress line goes when done
    if args.json:
        emit_json(result.to_json())
    else:
        history = f", with {_plural(result.reviews, 'review')}" if args.anki else ""
        print(
            f"Wrote {_plural(result.cards, 'card')} (one per key point) from "
            f"{_plural(result.notes, 'note')} to {result.path}{history}."
        )
        if args.anki:
            print("Open it in Anki with File › Import; exporting again updates those cards.")
    if result.notes_without_key_points:
        say(
            f"{_plural(result.notes_without_key_points, 'note')} without key points gave "
            "no card: add core assertions to a note to make cards of it."
        )
    return EXIT_OK
