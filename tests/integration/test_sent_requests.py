"""Each outbox row read back with the sessions whose answers it carried (*Sent to judge*'s
Note and Session columns): judged in the session, judged later in one request across two
sessions, judged again by an eval; and one read for the page, however many rows it has."""

from __future__ import annotations

import io
import json
import os
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_run import coach, practise
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains

from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.outbox import SqliteOutbox
from coach_gui.bootstrap import build_context
from coach_gui.cli import main
from coach_gui.domain.session_records import RequestOrigin
from coach_gui.domain.tier2 import OutboxEntry, OutboxOutcome, tier2_payload
from coach_gui.operations.review import sent_to_judge

KEY = "test-key"


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _practise(tmp_path: Path, capsys: pytest.CaptureFixture[str], note: str, *judge: str) -> str:
    done = practise(capsys, tmp_path, "It spreads because it helps.", note=note, extra=judge)
    return str(done["session_id"])


def _coach(capsys: pytest.CaptureFixture[str], *argv: str) -> None:
    code, _out, err = coach(capsys, *argv)
    assert code == 0, err


@pytest.fixture
def gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with FakeGemini(api_keys={KEY}) as server:
        server.reply_for = passes_items_whose_answer_contains("because")
        config = Path(os.environ["COACH_CONFIG"])
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(
            json.dumps({
                # No Ollama: built-in challenges; one each, no follow-ups.
                "tier1": {"ollamaUrl": f"http://127.0.0.1:{_dead_port()}", "followUps": False,
                          "challengesPerSession": 1},
                "judge": {"baseUrl": server.url, "maxRetries": 0},
            }),
            encoding="utf-8",
        )  # fmt: skip
        monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0
        yield server


def _started(journal: Path, session_id: str) -> str:
    with sqlite3.connect(journal) as conn:
        row = conn.execute("SELECT started_at FROM sessions WHERE id = ?", (session_id,))
        return str(row.fetchone()[0])


def test_each_request_names_the_sessions_it_graded_answers_of(
    gemini: FakeGemini, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judged = _practise(tmp_path, capsys, "natural-selection")
    later = [
        _practise(tmp_path, capsys, "natural-selection", "--judge", "off"),
        _practise(tmp_path, capsys, "sexual-selection", "--judge", "off"),
    ]
    _coach(capsys, "judge-pending", "--json")  # one request: both sessions' answers
    _coach(capsys, "eval", "--session", judged, "--repeats", "2", "--json")
    context = build_context()
    try:
        requests = sent_to_judge(context)  # newest first
        journal = context.journal_path
        assert len(requests) == 2 + 4  # practice, judge later, then 2 arms x 2 repeats
        practised = RequestOrigin(judged, "Natural selection", _started(journal, judged))
        assert requests[-1].origins == (practised,)
        assert {o.session_id for o in requests[-2].origins} == set(later)
        assert sorted(o.note_title for o in requests[-2].origins) == [
            "Natural selection",
            "Sexual selection",
        ]
        assert not any(o.eval for o in requests[-2].origins)
        evaluated = RequestOrigin(judged, "Natural selection", practised.started_at, eval=True)
        assert all(request.origins == (evaluated,) for request in requests[:4])
    finally:
        context.close()


def test_a_page_of_thousands_of_requests_is_read_in_two_statements(tmp_path: Path) -> None:
    """No statement per row: the page and the sessions behind it, whatever its size."""

    def statements_for(rows: int) -> list[str]:
        with Journal.open(tmp_path / f"journal-{rows}.sqlite3") as journal:
            outbox = SqliteOutbox(journal)
            payload = tier2_payload(
                [{"challenge": "Why?", "answer": "Because."}], include_assertions=False
            ).canonical()
            for _ in range(rows):
                outbox_id = outbox.record_sent(
                    OutboxEntry(model="gemini-2.5-flash", payload=payload, request_body="{}")
                )
                outbox.record_outcome(outbox_id, OutboxOutcome(status="ok", response="{}"))
            seen: list[str] = []
            with journal.read() as conn:  # this thread's reader, which `sent` uses too
                conn.set_trace_callback(seen.append)
            requests = outbox.sent(limit=5000)
            assert len(requests) == rows and all(r.origins == () for r in requests)
            return [s for s in seen if s not in ("BEGIN", "ROLLBACK")]

    few, many = statements_for(3), statements_for(3000)
    assert len(few) == len(many) == 2
