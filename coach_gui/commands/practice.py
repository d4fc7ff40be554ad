"""`coach practice NOTE [--count N] [--answers FILE] [--judge on|off] [--json]`.

Scripted with `--answers` (a JSON list of strings, one per challenge, "" to skip one);
interactive in a terminal without it. Every submitted answer is in the journal before
the next challenge is written.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coach_gui.commands.output import EXIT_OK, UsageError, emit_json, say
from coach_gui.domain.errors import NoteNotFound

if TYPE_CHECKING:
    from coach_gui.bootstrap import House

if TYPE_CHECKING:  # imported when the command runs: `coach` alone opens the app faster
    from coach_gui.domain.challenges import Challenge
    from coach_gui.domain.practice import Attempt
    from coach_gui.services.judging import JudgeOutcome
    from coach_gui.services.practice import PracticeRun


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("practice", help="practise one note")
    parser.add_argument("note", metavar="NOTE", help="a note's id, or its file name without .md")
    parser.add_argument("--count", type=int, help="how many challenges (default: from config)")
    parser.add_argument(
        "--answers", type=Path, metavar="FILE", help="JSON list of answers, one per challenge"
    )
    parser.add_argument(
        "--judge", choices=("on", "off"), help="judge the answers or not (default: judge.enabled)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def _read_answers(path: Path) -> list[str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UsageError(f"cannot read the answers file {path}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"the answers file {path} is not valid JSON: {exc}") from None
    if not isinstance(data, list) or not all(isinstance(a, str) for a in data):
        raise UsageError(f'the answers file {path} must be a JSON list of strings, like ["..."]')
    return data


class _Printer:
    """Streams a challenge to the terminal as it becomes safe to show."""

    def __init__(self, out: Any) -> None:
        self._out = out
        self._printed = ""

    @property
    def printed(self) -> str:
        return self._printed

    def __call__(self, text: str) -> None:
        if text.startswith(self._printed):
            self._out.write(text[len(self._printed) :])
        else:  # withdrawn: end the line and say so (the notice follows)
            self._out.write("  [withdrawn]\n")
        self._printed = text
        self._out.flush()

    def end(self) -> None:
        if self._printed:
            self._out.write("\n")
            self._out.flush()
        self._printed = ""


def _ask(prompt_out: Any) -> str:
    prompt_out.write("Your answer (finish with an empty line; empty to skip):\n")
    prompt_out.flush()
    lines: list[str] = []
    for line in sys.stdin:
        if not line.strip():
            break
        lines.append(line.rstrip("\n"))
    return "\n".join(lines)


def _item(
    challenge: Challenge,
    attempt: Attempt | None,
    outcome: JudgeOutcome | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    verdict = outcome.verdict if outcome is not None else None
    if verdict is not None:
        reason = None
    elif outcome is not None:
        reason = outcome.reason
    elif attempt is not None:
        reason = attempt.unjudged_reason
    return {
        "attempt_id": attempt.id if attempt else None,  # what `coach correct` takes
        "challenge": challenge.text,
        "kind": challenge.kind.value,
        "origin": challenge.origin,
        "answer": attempt.answer if attempt else None,
        "status": "judged" if verdict is not None else "unjudged",
        "verdict": None if verdict is None else "pass" if verdict.passed else "fail",
        "gaps": [g.model_dump(mode="json") for g in verdict.gaps] if verdict else [],
        "assessments": (
            [a.model_dump(mode="json") for a in verdict.assessments] if verdict else []
        ),
        "feedback": verdict.feedback if verdict else None,
        "reason": reason,
    }


_STATUS_WORDS = {"explained": "explained", "unexplained": "not explained", "wrong": "wrong"}


def _report(item: dict[str, Any], assertions: tuple[str, ...], out: Any) -> None:
    """The verdict as the learner reads it, with their own assertion text (kept local)."""
    from coach_gui.domain.verdicts import gap_subject  # here: `coach --help` stays light

    if item["verdict"] is None:
        out.write(f"  Saved, not judged: {item['reason']}\n")
        return
    out.write(f"  Verdict: {item['verdict']}\n")
    if item["assessments"]:
        for assessment in item["assessments"]:
            label = gap_subject(assessment["assertion"], assertions)
            status = _STATUS_WORDS[assessment["status"]]
            out.write(f"  - {status}: {label}\n    {assessment['reason']}\n")
            for span in assessment["evidence"]:
                out.write(f"      cited: “{span}”\n")
    for gap in () if item["assessments"] else item["gaps"]:
        label = gap_subject(gap["assertion"], assertions)
        out.write(f"  - {gap['problem']}: {label}\n    {gap['explanation']}\n")
    if item["feedback"]:
        out.write(f"  {item['feedback']}\n")
    out.flush()


def _practise(
    run_: PracticeRun,
    count: int,
    answers: list[str] | None,
    out: Any,
    items: list[dict[str, Any]],
    notices: list[str],
) -> None:
    """Ask `count` challenges, each answer saved before the next is written; a follow-up
    after each answer when interactive (the steps the window follows, without its
    self-rating). What happened goes into `items` and `notices`."""
    from coach_gui.operations.practice_steps import PracticeSteps, Step

    assertions = run_.note.core_assertions
    steps = PracticeSteps(count, follow_ups=answers is None)
    while steps.go_on() is Step.CHALLENGE:
        steps.main_challenge()
        printer = _Printer(out)
        out.write(f"\n[{steps.number}/{count}] ")
        result = run_.next_challenge(printer)
        steps.asked(run_.remaining, result.challenge)
        if not printer.printed:
            printer(result.challenge.text)
        printer.end()
        for notice in result.notices:
            say(f"coach: {notice}")
        notices.extend(result.notices)
        answer = answers[steps.number - 1] if answers is not None else _ask(out)
        if not answer.strip():
            steps.answer_skipped()
            items.append(_item(result.challenge, None, reason="skipped"))
            continue
        attempt = run_.submit(result.challenge, answer)
        steps.answer_saved()
        item = _item(result.challenge, attempt, run_.judge(attempt))
        items.append(item)
        _report(item, assertions, out)
        if steps.after_answer(answer) is not Step.FOLLOW_UP:
            continue
        parent, probed = steps.follow_up()
        follow = run_.follow_up(parent, probed, printer)
        steps.asked(run_.remaining, follow.challenge if follow is not None else None)
        if follow is None:
            continue
        printer.end()
        follow_answer = _ask(out)
        if follow_answer.strip():
            follow_attempt = run_.submit(follow.challenge, follow_answer)
            steps.answer_saved()
            follow_item = _item(follow.challenge, follow_attempt, run_.judge(follow_attempt))
            items.append(follow_item)
            _report(follow_item, assertions, out)


def run(args: argparse.Namespace, house: House) -> int:
    from coach_gui.commands.recovery import recover
    from coach_gui.operations.practice import Sealed, open_practice

    answers = _read_answers(args.answers) if args.answers else None
    count = args.count or (len(answers) if answers is not None else None)
    if count is not None and count < 1:
        raise UsageError("--count must be at least 1")
    if answers is not None and count is not None and len(answers) < count:
        raise UsageError(f"--count is {count} but the answers file has {len(answers)} answers")
    context = house.app()
    entry = context.notes.load().find(args.note)
    if entry is None:
        raise NoteNotFound(f"no note with id or file name {args.note!r}; `coach notes` lists them")
    settings = context.practice_settings(
        judge_enabled=None if args.judge is None else args.judge == "on"
    )
    if count is not None:
        settings = replace(settings, challenges=count)
    if answers is not None:  # scripted: one answer per main challenge, no follow-ups
        settings = replace(settings, follow_ups=False)
    recover(context)
    out = sys.stderr if args.json else sys.stdout
    try:
        opened = open_practice(context, entry.note, settings)
    except BaseException:
        context.close()
        raise
    assert opened is not None  # nothing abandons it
    if opened.tier1_problem:
        say(f"coach: {opened.tier1_problem}")
    if opened.judge_problem:
        say(f"coach: answers will be kept unjudged: {opened.judge_problem}")
    run_ = opened.run
    session = run_.session
    assert session is not None
    say(f"Practising “{entry.note.title}” ({settings.challenges} challenges).")
    items: list[dict[str, Any]] = []
    notices: list[str] = []
    completed = False
    try:
        _practise(run_, settings.challenges, answers, out, items, notices)
        completed = True
    finally:
        try:  # stopped part-way (Ctrl+C, an error): sealed as interrupted
            sealed: Sealed = opened.close(interrupted=not completed)
        finally:
            context.close()
    if args.json:
        emit_json(
            {
                "session_id": session.id,
                "trace_id": sealed.trace_id,
                "note_id": entry.note.id,
                "disposition": sealed.disposition.value,
                "mode": session.mode.value,
                "offline_reason": opened.tier1_problem or run_.offline_reason,
                "notices": notices,
                "items": items,
            }
        )
    else:
        from coach_gui.operations.vocabulary import DISPOSITION_WORDS, counted

        ended = DISPOSITION_WORDS.get(sealed.disposition.value, sealed.disposition.value)
        say(f"Session saved ({counted(len(run_.attempts), 'answer')}, {ended}).")
    return EXIT_OK
