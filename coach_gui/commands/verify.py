"""`coach verify [ID] [--json]`: recompute every id, digest and chain in the journal, or
of one trace or one session; exit 1 at the first entry that does not check out."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House
    from coach_gui.operations.verify import LogSummary


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "verify", help="recompute every id and chain in the journal (exit 1 if one fails)"
    )
    parser.add_argument(
        "id",
        nargs="?",
        metavar="ID",
        help="one trace, session or eval run id (default: everything)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _progress(done: int, total: int) -> None:
    sys.stderr.write(f"\rchecked {done} of {total} sessions")
    sys.stderr.flush()
    if done == total:
        sys.stderr.write("\n")


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal
    from coach_gui.operations.verify import VerifyTargetNotFound, verify_journal

    with opened_journal(house, seed=False) as context:
        show_progress = not args.json and sys.stderr.isatty()
        try:
            report = verify_journal(
                context, args.id, on_progress=_progress if show_progress else None
            )
        except VerifyTargetNotFound as exc:
            raise UsageError(str(exc)) from None
    if args.json:
        emit_json(report.to_json())
    elif report.first_failure is None:
        print(f"ok: {report.checked} entries checked, every id and chain matches")
        if report.log is not None:
            print(_head_line(report.log))
        _sources(report.sources, report.source)
    else:
        failure = report.first_failure
        print(f"FAIL {failure.id}: {failure.reason} ({report.checked} entries checked)")
        if failure.device is not None:
            print(f"that record came from the device {failure.device} through sync")
        if report.log is not None:
            print(_head_line(report.log))
        say(_advice(failure.reason))
    return EXIT_OK if report.ok else EXIT_CHECK_FAILED


def _sources(sources: tuple[dict[str, Any], ...], source: str | None) -> None:
    """Where imported records came from (issue 34)."""
    if source is not None:
        print(f"it came through sync from the computer {source}")
    for item in sources:
        label = f"{item['name']} ({item['device_id'][:8]})"
        since, records = item["records_since_pairing"], item["records"]
        if not item["paired"]:
            pairing = "imported before pairing existed, or since forgotten; kept"
        elif since == records:
            pairing = f"paired here, fingerprint {item['fingerprint']}"
        else:
            pairing = (
                f"{since} since it was paired here with fingerprint {item['fingerprint']}, "
                f"{records - since} before it was paired here (before pairing existed, or "
                "under an earlier pairing); kept"
            )
        print(f"{records} records came through sync from {label}: {pairing}")


def _head_line(log: LogSummary) -> str:
    """The trace log's head, as a transparency log reports its tree head."""
    head = log.head
    if head is None:
        return f"trace log: {log.size} traces, no signed head yet"
    signed = f"signed {head.signed_at} with key {head.key_id}" if head.signature else "unsigned"
    return f"trace log: {log.size} traces, head {head.position} {head.link[:16]}… {signed}"


def _advice(reason: str) -> str:
    from coach_gui.domain.trace_log import LogFailure  # here: `coach` alone opens faster

    if reason == LogFailure.KEYRING_SILENT.value:
        return (
            "coach: the keyring did not answer (is it locked?), so the trace log's "
            "signature could not be checked. Unlock it and run `coach verify` again."
        )
    if reason.startswith(LogFailure.SIGNING_KEY_MISSING.value):
        return (
            "coach: the trace log's signature cannot be checked: the key that signed it is "
            "not in this computer's keyring (the records themselves were checked up to it)."
        )
    if reason == LogFailure.UNSIGNED.value:
        return (
            "coach: the newest sealed records are not signed, which Coach does whenever the "
            "keyring answers. If the keyring was locked when they were sealed, unlock it; the "
            "next session signs them. Otherwise the journal was changed outside Coach: "
            "restore a backup of it if you have one."
        )
    return (
        "coach: the journal no longer matches what Coach sealed: it was changed outside "
        "Coach or the file is damaged. Restore a backup of it if you have one."
    )
