"""`coach`: the app by default, sub-commands for headless use (DESIGN §8).

Exit codes: 0 success, 1 a check failed, 2 usage or configuration error. `--json` prints
one JSON object on stdout; messages go to stderr, one line each, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Sequence
from typing import Any

from coach_gui import __version__
from coach_gui.domain.errors import CoachError, ConfigError

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE = 0, 1, 2

log = logging.getLogger(__name__)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"coach: {message}\n")


def _say(message: str) -> None:
    print(message, file=sys.stderr)


def _emit_json(payload: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2) + "\n")


def _cmd_notes(args: argparse.Namespace) -> int:
    from coach_gui.bootstrap import build_context

    context = build_context()
    snapshot = context.notes.load()
    for broken in snapshot.broken:
        _say(f"coach: {broken.file_name}: {broken.error}")
    if args.json:
        _emit_json(
            {
                "location": snapshot.location,
                "notes": [
                    {
                        "id": e.note.id,
                        "title": e.note.title,
                        "source": e.note.source,
                        "tags": list(e.note.tags),
                        "core_assertions": list(e.note.core_assertions),
                        "file": e.file_name,
                    }
                    for e in snapshot.notes
                ],
                "broken": [{"file": b.file_name, "error": b.error} for b in snapshot.broken],
            }
        )
        return EXIT_OK
    if not snapshot.notes:
        _say(f"No notes in {snapshot.location} yet. Open Coach and press Ctrl+N to write one.")
    width = max((len(e.note.title) for e in snapshot.notes), default=5)
    for entry in snapshot.notes:
        note = entry.note
        tags = f"  [{', '.join(note.tags)}]" if note.tags else ""
        print(f"{note.title:<{width}}  {len(note.core_assertions)} assertions  {entry.stem}{tags}")
    return EXIT_OK


def _cmd_doctor(args: argparse.Namespace) -> int:
    from coach_gui.config import config_path
    from coach_gui.services.doctor import Check, check_journal, check_notes

    checks: list[Check] = []
    exit_code = EXIT_OK
    try:
        from coach_gui.bootstrap import build_context

        context = build_context()
    except ConfigError as exc:
        checks.append(Check("config", False, str(exc)))
        exit_code = EXIT_USAGE
    else:
        checks.append(Check("config", True, f"{context.config_path} is valid"))
        checks.append(check_notes(context.notes))
        checks.append(check_journal(lambda: context.journal, str(context.journal_path)))
        context.close()
    ok = all(c.ok for c in checks)
    if exit_code == EXIT_OK and not ok:
        exit_code = EXIT_CHECK_FAILED
    if args.json:
        _emit_json({"ok": ok, "checks": [c.to_json() for c in checks]})
    else:
        for check in checks:
            print(f"{'ok ' if check.ok else 'FAIL'} {check.name}: {check.detail}")
        if not ok:
            _say(f"coach: some checks failed; config file: {config_path()}")
    return exit_code


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="coach",
        description="Coach: practise your concept notes; answers graded against your own "
        "core assertions. With no command, opens the app.",
    )
    parser.add_argument("--version", action="version", version=f"coach {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    notes = commands.add_parser("notes", help="list the notes in the knowledge base")
    notes.add_argument("--json", action="store_true", help="print one JSON object")
    notes.set_defaults(run=_cmd_notes)

    doctor = commands.add_parser(
        "doctor", help="check the config, knowledge base and journal (exit 1 if one fails)"
    )
    doctor.add_argument("--json", action="store_true", help="print one JSON object")
    doctor.set_defaults(run=_cmd_doctor)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
    if run is None:
        from coach_gui.ui.app import run_gui

        return run_gui(argv)
    try:
        return run(args)
    except ConfigError as exc:
        _say(f"coach: {exc}")
        return EXIT_USAGE
    except CoachError as exc:
        _say(f"coach: {exc}")
        return EXIT_CHECK_FAILED
    except KeyboardInterrupt:
        _say("coach: interrupted")
        return 130
    except Exception:  # the last guard: a message and the log, never a traceback
        log.exception("unexpected error in `coach %s`", args.command)
        from coach_gui.paths import log_dir

        _say(f"coach: something went wrong; details are in {log_dir() / 'coach.log'}")
        return EXIT_CHECK_FAILED


if __name__ == "__main__":
    sys.exit(main())
