"""Practise these gaps (issue 5): the open gaps of a note gate a session whose challenges
target those assertions, and the gap ids and the decision are sealed in its trace."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini, RecordedRequest, assessed_reply, prompt_items
from fakes.in_ram import TickingClock
from test_cli_sessions import KEY, _coach, _configure, _practise_offline, _set_key

from coach_gui.adapters.journal.practice import SqlitePracticeJournal
from coach_gui.adapters.journal.traces import SqliteTraceJournal
from coach_gui.bootstrap import build_context
from coach_gui.domain.practice import plan_gap_practice
from coach_gui.operations.review import gap_board
from coach_gui.services.practice import PracticeRun
from coach_gui.services.sealing import seal_session
from coach_gui.services.verify import verify


def _misses_assertion_1(request: RecordedRequest) -> str:
    """Every answer explains assertion 0 and leaves assertion 1 unexplained."""
    gap = {"assertion": 1, "problem": "unexplained", "explanation": "Slowness not explained."}
    items = [
        {"index": item.index, "verdict": "fail", "gaps": [gap], "feedback": "Say why it is slow."}
        for item in prompt_items(request)
    ]
    return assessed_reply(request, json.dumps({"items": items}))


def test_practising_open_gaps_targets_them_and_seals_the_decision(
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = _misses_assertion_1
        _configure(coach_home, gemini.url)
        _set_key(monkeypatch, capsys)
        _practise_offline(capsys, tmp_path)
        code, _, err = _coach(capsys, "judge-pending", "--json")
        assert code == 0, err

    context = build_context()
    reader = SqliteTraceJournal(context.journal)
    note = context.notes.load().find("natural-selection")
    assert note is not None
    gaps = gap_board(context, note.note).gaps
    assert [g.assertion_index for g in gaps] == [1]
    # Both answers of the one session missed it: one session, one miss (ADR 0023).
    assert gaps[0].missed == 1 and gaps[0].problem == "unexplained"

    clock = TickingClock()
    plan = plan_gap_practice(
        note.note, tuple(g.assertion_index for g in gaps), tuple(g.gap_id for g in gaps),
        clock.now(),
    )  # fmt: skip
    journal = SqlitePracticeJournal(context.journal)
    run = PracticeRun(
        note.note, context.practice_settings(judge_enabled=False), journal, None, clock,
        plan=plan,
    )  # fmt: skip
    run.start()
    challenges = [run.next_challenge().challenge for _ in range(2)]
    assert all(c.target_assertions == (1,) for c in challenges)
    run.submit(challenges[0], "Because slight steps need a very long time to add up.")
    run.finish()
    assert run.session is not None
    trace_id = seal_session(run.session.id, reader, clock)

    with sqlite3.connect(coach_home / "journal.sqlite3") as conn:
        (body,) = conn.execute(
            "SELECT body FROM sealed_traces WHERE trace_id = ?", (trace_id,)
        ).fetchone()
    sealed = json.loads(body)["input"]
    assert sealed["gap_ids"] == [gaps[0].gap_id]
    assert sealed["scheduler_decision_id"] == plan.decision_id
    report = verify(reader)
    assert report.ok, report.first_failure
    context.close()
