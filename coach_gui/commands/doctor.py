"""`coach doctor [--json]`: exit 1 if a check fails, 2 if the config itself is bad."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, emit_json, say
from coach_gui.domain.errors import ConfigError

if TYPE_CHECKING:
    from coach_gui.services.doctor import Check


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "doctor",
        help="check the config, knowledge base, journal, Ollama and the keyring "
        "(exit 1 if one fails)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _served(ollama: object, model: str) -> bool:
    from coach_gui.domain.errors import CoachError

    try:
        return bool(ollama.has_model(model))  # type: ignore[attr-defined]
    except CoachError:
        return False


def _local_server_key() -> Check:
    from coach_gui.bootstrap import local_server_key_store
    from coach_gui.services.doctor import Check

    status = local_server_key_store().status()
    if not status.usable:
        return Check("local server key", True, f"{status.detail} ({status.backend})", warn=True)
    if status.has_key:
        return Check("local server key", True, "a key is set (never shown); sent to it only")
    return Check("local server key", True,
                 "none set (only a server that asks for one, like Jan, needs it: "
                 "`coach key set --local-server`)")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from coach_gui.bootstrap import build_context
    from coach_gui.config import config_path
    from coach_gui.services.doctor import (
        Check,
        check_environment_proxy,
        check_journal,
        check_judge_endpoint,
        check_keyring,
        check_local_judge,
        check_notes,
        check_ollama,
        check_structured_output,
    )

    checks: list[Check] = []
    exit_code = EXIT_OK
    try:
        context = build_context()
    except ConfigError as exc:
        checks.append(Check("config", False, str(exc)))
        exit_code = EXIT_USAGE
    else:
        checks.append(Check("config", True, f"{context.config_path} is valid"))
        checks.append(check_notes(context.notes))
        checks.append(check_journal(lambda: context.journal, str(context.journal_path)))
        judge = context.config.judge
        tier1 = context.config.tier1
        with context.ollama_client() as ollama:
            found = check_ollama(ollama, tier1.url, tier1.model, tier1.server)
            checks.extend(found)
            if judge.local:
                checks.append(check_local_judge(ollama, judge.local_model, enabled=judge.enabled,
                                                server=tier1.server, url=tier1.url))  # fmt: skip
            negotiate = getattr(ollama, "dialect", None)
            served = [m for m, on in ((tier1.model, True), (judge.local_model, judge.local)) if on]
            served = [m for m in served if _served(ollama, m)]
            if negotiate is not None and found[0].level == "ok" and served:
                checks.append(check_structured_output(negotiate, tier1.url, served))
        if tier1.server == "openai":
            checks.append(_local_server_key())
        if not judge.local:
            checks.append(check_judge_endpoint(judge.enabled, judge.base_url))
        proxy = check_environment_proxy(os.environ)
        if proxy is not None:
            checks.append(proxy)
        key = context.key_store().status()
        checks.extend(
            check_keyring(key.backend, key.usable, key.has_key, key.detail,
                          judge_enabled=judge.enabled and not judge.local)
        )  # fmt: skip
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
