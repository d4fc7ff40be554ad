"""`coach sync [--json]`: merge the other devices' new records from the sync folder into
this journal and write this device's new ones there, then the status (ADR 0027). Exit 1
when a segment or record did not check out, 2 when sync is off or the folder is unusable."""

from __future__ import annotations

import argparse

from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_OK, UsageError, emit_json, say


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "sync", help="merge your other computers' history through the sync folder, and status"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def run(args: argparse.Namespace) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.domain.sync import SyncError
    from coach_gui.operations.sync import sync

    with opened_journal(seed=False) as context:
        try:
            report = sync(context)
        except SyncError as error:
            raise UsageError(str(error)) from None
    if args.json:
        emit_json(report.to_json())
    else:
        from coach_gui.domain.sync import device_label

        print(f"this device: {device_label(report.device_name, report.device_id)}")
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
    for item in report.rejected:
        say(f"coach: {item.file} from {item.device} was not imported: {item.reason}")
    for conflict in report.conflicts:
        say(
            f"coach: {conflict['kind']} {conflict['id']} from {conflict['device']} differs "
            "from the one here; the one here is kept (run `coach verify`)"
        )
    return EXIT_OK if report.ok else EXIT_CHECK_FAILED
