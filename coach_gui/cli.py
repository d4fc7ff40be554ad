"""`coach`: the app by default, sub-commands for headless use (DESIGN §8).

Exit codes: 0 success, 1 a check failed, 2 usage or configuration error. `--json` prints
one JSON object on stdout; messages go to stderr, one line each, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from coach_gui import __version__
from coach_gui.domain.errors import CoachError, ConfigError, NoteNotFound

if TYPE_CHECKING:
    from coach_gui.bootstrap import House

log = logging.getLogger(__name__)

# The sub-commands, in the order `coach --help` lists them: each names a module of
# coach_gui.commands that has `add_parser(subparsers)`. One line each.
COMMANDS: tuple[str, ...] = (
    "notes",
    "practice",
    "sessions",
    "gaps",
    "today",
    "stats",
    "schedule",
    "correct",
    "import_",
    "export",
    "optimize",
    "judge_pending",
    "verify",
    "sync",
    "eval",
    "doctor",
    "key",
    "backup",
    "restore",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        from coach_gui.commands.output import EXIT_USAGE

        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"coach: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="coach",
        description="Coach: practise your concept notes; answers graded against your own "
        "core assertions. With no command, opens the app.",
    )
    parser.add_argument("--version", action="version", version=f"coach {__version__}")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="open the main window, wait for the notes, print the time it took and exit "
        "(a start-up check; runs headless with QT_QPA_PLATFORM=offscreen)",
    )
    parser.add_argument(
        "--soak",
        action="store_true",
        help="with --smoke: then switch notes 2,000 times and make 100,000 void Qt calls, "
        "and exit 1 if the Qt binding leaks references (a check of the installed app)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(f"coach_gui.commands.{name}").add_parser(commands)
    return parser


EXIT_CLOSED_PIPE = 128 + 13  # 128 + SIGPIPE: what a shell reports for `yes | head -1`


def _closed_pipe() -> int:
    """The reader of our output went away (`coach sessions | head -1`): stop quietly, as
    other Unix tools do. What is still buffered goes nowhere instead of failing again when
    Python exits. Nothing is logged: nothing went wrong."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # stdout is no file (a test's capture): nothing to redirect
        pass
    return EXIT_CLOSED_PIPE


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _main(argv)
        sys.stdout.flush()  # the last of the output, while a closed pipe can still be told
        return code
    except BrokenPipeError:
        return _closed_pipe()


def _main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv:  # the double-click: straight to the window, without the sub-commands
        from coach_gui.ui.shell.app import run_gui

        return run_gui([])
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Callable[[argparse.Namespace, House], int] | None = getattr(args, "run", None)
    if run is None:
        from coach_gui.ui.shell.app import run_gui

        return run_gui(argv, smoke=args.smoke, soak=args.soak)
    from coach_gui.bootstrap import House
    from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_USAGE, UsageError, say

    try:
        return run(args, House())  # what the command may build: only the entry points do
    except BrokenPipeError:  # before the last guard: a closed pipe is no error of ours
        raise
    except (ConfigError, UsageError, NoteNotFound) as exc:
        say(f"coach: {exc}")
        return EXIT_USAGE
    except CoachError as exc:
        say(f"coach: {exc}")
        return EXIT_CHECK_FAILED
    except KeyboardInterrupt:
        say("coach: interrupted; everything you submitted is saved")
        return 130
    except Exception:  # the last guard: a message and the log, never a traceback
        log.exception("unexpected error in `coach %s`", args.command)
        from coach_gui.paths import log_dir

        say(f"coach: something went wrong; details are in {log_dir() / 'coach.log'}")
        return EXIT_CHECK_FAILED


if __name__ == "__main__":
    sys.exit(main())
