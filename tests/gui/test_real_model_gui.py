"""One practice session in the real window against a real language model, with no fake in
between (issue 31): llama.cpp's server with SmolLM2-135M-Instruct on loopback
(`tests/real/server.py`) over the OpenAI wire writes the challenges, which stream into the
window, are checked and shown; the learner's answers are graded by the local judge on the
same server; `coach verify` holds.

It asserts what the learner and `coach verify` observe, never the model's words.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from fakes.coach_files import write_config
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot
from real.server import MODEL_ID, real_server
from test_main_window_practice import open_note, open_window

import coach_gui
from coach_gui.cli import main
from coach_gui.domain.challenge_checks import ChallengeChecks
from coach_gui.domain.no_quote import NoQuoteCheck
from coach_gui.domain.tier2 import tier2_payload, verdict_schema
from coach_gui.ui.kit import tasks
from coach_gui.ui.practice.practice_pane import Phase
from coach_gui.ui.practice.verdict_view import VerdictState

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
Answer = Callable[[str], Any]
MODEL_MS = 900_000  # a real model on two shared cores: minutes, never a hang (Cancel exists)
CTRL = Qt.KeyboardModifier.ControlModifier
ANSWERS = [
    "Traits that help an animal survive get passed on more often, so over many generations "
    "the population changes.",
    "A breeder picks the parents on purpose, while in the wild the surroundings decide who "
    "leaves young.",
]


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with real_server() as url:
        yield url


def _rows(window: Any, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(window.cases.settings.places().journal) as conn:
        return conn.execute(sql).fetchall()


def test_a_session_in_the_window_with_a_real_model(
    qtbot: QtBot, server_url: str, answer_dialog: Answer, capsys: pytest.CaptureFixture[str]
) -> None:
    write_config({
        "tier1": {"server": "openai", "url": server_url, "model": MODEL_ID,
                  "temperature": 0.9, "seed": 7, "maxRegenerations": 8, "followUps": False,
                  "challengesPerSession": len(ANSWERS)},
        "judge": {"provider": "local", "localModel": MODEL_ID, "seed": 1, "enabled": True},
    })  # fmt: skip
    window = open_window(qtbot, answer_dialog)
    open_note(qtbot, window, "Natural selection")
    pane = window.practice
    streamed: list[str] = []  # what the challenge box showed while the model wrote
    qtbot.keyClick(window.note_list.view, Qt.Key.Key_P, CTRL)
    shown: list[str] = []
    for number, text in enumerate(ANSWERS):
        box = pane.view.challenge_view
        box.textChanged.connect(lambda b=box: streamed.append(b.toPlainText()))
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERING, timeout=MODEL_MS)
        shown.append(box.toPlainText())
        qtbot.keyClicks(pane.view.answer_box, text)
        qtbot.keyClick(pane.view.answer_box, Qt.Key.Key_Return, CTRL)
        qtbot.waitUntil(lambda: pane.phase is Phase.ANSWERED, timeout=MODEL_MS)
        # Judged on this computer, or kept unjudged with a reason: never stuck judging.
        assert pane.view.verdict_view.state is not VerdictState.JUDGING
        if number + 1 < len(ANSWERS):
            pane.view.next_button.click()

    challenges = _rows(window, "SELECT text, origin FROM challenges ORDER BY position")
    by_model = [t for t, origin in challenges if origin == "tier1"]
    assert len(challenges) == len(ANSWERS)
    assert all(t in box for (t, _), box in zip(challenges, shown, strict=True))  # as shown
    assert by_model, f"no challenge written by the model reached the learner: {challenges}"
    assert len(streamed) > 1  # it arrived in pieces, as the model wrote it
    note = Path(coach_gui.__file__).parent / "resources" / "sample_kb" / "natural-selection.md"
    quotes, checks = NoQuoteCheck(note.read_text(encoding="utf-8")), ChallengeChecks()
    for text in by_model:
        assert "<" not in text and ">" not in text, text
        assert checks.problem(text) is None, text
        assert quotes.check(text) is None, text
    kept = [r[0] for r in _rows(window, "SELECT answer FROM attempts ORDER BY submitted_at")]
    assert kept == ANSWERS  # every answer kept, in order

    outbox = _rows(window, "SELECT provider, payload, response FROM outbox WHERE status = 'ok'")
    assert outbox, "the local judge finished no request"
    for provider, payload_json, response in outbox:
        assert provider == "local"
        payload = tier2_payload(json.loads(payload_json)["items"], include_assertions=True)
        jsonschema.validate(json.loads(response), verdict_schema(payload))
    discard = answer_dialog("Discard")  # should finishing ask about anything unsaved
    window.practice.finish()
    qtbot.waitUntil(lambda: pane.phase is Phase.FINISHED, timeout=MODEL_MS)
    discard.disarmed = True

    capsys.readouterr()
    assert main(["verify", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True
    # Nothing of this window still talks to the model when the test (and its server) ends:
    # a request left in flight outlived the server and held up the next test's tasks.
    window.close()
    qtbot.waitUntil(lambda: tasks.pending_tasks() == [], timeout=MODEL_MS)
