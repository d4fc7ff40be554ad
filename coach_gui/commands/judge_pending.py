"""`coach judge-pending [--json]`: judge the answers kept unjudged (practised offline, or
when the judge was unavailable), with the privacy switch as it is now."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_OK, EXIT_USAGE, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House
    from coach_gui.services.judge_later import JudgePendingReport


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "judge-pending", help="judge the answers kept unjudged, with today's privacy switch"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _as_json(report: JudgePendingReport) -> dict[str, Any]:
    return {
        "include_assertions_now": report.assertions_sent,  # the JSON shape: a name kept
        "assertions_sent": report.assertions_sent and report.sent > 0,
        "sent": report.sent,
        "privacy": report.privacy_note,
        "judged": [
            {
                **asdict(item),
                "verdict": "pass" if item.passed else "fail",
                "gaps": [g.model_dump(mode="json") for g in item.gaps],
                "assertions": list(item.assertions),
            }
            for item in report.judged
        ],
        "pending": [asdict(item) for item in report.pending],
        "bound_trace_ids": report.bound_trace_ids,
        "problems": report.problems,
    }


def _print(report: JudgePendingReport) -> None:
    from coach_gui.domain.verdicts import gap_subject  # here: `coach --help` stays light

    for item in report.judged:
        print(f"Judged: {item.challenge}\n  Your answer: {item.answer}")
        print(f"  Verdict: {'pass' if item.passed else 'fail'}")
        for gap in item.gaps:
            label = gap_subject(gap.assertion, item.assertions)
            print(f"  - {gap.problem}: {label}\n    {gap.explanation}")
        if item.feedback:
            print(f"  {item.feedback}")
    for pending in report.pending:
        print(f"Still unjudged: {pending.challenge}\n  Why: {pending.reason}")
    if not report.judged and not report.pending:
        say("Nothing to judge: every answer you gave has been judged.")


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import recover
    from coach_gui.domain.judge_errors import JudgeError, KeyringUnavailable
    from coach_gui.operations.judging import judge_pending_answers

    context = house.app()
    try:
        try:  # switched on, a key, a keyring (nothing is sent yet)
            judge = context.judge()
        except (JudgeError, KeyringUnavailable) as exc:
            say(f"coach: {exc}")
            return EXIT_USAGE
        try:
            recover(context)
            report = judge_pending_answers(context, judge=judge)
        finally:
            judge.close()
    finally:
        context.close()
    if args.json:
        emit_json(_as_json(report))
    else:
        _print(report)
    if report.judged or report.pending:
        say(f"coach: {report.privacy_note}")
    for problem in report.problems:
        say(f"coach: {problem}")
    return EXIT_CHECK_FAILED if report.problems else EXIT_OK
