"""`coach optimize [--apply] [--reset] [--json]`: fit the schedule (FSRS's parameters) to
your own reviews and say how much better it predicts them; `--apply` uses the fit from now
on, `--reset` goes back to FSRS's defaults. Without either, nothing changes."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from coach_gui.commands.output import EXIT_CHECK_FAILED, EXIT_OK, UsageError, emit_json, say

if TYPE_CHECKING:
    from coach_gui.bootstrap import House
    from coach_gui.operations.app import SchedulePorts


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "optimize", help="fit the schedule to your review history (changes nothing unless asked)"
    )
    parser.add_argument(
        "--apply", action="store_true", help="use the fitted parameters from now on"
    )
    parser.add_argument("--reset", action="store_true", help="go back to FSRS's default parameters")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import opened_journal

    if args.apply and args.reset:
        raise UsageError("use either --apply or --reset, not both")
    with opened_journal(house) as context:
        if args.reset:
            return _reset(context, as_json=args.json)
        return _fit(context, apply=args.apply, as_json=args.json)


def _reset(context: SchedulePorts, *, as_json: bool) -> int:
    from coach_gui.operations import optimize

    changed = optimize.fitted_in_force(context)
    applied = optimize.reset(context) if changed else None
    if as_json:
        emit_json({
            "status": "reset", "changed": changed, "applied": False,
            "applied_id": applied.id if applied is not None else None,
            "parameters_in_force": "defaults",
        })  # fmt: skip
    elif changed:
        print("The schedule uses FSRS's default parameters again; every assertion's next "
              "review is worked out with them.")  # fmt: skip
    else:
        print("The schedule already uses FSRS's default parameters; nothing changed.")
    return EXIT_OK


def _fit(context: SchedulePorts, *, apply: bool, as_json: bool) -> int:
    from coach_gui.operations import optimize
    from coach_gui.operations.optimize import Fitted, NotYet, fit_json, not_yet_text

    result = optimize.fit(context)
    in_force = optimize.fitted_in_force(context)
    applied = None
    problem = None
    if isinstance(result, NotYet):
        problem = not_yet_text(result)
    elif not isinstance(result, Fitted):
        problem = ("the fit gave parameters the scheduler cannot use, so the schedule stays "
                   "as it is; try again after more practice")  # fmt: skip
    elif apply and not result.better:
        problem = ("the fitted parameters predict your reviews no better than those in use; "
                   "nothing changed")  # fmt: skip
    elif apply:
        applied = optimize.apply(context, result)
        in_force = True
    if as_json:
        payload = fit_json(result, fitted_in_force=in_force)
        payload.update(applied=applied is not None,
                       applied_id=applied.id if applied is not None else None)  # fmt: skip
        emit_json(payload)
    else:
        _print(result, in_force, applied is not None)
    if problem is not None and (apply or not isinstance(result, NotYet)):
        say(f"coach: {problem}")
        return EXIT_CHECK_FAILED
    return EXIT_OK


def _print(result: object, in_force: bool, applied: bool) -> None:
    from coach_gui.operations.optimize import Fitted, NotYet, not_yet_text

    if isinstance(result, NotYet):
        print(not_yet_text(result).capitalize() + ".")
    elif isinstance(result, Fitted):
        fit, change = result.summary, result.change
        print(f"Fitted to {fit.reviews:,} reviews of {fit.assertions:,} assertions.")
        print("How far the predicted chance of remembering is from what you did "
              "(lower is better):")  # fmt: skip
        print(f"  log-loss  {fit.log_loss_before:.4f} in use  ->  {fit.log_loss_after:.4f} fitted")
        print(f"  RMSE      {fit.rmse_before:.2%} in use  ->  {fit.rmse_after:.2%} fitted")
        print(f"A Good first answer comes back after {change.first_good_days_before} day(s) "
              f"now, {change.first_good_days_after} with the fit.")  # fmt: skip
        print(f"Due within 14 days: about {change.due_soon_before} assertion(s) now, "
              f"about {change.due_soon_after} with the fit.")  # fmt: skip
    if applied:
        print("Applied: from now on the schedule uses the parameters fitted to your history "
              "(`coach optimize --reset` goes back to the defaults).")  # fmt: skip
    elif in_force:
        print("The schedule uses parameters fitted to your history "
              "(`coach optimize --reset` goes back to the defaults).")  # fmt: skip
    else:
        hint = " `coach optimize --apply` uses the fit." if isinstance(result, Fitted) else ""
        print(f"The schedule uses FSRS's default parameters.{hint}")
