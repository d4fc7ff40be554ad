"""The learner has the last word, in the window (issue 36): a key point the judge found not
explained is corrected to explained from the practice thread, and past verdicts are
corrected from the session detail and the gap board. The thread shows the judge's
word and the learner's side by side; the session summary, the open gaps (`coach gaps`, the
gap board, Today) and the key point's schedule follow the learner's word; the correction is
sealed (`coach verify`). Screenshots of correcting, light and dark."""

from __future__ import annotations

import json
import os
from pathlib import Path

from fakes.gemini_server import FakeGemini, RecordedRequest, verdict_json
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot
from shots import dark_palette, save_png

from coach_gui.adapters.secrets import KeyStore
from coach_gui.bootstrap import build_cases, build_context
from coach_gui.operations.app import notes_by_id
from coach_gui.operations.review import gap_board
from coach_gui.operations.today import today
from coach_gui.ui.kit import tasks
from coach_gui.ui.practice.correct_dialog import CorrectKeyPointDialog
from coach_gui.ui.practice.practice_view import Phase
from coach_gui.ui.shell.main_window import MainWindow

KEY = "test-key"
POINTS = [
    "Selection acts only on variation that is inherited.",
    "Large change takes a very long time.",
    "The struggle follows from geometric increase.",
]
WAIT_MS = 15_000


def _second_missed(request: RecordedRequest) -> str:
    """Every key point explained with the answer's words but the second, not explained."""
    reply = json.loads(verdict_json(request, lambda _item: True))
    item = reply["items"][0]
    item["assessments"][1].update(status="unexplained", evidence=[], reason="Time is not said.")
    item["verdict"] = "fail"
    return json.dumps(reply)


def _open_gaps() -> set[str]:
    """The open gaps as the gap board and Today read them (they must agree)."""
    context = build_context()
    try:
        note = context.notes.load().notes[0].note
        on_board = {g.assertion_text for g in gap_board(context, note).gaps}
        due = today(context, notes_by_id(context))
        in_today = {a.memory.text for n in due.notes for a in n.assertions if a.memory.gap}
        assert on_board == in_today
        return on_board
    finally:
        context.close()


def test_a_key_point_corrected_in_the_thread_counts_as_the_learner_says(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        window = _answered(qtbot, tmp_path, ollama, gemini)
        pane = window.practice
        assert _open_gaps() == {POINTS[1]}
        (turn,) = pane.view.thread_view.turns
        assert turn.correct_button.isVisible()

        asked: list[CorrectKeyPointDialog] = []

        def answer_the_dialog() -> None:
            dialog = QApplication.activeModalWidget()
            assert isinstance(dialog, CorrectKeyPointDialog)
            asked.append(dialog)
            assert dialog.key_point.currentData() == 1  # the one the judge did not count
            assert dialog.buttons["explained"].isChecked()  # the opposite: most likely meant
            dialog.note.setText("I said it takes many generations.")
            save_png(dialog, "correct-key-point-dialog-light.png")
            dialog.setPalette(dark_palette())
            save_png(dialog, "correct-key-point-dialog-dark.png")
            dialog.setPalette(QPalette())
            dialog.accept()

        QTimer.singleShot(100, answer_the_dialog)
        qtbot.mouseClick(turn.correct_button, Qt.MouseButton.LeftButton)
        assert asked
        qtbot.waitUntil(lambda: 1 in turn.corrected, timeout=WAIT_MS)
        assert "now counts as explained" in pane.view.status_label.text()
        shown = turn.verdict.details.toPlainText()
        assert "Not explained" in shown  # the judge's word, kept
        assert "Your word: ✓ Explained" in shown and "many generations" in shown
        save_png(turn, "correct-key-point-thread-light.png")
        turn.setPalette(dark_palette())
        turn.verdict.show_verdict(*turn.shown_verdict, answer=turn.answer_text,  # type: ignore[misc]
                                  corrected=turn.corrected)  # fmt: skip
        save_png(turn, "correct-key-point-thread-dark.png")
        turn.setPalette(QPalette())
        assert _open_gaps() == set()  # the gap board (and Today, coach gaps) follow it

        with qtbot.waitSignal(pane.session_finished, timeout=WAIT_MS) as finished:
            qtbot.keyClick(pane.view.next_button, Qt.Key.Key_Space)
        assert finished.args[0].missed == ()  # the summary too
        assert not turn.correct_button.isVisible()  # the summary has counted them
        stats = window.views.stats
        with qtbot.waitSignal(stats.agreement_loaded, timeout=WAIT_MS):
            window.views.show_stats()  # the judge measured against its learner
        table = stats.agreement_table
        assert table.isVisibleTo(stats) and table.rowCount() == 1
        row = [table.item(0, n).text() for n in range(table.columnCount())]
        assert row[1:] == ["standard", "3", "2 (67%)", "1", "0"], row
        assert pane.shutdown(WAIT_MS)
        window.close()
    context = build_context()
    try:
        from coach_gui.services.verify import verify

        assert verify(context.traces()).ok
    finally:
        context.close()


def _answered(qtbot: QtBot, tmp_path: Path, ollama: FakeOllama, gemini: FakeGemini) -> MainWindow:
    """A window on a one-note vault, its one challenge answered and judged: key point 2
    not explained."""
    vault = tmp_path / "vault"
    vault.mkdir()
    listed = "\n".join(f"  - {text}" for text in POINTS)
    (vault / "Natural selection.md").write_text(
        f"---\ncore_assertions:\n{listed}\n---\n\n# Natural selection\n\nBody.\n", "utf-8"
    )
    ollama.queue_challenge("Why does selection need so much time to change a species?")
    gemini.reply_for = _second_missed
    KeyStore().set(KEY)
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(json.dumps({
        "kb": {"path": str(vault)},
        "tier1": {"ollamaUrl": ollama.url, "model": DEFAULT_MODEL, "followUps": False,
                  "challengesPerSession": 1},
        "judge": {"enabled": True, "includeAssertions": True, "baseUrl": gemini.url,
                  "maxRetries": 0},
    }), encoding="utf-8")  # fmt: skip
    window = MainWindow(build_cases())
    qtbot.addWidget(window)
    window.resize(1120, 720)
    with qtbot.waitSignal(window.notes_listed, timeout=WAIT_MS):
        window.show()
    qtbot.waitExposed(window)
    pane = window.practice
    window.open_note(window.notes()[0].id)
    qtbot.keyClick(window, Qt.Key.Key_P, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=WAIT_MS)
    answer = "Selection works on inherited variation; the struggle comes from increase."
    qtbot.keyClicks(pane.view.answer_box, answer)
    qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=WAIT_MS)
    return window


def _practise_once(
    qtbot: QtBot, tmp_path: Path, ollama: FakeOllama, gemini: FakeGemini
) -> MainWindow:
    """The same, and the session ended: its summary shown."""
    window = _answered(qtbot, tmp_path, ollama, gemini)
    with qtbot.waitSignal(window.practice.session_finished, timeout=WAIT_MS):
        qtbot.keyClick(window.practice.view.next_button, Qt.Key.Key_Space)
    return window


def _answer_dialog(key_point: int, status: str, note: str, asked: list[int]) -> None:
    dialog = QApplication.activeModalWidget()
    assert isinstance(dialog, CorrectKeyPointDialog)
    dialog.key_point.setCurrentIndex(dialog.key_point.findData(key_point))
    dialog.buttons[status].setChecked(True)  # type: ignore[index]
    dialog.note.setText(note)
    asked.append(key_point)
    dialog.accept()


def test_past_verdicts_are_corrected_from_the_session_detail_and_the_gap_board(
    qtbot: QtBot, tmp_path: Path
) -> None:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        window = _practise_once(qtbot, tmp_path, ollama, gemini)
        views = window.views
        sessions = views.sessions
        with qtbot.waitSignal(sessions.detail.shown, timeout=WAIT_MS):
            views.show_sessions()
        detail = sessions.detail
        assert "Correct a key point…" in detail.text.toPlainText()
        # Who judged, and how strictly (from the request as it was sent).
        assert "judged by gemini-2.5-flash, at standard strictness" in detail.text.toPlainText()
        assert _open_gaps() == {POINTS[1]}

        # The session detail: the link under the answer; key point 1 was wrong after all.
        asked: list[int] = []
        QTimer.singleShot(100, lambda: _answer_dialog(0, "wrong", "I mixed up the causes.", asked))
        detail.text.setFocus()
        qtbot.keyClick(detail.text, Qt.Key.Key_Tab)  # to the link, as a keyboard user would
        with qtbot.waitSignal(detail.shown, timeout=WAIT_MS):  # read again once recorded
            qtbot.keyClick(detail.text, Qt.Key.Key_Return)
        assert asked == [0]
        assert "now counts as wrong" in detail.status.text()
        shown = detail.text.toPlainText()
        assert "Your word: ✗ Wrong" in shown or "Your word: Wrong" in shown.replace("✗ ", ""), shown
        assert "I mixed up the causes." in shown
        markdown = detail.markdown()  # the gap export reads the learner's word too
        assert "key point 1:" in markdown and "your word" in markdown
        assert "I mixed up the causes." in markdown
        assert _open_gaps() == {POINTS[0], POINTS[1]}
        save_png(sessions, "correct-key-point-session-detail-light.png")
        sessions.setPalette(dark_palette())
        with qtbot.waitSignal(detail.shown, timeout=WAIT_MS):  # drawn in the dark palette
            detail.show_session(detail.summary)
        save_png(sessions, "correct-key-point-session-detail-dark.png")
        sessions.setPalette(QPalette())

        # The gap board: key point 2's gap, corrected to explained, leaves the board.
        board = window.views.gap_board
        with qtbot.waitSignal(board.loaded, timeout=WAIT_MS):
            sessions.tabs.setCurrentWidget(board)
        texts = [board.table.item(r, 0).text() for r in range(board.table.rowCount())]
        assert any(POINTS[1] in t for t in texts) and any(POINTS[0] in t for t in texts)
        assert not board.correct_button.isEnabled()  # nothing chosen yet
        row = next(r for r, t in enumerate(texts) if POINTS[1] in t)
        board.table.selectRow(row)
        assert board.correct_button.isEnabled()
        asked.clear()
        QTimer.singleShot(100, lambda: _answer_dialog(1, "explained", "", asked))
        with qtbot.waitSignal(board.loaded, timeout=WAIT_MS):  # read again once recorded
            qtbot.mouseClick(board.correct_button, Qt.MouseButton.LeftButton)
        assert asked == [1]
        texts = [board.table.item(r, 0).text() for r in range(board.table.rowCount())]
        assert texts == [f"1. {POINTS[0]}"]
        assert "I mixed up the causes." in board.table.item(0, 3).text()
        board.table.selectRow(0)
        save_png(board, "correct-key-point-gap-board-light.png")
        board.setPalette(dark_palette())
        save_png(board, "correct-key-point-gap-board-dark.png")
        board.setPalette(QPalette())
        assert _open_gaps() == {POINTS[0]}
        # The sessions list reads itself again too (the broadcast): let it finish.
        qtbot.waitUntil(lambda: not tasks.pending_tasks(), timeout=WAIT_MS)
        window.close()
    context = build_context()
    try:
        from coach_gui.services.verify import verify

        assert verify(context.traces()).ok
    finally:
        context.close()
