"""The practice pane against a fake Ollama over a real socket and a real SQLite journal:
what the learner sees, what they can do with the keyboard, and what ends up in the journal."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini, RecordedRequest, assessed_reply, prompt_items
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama, Fault
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QWidget
from pytestqt.qtbot import QtBot
from shots import save_png

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import AppContext, build_context, use_cases
from coach_gui.domain.notes import Note
from coach_gui.operations.tier1 import Tier1State
from coach_gui.ui.practice.model_download import ModelDownloadDialog
from coach_gui.ui.practice.practice_pane import Phase, PracticePane, SessionEnded
from coach_gui.ui.practice.tier1_status import Tier1StatusIndicator
from coach_gui.ui.practice.verdict_view import VerdictState

HONEST = "Why can a process that only keeps or removes traits still produce new kinds?"
CONTRAST = "How would the work of a pigeon fancier differ from what happens in the wild?"
FOLLOW_UP = "You said small changes add up: what stops them from cancelling each other out?"
# Verbatim from the body of the sample note "Natural selection".
QUOTE = (
    "This preservation of favourable variations and the rejection of injurious variations, "
    "I call Natural Selection."
)
LONG_QUESTION = (
    "Imagine a valley where winters slowly grow longer over many centuries. Which animals "
    "there would leave more young, and how would the population look after a thousand "
    "generations?"
)
WAIT_MS = 10_000


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _context(
    server: FakeOllama | str, judge: dict[str, object] | None = None, **tier1: object
) -> AppContext:
    """Write this test's config (COACH_CONFIG is per test) and build the real context,
    pointed at `server` in its wire format (a bare URL: Ollama's)."""
    path = Path(os.environ["COACH_CONFIG"])
    path.parent.mkdir(parents=True, exist_ok=True)
    where = server.tier1_config() if isinstance(server, FakeOllama) else {"ollamaUrl": server}
    settings = {**where, "model": DEFAULT_MODEL, **tier1}
    path.write_text(json.dumps({"tier1": settings, "judge": judge or {}}), encoding="utf-8")
    return build_context()


def _note(context: AppContext) -> Note:
    entry = context.notes.load().find("natural-selection")
    assert entry is not None
    return entry.note


def _rows(context: AppContext, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(context.journal_path) as conn:
        return conn.execute(sql).fetchall()


@pytest.fixture
def ollama(wire: str) -> Iterator[FakeOllama]:
    """The local server in both wire formats (the `wire` fixture)."""
    with FakeOllama(wire=wire) as server:
        yield server


@pytest.fixture
def make_pane(qtbot: QtBot) -> Iterator[Callable[[AppContext], PracticePane]]:
    """Real panes, shown; at the end each session is ended and its worker drained."""
    made: list[tuple[PracticePane, AppContext]] = []

    def make(context: AppContext) -> PracticePane:
        pane = PracticePane(use_cases(context).practice)
        qtbot.addWidget(pane)
        pane.resize(900, 640)
        pane.show()
        qtbot.waitExposed(pane)
        made.append((pane, context))
        return pane

    yield make
    for pane, context in made:
        assert pane.shutdown(WAIT_MS), "the practice worker was still busy at the end"
        qtbot.wait(10)  # let the last queued results arrive (and be dropped)
        context.close()


def _wait_phase(qtbot: QtBot, pane: PracticePane, phase: Phase) -> None:
    qtbot.waitUntil(lambda: pane.phase is phase, timeout=WAIT_MS)


def _answer_when_asked(qtbot: QtBot, pane: PracticePane, text: str) -> None:
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    _answer(qtbot, pane, text)


def _answer(qtbot: QtBot, pane: PracticePane, text: str) -> None:
    pane.view.answer_box.setFocus()
    qtbot.keyClicks(pane.view.answer_box, text)
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)


def _status(pane: PracticePane) -> str:
    turn = pane.view.turn
    return turn.status.text() if turn is not None else ""


def _skip_rating(qtbot: QtBot, pane: PracticePane, answer: str) -> None:
    """Key 0 on the rating offered for the unjudged `answer`: go on without one."""

    def offered() -> bool:
        turn = pane.view.turn
        return turn is not None and turn.answer_text == answer and turn.rating.awaiting()

    qtbot.waitUntil(offered, timeout=WAIT_MS)
    focus = QApplication.focusWidget()
    assert focus is not None and pane.view.self_rating.isAncestorOf(focus)
    qtbot.keyClick(focus, Qt.Key.Key_0)


def _thread(pane: PracticePane) -> list[tuple[str, str, str, int]]:
    """The thread as the learner sees it: each turn's caption, challenge and answer, and
    how deep it is nested (1: a follow-up under the answer it follows up)."""
    shown = []
    for turn in pane.view.thread_view.turns:
        assert turn.isVisible() and turn.challenge.isVisible(), turn.caption.text()
        depth = 0
        parent = turn.parentWidget()
        while parent is not None and parent is not pane.view.thread_view:
            depth += type(parent).__name__ == "Turn"
            parent = parent.parentWidget()
        shown.append((turn.caption.text(), turn.challenge.text(), turn.answer.text(), depth))
    return shown


def test_a_full_session_streams_saves_each_answer_and_ends_with_a_summary(
    qtbot: QtBot, ollama: FakeOllama, make_pane: Callable[[AppContext], PracticePane]
) -> None:
    ollama.token_delay = 0.01  # slow enough that the stream shows in steps
    for text in (HONEST, FOLLOW_UP, CONTRAST):
        ollama.queue_challenge(text)
    context = _context(ollama, challengesPerSession=2)
    pane = make_pane(context)
    shown: list[str] = []
    pane.view.challenge_view.textChanged.connect(
        lambda: shown.append(pane.view.challenge_view.toPlainText())
    )

    pane.start(_note(context))
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    assert pane.view.challenge_view.toPlainText() == HONEST
    assert pane.view.progress_label.text() == "Challenge 1 of 2"
    assert any(0 < len(t) < len(HONEST) for t in shown), "the challenge did not stream in"
    assert pane.view.answer_box.hasFocus()

    _answer(qtbot, pane, "Small useful changes add up over many generations.")  # Ctrl+Enter
    qtbot.waitUntil(lambda: _status(pane).startswith("✓ Saved — kept unjudged"), timeout=WAIT_MS)
    # Unjudged: the rating is offered first, then the follow-up comes.
    _skip_rating(qtbot, pane, "Small useful changes add up over many generations.")
    _wait_phase(qtbot, pane, Phase.ANSWERING)  # the follow-up has streamed in
    assert pane.view.challenge_view.toPlainText() == FOLLOW_UP
    assert pane.view.progress_label.text() == "Challenge 1 of 2 · follow-up"
    # The answer stays in view under its own challenge; the box is empty for the follow-up.
    assert _thread(pane) == [
        ("Challenge 1 of 2", HONEST, "Small useful changes add up over many generations.", 0)
    ]
    assert pane.view.answer_box.toPlainText() == ""

    _answer(qtbot, pane, "Harmful ones are weeded out, useful ones kept.")
    _wait_phase(qtbot, pane, Phase.ANSWERED)
    assert pane.view.next_button.isEnabled()
    assert _thread(pane) == [
        ("Challenge 1 of 2", HONEST, "Small useful changes add up over many generations.", 0),
        ("Follow-up on your answer", FOLLOW_UP, "Harmful ones are weeded out, useful ones kept.",
         1),
    ]  # fmt: skip
    assert not pane.view.composer.isVisible()  # answered: the thread has the room
    qtbot.keyClick(pane.view.next_button, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    assert pane.view.challenge_view.toPlainText() == CONTRAST
    assert pane.view.progress_label.text() == "Challenge 2 of 2"

    _answer(qtbot, pane, "The fancier chooses; nature only lets the fit breed more.")
    _skip_rating(qtbot, pane, "The fancier chooses; nature only lets the fit breed more.")
    _wait_phase(qtbot, pane, Phase.ANSWERING)  # a follow-up again (the fake's default one)
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS) as finished:
        qtbot.mouseClick(pane.view.skip_button, Qt.MouseButton.LeftButton)  # last: ends the session
    summary = finished.args[0]
    assert isinstance(summary, SessionEnded)
    assert (summary.answers_saved, summary.skipped) == (3, 1)
    assert pane.phase is Phase.FINISHED
    assert "3 answers saved, 1 skipped" in pane.view.summary_label.text()

    saved = _rows(
        context,
        "SELECT c.text, a.answer, a.status FROM attempts a JOIN challenges c"
        " ON c.id = a.challenge_id ORDER BY a.submitted_at",
    )
    assert saved == [
        (HONEST, "Small useful changes add up over many generations.", "unjudged"),
        (FOLLOW_UP, "Harmful ones are weeded out, useful ones kept.", "unjudged"),
        (CONTRAST, "The fancier chooses; nature only lets the fit breed more.", "unjudged"),
    ]
    assert _rows(context, "SELECT disposition FROM sessions") == [("judge_unavailable",)]


def test_esc_closes_the_stream_at_once_records_nothing_and_the_learner_can_go_on(
    qtbot: QtBot, ollama: FakeOllama, make_pane: Callable[[AppContext], PracticePane]
) -> None:
    ollama.queue_challenge(HONEST)
    ollama.inject(Fault.HANG, after_tokens=24)  # some words on screen, then the model stalls
    context = _context(ollama, challengesPerSession=2, followUps=False)
    pane = make_pane(context)
    pane.start(_note(context))
    qtbot.waitUntil(lambda: ollama.hanging.is_set(), timeout=WAIT_MS)
    qtbot.waitUntil(lambda: pane.view.challenge_view.toPlainText() != "", timeout=WAIT_MS)
    assert pane.phase is Phase.STREAMING and pane.view.cancel_button.isEnabled()
    assert pane.view.writing_label.text() == "writing…"

    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Escape)
    assert not pane.view.cancel_button.isEnabled()  # at once, before the worker reports back
    assert pane.view.challenge_view.toPlainText() == ""
    assert "nothing was saved" in pane.view.status_label.text()
    qtbot.waitUntil(lambda: ollama.client_gone.is_set(), timeout=WAIT_MS)  # socket closed
    _wait_phase(qtbot, pane, Phase.CANCELLED)
    assert pane.view.retry_button.isVisible() and pane.view.builtin_button.isVisible()
    assert _rows(context, "SELECT COUNT(*) FROM challenges") == [(0,)]

    ollama.queue_challenge(CONTRAST)
    qtbot.mouseClick(pane.view.retry_button, Qt.MouseButton.LeftButton)
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    assert pane.view.challenge_view.toPlainText() == CONTRAST
    assert pane.view.progress_label.text() == "Challenge 1 of 2"  # the retry takes the same slot
    _answer(qtbot, pane, "One is chosen by a person, the other by survival.")
    _wait_phase(qtbot, pane, Phase.ANSWERED)

    ollama.queue_challenge(LONG_QUESTION, "predict")
    ollama.inject(Fault.HANG, after_tokens=24)
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    _wait_phase(qtbot, pane, Phase.STREAMING)
    qtbot.waitUntil(lambda: pane.view.challenge_view.toPlainText() != "", timeout=WAIT_MS)
    assert pane.phase is Phase.STREAMING
    qtbot.keyClick(pane.view.challenge_view, Qt.Key.Key_Escape)
    _wait_phase(qtbot, pane, Phase.CANCELLED)
    qtbot.mouseClick(pane.view.builtin_button, Qt.MouseButton.LeftButton)
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    assert pane.view.challenge_view.toPlainText().startswith(
        "Explain the idea of this note in your"
    )
    assert pane.view.progress_label.text() == "Challenge 2 of 2"
    assert _rows(context, "SELECT text, origin FROM challenges ORDER BY position") == [
        (CONTRAST, "tier1"),
        (pane.view.challenge_view.toPlainText(), "builtin"),
    ]


def test_starting_another_note_mid_stream_ends_the_first_session_and_its_stream(
    qtbot: QtBot, ollama: FakeOllama, make_pane: Callable[[AppContext], PracticePane]
) -> None:
    ollama.queue_challenge(LONG_QUESTION)
    ollama.inject(Fault.HANG, after_tokens=24)
    ollama.queue_challenge(HONEST)
    context = _context(ollama, followUps=False)
    pane = make_pane(context)
    finished: list[SessionEnded] = []
    pane.session_finished.connect(finished.append)
    pane.start(_note(context))
    qtbot.waitUntil(lambda: ollama.hanging.is_set(), timeout=WAIT_MS)

    other = context.notes.load().find("struggle-for-existence")
    assert other is not None
    pane.start(other.note)
    qtbot.waitUntil(lambda: ollama.client_gone.is_set(), timeout=WAIT_MS)
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    assert pane.view.challenge_view.toPlainText() == HONEST
    assert pane.view.title_label.text() == "Practising: The struggle for existence"
    assert [s.note_title for s in finished] == ["Natural selection"]
    ended = _rows(context, "SELECT note_title_at_start, disposition FROM sessions"
                  " ORDER BY started_at")  # fmt: skip
    assert ended == [("Natural selection", "no_answers"), ("The struggle for existence", None)]

    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert pane.phase is Phase.ANSWERING  # a blank answer is not submitted
    assert pane.view.status_label.text() == "Write an answer first, or Skip this challenge."


def test_without_ollama_practice_uses_built_in_challenges_and_says_so_once(
    qtbot: QtBot, make_pane: Callable[[AppContext], PracticePane]
) -> None:
    context = _context(f"http://127.0.0.1:{_free_port()}", challengesPerSession=2)
    pane = make_pane(context)
    reasons: list[str] = []
    pane.tier1_offline.connect(reasons.append)
    pane.start(_note(context))
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    assert pane.view.banner.isVisible()
    assert "Ollama is not running" in pane.view.banner_label.text()
    assert "ollama serve" in pane.view.banner_label.text()
    assert not pane.view.download_button.isVisible()  # starting Ollama is the fix, not a download
    assert pane.view.notice_label.text() == ""  # said in the banner, not again below
    assert pane.view.challenge_view.toPlainText() == (
        "Explain the idea of this note in your own words; there are 5 key points to cover."
    )
    assert pane.view.title_label.text() == "Practising: Natural selection"  # the title, on screen

    _answer(qtbot, pane, "Useful inherited differences spread; harmful ones vanish.")
    _wait_phase(qtbot, pane, Phase.ANSWERED)  # no follow-up without a model
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    _answer(qtbot, pane, "A breeder picks by eye; nature by survival and breeding.")
    _wait_phase(qtbot, pane, Phase.ANSWERED)
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS):
        qtbot.mouseClick(pane.view.next_button, Qt.MouseButton.LeftButton)

    assert len(reasons) == 1
    assert _rows(context, "SELECT c.origin, a.answer FROM attempts a JOIN challenges c"
                 " ON c.id = a.challenge_id ORDER BY a.submitted_at") == [
        ("builtin", "Useful inherited differences spread; harmful ones vanish."),
        ("builtin", "A breeder picks by eye; nature by survival and breeding."),
    ]  # fmt: skip


def test_adr0021_d6_a_challenge_that_quotes_the_note_never_reaches_the_screen(
    qtbot: QtBot, ollama: FakeOllama, make_pane: Callable[[AppContext], PracticePane]
) -> None:
    ollama.queue_challenge(QUOTE)
    ollama.queue_challenge(HONEST)
    context = _context(ollama, challengesPerSession=1, followUps=False)
    pane = make_pane(context)
    ever_shown: list[str] = []
    view = pane.view.challenge_view
    view.textChanged.connect(lambda: ever_shown.append(view.toPlainText()))
    pane.start(_note(context))
    _wait_phase(qtbot, pane, Phase.ANSWERING)

    assert view.toPlainText() == HONEST
    words = QUOTE.split()
    runs = [" ".join(words[i : i + 3]) for i in range(len(words) - 2)]
    assert not [t for t in ever_shown if any(run in t for run in runs)]
    assert "withdrawn" in pane.view.notice_label.text()
    assert _rows(context, "SELECT text FROM challenges") == [(HONEST,)]
    assert _rows(context, "SELECT COUNT(*) FROM challenge_rejections") == [(1,)]


def test_download_model_from_the_offline_banner_then_tier1_writes_again(
    qtbot: QtBot, make_pane: Callable[[AppContext], PracticePane]
) -> None:
    with FakeOllama(models=[], pull_steps=4, pull_delay=0.02) as ollama:
        ollama.queue_challenge(HONEST)
        context = _context(ollama, challengesPerSession=2, followUps=False)
        pane = make_pane(context)
        pane.start(_note(context))
        _wait_phase(qtbot, pane, Phase.ANSWERING)
        assert "is not installed" in pane.view.banner_label.text()
        assert pane.view.download_button.isVisible()
        assert pane.view.challenge_view.toPlainText().startswith("Explain the idea of this note")

        with qtbot.waitSignal(pane.model_downloaded, timeout=WAIT_MS):
            qtbot.mouseClick(pane.view.download_button, Qt.MouseButton.LeftButton)
        assert DEFAULT_MODEL in ollama.models
        assert "is installed" in pane.view.banner_label.text()
        pane.activateWindow()  # what the window manager does when the dialog closes
        qtbot.waitUntil(lambda: QApplication.activeWindow() is pane, timeout=WAIT_MS)
        _answer(qtbot, pane, "Useful differences are kept.")
        _wait_phase(qtbot, pane, Phase.ANSWERED)
        pane.view.next_button.click()
        _wait_phase(qtbot, pane, Phase.ANSWERING)
        assert pane.view.challenge_view.toPlainText() == HONEST  # written by the model again
        assert pane.shutdown(WAIT_MS)


def test_model_download_shows_progress_and_succeeds(qtbot: QtBot) -> None:
    with FakeOllama(models=[], pull_steps=5, pull_delay=0.15) as ollama:
        context = _context(ollama)
        dialog = ModelDownloadDialog.for_server(use_cases(context).practice.local_server)
        qtbot.addWidget(dialog)
        values: list[int] = []
        dialog.bar.valueChanged.connect(values.append)
        with qtbot.waitSignal(dialog.accepted, timeout=WAIT_MS):
            dialog.show()
        assert [r.body for r in ollama.requests_to("/api/pull")] == [
            {"model": DEFAULT_MODEL, "stream": True}
        ]
    assert len({v for v in values if 0 < v < 1000}) >= 3  # the bar moved step by step
    assert dialog.bytes_line.text() == "2.0 GB of 2.0 GB"
    assert not dialog.isVisible()


def test_cancelling_a_model_download_closes_the_stream_at_once(qtbot: QtBot) -> None:
    with FakeOllama(models=[], pull_steps=5) as ollama:
        ollama.inject(Fault.HANG, path="/api/pull", after_tokens=2)
        dialog = ModelDownloadDialog.for_server(use_cases(_context(ollama)).practice.local_server)
        qtbot.addWidget(dialog)
        dialog.show()
        # The server hangs once both progress lines are sent; the window shows them when
        # both are delivered (the second can still be on its way when the first shows).
        qtbot.waitUntil(
            lambda: ollama.hanging.is_set() and dialog.bytes_line.text() == "800.0 MB of 2.0 GB",
            timeout=WAIT_MS,
        )
        assert dialog.bar.value() > 0 and dialog.bytes_line.text() == "800.0 MB of 2.0 GB"
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
        assert not dialog.isVisible()
        qtbot.waitUntil(lambda: ollama.client_gone.is_set(), timeout=WAIT_MS)
        qtbot.waitUntil(lambda: not dialog.running, timeout=WAIT_MS)
        assert DEFAULT_MODEL not in ollama.models


def test_a_failed_model_download_says_why_and_offers_to_try_again(qtbot: QtBot) -> None:
    with FakeOllama(models=[], not_in_library={DEFAULT_MODEL}) as ollama:
        dialog = ModelDownloadDialog.for_server(use_cases(_context(ollama)).practice.local_server)
        qtbot.addWidget(dialog)
        dialog.show()
        qtbot.waitUntil(lambda: dialog.error_line.isVisible(), timeout=WAIT_MS)
    assert f"could not download '{DEFAULT_MODEL}'" in dialog.error_line.text()
    assert "file does not exist" in dialog.error_line.text()
    assert dialog.retry_button.isVisible()
    assert dialog.cancel_button.text() == "&Close"
    assert dialog.isVisible()


@pytest.mark.parametrize(
    ("models", "running", "state", "label"),
    [
        ([DEFAULT_MODEL], True, Tier1State.READY, DEFAULT_MODEL),
        ([], True, Tier1State.MODEL_MISSING, "offline: built-in challenges"),
        ([], False, Tier1State.UNREACHABLE, "Ollama not reachable"),
    ],
)
def test_the_tier1_status_indicator_names_the_model_or_the_fix(
    qtbot: QtBot, models: list[str], running: bool, state: Tier1State, label: str
) -> None:
    with FakeOllama(models=models) as ollama:
        url = ollama.url if running else f"http://127.0.0.1:{_free_port()}"
        indicator = Tier1StatusIndicator.for_server(use_cases(_context(url)).practice.local_server)
        qtbot.addWidget(indicator)
        with qtbot.waitSignal(indicator.status_changed, timeout=WAIT_MS):
            indicator.refresh()
    assert indicator.status.state is state
    assert indicator.text() == label
    fix = {"READY": "Click to check again", "MODEL_MISSING": "ollama pull",
           "UNREACHABLE": "ollama serve"}[state.name]  # fmt: skip
    assert fix in indicator.toolTip()


def test_every_control_has_a_name_and_finish_asks_before_dropping_a_typed_answer(
    qtbot: QtBot,
    ollama: FakeOllama,
    make_pane: Callable[[AppContext], PracticePane],
    unnamed_controls: Callable[[QWidget], list[str]],
    answer_dialog: Callable[[str], object],
) -> None:
    context = _context(ollama, followUps=False)
    pane = make_pane(context)
    pane.start(_note(context))
    _wait_phase(qtbot, pane, Phase.ANSWERING)
    assert unnamed_controls(pane) == []
    qtbot.keyClicks(pane.view.answer_box, "half an answer")

    answer_dialog("Cancel")
    qtbot.mouseClick(pane.view.finish_button, Qt.MouseButton.LeftButton)
    assert pane.phase is Phase.ANSWERING and pane.view.answer_box.toPlainText() == "half an answer"

    answer_dialog("Discard")
    with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS):
        qtbot.mouseClick(pane.view.finish_button, Qt.MouseButton.LeftButton)
    assert _rows(context, "SELECT disposition FROM sessions") == [("no_answers",)]


def _judge_with_gaps(request: RecordedRequest) -> str:
    """A judge that finds what the screenshot answer gets wrong (gaps name indexes only)."""
    (item,) = prompt_items(request)
    gaps = [
        {"assertion": 0, "problem": "unexplained",
         "explanation": "Say why animals with thicker coats leave more young than the rest."},
        {"assertion": 1, "problem": "wrong",
         "explanation": "Coats do not thicken because the animals need them; selection can "
                        "only keep thicker coats that already occur and are inherited."},
        {"assertion": 3, "problem": "wrong",
         "explanation": "A few generations is far too quick: slight advantages add up only "
                        "over very long periods."},
    ]  # fmt: skip
    feedback = (
        "You describe the outcome, but not the mechanism. Start from the variation that is "
        "already there, then say who leaves more young, and how slowly it adds up."
    )
    return assessed_reply(request, json.dumps({"items": [{"index": item.index,
        "verdict": "fail", "gaps": gaps, "feedback": feedback}]}))  # fmt: skip


def test_screenshots_of_the_practice_pane_mid_stream_and_after_a_judged_answer(
    qtbot: QtBot, make_pane: Callable[[AppContext], PracticePane]
) -> None:
    with FakeOllama(token_delay=0.02) as ollama, FakeGemini(api_keys={"test-key"}) as gemini:
        gemini.reply_for = _judge_with_gaps
        KeyStore().set("test-key")
        ollama.queue_challenge(LONG_QUESTION, "predict")
        judge = {"baseUrl": gemini.url, "maxRetries": 0}
        context = _context(ollama, judge, challengesPerSession=3, followUps=False)
        pane = make_pane(context)
        pane.resize(900, 760)
        pane.start(_note(context))
        qtbot.waitUntil(
            lambda: len(pane.view.challenge_view.toPlainText().split()) >= 10, timeout=WAIT_MS
        )
        streaming = save_png(pane, "practice-streaming.png")
        assert pane.phase is Phase.STREAMING
        _answer_when_asked(
            qtbot, pane, "Animals grow thicker coats because they need them in the cold, and "
            "within a few generations the whole valley has them."
        )  # fmt: skip
        _wait_phase(qtbot, pane, Phase.ANSWERED)
        assert pane.view.verdict_view.state is VerdictState.NEEDS_WORK
        qtbot.wait(50)  # let layouts settle before the grab
        answered = save_png(pane, "practice-answered.png")
        verdict = save_png(pane.view.verdict_view, "practice-verdict.png")
        assert pane.shutdown(WAIT_MS)
    for shot in (streaming, answered, verdict):
        assert shot.stat().st_size > 10_000
