"""`coach sync [--json] [--trust FINGERPRINT | --forget FINGERPRINT]`: merge the paired
computers' new records from the sync folder into this journal and write this computer's
new ones there, signed, then the status (ADR 0027, ADR 0033). A computer not paired yet is
listed as waiting with its fingerprint; `--trust` pairs it, `--forget` forgets a paired
one (by fingerprint or device id). Exit 1 when a segment or record did not check out, 2
when sync is off or the folder is unusable; nothing put in the folder makes it exit 2."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "sync", help="merge your other computers' history through the sync folder, and status"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--trust",
        metavar="FINGERPRINT",
        help="pair the waiting computer showing this fingerprint (compare it with the one "
        "that computer shows), then sync",
    )
    which.add_argument(
        "--forget",
        metavar="FINGERPRINT",
        help="forget a paired computer (fingerprint or device id): nothing more from it is "
        "imported; what came before stays",
    )
    parser.set_defaults(run=run)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.sync import SyncError, device_label
    from coach_gui.operations.sync import pair_computer, sync

    with opened_journal(house, seed=False) as context:
        try:
            if args.trust or args.forget:
                pairing = pair_computer(context, args.trust or args.forget, trust=bool(args.trust))
                said = "paired" if args.trust else "forgot"
                say(
                    f"coach: {said} {device_label(pairing.name, pairing.device_id)}, "
                    f"fingerprint {pairing.fingerprint}"
                )
            report = sync(context)
        except SyncError as error:
            raise UsageError(str(error)) from None
    if args.json:
        emit_json(report.to_json())
    else:
        print(f"this device: {device_label(report.device_name, report.device_id)}")
        print(f"its fingerprint: {report.fingerprint}")
        print(f"sync folder: {report.folder}")
        print(
            f"imported {_count(report.records_in, 'record')} from "
            f"{_count(len(report.segments_imported), 'segment')}; wrote "
            f"{_count(report.records_out, 'record')} in "
            f"{_count(len(report.segments_written), 'segment')}"
        )
        for seen in report.devices:
            mark = " (this device)" if seen.this_device else ""
            when = seen.last_segment_at or "never"
            print(
                f"  {device_label(seen.name, seen.device_id)}{mark}: "
                f"{_count(seen.segments, 'segment')}, {_count(seen.records, 'record')}, "
                f"last written {when}"
            )
        if not any(not seen.this_device for seen in report.devices):
            print("  no other computer has synced into this folder yet")
        for item in report.ignored:
            say(f"coach: {item.file} from {item.device} is left for now: {item.reason}")
    for waiting in report.waiting:
        before = ""
        if waiting.forgotten:
            before = (
                " You forgot it here: what came from it before stays; pair it again only "
                "if it is yours."
            )
        elif waiting.synced_before:
            before = (
                " It synced with this computer before computers were paired: what came from "
                "it stays; pair it once to go on."
            )
        say(
            f"coach: the computer {device_label(waiting.name, waiting.device_id)} waits to be "
            f"paired; nothing from it is imported until you pair it.{before} If that computer "
            f"shows the fingerprint {waiting.fingerprint} (Help › Where my data lives, or "
            f"`coach sync` there), run `coach sync --trust {waiting.fingerprint}`."
        )
    for item in report.refused:
        say(f"coach: {item.file} from {item.device} was refused: {item.reason}")
    for item in report.rejected:
        say(f"coach: {item.file} from {item.device} was not imported: {item.reason}")
    for conflict in report.conflicts:
        say(
            f"coach: {conflict['kind']} {conflict['id']} from {conflict['device']} differs "
            "from the one here; the one here is kept (run `coach verify`)"
        )
    return EXIT_OK if report.ok else EXIT_CHECK_FAILED
