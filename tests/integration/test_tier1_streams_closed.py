"""Every Tier 1 stream is closed by the session that opened it, at once (issue 13).

The hang: a challenge withdrawn for quoting the note left its stream open. The stream's
generator sat in a reference cycle, so the garbage collector closed it later, on whatever
thread it ran, at whatever moment: once inside httpcore's (non-reentrant) pool lock on
the practice worker, which then waited on itself forever; Retry, Finish and Ctrl+Q then
waited on that worker. With the collector switched off the leak is deterministic: the
withdrawn stream's connection is still open when the next request arrives.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator

import pytest
from fakes.in_ram import InRamPracticeJournal, TickingClock
from fakes.ollama_server import FakeOllama

from coach_gui.adapters.ollama import OllamaClient
from coach_gui.adapters.tier1_ollama import OllamaTier1
from coach_gui.domain.notes import Note
from coach_gui.services.practice import PracticeRun, PracticeSettings

NOTE = Note(
    id="n1",
    title="Natural selection",
    source="Darwin",
    core_assertions=("Selection acts only on inherited variation that already exists.",),
    body=(
        "Individuals of a species differ from one another and many of those differences "
        "are inherited by their offspring over many generations."
    ),
)
QUOTE = "Individuals of a species differ from one another and many of those differences?"
HONEST = "Why can a process that only keeps or removes traits still produce new species?"


@pytest.fixture
def no_collector() -> Iterator[None]:
    """Only reference counting frees objects: what a cycle holds stays held."""
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _run(ollama: FakeOllama, **settings: object) -> tuple[PracticeRun, OllamaClient]:
    client = ollama.client(connect_timeout=2, read_timeout=10)
    tier1 = OllamaTier1(client, "llama3.2:3b", temperature=0, seed=1, keep_alive="5m")
    run = PracticeRun(
        NOTE,
        PracticeSettings(**settings),
        InRamPracticeJournal(),
        tier1,
        TickingClock(),  # type: ignore[arg-type]
    )
    run.start()
    return run, client


def test_a_withdrawn_challenge_closes_its_stream_before_the_next_is_asked(
    no_collector: None, wire: str
) -> None:
    with FakeOllama(watch_connections=True, wire=wire) as ollama:
        for text in (QUOTE, QUOTE, HONEST):  # instant replies; the first two quote the note
            ollama.queue_reply(json.dumps({"challenge": text, "kind": "explain"}))
        run, client = _run(ollama, max_regenerations=2)
        try:
            result = run.next_challenge(lambda _text: None)
        finally:
            client.close()
        chats = ollama.requests_to("/api/chat")
    assert result.challenge.text == HONEST
    assert len(chats) == 3  # every regeneration was sent: nothing waited on a lock
    assert [r.others_open for r in chats] == [0, 0, 0]


def test_a_cancelled_or_finished_stream_leaves_no_connection_open(
    no_collector: None, wire: str
) -> None:
    with FakeOllama(watch_connections=True, wire=wire) as ollama:
        for text in (HONEST, "How would you test that on a farm?", QUOTE, HONEST):
            ollama.queue_reply(json.dumps({"challenge": text, "kind": "apply"}))
        run, client = _run(ollama, max_regenerations=1)
        try:
            first = run.next_challenge()
            attempt = run.submit(first.challenge, "Because small kept changes add up.")
            run.follow_up(first.challenge, attempt.answer)
            run.next_challenge()
        finally:
            client.close()
        chats = ollama.requests_to("/api/chat")
    assert len(chats) == 4
    assert [r.others_open for r in chats] == [0, 0, 0, 0]


def test_a_reply_that_runs_on_is_cut_at_the_limit_and_a_built_in_challenge_follows(
    wire: str,
) -> None:
    """Issue 21 item 9: the length limit applied only once the whole stream was read, and
    the cost grew faster than linear, so a 200 KB reply held practice for minutes."""
    endless = json.dumps({"challenge": "Why " + "and why " * 25_000 + "?", "kind": "explain"})
    with FakeOllama(wire=wire) as ollama:
        ollama.queue_reply(endless)  # ~200 KB, streamed in pieces of a few characters
        run, client = _run(ollama, max_regenerations=0)
        try:
            result = run.next_challenge(lambda _text: None)
        finally:
            client.close()
        assert ollama.client_gone.wait(5)  # the client hung up: it stopped reading
        (chat,) = ollama.requests_to("/api/chat")
    assert result.challenge.origin == "builtin"
    assert any("over 1000 characters" in n or "ran past" in n for n in result.notices)
    limit = chat.body["max_tokens"] if wire == "openai" else chat.body["options"]["num_predict"]
    assert limit == 2048  # and the model is told to stop
