"""The session as a thread (issue 17): a whole session with follow-ups, judged by a fake
Gemini and written by a fake Ollama over real sockets, with a real SQLite journal. At each
step the judged answer is under its own challenge, with its verdict, in view; follow-ups
nest under the answer they follow up; nothing judged is replaced; the end of the session
lists each missed key point and *Practise these* targets them."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, RecordedRequest, assessed_reply, prompt_items
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import AppContext, build_context, use_cases
from coach_gui.domain.notes import Note
from coach_gui.domain.practice import gap_id
from coach_gui.operations.review import gap_board, load_session_detail, sessions
from coach_gui.operations.today import today
from coach_gui.ui.practice.practice_pane import Phase, PracticePane
from coach_gui.ui.practice.practice_thread import Turn
from coach_gui.ui.practice.verdict_view import VerdictState
from coach_gui.ui.review.session_detail import detail_html

KEY = "test-key"
FIRST = "Why can a process that only keeps or removes traits still produce new kinds?"
FOLLOW_UP = "You said differences get kept: where do new differences come from?"
SECOND = "How would the work of a pigeon fancier differ from what happens in the wild?"
FOLLOW_UP_2 = "You said the fancier chooses: what does the wild choose by?"
ANSWERS = (
    "Useful differences that are inherited get kept, and they add up over generations.",
    "Offspring vary a little from their parents, and some of that is inherited.",
    "The fancier picks the birds to breed; in the wild survival does the picking.",
    "Whatever lets an animal leave more young than its neighbours.",
)
WAIT_MS = 10_000


def _judge(request: RecordedRequest) -> str:
    """The first answer misses key point 2 and gets key point 4 wrong; all others pass."""
    (item,) = prompt_items(request)
    gaps: list[dict[str, Any]] = []
    if item.answer == ANSWERS[0]:
        gaps = [
            {"assertion": 1, "problem": "unexplained",
             "explanation": "You do not say that selection can only use variation that exists."},
            {"assertion": 3, "problem": "wrong",
             "explanation": "You suggest the change is quick; it takes very long periods."},
        ]  # fmt: skip
    verdict = "fail" if gaps else "pass"
    reply = {"items": [{"index": item.index, "verdict": verdict, "gaps": gaps,
                        "feedback": "Say where the variation comes from."}]}  # fmt: skip
    return assessed_reply(request, json.dumps(reply))


def _configure(ollama: FakeOllama, gemini: FakeGemini, *, judge_on: bool) -> AppContext:
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    settings = {
        "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": True,
                  "challengesPerSession": 2},
        "judge": {"enabled": judge_on, "includeAssertions": True, "baseUrl": gemini.url,
                  "maxRetries": 0},
    }  # fmt: skip
    path.write_text(json.dumps(settings), encoding="utf-8")
    return build_context()


def _note(context: AppContext) -> Note:
    entry = context.notes.load().find("natural-selection")
    assert entry is not None
    return entry.note


@pytest.fixture(params=[True], ids=["judge-on"])
def session(
    qtbot: QtBot, request: pytest.FixtureRequest
) -> Iterator[tuple[PracticePane, AppContext, FakeGemini]]:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        for text in (FIRST, FOLLOW_UP, SECOND, FOLLOW_UP_2, FIRST, FOLLOW_UP):
            ollama.queue_challenge(text)
        gemini.reply_for = _judge
        KeyStore().set(KEY)
        context = _configure(ollama, gemini, judge_on=request.param)
        pane = PracticePane(use_cases(context).practice)
        qtbot.addWidget(pane)
        pane.resize(1024, 640)  # the smallest window the issue asks to hold
        pane.show()
        qtbot.waitExposed(pane)
        yield pane, context, gemini
        assert pane.shutdown(WAIT_MS)
        qtbot.wait(10)
        context.close()


def _answer(qtbot: QtBot, pane: PracticePane, text: str) -> None:
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    assert pane.view.answer_box.toPlainText() == ""  # the box is clear for each challenge
    assert pane.view.answer_box.hasFocus()  # where the eye is: typing goes in at once
    qtbot.keyClicks(QApplication.focusWidget(), text)
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def _judged(qtbot: QtBot, pane: PracticePane, count: int) -> Turn:
    """Wait until `count` answers are in the thread and the latest has its verdict."""
    turns = pane.view.thread_view.turns

    def done() -> bool:
        return len(turns) == count and turns[-1].verdict.state not in (
            VerdictState.NONE, VerdictState.JUDGING,
        )  # fmt: skip

    qtbot.waitUntil(done, timeout=WAIT_MS)
    qtbot.wait(20)  # the thread scrolls once the layout has placed the verdict
    return turns[-1]


def _under(turn: Turn, challenge: str, answer: str) -> None:
    """The answer and its verdict are shown in the turn of their own challenge."""
    assert turn.challenge.text() == challenge
    assert turn.answer_text == answer
    assert turn.isAncestorOf(turn.verdict) and turn.verdict.isVisible()


def _in_view(pane: PracticePane, widget: QWidget) -> bool:
    """At least the top of `widget` is inside the thread's visible area."""
    viewport = pane.view.thread_view.viewport()
    top_left = widget.mapTo(viewport, QPoint(0, 0))
    return viewport.rect().intersects(QRect(top_left, widget.size()).adjusted(0, 0, 0, -1))


def _depth(turn: Turn) -> int:
    depth, parent = 0, turn.parentWidget()
    while parent is not None:
        depth += isinstance(parent, Turn)
        parent = parent.parentWidget()
    return depth


def test_each_judged_answer_stays_under_its_own_challenge_through_a_session_with_follow_ups(
    qtbot: QtBot, session: tuple[PracticePane, AppContext, FakeGemini]
) -> None:
    pane, context, _ = session
    note = _note(context)
    view = pane.view
    pane.start(note)

    _answer(qtbot, pane, ANSWERS[0])
    first = _judged(qtbot, pane, 1)
    _under(first, FIRST, ANSWERS[0])
    assert first.verdict.state is VerdictState.NEEDS_WORK
    assert first.caption.text() == "Challenge 1 of 2"
    assert _in_view(pane, first.verdict)  # what was judged is what the learner sees
    details = first.verdict.details.toPlainText()
    assert "Key point 2 — ○ Not explained" in details and note.core_assertions[1] in details
    assert "Key point 4 — ✗ Wrong" in details and note.core_assertions[3] in details

    # The follow-up is written below; the verdict it follows up stays where it was.
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    assert view.challenge_view.toPlainText() == FOLLOW_UP
    assert view.composer.isVisible() and "on your answer above" in view.challenge_caption.text()
    assert first.verdict.state is VerdictState.NEEDS_WORK and first.verdict.isVisible()
    _answer(qtbot, pane, ANSWERS[1])
    follow = _judged(qtbot, pane, 2)
    _under(follow, FOLLOW_UP, ANSWERS[1])
    assert follow.caption.text() == "Follow-up on your answer"
    assert _depth(follow) == 1 and first.follow_ups == [follow]  # nested under answer 1
    assert follow.verdict.state is VerdictState.PASSED
    assert first.verdict.state is VerdictState.NEEDS_WORK  # nothing judged was replaced
    assert _in_view(pane, follow.verdict)
    assert pane.phase is Phase.ANSWERED and not view.composer.isVisible()

    qtbot.keyClick(view.next_button, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    _answer(qtbot, pane, ANSWERS[2])
    second = _judged(qtbot, pane, 3)
    _under(second, SECOND, ANSWERS[2])
    assert second.caption.text() == "Challenge 2 of 2" and _depth(second) == 0
    _answer(qtbot, pane, ANSWERS[3])
    last = _judged(qtbot, pane, 4)
    _under(last, FOLLOW_UP_2, ANSWERS[3])
    assert second.follow_ups == [last] and first.follow_ups == [follow]

    # Scrolling back: the first verdict is still there, under its challenge.
    view.thread_view.ensureWidgetVisible(first.verdict)
    qtbot.wait(10)
    assert _in_view(pane, first.verdict)
    assert [t.challenge.text() for t in view.thread_view.turns] == [
        FIRST, FOLLOW_UP, SECOND, FOLLOW_UP_2,
    ]  # fmt: skip

    # The end lists each missed key point, in the learner's own words, wrong and not
    # explained told apart, and *Practise these* targets them.
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(view.next_button, Qt.MouseButton.LeftButton)
    ended = finished.args[0]
    assert [(m.assertion, m.problem) for m in ended.missed] == [
        (note.core_assertions[1], "unexplained"),
        (note.core_assertions[3], "wrong"),
    ]
    # The same truth as the gap board and Today (ADR 0023): a key point missed and then
    # explained by the follow-up in the same session is still open.
    board = gap_board(context, note)
    assert {(g.assertion_text, g.problem, g.gap_id) for g in board.gaps} == {
        (m.assertion, m.problem, m.gap_id) for m in ended.missed
    }
    due = next(n for n in today(context, lambda ident: note if ident == note.id else None).notes)
    assert {(a.memory.text, a.memory.gap) for a in due.assertions if a.memory.gap} == {
        (m.assertion, m.problem) for m in ended.missed
    }
    missed = view.missed_label.text()
    assert "2 key points missed in this session" in missed
    assert "○ Not explained" in missed and "✗ Wrong" in missed
    assert view.practise_missed_button.isVisible() and view.practise_missed_button.hasFocus()
    assert view.thread_view.isVisible() and len(view.thread_view.turns) == 4  # still there
    # The list scrolls in its own box: the pane still fits a 1024x640 window.
    assert view.missed_box.maximumHeight() <= max(view.height() // 3, 80)
    assert pane.minimumSizeHint().height() <= 640
    with sqlite3.connect(context.journal_path) as conn:
        query = "SELECT id FROM verdicts WHERE verdict = 'fail'"
        (failed,) = [row[0] for row in conn.execute(query)]

    # The session detail (Sessions view) shows the same thread from the sealed records.
    data = load_session_detail(context.traces(), ended.session_id)
    assert [(a.challenge, a.follow_up) for a in data.answers] == [
        (FIRST, False), (FOLLOW_UP, True), (SECOND, False), (FOLLOW_UP_2, True),
    ]  # fmt: skip
    summary = next(s for s in sessions(context, limit=5) if s.session_id == ended.session_id)
    document = QTextDocument()
    document.setHtml(detail_html(summary, data))
    text = document.toPlainText()
    assert f"1. {FIRST}" in text and f"2. {SECOND}" in text
    assert f"↳ Follow-up on your answer: {FOLLOW_UP}" in text
    assert text.index(FIRST) < text.index(FOLLOW_UP) < text.index(SECOND)
    assert text.count("Needs work") == 1 and text.count("✓ Pass") == 3

    qtbot.keyClick(view.practise_missed_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    assert view.title_label.text() == f"Practising gaps: {note.title}"
    assert view.thread_view.turns == []  # a new session starts a new thread
    with sqlite3.connect(context.journal_path) as conn:
        (gaps, decision) = conn.execute(
            "SELECT gap_ids, scheduler_decision_id FROM sessions ORDER BY started_at DESC"
        ).fetchone()
        (targets,) = conn.execute(
            "SELECT target_assertions FROM challenges ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
    assert json.loads(targets) and set(json.loads(targets)) <= {1, 3}  # a missed key point
    # The decision and the two gaps it came from are sealed with the new session.
    assert sorted(json.loads(gaps)) == sorted([gap_id(failed, 0), gap_id(failed, 1)])
    assert decision


@pytest.mark.parametrize("session", [False], ids=["judge-off"], indirect=True)
def test_rating_keys_rate_an_unjudged_answer_and_never_type_into_the_follow_up(
    qtbot: QtBot, session: tuple[PracticePane, AppContext, FakeGemini]
) -> None:
    pane, context, gemini = session  # the judge is off: each answer is rated by hand
    pane.start(_note(context))
    _answer(qtbot, pane, ANSWERS[0])
    qtbot.waitUntil(lambda: pane.view.turn is not None, timeout=WAIT_MS)
    turn = pane.view.turn
    assert turn is not None
    qtbot.waitUntil(lambda: turn.rating.isVisible(), timeout=WAIT_MS)
    assert turn.rating.isAncestorOf(QApplication.focusWidget())  # the rating has the keys
    # The follow-up waits for the rating: no answer box to type into unseen meanwhile.
    qtbot.wait(100)
    assert pane.phase is Phase.ANSWERED and not pane.view.composer.isVisible()

    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_3)
    qtbot.waitUntil(lambda: "Rated Good" in turn.rating.status.text(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)  # now it comes
    assert pane.view.challenge_view.toPlainText() == FOLLOW_UP
    assert pane.view.answer_box.toPlainText() == ""  # the key rated; it typed nothing
    assert pane.view.answer_box.hasFocus()  # and focus went on to the follow-up
    with sqlite3.connect(context.journal_path) as conn:
        ratings = {row[0] for row in conn.execute("SELECT rating FROM self_ratings")}
    assert ratings == {3}
    assert gemini.requests == []


@pytest.mark.parametrize("session", [False], ids=["judge-off"], indirect=True)
def test_skip_rating_goes_on_to_the_follow_up_and_next_passes_over_it(
    qtbot: QtBot, session: tuple[PracticePane, AppContext, FakeGemini]
) -> None:
    pane, context, _ = session
    pane.start(_note(context))
    _answer(qtbot, pane, ANSWERS[0])
    qtbot.waitUntil(lambda: pane.view.turn is not None, timeout=WAIT_MS)
    first = pane.view.turn
    assert first is not None
    qtbot.waitUntil(lambda: first.rating.isVisible(), timeout=WAIT_MS)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_0)  # skip the rating
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    assert pane.view.challenge_view.toPlainText() == FOLLOW_UP
    assert pane.view.answer_box.hasFocus()
    _answer(qtbot, pane, ANSWERS[1])
    qtbot.waitUntil(lambda: len(pane.view.thread_view.turns) == 2, timeout=WAIT_MS)
    follow = pane.view.thread_view.turns[1]
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
    assert not follow.rating.isVisible()  # a follow-up asks about one part: no rating of all
    assert pane.view.next_button.hasFocus()

    # Two unrated answers on screen, the keys rate the one with the focus.
    qtbot.keyClick(pane.view.next_button, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    _answer(qtbot, pane, ANSWERS[2])
    qtbot.waitUntil(lambda: len(pane.view.thread_view.turns) == 3, timeout=WAIT_MS)
    qtbot.waitUntil(lambda: pane.view.thread_view.turns[2].rating.isVisible(), timeout=WAIT_MS)
    second = pane.view.thread_view.turns[2]
    assert first.rating.isVisible() and second.rating.isVisible()  # two panels on screen
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_4)  # plain keys: not ambiguous
    qtbot.waitUntil(lambda: "Rated Easy" in second.rating.status.text(), timeout=WAIT_MS)
    qtbot.keyClick(pane.view.next_button, Qt.Key.Key_2, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: "Rated Hard" in second.rating.status.text(), timeout=WAIT_MS)
    assert first.rating.status.text() == ""  # the skipped one was never rated
    with sqlite3.connect(context.journal_path) as conn:
        rated = {row[0] for row in conn.execute("SELECT attempt_id FROM self_ratings")}
    assert rated == {second.attempt_id}
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)  # its follow-up
    pane.view.skip_button.click()  # skip the follow-up: the session goes on to its summary
    qtbot.waitUntil(lambda: pane.phase is Phase.FINISHED, timeout=WAIT_MS)


def test_a_verdict_that_arrives_after_next_lands_on_its_own_answer_and_starts_nothing(
    qtbot: QtBot, session: tuple[PracticePane, AppContext, FakeGemini]
) -> None:
    pane, context, gemini = session
    release = threading.Event()
    gemini.reply_for = lambda request: (release.wait(WAIT_MS), _judge(request))[1]
    pane.start(_note(context))
    _answer(qtbot, pane, ANSWERS[0])
    qtbot.waitUntil(lambda: pane.phase is Phase.JUDGING, timeout=WAIT_MS)
    first = pane.view.turn
    assert first is not None and first.verdict.state is VerdictState.JUDGING
    assert pane.view.thread_view.hasFocus()  # not the hidden answer box

    pane.view.next_button.click()  # the learner goes on before the verdict is in
    qtbot.wait(50)
    release.set()  # (the next challenge is asked for once the judge has answered: one lane)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    # The verdict filled its own turn and started no follow-up: challenge 2 is asked.
    assert first.verdict.state is VerdictState.NEEDS_WORK
    assert pane.view.progress_label.text() == "Challenge 2 of 2"
    assert pane.view.challenge_caption.text() == "Challen&ge"
    assert len(pane.view.thread_view.turns) == 1 and first.follow_ups == []
    assert pane.view.composer.isVisible() and pane.view.answer_box.hasFocus()
    # And it says where the verdict went.
    assert pane.view.status_label.text() == (
        "Challenge 1 of 2: needs work. It is in the thread above."
    )


def test_a_session_that_missed_nothing_offers_no_practise_these(
    qtbot: QtBot, session: tuple[PracticePane, AppContext, FakeGemini]
) -> None:
    pane, context, _ = session
    pane.start(_note(context))
    _answer(qtbot, pane, ANSWERS[1])  # the fake judge passes every answer but the first
    _judged(qtbot, pane, 1)
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS) as finished:
        pane.finish()
    assert finished.args[0].missed == ()
    assert not pane.view.practise_missed_button.isVisible()
    assert not pane.view.missed_label.isVisible()
    assert pane.view.again_button.hasFocus()
    assert not pane.view.status_label.isVisible() and not pane.view.notice_label.isVisible()


def test_tab_reaches_each_answers_controls_in_the_order_they_are_shown(
    qtbot: QtBot, session: tuple[PracticePane, AppContext, FakeGemini]
) -> None:
    pane, context, _ = session
    pane.start(_note(context))
    _answer(qtbot, pane, ANSWERS[0])
    _judged(qtbot, pane, 1)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    first = pane.view.thread_view.turns[0]
    order, widget = [], pane.view.thread_view.nextInFocusChain()
    while widget is not pane.view.thread_view and len(order) < 200:
        order.append(widget)
        widget = widget.nextInFocusChain()
    assert first.verdict.details in order
    assert order.index(first.verdict.details) < order.index(pane.view.challenge_view)
    assert order.index(pane.view.challenge_view) < order.index(pane.view.answer_box)


def test_a_follow_up_counts_only_what_it_explains_or_gets_wrong(
    qtbot: QtBot, session: tuple[PracticePane, AppContext, FakeGemini]
) -> None:
    """A follow-up asks about one part of the answer: the key points its answer leaves out
    are no evidence of a gap (the main answer explained them); what it gets wrong is."""
    pane, context, gemini = session
    note = _note(context)

    def judge(request: RecordedRequest) -> str:
        (item,) = prompt_items(request)
        gaps: list[dict[str, Any]] = []
        if item.answer == ANSWERS[1]:  # the follow-up's answer: narrow, and one thing wrong
            gaps = [
                {"assertion": 0, "problem": "unexplained", "explanation": "Not about this."},
                {"assertion": 1, "problem": "unexplained", "explanation": "Not about this."},
                {"assertion": 3, "problem": "wrong", "explanation": "It takes ages, not years."},
            ]
        reply = {"items": [{"index": item.index, "verdict": "fail" if gaps else "pass",
                            "gaps": gaps, "feedback": "."}]}  # fmt: skip
        return assessed_reply(request, json.dumps(reply))

    gemini.reply_for = judge
    pane.start(note)
    _answer(qtbot, pane, ANSWERS[0])
    _judged(qtbot, pane, 1)
    _answer(qtbot, pane, ANSWERS[1])
    follow = _judged(qtbot, pane, 2)
    assert follow.verdict.state is VerdictState.NEEDS_WORK  # as the judge said it
    assert "do not count against you" in follow.notice.text() and follow.notice.isVisible()
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS) as finished:
        pane.finish()
    assert [(m.assertion, m.problem) for m in finished.args[0].missed] == [
        (note.core_assertions[3], "wrong"),
    ]
    board = gap_board(context, note)
    assert [(g.assertion_text, g.problem) for g in board.gaps] == [
        (note.core_assertions[3], "wrong"),
    ]


@pytest.mark.parametrize("session", [False], ids=["judge-off"], indirect=True)
def test_next_at_a_waiting_rating_passes_over_the_follow_up_and_the_box_takes_the_typing(
    qtbot: QtBot, session: tuple[PracticePane, AppContext, FakeGemini]
) -> None:
    pane, context, _ = session
    pane.start(_note(context))
    _answer(qtbot, pane, ANSWERS[0])
    qtbot.waitUntil(lambda: pane.view.self_rating.awaiting(), timeout=WAIT_MS)
    rating = pane.view.self_rating
    assert rating.isAncestorOf(QApplication.focusWidget())
    # Ctrl+Enter from the rating: Next, passing over the follow-up that waited for it.
    qtbot.keyClick(
        QApplication.focusWidget(), Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier
    )
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    assert pane.view.progress_label.text() == "Challenge 2 of 2"
    assert pane.view.answer_box.hasFocus()
    qtbot.keyClicks(QApplication.focusWidget(), "It takes 2 steps")
    assert pane.view.answer_box.toPlainText() == "It takes 2 steps"  # not a rating
    assert rating.status.text() == ""
