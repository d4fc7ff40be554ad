"""`coach key set|clear|status [--local-server]`: the Gemini API key (or, with
`--local-server`, the local model server's key: Jan wants one) in the OS keyring, never
printed."""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("key", help="store, remove or check the Gemini API key")
    parser.add_argument("action", choices=("set", "clear", "status"))
    parser.add_argument("--json", action="store_true", help="print one JSON object (status)")
    parser.add_argument(
        "--local-server",
        action="store_true",
        help="the local model server's key instead (Jan's Local API Server wants one)",
    )
    parser.set_defaults(run=run)


def _read_key(what: str) -> str:
    if sys.stdin.isatty():
        return getpass.getpass(f"{what} (not shown): ")
    return sys.stdin.read()


def run(args: argparse.Namespace, house: House) -> int:
    local = bool(getattr(args, "local_server", False))
    keys = house.local_server_keys() if local else house.gemini_keys()
    if args.action == "set":
        key = _read_key("Local model server key" if local else "Gemini API key")
        if not key.strip():
            raise UsageError("no key on standard input; e.g. `coach key set < keyfile`")
        keys.store(key)
        say("coach: the key is stored in the OS keyring")
        return EXIT_OK
    if args.action == "clear":
        removed = keys.clear()
        say("coach: the key was removed" if removed else "coach: no key was stored")
        return EXIT_OK
    status = keys.status()
    if args.json:
        emit_json(
            {
                "backend": status.backend,
                "has_key": status.has_key,
                "usable": status.usable,
                "detail": status.detail,
            }
        )
    else:
        print(f"backend: {status.backend}")
        print(f"key: {'set' if status.has_key else 'not set'}")
        print(status.detail)
    return EXIT_OK if status.usable else EXIT_CHECK_FAILED
