"""`coach eval [--last N | --session ID ...] --repeats R [--concurrency C] [--compare-judges]
[--json]`: judge recorded answers again, R times with core assertions and R times without,
and record a signed report of how consistent the judge was (DESIGN §7, ADR 0014 shape).
With `--compare-judges`, R times by the judge on this computer and R times by Gemini, both
with core assertions, and report how far the two agree (issue 22).

The report goes to stdout (one JSON object with --json); a progress bar and the summary
go to stderr. Ctrl+C stops sending; the calls under way finish and what finished is
recorded as a partial report.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import TYPE_CHECKING, Any

from coach_gui.commands.output import EXIT_OK, EXIT_USAGE, UsageError, emit_json, say

if TYPE_CHECKING:
    from collections.abc import Sequence

    from coach_gui.bootstrap import House
    from coach_gui.domain.agreement import ArmAgreement
    from coach_gui.operations.evals import EvalRun

_BAR = 30


def _positive(value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "eval", help="judge recorded answers again with and without assertions; signed report"
    )
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument(
        "--last", type=_positive, metavar="N", help="the N newest sessions with judged answers"
    )
    chosen.add_argument(
        "--session", action="append", metavar="ID", help="a session to take (repeatable)"
    )
    parser.add_argument(
        "--repeats", type=_positive, required=True, metavar="R", help="judge each answer R times"
    )
    parser.add_argument(
        "--concurrency",
        type=_positive,
        default=None,
        metavar="C",
        help="calls at a time (4; 1 with the judge on this computer)",
    )
    parser.add_argument(
        "--compare-judges",
        action="store_true",
        help="judge with the model on this computer and with Gemini, both with core "
        "assertions, and report how far they agree (sends Gemini's half to Google)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


class _ProgressBar:
    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __call__(self, done: int, total: int) -> None:
        filled = round(_BAR * done / total) if total else _BAR
        with self._lock:
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (_BAR - filled)}] {done}/{total} calls")
            if done == total:
                sys.stderr.write("\n")
            sys.stderr.flush()


def _as_json(run: EvalRun, learners: Sequence[ArmAgreement]) -> dict[str, Any]:
    found = {**run.report.to_json(), "key_id": run.key_id, "signature": run.signature}
    # How strictly each arm's judge graded (issue 36): sealed in the run's sampling, which
    # both arms share; a run from before strictness existed graded as standard.
    strictness = (run.report.judge_sampling or {}).get("judge_strictness", "standard")
    found["arms"] = [{**arm, "strictness": strictness} for arm in found["arms"]]
    # The judge measured against its learner on the answers it judged again (issue 36):
    # counted now against the learner's word, so not part of the signed report.
    found["learner_agreement"] = [figures.to_json() for figures in learners]
    return found


def _print(run: EvalRun, learners: Sequence[ArmAgreement]) -> None:
    from coach_gui.domain.evals import figure_rows

    report = run.report
    print(f"eval run {report.eval_run_id}: verdict {report.verdict}")
    first, second = (figures.arm for figures in report.arms)
    rows = figure_rows(report)
    width = max(len(label) for label, _, _ in rows) + 2
    print(f"{'':{width}}{first:>15}{second:>15}")
    for label, on, off in rows:
        print(f"{label:{width}}{on:>15}{off:>15}")
    shares = {
        a.arm: f"{a.agreement:.0%} of {a.judged}" for a in learners if a.agreement is not None
    }
    mine, theirs = shares.get(first, "–"), shares.get(second, "–")
    print(f"{'agrees with you':{width}}{mine:>15}{theirs:>15}")


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import recover
    from coach_gui.domain.judge_errors import JudgeError, KeyringUnavailable
    from coach_gui.operations import evals
    from coach_gui.operations.evals import AssertionsSwitchedOff, EvalRefused

    if args.repeats < 2:
        raise UsageError("--repeats must be at least 2: consistency compares repeats")
    if args.concurrency is not None and args.concurrency > evals.MAX_CONCURRENCY:
        raise UsageError(f"--concurrency may be at most {evals.MAX_CONCURRENCY}")
    context = house.app(seed=False)
    config = context.config.judge
    where = str(context.config_path)
    result: dict[str, Any] = {}
    try:
        if not config.enabled:
            say(
                "coach: the judge is switched off (judge.enabled is false), so nothing can be "
                f"judged again. Switch it on in Coach or set judge.enabled to true in {where}."
            )
            return EXIT_USAGE
        if not config.include_assertions:
            say(f"coach: {AssertionsSwitchedOff(where)}")
            return EXIT_USAGE
        judges: list[Any] = []
        try:  # a key, a keyring (nothing is sent yet)
            judges.append(context.judge(provider="local" if args.compare_judges else None))
            if args.compare_judges:  # the judge on this computer against Gemini
                judges.append(context.judge(provider="gemini"))
        except (JudgeError, KeyringUnavailable) as exc:
            for built in judges:
                built.close()
            say(f"coach: {exc}")
            return EXIT_USAGE
        judge, compare = judges[0], (judges[1] if args.compare_judges else None)
        try:
            try:
                recover(context)
                items = evals.eval_items(context, session_ids=args.session, last=args.last)
            except EvalRefused as exc:
                say(f"coach: {exc}")
                return EXIT_USAGE
            total = len(items) * args.repeats * 2
            if compare is not None:
                say(
                    f"Judging {len(items)} answers {args.repeats} times on this computer "
                    f"({config.local_model}) and {args.repeats} times by Gemini "
                    f"({config.model}), both with core assertions: {total} calls; Gemini's "
                    "half sends each challenge, answer and the note's core assertions to Google."
                )
            else:
                say(
                    f"Judging {len(items)} answers {args.repeats} times with and without core "
                    f"assertions: {total} calls to {config.judge_model}"
                    f"{' (on this computer: nothing leaves)' if config.local else ''}."
                )
            stop = threading.Event()

            # Ollama grades one request at a time unless told otherwise: queued calls would
            # only wait (and could time out) on a local judge.
            concurrency = args.concurrency or (1 if config.local or compare else 4)

            def work() -> None:
                try:
                    if compare is not None:
                        result["run"] = evals.compare_judges(
                            context,
                            items,
                            repeats=args.repeats,
                            concurrency=concurrency,
                            on_progress=_ProgressBar(),
                            cancelled=stop,
                            local=judge,
                            gemini=compare,
                        )
                    else:
                        result["run"] = evals.run(
                            context,
                            items,
                            repeats=args.repeats,
                            concurrency=concurrency,
                            on_progress=_ProgressBar(),
                            cancelled=stop,
                            judge=judge,
                        )
                    result["learners"] = evals.learner_agreement(context, result["run"])
                except Exception as exc:  # handed to the main thread, raised there
                    result["error"] = exc

            worker = threading.Thread(target=work, name="coach-eval", daemon=True)
            worker.start()
            try:
                while worker.is_alive():
                    worker.join(0.2)
            except KeyboardInterrupt:
                stop.set()
                say("\ncoach: stopping; the calls under way finish and are recorded")
                worker.join()
        finally:
            for built in judges:
                built.close()
    finally:
        context.close()
    error = result.get("error")
    if isinstance(error, (EvalRefused, KeyringUnavailable)):
        say(f"coach: {error}")
        return EXIT_USAGE
    if error is not None:
        raise error
    eval_run: EvalRun = result["run"]
    learners: list[ArmAgreement] = result["learners"]
    if args.json:
        emit_json(_as_json(eval_run, learners))
    else:
        _print(eval_run, learners)
    say(eval_run.report.summary)
    say(f"Recorded and signed as {eval_run.report.eval_run_id}; `coach verify` it any time.")
    return EXIT_OK
