"""The practice pane with the judge: a fake Ollama and a fake Gemini over real sockets, a
real journal and a real (file) keyring. What the learner sees after Submit, what reaches
the judge, and that no answer is ever lost."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, Fault, RecordedRequest, assessed_reply, prompt_items
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot
from visible_text import assert_learner_words

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import AppContext, build_context, use_cases
from coach_gui.domain.notes import Note
from coach_gui.ui.practice.payload_review import PayloadReviewDialog
from coach_gui.ui.practice.practice_pane import Phase, PracticePane
from coach_gui.ui.practice.practice_thread import Turn
from coach_gui.ui.practice.verdict_view import VerdictState
from coach_gui.ui.settings.config_owner import ConfigOwner

KEY = "test-key"
CHALLENGE = "Why can a process that only keeps or removes traits still produce new kinds?"
SECOND = "How would the work of a pigeon fancier differ from what happens in the wild?"
ANSWER = "Useful differences that are inherited get kept, and they add up over generations."
WAIT_MS = 10_000


def needs_work(request: RecordedRequest) -> str:
    """The judge's reply: gaps on key points 2 (unexplained) and 4 (wrong), by index only."""
    (item,) = prompt_items(request)
    gaps = [
        {"assertion": 1, "problem": "unexplained",
         "explanation": "You do not say that selection can only use variation that exists."},
        {"assertion": 3, "problem": "wrong",
         "explanation": "You suggest the change is quick; it takes very long periods."},
    ]  # fmt: skip
    if item.assertions is None:
        gaps = [{"assertion": None, "problem": "unexplained", "explanation": "Too vague."}]
    feedback = "Say where the variation comes from, and how slow the change is."
    verdict = {"index": item.index, "verdict": "fail", "gaps": gaps, "feedback": feedback}
    return assessed_reply(request, json.dumps({"items": [verdict]}))


def configure(ollama: FakeOllama, gemini: FakeGemini, **judge: object) -> AppContext:
    """This test's coach.config.json (COACH_CONFIG is per test) and the real context."""
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    settings: dict[str, Any] = {
        "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": False,
                  "challengesPerSession": 1},
        "judge": {"enabled": True, "includeAssertions": True, "baseUrl": gemini.url,
                  "maxRetries": 0, **judge},
    }  # fmt: skip
    path.write_text(json.dumps(settings), encoding="utf-8")
    return build_context()


def natural_selection(context: AppContext) -> Note:
    entry = context.notes.load().find("natural-selection")
    assert entry is not None
    return entry.note


def rows(context: AppContext, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(context.journal_path) as conn:
        return conn.execute(sql).fetchall()


@pytest.fixture
def servers() -> Iterator[tuple[FakeOllama, FakeGemini]]:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        ollama.queue_challenge(CHALLENGE)
        ollama.queue_challenge(SECOND)
        yield ollama, gemini


@pytest.fixture
def make_pane(qtbot: QtBot) -> Iterator[Callable[[AppContext], PracticePane]]:
    made: list[tuple[PracticePane, AppContext]] = []

    def make(context: AppContext) -> PracticePane:
        pane = PracticePane(use_cases(context).practice)
        qtbot.addWidget(pane)
        pane.resize(900, 700)
        pane.show()
        qtbot.waitExposed(pane)
        made.append((pane, context))
        return pane

    yield make
    for pane, context in made:
        assert pane.shutdown(WAIT_MS), "the practice worker was still busy at the end"
        qtbot.wait(10)
        context.close()


def answer(qtbot: QtBot, pane: PracticePane, text: str = ANSWER) -> None:
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    pane.view.answer_box.setFocus()
    qtbot.keyClicks(pane.view.answer_box, text)
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def wait_answered(qtbot: QtBot, pane: PracticePane) -> None:
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)


def saved_status(pane: PracticePane) -> str:
    """What the latest answer's turn in the thread says about saving it."""
    turn = pane.view.turn
    return turn.status.text() if turn is not None else ""


def saved_turn(qtbot: QtBot, pane: PracticePane) -> Turn:
    """The turn of the answer just submitted, once it is saved and in the thread."""
    qtbot.waitUntil(lambda: pane.view.turn is not None, timeout=WAIT_MS)
    turn = pane.view.turn
    assert turn is not None
    return turn


def review_dialog(qtbot: QtBot) -> PayloadReviewDialog:
    found: list[PayloadReviewDialog] = []

    def shown() -> bool:
        modal = QApplication.activeModalWidget()
        if isinstance(modal, PayloadReviewDialog) and modal.isVisible():
            found.append(modal)
        return bool(found)

    qtbot.waitUntil(shown, timeout=WAIT_MS)
    return found[0]


def test_a_judged_answer_shows_pass_or_needs_work_and_each_gap_in_the_learners_own_words(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
    unnamed_controls: Callable[[QWidget], list[str]],
) -> None:
    ollama, gemini = servers
    release = threading.Event()  # the judge answers only when the test says so
    gemini.reply_for = lambda request: (release.wait(WAIT_MS), needs_work(request))[1]
    KeyStore().set(KEY)
    context = configure(ollama, gemini)
    note = natural_selection(context)
    pane = make_pane(context)
    pane.start(note)
    answer(qtbot, pane)

    qtbot.waitUntil(lambda: len(gemini.generate_requests) == 1, timeout=WAIT_MS)
    assert saved_status(pane) == "✓ Saved."  # stored before the judge answers
    assert rows(context, "SELECT answer, status FROM attempts") == [(ANSWER, "unjudged")]
    assert pane.phase is Phase.JUDGING
    assert pane.view.verdict_view.state is VerdictState.JUDGING
    # (then how long is left of the judge's wait, issue 33)
    assert pane.view.verdict_view.heading.text().startswith("Judging your answer…")
    # The answer sits in the thread under its challenge, the verdict on its way under it.
    assert pane.view.turn is not None and pane.view.turn.answer.text() == ANSWER
    assert pane.view.turn.challenge.text() and not pane.view.composer.isVisible()
    assert pane.view.next_button.isEnabled()  # the window is not blocked while it waits
    release.set()

    wait_answered(qtbot, pane)
    view = pane.view.verdict_view
    assert view.state is VerdictState.NEEDS_WORK
    assert view.heading.text() == "Needs work — your answer"
    shown = view.details.toPlainText()
    # Every key point with its status, in the learner's own words (looked up by index).
    statuses = ["✓ Explained", "○ Not explained", "✓ Explained", "✗ Wrong"]
    for index, assertion in enumerate(note.core_assertions):
        status = statuses[index] if index < len(statuses) else "✓ Explained"
        assert f"Key point {index + 1} — {status}" in shown
        assert assertion in shown
    assert "only use variation that exists" in shown
    assert "Say where the variation comes from" in shown
    assert unnamed_controls(pane) == []
    assert rows(context, "SELECT status FROM attempts") == [("judged",)]
    assert rows(context, "SELECT verdict FROM verdicts") == [("fail",)]
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(pane.view.next_button, Qt.MouseButton.LeftButton)
    assert (finished.args[0].passed, finished.args[0].needs_work) == (0, 1)
    assert "1 needs work" in pane.view.summary_label.text()
    assert rows(context, "SELECT disposition FROM sessions") == [("gaps_found",)]


@pytest.mark.parametrize(("fault", "said"), [(Fault.QUOTA, "429"), (Fault.SERVER_ERROR, "500")])
def test_a_judge_error_shows_the_reason_and_keeps_the_answer_unjudged(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
    fault: Fault,
    said: str,
) -> None:
    ollama, gemini = servers
    gemini.inject(fault)
    KeyStore().set(KEY)
    context = configure(ollama, gemini)
    pane = make_pane(context)
    pane.start(natural_selection(context))
    answer(qtbot, pane)
    wait_answered(qtbot, pane)

    assert pane.view.verdict_view.state is VerdictState.UNJUDGED
    assert pane.view.verdict_view.heading.text() == "Not judged — your answer is kept"
    assert said in pane.view.verdict_view.details.toPlainText()
    assert "kept unjudged" in pane.view.verdict_view.details.toPlainText()
    assert_learner_words([pane.view.answer_box], step=f"the judge answering {fault.value}")
    kept = rows(context, "SELECT answer, status, unjudged_reason FROM attempts")
    assert [(a, s) for a, s, _ in kept] == [(ANSWER, "unjudged")]
    assert said in kept[0][2]
    assert len(rows(context, "SELECT id FROM judge_refusals")) == 1
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS):
        pane.view.next_button.click()
    assert rows(context, "SELECT disposition FROM sessions") == [("judge_unavailable",)]


def test_without_a_key_the_reason_and_its_next_step_are_said_once(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
) -> None:
    ollama, gemini = servers
    context = configure(ollama, gemini)  # no key stored
    context.config = context.config.model_copy(
        update={"tier1": context.config.tier1.model_copy(update={"challenges_per_session": 2})}
    )
    pane = make_pane(context)
    pane.start(natural_selection(context))
    answer(qtbot, pane)
    wait_answered(qtbot, pane)

    notice = pane.view.judge_notice.label.text()
    assert pane.view.judge_notice.isVisible()
    assert "No Gemini API key" in notice and "set it in Settings" in notice
    assert_learner_words([pane.view.answer_box], step="no key stored")
    assert saved_status(pane) == "✓ Saved — kept unjudged until the judge is set up."
    assert not pane.view.verdict_view.isVisible()
    pane.view.next_button.click()
    answer(qtbot, pane, "A breeder picks by eye; nature keeps what survives.")
    wait_answered(qtbot, pane)
    assert saved_status(pane) == "✓ Saved — kept unjudged until the judge is set up."
    assert "No Gemini API key" not in saved_status(pane)  # said once, in the notice
    assert gemini.requests == []
    reasons = rows(context, "SELECT status, unjudged_reason FROM attempts")
    assert len(reasons) == 2
    assert all(s == "unjudged" and "No Gemini API key" in r for s, r in reasons)


def test_with_the_judge_off_no_request_reaches_the_judge(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
) -> None:
    ollama, gemini = servers
    KeyStore().set(KEY)
    context = configure(ollama, gemini, enabled=False)
    pane = make_pane(context)
    pane.start(natural_selection(context))
    answer(qtbot, pane)
    wait_answered(qtbot, pane)

    assert "the judge is switched off" in saved_status(pane)
    assert not pane.view.judge_notice.isVisible()
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS):
        pane.view.next_button.click()
    assert gemini.requests == []
    assert rows(context, "SELECT status FROM attempts") == [("unjudged",)]
    assert rows(context, "SELECT disposition FROM sessions") == [("unjudged_offline",)]


def test_each_session_reads_the_judge_and_privacy_switches_as_they_are_now(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
) -> None:
    ollama, gemini = servers
    gemini.reply_for = needs_work
    KeyStore().set(KEY)
    context = configure(ollama, gemini)
    note = natural_selection(context)
    pane = make_pane(context)

    def practise_once() -> None:
        with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS):
            pane.start(note)
            answer(qtbot, pane)
            wait_answered(qtbot, pane)
            pane.view.next_button.click()

    def switched(**judge: bool) -> None:  # what the toolbar toggles do to the config
        config = context.config
        context.config = config.model_copy(update={"judge": config.judge.model_copy(update=judge)})

    switched(include_assertions=False)
    practise_once()
    (sent,) = prompt_items(gemini.generate_requests[0])
    assert sent.answer == ANSWER and sent.assertions is None
    assert "Your answer — unexplained" in pane.view.verdict_view.details.toPlainText()

    ollama.queue_challenge(CHALLENGE)
    switched(enabled=False)
    practise_once()
    assert len(gemini.generate_requests) == 1  # nothing more was sent
    assert "switched off" in saved_status(pane)


def test_review_before_sending_dont_send_sends_nothing_and_keeps_the_answer(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
    unnamed_controls: Callable[[QWidget], list[str]],
) -> None:
    ollama, gemini = servers
    KeyStore().set(KEY)
    context = configure(ollama, gemini, reviewPayloads=True)
    pane = make_pane(context)
    pane.start(natural_selection(context))
    answer(qtbot, pane)

    dialog = review_dialog(qtbot)
    assert rows(context, "SELECT status FROM attempts") == [("unjudged",)]  # already saved
    assert ANSWER in dialog.payload_view.toPlainText()
    assert dialog.dont_send_button.isDefault()
    assert unnamed_controls(dialog) == []
    qtbot.mouseClick(dialog.dont_send_button, Qt.MouseButton.LeftButton)
    wait_answered(qtbot, pane)

    assert gemini.requests == []
    assert pane.view.verdict_view.state is VerdictState.UNJUDGED
    assert "you chose not to send it" in pane.view.verdict_view.details.toPlainText()
    assert rows(context, "SELECT answer, status FROM attempts") == [(ANSWER, "unjudged")]
    assert rows(context, "SELECT reason_code FROM judge_refusals") == [("not_sent",)]
    assert "you chose not to send it" in rows(context, "SELECT unjudged_reason FROM attempts")[0][0]
    assert rows(context, "SELECT COUNT(*) FROM outbox") == [(0,)]


def test_review_before_sending_send_sends_exactly_the_payload_shown(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
) -> None:
    ollama, gemini = servers
    gemini.reply_for = needs_work
    KeyStore().set(KEY)
    context = configure(ollama, gemini, reviewPayloads=True)
    note = natural_selection(context)
    pane = make_pane(context)
    pane.start(note)
    answer(qtbot, pane)

    dialog = review_dialog(qtbot)
    shown = json.loads(dialog.payload_view.toPlainText())
    assert gemini.requests == []  # nothing leaves before Send
    qtbot.mouseClick(dialog.send_button, Qt.MouseButton.LeftButton)
    wait_answered(qtbot, pane)

    assert shown == {"items": [{"challenge": CHALLENGE, "answer": ANSWER,
                                "core_assertions": list(note.core_assertions)}]}  # fmt: skip
    ((outbox_payload,),) = rows(context, "SELECT payload FROM outbox")
    assert json.loads(outbox_payload) == shown
    (sent,) = prompt_items(gemini.generate_requests[0])
    assert (sent.challenge, sent.answer, list(sent.assertions or ())) == (
        CHALLENGE, ANSWER, list(note.core_assertions),
    )  # fmt: skip
    assert pane.view.verdict_view.state is VerdictState.NEEDS_WORK


def test_ending_the_session_while_a_payload_waits_for_review_sends_nothing(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
) -> None:
    ollama, gemini = servers
    KeyStore().set(KEY)
    context = configure(ollama, gemini, reviewPayloads=True)
    pane = make_pane(context)
    pane.start(natural_selection(context))
    answer(qtbot, pane)
    dialog = review_dialog(qtbot)

    assert pane.shutdown(WAIT_MS)  # the worker is not left waiting for an answer
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT_MS)
    assert gemini.requests == []
    assert rows(context, "SELECT answer FROM attempts") == [(ANSWER,)]
    assert rows(context, "SELECT ended_at IS NOT NULL FROM sessions") == [(1,)]


def _marked_fragments(view: Any, block_text: str) -> list[tuple[str, str]]:
    """(text, background colour) of each fragment with a background in the block whose
    text starts like `block_text`: what the learner sees marked in their answer."""
    document = view.details.document()
    block = document.begin()
    found: list[tuple[str, str]] = []
    while block.isValid():
        if block.text().startswith(block_text):
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                brush = fragment.charFormat().background()
                if brush.style() != Qt.BrushStyle.NoBrush:
                    found.append((fragment.text(), brush.color().name()))
                it += 1
        block = block.next()
    return found


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_the_judged_answer_marks_exactly_the_cited_words_and_says_when_credit_was_overruled(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
    dark: bool,
) -> None:
    from fakes.gemini_server import cites
    from PySide6.QtGui import QColor, QPalette

    from coach_gui.ui.markdown.evidence_html import tint

    ollama, gemini = servers
    spans = {0: ["useful differences"], 1: ["a process that keeps traits"],
             2: ["ADD UP over generations"], 3: ["get kept"], 4: ["get kept"]}  # fmt: skip
    gemini.reply_for = cites(spans, status={3: "wrong"})
    KeyStore().set(KEY)
    context = configure(ollama, gemini)
    note = natural_selection(context)
    pane = make_pane(context)
    if dark:
        palette = pane.palette()
        for role, colour in ((QPalette.ColorRole.Base, "#1e1e1e"),
                             (QPalette.ColorRole.Window, "#2b2b2b"),
                             (QPalette.ColorRole.Text, "#eeeeee")):  # fmt: skip
            palette.setColor(role, QColor(colour))
        pane.setPalette(palette)
    pane.start(note)
    answer(qtbot, pane)
    wait_answered(qtbot, pane)

    view = pane.view.verdict_view
    assert view.state is VerdictState.NEEDS_WORK  # key point 2 has no evidence, 4 is wrong
    marked = _marked_fragments(view, "Useful differences")
    # Exactly the cited spans found in the answer, as the learner wrote them (the judge's
    # case and spacing folded), each on its key point's tint; the made-up one is not marked.
    palette = view.details.palette()
    assert marked == [
        ("Useful differences", tint(0, palette)),
        ("get kept", tint(3, palette)),
        ("add up over generations", tint(2, palette)),
    ]
    assert (tint(0, palette) == "#5a4a00") is dark
    shown = view.details.toPlainText()
    # Without colour: each mark's key point numbers, ✗ where the judge found it wrong.
    assert "Useful differences[1] that are inherited get kept[4 ✗, 5]" in shown
    assert "add up over generations[3]" in shown
    assert "Key point 2 — ○ Not explained" in shown
    assert (
        "The judge said this was explained and quoted “a process that keeps traits”, which is "
        "not in your answer, so it does not count." in shown
    )
    assert "Key point 4 — ✗ Wrong" in shown and "Key point 1 — ✓ Explained" in shown
    assert "Key point 2" in view.accessibleDescription()  # a screen reader hears it all
    (stored,) = rows(context, "SELECT gaps FROM verdicts")
    assert [(g["assertion"], g["problem"]) for g in json.loads(stored[0])] == [
        (1, "unexplained"), (3, "wrong"),
    ]  # fmt: skip


def test_a_verdict_that_skips_a_key_point_leaves_the_answer_kept_and_unjudged_in_the_window(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
) -> None:
    from fakes.gemini_server import skips_an_assertion

    ollama, gemini = servers
    gemini.reply_for = skips_an_assertion(2)
    KeyStore().set(KEY)
    context = configure(ollama, gemini)
    pane = make_pane(context)
    pane.start(natural_selection(context))
    answer(qtbot, pane)
    wait_answered(qtbot, pane)

    view = pane.view.verdict_view
    assert view.state is VerdictState.UNJUDGED
    assert view.heading.text() == "Not judged — your answer is kept"
    shown = view.details.toPlainText()
    assert "The judge's reply could not be used: it skipped key point 3 of answer 1." in shown
    assert "kept unjudged" in shown
    assert_learner_words([pane.view.answer_box], step="a malformed verdict")
    assert rows(context, "SELECT answer, status FROM attempts") == [(ANSWER, "unjudged")]
    assert rows(context, "SELECT count(*) FROM verdicts") == [(0,)]
    assert rows(context, "SELECT reason_code FROM judge_refusals") == [("malformed",)]


def test_an_answer_is_judged_on_this_computer_and_the_window_says_nothing_leaves(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
) -> None:
    """Issue 22: `judge.provider: local` grades on the loopback Ollama; no key, nothing sent
    to Gemini, and every place that says what leaves says nothing does."""
    from coach_gui.ui.settings.privacy_controls import LOCAL_TEXT, PrivacyControls, status_text
    from coach_gui.ui.shell.help_dialogs import privacy_summary_html

    ollama, gemini = servers
    ollama.judge_reply_for = needs_work
    context = configure(ollama, gemini, provider="local", localModel=DEFAULT_MODEL)
    pane = make_pane(context)
    pane.start(natural_selection(context))
    answer(qtbot, pane)
    wait_answered(qtbot, pane)

    view = pane.view.verdict_view
    assert view.state is VerdictState.NEEDS_WORK
    assert "Key point 2 — ○ Not explained" in view.details.toPlainText()
    assert gemini.requests == [] and len(ollama.judge_requests) == 1
    assert rows(context, "SELECT provider, model FROM outbox") == [
        ("local", f"local:{DEFAULT_MODEL}")
    ]
    assert status_text(context.config) == LOCAL_TEXT == "Judged on this computer: nothing leaves"
    controls = PrivacyControls(ConfigOwner(context))
    assert controls.judge_action.text() == "&Judge answers on this computer"
    assert "nothing leaves this computer" in controls.judge_action.toolTip()
    summary = privacy_summary_html(context.config)
    assert "Nothing leaves this computer." in summary and "Gemini" not in summary


def test_the_judge_on_this_computer_shows_its_progress_and_esc_stops_it(
    qtbot: QtBot,
    servers: tuple[FakeOllama, FakeGemini],
    make_pane: Callable[[AppContext], PracticePane],
) -> None:
    """A local model may take a minute: the verdict heading counts what it has written,
    and Esc stops it; the answer stays saved, unjudged, and can be rated or judged later."""
    from fakes.ollama_server import Fault as OllamaFault

    ollama, gemini = servers
    context = configure(ollama, gemini, provider="local", localModel=DEFAULT_MODEL)
    pane = make_pane(context)
    pane.start(natural_selection(context))
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    ollama.inject(OllamaFault.HANG, after_tokens=3)  # the judge writes a little, then stalls
    answer(qtbot, pane)

    view = saved_turn(qtbot, pane).verdict
    qtbot.waitUntil(lambda: "characters written" in view.heading.text(), timeout=WAIT_MS)
    assert view.heading.text().startswith("Judging your answer on this computer…")
    assert "(Esc stops)" in view.heading.text()
    assert ollama.hanging.wait(5)
    qtbot.keyClick(pane.view.next_button, Qt.Key.Key_Escape)  # focus is in the pane
    wait_answered(qtbot, pane)
    assert view.state is VerdictState.UNJUDGED
    assert "You cancelled judging; this answer is kept" in view.details.toPlainText()
    assert rows(context, "SELECT answer, status FROM attempts") == [(ANSWER, "unjudged")]
    assert rows(context, "SELECT reason_code FROM judge_refusals") == [("cancelled",)]
    assert pane.view.self_rating.isVisible()  # it can be rated meanwhile
    assert gemini.requests == []
