"""A session's gap list as Markdown, for the learner to keep or share (issue 5: *Export gaps
as Markdown…*). Pure: the caller reads the session and writes the file."""

from __future__ import annotations

from collections.abc import Sequence

from coach_gui.operations.vocabulary import PROBLEM_LABELS, counted, mode_label, to_the_minute
from coach_gui.services.review import GapEntry, SessionSummary


def _quoted(text: str) -> str:
    return "\n".join(f"> {line}" if line.strip() else ">" for line in text.strip().splitlines())


def _one_line(text: str) -> str:
    return " ".join(text.split())


def gaps_markdown(session: SessionSummary, gaps: Sequence[GapEntry]) -> str:
    """The gaps of `session`, grouped by answer, in the order they were listed."""
    lines = [
        f"# Gaps: {_one_line(session.note_title)}",
        "",
        f"Practised {to_the_minute(session.started_at)} · {counted(session.items, 'answer')} · "
        f"{session.passed} passed · {counted(session.gaps, 'gap')} · {mode_label(session.mode)}",
        "",
    ]
    if session.pending:
        waiting = counted(session.pending, "answer")
        lines += [f"{waiting} still waiting to be judged (Judge pending answers).", ""]
    if not gaps:
        lines += ["No gaps were found in the answers judged so far.", ""]
    by_answer: dict[str, list[GapEntry]] = {}
    for gap in gaps:
        by_answer.setdefault(gap.attempt_id, []).append(gap)
    for number, found in enumerate(by_answer.values(), start=1):
        first = found[0]
        lines += [f"## {number}. {_one_line(first.challenge) or 'Challenge'}", ""]
        lines += ["Your answer:", "", _quoted(first.answer) or ">", ""]
        for gap in found:
            problem = PROBLEM_LABELS.get(gap.problem, gap.problem)
            if gap.assertion_text is not None and gap.assertion is not None:
                what = f"key point {gap.assertion + 1}: {_one_line(gap.assertion_text)}"
            else:
                what = "the challenge"
            mine = " (your word: you corrected the judge's)" if gap.by_learner else ""
            lines.append(f"- **{problem}**: {what}{mine}")
            if gap.explanation.strip():
                lines.append(f"  {_one_line(gap.explanation)}")
        if first.feedback.strip():
            lines += ["", f"Feedback: {_one_line(first.feedback)}"]
        lines.append("")
    lines.append(f"Session {session.session_id}")
    return "\n".join(lines) + "\n"
