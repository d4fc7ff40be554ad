"""The Markdown a learner gets from *Export gaps as Markdown…*."""

from __future__ import annotations

from coach_gui.operations.gap_export import gaps_markdown
from coach_gui.services.review import GapEntry, SessionSummary


def _summary(**changes: object) -> SessionSummary:
    fields: dict[str, object] = {
        "session_id": "s1",
        "started_at": "2026-03-01T10:00:00+00:00",
        "note_id": "note1",
        "note_title": "Natural selection",
        "items": 2,
        "passed": 0,
        "gaps": 2,
        "pending": 0,
        "mode": "judged_with_assertions",
        "disposition": "gaps_found",
        "trace_id": "t" * 64,
        "bound_trace_ids": (),
        "verified": True,
    }
    fields.update(changes)
    return SessionSummary(**fields)  # type: ignore[arg-type]


def _gap(attempt: str, index: int | None, text: str | None, **changes: str) -> GapEntry:
    fields = {
        "session_id": "s1",
        "started_at": "2026-03-01T10:00:00+00:00",
        "note_id": "note1",
        "note_title": "Natural selection",
        "attempt_id": attempt,
        "challenge": "Explain natural selection\nin your own words.",
        "answer": "Animals change.\nThey want to.",
        "assertion": index,
        "assertion_text": text,
        "problem": "unexplained",
        "explanation": "Heritability is missing.",
        "feedback": "Say where the variation comes from.",
    }
    fields.update(changes)
    return GapEntry(**fields)  # type: ignore[arg-type]


def test_each_answer_lists_its_gaps_with_the_assertion_text_and_feedback() -> None:
    gaps = [
        _gap("a1", 0, "Selection acts only on inherited variation."),
        _gap("a1", 1, "Large change takes a long time.", problem="wrong", explanation="No."),
        _gap("a2", None, None, challenge="Predict what happens.", answer="Nothing."),
    ]
    text = gaps_markdown(_summary(gaps=3), gaps)
    assert text.startswith("# Gaps: Natural selection\n")
    assert "2 answers · 0 passed · 3 gaps · judged with assertions" in text
    assert "## 1. Explain natural selection in your own words." in text
    assert "> Animals change.\n> They want to." in text
    assert "- **Not explained**: key point 1: Selection acts only on inherited variation." in text
    assert "  Heritability is missing." in text
    assert "- **Wrong**: key point 2: Large change takes a long time.\n  No." in text
    assert text.count("Feedback: Say where the variation comes from.") == 2
    assert "## 2. Predict what happens." in text
    assert "- **Not explained**: the challenge" in text  # assertions were not sent
    assert text.index("## 1.") < text.index("## 2.")
    assert text.endswith("Session s1\n")


def test_a_session_without_gaps_says_so_and_counts_what_is_still_pending() -> None:
    text = gaps_markdown(_summary(items=1, gaps=0, passed=1, pending=1, mode="pending"), [])
    assert "No gaps were found in the answers judged so far." in text
    assert "1 answer still waiting to be judged" in text
    assert "1 answer · 1 passed · 0 gaps · pending" in text
    assert "##" not in text
