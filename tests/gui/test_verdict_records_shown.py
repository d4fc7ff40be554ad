"""Verdicts recorded before the judge assessed each assertion (journal schema < v5, issue 18)
keep their ids and are shown as they always were: the gap list, in the learner's words."""

from __future__ import annotations

from PySide6.QtGui import QPalette
from pytestqt.qtbot import QtBot

from coach_gui.domain.digests import content_id
from coach_gui.domain.practice import VerdictRecord
from coach_gui.domain.session_records import verdict_id
from coach_gui.domain.verdicts import Assessment, Gap
from coach_gui.ui.practice.verdict_view import VerdictView, verdict_html

ASSERTIONS = ("Selection needs inherited variation.", "Large change takes a long time.")
OLD = VerdictRecord(
    id="",
    attempt_id="ab" * 32,
    outbox_id="cd" * 32,
    passed=False,
    gaps=(Gap(assertion=1, problem="wrong", explanation="It is slow, not quick."),),
    feedback="Say how slow it is.",
    assertions_sent=True,
    assertions=ASSERTIONS,
    judge_model="gemini-2.5-flash",
    created_at="2026-11-01T10:00:00+00:00",
)


def test_a_verdict_without_assessments_keeps_the_id_it_was_stored_under() -> None:
    # The formula of schema v4, written out: a v4 journal's verdicts must still verify.
    before_v5 = content_id(
        "verdict",
        {
            "attempt_id": OLD.attempt_id,
            "outbox_id": OLD.outbox_id,
            "passed": False,
            "gaps": [{"assertion": 1, "problem": "wrong", "explanation": "It is slow, not quick."}],
            "feedback": OLD.feedback,
            "assertions_sent": True,
            "assertions": list(ASSERTIONS),
            "judge_model": OLD.judge_model,
            "created_at": OLD.created_at,
        },
    )
    assert verdict_id(OLD) == before_v5
    assessed = OLD.model_copy(
        update={
            "assessments": (
                Assessment(assertion=0, status="explained", evidence=("x",), reason="ok"),
            )
        }
    )
    assert verdict_id(assessed) != before_v5  # the assessments are part of a new one's id


def test_a_verdict_without_assessments_shows_its_gap_list_as_before(qtbot: QtBot) -> None:
    view = VerdictView()
    qtbot.addWidget(view)
    view.show_verdict(OLD, ASSERTIONS, "your answer", "It happens quickly.")
    shown = view.details.toPlainText()
    assert "1 gap" in shown and "Key point 2 — wrong" in shown and ASSERTIONS[1] in shown
    assert "It is slow, not quick." in shown
    assert "Your answer" not in shown  # nothing to mark: the old contract cited nothing
    assert "Key point 1" not in verdict_html(OLD, ASSERTIONS, QPalette(), "It happens quickly.")
