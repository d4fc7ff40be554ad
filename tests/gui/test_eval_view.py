"""The *Judge consistency* view against the fake judge over real sockets: sessions recorded by
`coach practice`, a run with progress, a cancelled run that keeps what finished, and the
history with each report's verify status. Writes docs/screenshots/eval.png."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from fakes.noisy_judge import NoisyVerdicts
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from shots import SHOTS

from coach_gui.bootstrap import AppContext, build_context, use_cases
from coach_gui.cli import main
from coach_gui.domain.evals import EvalReport
from coach_gui.ui.review.eval_view import EvalView

KEY = "test-key"
WAIT_MS = 30_000


@pytest.fixture
def gemini(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[FakeGemini]:
    """A fake judge, and two sessions of three judged answers recorded by `coach practice`."""
    with FakeGemini(api_keys={KEY}) as server, FakeOllama() as ollama:
        server.reply_for = passes_items_whose_answer_contains("because")
        config = Path(os.environ["COACH_CONFIG"])
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(
            json.dumps(
                {
                    "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL},
                    "judge": {"baseUrl": server.url, "maxRetries": 0},
                }
            ),
            encoding="utf-8",
        )
        monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0
        for session in range(2):
            for n in range(3):
                ollama.queue_challenge(f"Question {session}.{n}: why would this take so long?")
            answers = [f"Answer {session}.{n} because it is slow." for n in range(3)]
            path = tmp_path / f"answers{session}.json"
            path.write_text(json.dumps(answers), encoding="utf-8")
            assert main(["practice", "natural-selection", "--answers", str(path), "--json"]) == 0
        capsys.readouterr()
        yield server


def _view(qtbot: QtBot, context: AppContext | None = None) -> EvalView:
    view = EvalView(use_cases(context or build_context(seed=False)).evals, None)
    qtbot.addWidget(view)
    view.resize(1180, 560)
    with qtbot.waitSignals([view.sessions_loaded, view.history_loaded], timeout=WAIT_MS):
        view.show()
    return view


def test_run_shows_both_arms_records_the_report_and_verifies_it(
    qtbot: QtBot,
    gemini: FakeGemini,
    answer_dialog: Callable[[str], Any],
    unnamed_controls: Callable[[QWidget], list[str]],
) -> None:
    gemini.reply_for = NoisyVerdicts(p_without=0.5, p_with=0.0, seed=3)
    view = _view(qtbot)
    assert unnamed_controls(view) == []
    assert view.sessions.count() == 2 and view.history.count() == 0
    qtbot.mouseClick(view.select_all, Qt.MouseButton.LeftButton)
    view.repeats.setValue(2)
    before = len(gemini.generate_requests)
    answer = answer_dialog("Send")
    with qtbot.waitSignal(view.run_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert answer.answered and "Send 24 calls" in answer.text
    assert "core assertions" in answer.informative
    report: EvalReport = finished.args[0]
    assert len(gemini.generate_requests) - before == 24 and not report.partial
    assert view.progress.value() == view.progress.maximum() == 24
    cells = {
        view.table.item(r, 0).text(): view.table.item(r, 1).text()
        for r in range(view.table.rowCount())
    }
    assert cells["verdict consistency"] == "100%"
    assert report.verdict in view.verdict.text() and view.summary.text() == report.summary
    qtbot.waitUntil(lambda: view.history.count() == 1, timeout=WAIT_MS)
    assert view.history.item(0).text().startswith("✓")
    qtbot.waitUntil(lambda: view.verify_status.text().startswith("Verified"), timeout=WAIT_MS)
    # The report just made is not "a past report" (issue 33).
    assert view.status.text() == f"Recorded as {report.eval_run_id[:12]}…, signed."
    SHOTS.mkdir(parents=True, exist_ok=True)
    qtbot.wait(50)
    assert view.grab().save(str(SHOTS / "eval.png"), "PNG")


def test_cancel_keeps_what_finished_and_shows_it_as_partial(
    qtbot: QtBot, gemini: FakeGemini
) -> None:
    gemini.reply_for = NoisyVerdicts(p_without=0.5, p_with=0.0, latency_seconds=0.2)
    view = _view(qtbot)
    view.sessions.item(0).setCheckState(Qt.CheckState.Checked)
    view.concurrency.setValue(1)
    with qtbot.waitSignal(view.run_finished, timeout=WAIT_MS) as finished:
        view.start(confirm=False)
        assert view.cancel_button.isEnabled() and not view.run_button.isEnabled()
        qtbot.waitUntil(lambda: view.progress.value() >= 2, timeout=WAIT_MS)
        qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    report: EvalReport = finished.args[0]
    assert report.partial and 2 <= report.calls_done < report.calls_planned == 18
    assert "partial" in view.verdict.text() and view.run_button.isEnabled()
    qtbot.waitUntil(lambda: view.history.count() == 1, timeout=WAIT_MS)
    assert "(partial)" in view.history.item(0).text()


def test_assertions_switched_off_refuses_before_sending(
    qtbot: QtBot, gemini: FakeGemini, answer_dialog: Callable[[str], Any]
) -> None:
    context = build_context(seed=False)
    config = context.config
    context.config = config.model_copy(
        update={"judge": config.judge.model_copy(update={"include_assertions": False})}
    )
    view = _view(qtbot, context)
    view.sessions.item(0).setCheckState(Qt.CheckState.Checked)
    before = len(gemini.requests)
    answer = answer_dialog("OK")
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert answer.answered and "Send core assertions" in answer.text
    assert len(gemini.requests) == before and view.run_button.isEnabled()


def test_a_report_comparing_the_two_judges_is_shown_with_their_names_and_agreement(
    qtbot: QtBot,
) -> None:
    from coach_gui.domain.evals import CallResult, ItemRef, build_report
    from coach_gui.domain.verdicts import Assessment
    from coach_gui.ui.charts.eval_chart import describe

    def call(arm: str, repeat: int, *statuses: str) -> CallResult:
        assessments = tuple(
            Assessment(assertion=n, status=s, evidence=("x",) if s != "unexplained" else (),
                       reason="r")
            for n, s in enumerate(statuses)
        )  # fmt: skip
        status = "pass" if all(s == "explained" for s in statuses) else "fail"
        return CallResult(arm=arm, repeat=repeat, item=0, status=status,  # type: ignore[arg-type]
                          assessments=assessments, latency_ms=10)  # fmt: skip

    results = [call(arm, r, "explained", "unexplained")
               for arm in ("judge_local", "judge_gemini") for r in (0, 1)]  # fmt: skip
    report = build_report(
        results, [], item_refs=[ItemRef(session_id="s", attempt_id="a")], repeats=2,
        concurrency=1, judge_model="local:m vs g", created_at="t", run_nonce="n",
        calls_planned=4, kind="judges",
    )  # fmt: skip
    view = EvalView(use_cases(build_context(seed=False)).evals, None)
    qtbot.addWidget(view)
    view.show_report(report)
    headers = [view.table.horizontalHeaderItem(c).text() for c in range(3)]
    assert headers == ["Figure", "This computer", "Gemini"]
    cells = [view.table.item(r, 0).text() for r in range(view.table.rowCount())]
    assert "judges agree per key point" in cells
    row = cells.index("judges agree per key point")
    assert view.table.item(row, 1).text() == "100.0% of 2"
    assert view.results_box.title().startswith("The judge on this computer and Gemini")
    assert "on this computer" in describe(report) and "with Gemini" in describe(report)
    assert "Verdict: pass" in view.verdict.text()


def test_after_a_restart_the_newest_past_report_is_shown(qtbot: QtBot, gemini: FakeGemini) -> None:
    """Two runs recorded; Coach started again: the view opens on the newest report, with
    its figures, chart and verify status, not on "No eval report to show yet"."""
    from coach_gui.ui.charts.eval_chart import describe

    gemini.reply_for = NoisyVerdicts(p_without=0.5, p_with=0.0, seed=5)
    first = _view(qtbot)
    finished_ids = []
    for repeats in (2, 3):
        first.sessions.item(0).setCheckState(Qt.CheckState.Checked)
        first.repeats.setValue(repeats)
        with qtbot.waitSignal(first.run_finished, timeout=WAIT_MS) as finished:
            first.start(confirm=False)
        finished_ids.append(finished.args[0].eval_run_id)
        qtbot.waitUntil(lambda: first.history.count() == len(finished_ids), timeout=WAIT_MS)
    first.close()

    again = _view(qtbot)  # a new view over a new context: as after a restart
    assert again.history.count() == 2
    shown = again.shown_report
    assert shown is not None and shown.eval_run_id == finished_ids[-1] and shown.repeats == 3
    assert again.history.currentRow() == 0
    assert again.chart.accessibleDescription() == describe(shown) != describe(None)
    assert again.table.rowCount() > 0 and again.verdict.text().startswith("<b>Verdict: ")
    qtbot.waitUntil(lambda: again.verify_status.text().startswith("Verified"), timeout=WAIT_MS)
    assert again.status.text().startswith("Showing a past report.")  # not "then Run"

    again.history.setCurrentRow(1)  # the learner picks the older one: a refresh keeps it
    with qtbot.waitSignal(again.history_loaded, timeout=WAIT_MS):
        again.refresh()
    assert again.shown_report is not None
    assert again.shown_report.eval_run_id == finished_ids[0]
    assert again.history.currentRow() == 1


def test_a_pass_beside_a_zero_pass_rate_says_the_verdict_is_about_consistency(
    qtbot: QtBot,
) -> None:
    from coach_gui.domain.evals import CallResult, ItemRef, build_report

    # Every answer failed, every time, in both arms: perfectly consistent, 0% passed.
    results = [
        CallResult(arm=arm, repeat=r, item=0, status="fail", latency_ms=10)  # type: ignore[arg-type]
        for arm in ("assertions_on", "assertions_off")
        for r in (0, 1)
    ]
    report = build_report(
        results, [], item_refs=[ItemRef(session_id="s", attempt_id="a")], repeats=2,
        concurrency=1, judge_model="g", created_at="t", run_nonce="n", calls_planned=4,
    )  # fmt: skip
    assert report.verdict == "pass"
    view = EvalView(use_cases(build_context(seed=False)).evals, None)
    qtbot.addWidget(view)
    view.show_report(report)
    cells = {view.table.item(r, 0).text(): view.table.item(r, 1).text()
             for r in range(view.table.rowCount())}  # fmt: skip
    assert cells["pass rate"] == "0%" and cells["verdict consistency"] == "100%"
    said = view.verdict.text()
    assert said.startswith("<b>Verdict: pass</b> — with core assertions the judge was at least")
    assert "It is about consistency (the same verdict each time the judge sees the same " in said
    assert "not about how many of your answers passed (the pass rate)." in said
