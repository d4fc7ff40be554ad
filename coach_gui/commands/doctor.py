"""`coach doctor [--json]`: exit 1 if a check fails, 2 if the config itself is bad."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, emit_json, say
from coach_gui.domain.errors import ConfigError

if TYPE_CHECKING:
    from coach_gui.bootstrap import House
    from coach_gui.operations.doctor import Check


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "doctor",
        help="check the config, knowledge base, journal, Ollama and the keyring "
        "(exit 1 if one fails)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.config import config_path
    from coach_gui.operations.doctor import Check, examine

    checks: list[Check] = []
    exit_code = EXIT_OK
    try:
        context = house.app()
    except ConfigError as exc:
        checks.append(Check("config", False, str(exc)))
        exit_code = EXIT_USAGE
    else:
        checks.append(Check("config", True, f"{context.config_path} is valid"))
        try:
            checks += examine(context, os.environ, lambda: house.local_server_keys().status())
        finally:
            context.close()
    ok = all(c.ok for c in checks)
    if exit_code == EXIT_OK and not ok:
        exit_code = EXIT_CHECK_FAILED
    if args.json:
        emit_json({"ok": ok, "checks": [c.to_json() for c in checks]})
    else:
        marks = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}
        for check in checks:
            print(f"{marks[check.level]} {check.name}: {check.detail}")
        if not ok:
            say(f"coach: some checks failed; config file: {config_path()}")
    return exit_code
