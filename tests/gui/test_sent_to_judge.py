"""*Sent to judge* lists every outbox row of a real journal, newest first, and shows
exactly what was sent and how it ended."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini, Fault, passes_items_whose_answer_contains
from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QWidget
from pytestqt.qtbot import QtBot
from shots import SHOTS

from coach_gui.adapters.gemini import GeminiJudge
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.outbox import SqliteOutbox
from coach_gui.domain.errors import JournalError
from coach_gui.domain.judge_errors import JudgeQuotaExceeded
from coach_gui.domain.session_records import OutboxRecord, SentRequest
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome, tier2_payload
from coach_gui.ui.review.sent_to_judge import EMPTY_TEXT, SentToJudgeView

FINCHES = {
    "challenge": "Why would finches on neighbouring islands end up with different beaks?",
    "answer": "Each island offers different food, and birds whose beaks suit it leave more young.",
    "core_assertions": [
        "Variation in beak shape is heritable.",
        "Individuals whose beaks suit the local food leave more offspring.",
    ],
}
WEDGE = {
    "challenge": "What does Darwin mean by the 'struggle for existence'?",
    "answer": "More are born than can survive, so they compete for what is scarce.",
}


_held: list[QWidget] = []


@pytest.fixture(autouse=True)
def hold_views() -> Iterator[None]:
    """Keep each view referenced until pytest-qt has closed and deleted it: a parentless
    view freed by Python's cycle collector in the middle of a paint would crash Qt."""
    yield
    _held.clear()


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "journal.sqlite3") as opened:
        yield opened


def write_rows(journal: Journal, n: int) -> list[str]:
    """`n` requests through the real outbox: every third one failed; returns their ids."""
    stamps = iter(f"2025-03-01T{9 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}.000Z"
                  for i in range(n))  # fmt: skip
    outbox = SqliteOutbox(journal, now=lambda: next(stamps))
    ids = []
    for i in range(n):
        payload = tier2_payload([FINCHES if i % 2 else WEDGE], include_assertions=True)
        body = json.dumps({"contents": [{"parts": [{"text": f"request {i}"}]}]})
        outbox_id = outbox.record_sent(
            OutboxEntry(model="gemini-2.5-flash", payload=payload.canonical(), request_body=body)
        )
        if i % 3 == 2:
            outcome = OutboxOutcome(status="error", error=f"The judge did not answer ({i}).",
                                    latency_ms=30_000)  # fmt: skip
        else:
            outcome = OutboxOutcome(status="ok", response='{"items": []}', tokens_in=400 + i,
                                    tokens_out=60, latency_ms=900 + i)  # fmt: skip
        outbox.record_outcome(outbox_id, outcome)
        ids.append(outbox_id)
    return ids


def shown_view(qtbot: QtBot, journal: Journal, limit: int = 1000) -> SentToJudgeView:
    view = SentToJudgeView(lambda: SqliteOutbox(journal).sent(limit=limit))
    _held.append(view)
    qtbot.addWidget(view)
    view.resize(900, 640)
    with qtbot.waitSignal(view.loaded, timeout=5000):
        view.show()
    return view


def listed(view: SentToJudgeView) -> list[OutboxRecord]:
    return [view.model.row_at(r).record for r in range(view.model.rowCount())]


def test_an_empty_outbox_explains_what_will_appear_here(qtbot: QtBot, journal: Journal) -> None:
    view = shown_view(qtbot, journal)
    assert view.pages.currentWidget() is view.message_label
    assert view.message_label.text() == EMPTY_TEXT
    assert "Nothing has been sent to the judge yet" in EMPTY_TEXT
    assert "While the judge is off, nothing is sent" in EMPTY_TEXT


def test_rows_are_listed_newest_first_with_their_figures(qtbot: QtBot, journal: Journal) -> None:
    ids = write_rows(journal, 4)
    view = shown_view(qtbot, journal)
    assert view.pages.currentWidget() is view.splitter
    assert [row.id for row in listed(view)] == ids[::-1]

    model = view.model
    cells = [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(4)]
    assert model.HEADERS == (
        "Sent at", "Note", "Session", "Model", "Status", "Tokens in", "Tokens out", "Latency",
    )  # fmt: skip
    # Written straight to the outbox: no answer of any session is recorded against them.
    assert cells[0][1:] == ["—", "—", "gemini-2.5-flash", "ok", "403", "60", "903 ms"]
    assert cells[1][1:] == ["—", "—", "gemini-2.5-flash", "error", "—", "—", "30,000 ms"]
    assert cells[0][0] > cells[3][0]  # local times still sort newest first
    assert view.current_entry() is not None and view.current_entry().id == ids[-1]


def test_the_detail_shows_the_exact_payload_and_the_reply_or_error(
    qtbot: QtBot, journal: Journal
) -> None:
    ids = write_rows(journal, 3)
    view = shown_view(qtbot, journal)
    stored = {row.id: row for row in SqliteOutbox(journal).entries()}

    newest = stored[ids[2]]  # i = 2: WEDGE, which failed
    shown = view.payload_text.toPlainText()
    assert json.loads(shown) == json.loads(newest.payload)  # the same data, only indented
    assert shown == json.dumps(json.loads(newest.payload), indent=2, ensure_ascii=False)
    assert view.reply_text.toPlainText() == "Error: The judge did not answer (2)."
    assert "1 answer: challenge + answer only · error · 30,000 ms" in view.summary.text()

    view.table.selectRow(1)  # i = 1: FINCHES with its assertions, judged ok
    middle = stored[ids[1]]
    payload = json.loads(view.payload_text.toPlainText())
    assert payload == json.loads(middle.payload)
    assert payload["items"][0]["core_assertions"] == FINCHES["core_assertions"]
    assert json.loads(view.request_text.toPlainText()) == json.loads(middle.request_body)
    assert view.reply_text.toPlainText() == json.dumps({"items": []}, indent=2)
    assert "1 answer: challenge + answer + core assertions" in view.summary.text()
    assert "401 tokens in, 60 out" in view.summary.text()


def test_the_request_body_shown_is_what_the_judge_server_received(
    qtbot: QtBot, journal: Journal
) -> None:
    with FakeGemini(api_keys={"test-key"}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("food")
        judge = GeminiJudge(
            "test-key", model="gemini-2.5-flash", base_url=gemini.url, api_version="v1beta",
            timeout_seconds=5.0, temperature=0.0, max_retries=0, outbox=SqliteOutbox(journal),
        )  # fmt: skip
        judge.judge(tier2_payload([FINCHES, WEDGE], include_assertions=True))
        judge.close()
        (request,) = gemini.requests
    view = shown_view(qtbot, journal)
    assert json.loads(view.request_text.toPlainText()) == request.body
    assert "test-key" not in view.request_text.toPlainText()
    verdict = json.loads(view.reply_text.toPlainText())
    assert [item["verdict"] for item in verdict["items"]] == ["pass", "fail"]


def test_a_request_with_no_outcome_says_no_reply_was_recorded(
    qtbot: QtBot, journal: Journal
) -> None:
    payload = tier2_payload([WEDGE], include_assertions=False)
    SqliteOutbox(journal).record_sent(
        OutboxEntry(model="gemini-2.5-flash", payload=payload.canonical(), request_body="{}")
    )
    view = shown_view(qtbot, journal)
    assert view.model.index(0, 4).data() == "no reply"
    assert view.reply_text.toPlainText().startswith("No reply was recorded")


def test_f5_in_the_view_refreshes_it_not_the_window_shortcut(
    qtbot: QtBot, journal: Journal
) -> None:
    write_rows(journal, 1)
    window = QMainWindow()
    _held.append(window)
    qtbot.addWidget(window)
    reloads: list[bool] = []
    reload = QAction("Reload notes", window)  # the main window has F5 too
    reload.setShortcut(QKeySequence("F5"))
    reload.triggered.connect(lambda: reloads.append(True))
    window.addAction(reload)
    view = SentToJudgeView(lambda: SqliteOutbox(journal).sent())
    window.setCentralWidget(view)
    with qtbot.waitSignal(view.loaded, timeout=5000):
        window.show()
    with qtbot.waitActive(window):
        window.activateWindow()
    SqliteOutbox(journal).record_sent(  # a request made while the view is open
        OutboxEntry(model="gemini-2.5-pro", payload=listed(view)[0].payload, request_body="{}")
    )
    view.table.setFocus()
    with qtbot.waitSignal(view.loaded, timeout=5000) as loaded:
        qtbot.keyClick(view.table, Qt.Key.Key_F5)
    assert loaded.args == [2] and reloads == []
    assert view.current_entry() is not None and view.current_entry().model == "gemini-2.5-flash"

    with qtbot.waitSignal(view.loaded, timeout=5000):
        qtbot.mouseClick(view.refresh_button, Qt.MouseButton.LeftButton)


def test_hundreds_of_rows_are_one_model_not_hundreds_of_widgets(
    qtbot: QtBot, journal: Journal
) -> None:
    ids = write_rows(journal, 400)
    view = shown_view(qtbot, journal)
    assert view.model.rowCount() == 400
    assert [row.id for row in listed(view)] == ids[::-1]
    assert len(view.findChildren(QWidget)) < 80
    view.table.selectRow(399)  # the oldest
    assert (
        json.loads(view.payload_text.toPlainText())["items"][0]["challenge"] == (WEDGE["challenge"])
    )


def test_an_unreadable_journal_is_explained_in_place(qtbot: QtBot) -> None:
    def broken() -> list[SentRequest]:
        raise JournalError("The journal could not be read (disk I/O error). Restart Coach.")

    view = SentToJudgeView(broken)
    _held.append(view)
    qtbot.addWidget(view)
    with qtbot.waitSignal(view.loaded, timeout=5000) as loaded:
        view.show()
    assert loaded.args == [0]
    text = view.message_label.text()
    assert "could not be read" in text and "disk I/O error" in text and "F5" in text


def test_every_control_has_a_name_for_screen_readers(
    qtbot: QtBot, journal: Journal, unnamed_controls: object
) -> None:
    write_rows(journal, 2)
    view = shown_view(qtbot, journal)
    assert unnamed_controls(view) == []  # type: ignore[operator]


def test_screenshot_of_sent_to_judge(qtbot: QtBot, journal: Journal) -> None:
    with FakeGemini(api_keys={"test-key"}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("food")
        judge = GeminiJudge(
            "test-key", model="gemini-2.5-flash", base_url=gemini.url, api_version="v1beta",
            timeout_seconds=5.0, temperature=0.0, max_retries=0, outbox=SqliteOutbox(journal),
        )  # fmt: skip
        judge.judge(tier2_payload([WEDGE], include_assertions=False))
        gemini.inject(Fault.QUOTA)
        with pytest.raises(JudgeQuotaExceeded):
            judge.judge(tier2_payload([FINCHES], include_assertions=True))
        judge.judge(tier2_payload([FINCHES, WEDGE], include_assertions=True))
        judge.close()
    view = shown_view(qtbot, journal)
    view.resize(960, 700)
    qtbot.wait(50)
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / "sent-to-judge.png"
    assert view.grab().save(str(path), "PNG")
    assert path.stat().st_size > 10_000


def test_a_judge_endpoint_other_than_googles_is_said_above_the_list(
    qtbot: QtBot, journal: Journal
) -> None:
    view = shown_view(qtbot, journal)
    assert not view.endpoint_label.isVisible()  # the default endpoint: nothing to say
    view.set_endpoint("https://judge.example.org")
    assert view.endpoint_label.isVisible()
    assert "Judge requests go to https://judge.example.org" in view.endpoint_label.text()


def test_each_request_shows_the_note_and_session_its_answers_came_from(
    qtbot: QtBot,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """One session judged as it was practised, then two practised offline and judged later
    in one request: each row says which note and session its answers came from."""
    import io
    import os
    import socket

    from coach_gui.bootstrap import build_context
    from coach_gui.cli import main
    from coach_gui.operations.review import sent_to_judge
    from coach_gui.operations.vocabulary import to_the_second

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]

    def practise(note: str, *judge: str) -> None:
        answers = tmp_path / "answers.json"
        answers.write_text(json.dumps(["It spreads because it helps."]), encoding="utf-8")
        assert main(["practice", note, "--answers", str(answers), "--json", *judge]) == 0

    with FakeGemini(api_keys={"test-key"}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        config = Path(os.environ["COACH_CONFIG"])
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({
            "tier1": {"ollamaUrl": f"http://127.0.0.1:{dead}", "followUps": False,
                      "challengesPerSession": 1},
            "judge": {"baseUrl": gemini.url, "maxRetries": 0},
        }), encoding="utf-8")  # fmt: skip
        monkeypatch.setattr("sys.stdin", io.StringIO("test-key\n"))
        assert main(["key", "set"]) == 0
        practise("natural-selection")
        practise("natural-selection", "--judge", "off")
        practise("sexual-selection", "--judge", "off")
        assert main(["judge-pending"]) == 0
    capsys.readouterr()
    context = build_context()
    try:
        view = SentToJudgeView(lambda: sent_to_judge(context))
        _held.append(view)
        qtbot.addWidget(view)
        view.resize(1100, 640)
        with qtbot.waitSignal(view.loaded, timeout=5000):
            view.show()
        model = view.model
        with sqlite3.connect(context.journal_path) as conn:
            (first_started,) = conn.execute("SELECT min(started_at) FROM sessions").fetchone()
        later, judged = ([model.index(r, c).data() for c in (1, 2)] for r in (0, 1))
        assert later == ["Natural selection + 1 more", "2 sessions"]
        assert judged == ["Natural selection", to_the_second(first_started)[:16]]
        tip = model.index(0, 1).data(Qt.ItemDataRole.ToolTipRole)
        assert "Natural selection, practised " in tip and "Sexual selection, practised " in tip
        assert "from “Natural selection”, “Sexual selection”" in view.summary.text()
        view.table.selectRow(1)
        assert "from “Natural selection” · 1 answer" in view.summary.text()
        qtbot.wait(50)
        SHOTS.mkdir(parents=True, exist_ok=True)
        assert view.grab().save(str(SHOTS / "sent-to-judge-sessions.png"), "PNG")
    finally:
        context.close()
