"""`coach practice` end to end: a real process, a real journal, Ollama's real wire format."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest
from cli_run import coach_process
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama, Fault

QUOTE = (
    "This preservation of favourable variations and the rejection of injurious variations is what?"
)
HONEST = "Why can a process that only keeps or removes traits still produce new kinds?"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


START = {"ollama": "ollama serve", "openai": "No model server answers"}  # what to start


class Coach:
    def __init__(self, root: Path, server: FakeOllama | str, wire: str = "ollama") -> None:
        """Coach pointed at `server` in its wire format (a bare URL: in `wire`'s)."""
        self.home = root / "home"
        self.config = root / "coach.config.json"
        if isinstance(server, str):
            where = {"server": wire, "url": server}
        else:
            where = server.tier1_config()
        self.config.write_text(
            json.dumps({"tier1": {**where, "model": DEFAULT_MODEL}}),
            encoding="utf-8",
        )

    def __call__(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return coach_process(*args, home=self.home, config=self.config, stdin=stdin)

    def journal_rows(self, sql: str) -> list[tuple[object, ...]]:
        with sqlite3.connect(self.home / "journal.sqlite3") as conn:
            return conn.execute(sql).fetchall()


def _answers(tmp_path: Path, answers: list[str]) -> str:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers), encoding="utf-8")
    return str(path)


def test_scripted_practice_against_a_real_format_ollama(tmp_path: Path, wire: str) -> None:
    with FakeOllama(wire=wire) as ollama:
        ollama.queue_challenge(HONEST)
        ollama.queue_challenge("How would a breeder's work differ from it?", "contrast")
        coach = Coach(tmp_path, ollama)
        answers = _answers(tmp_path, ["Small useful changes add up.", "A breeder chooses."])
        result = coach(
            "practice", "natural-selection", "--answers", answers, "--judge", "off", "--json"
        )
        chats = ollama.requests_to("/api/chat")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [i["challenge"] for i in data["items"]] == [
        HONEST,
        "How would a breeder's work differ from it?",
    ]
    assert all(i["status"] == "unjudged" and i["verdict"] is None for i in data["items"])
    assert data["disposition"] == "unjudged_offline"
    assert data["offline_reason"] is None
    # Ollama was asked with the structured-output schema, the config's options, the note fenced.
    body = chats[0].body
    assert body["model"] == DEFAULT_MODEL and body["stream"] is True
    assert chats[0].schema["required"] == ["challenge", "kind"]
    temperature = body["temperature"] if wire == "openai" else body["options"]["temperature"]
    assert temperature == 0.7
    assert "untrusted_note_" in body["messages"][1]["content"]
    rows = coach.journal_rows("SELECT answer FROM attempts ORDER BY submitted_at")
    assert [r[0] for r in rows] == ["Small useful changes add up.", "A breeder chooses."]


def test_adr0021_d6_a_quoting_challenge_never_reaches_the_learner_or_the_journal(
    tmp_path: Path,
    wire: str,
) -> None:
    with FakeOllama(wire=wire) as ollama:
        ollama.queue_challenge(QUOTE)
        ollama.queue_challenge(HONEST)
        coach = Coach(tmp_path, ollama)
        result = coach(
            "practice", "natural-selection", "--answers", _answers(tmp_path, ["x y"]), "--json"
        )
    assert result.returncode == 0, result.stderr
    assert "favourable variations" not in result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["items"][0]["challenge"] == HONEST
    assert any("withdrawn" in n for n in data["notices"])
    texts = coach.journal_rows("SELECT text FROM challenges")
    assert texts == [(HONEST,)]
    rejected = coach.journal_rows("SELECT reason, text_digest FROM challenge_rejections")
    assert len(rejected) == 1 and "words in a row" in str(rejected[0][0])
    with sqlite3.connect(coach.home / "journal.sqlite3") as conn:
        dump = "\n".join(conn.iterdump())
    assert "favourable variations" not in dump


def test_no_ollama_at_all_falls_back_to_builtin_challenges(tmp_path: Path, wire: str) -> None:
    coach = Coach(tmp_path, f"http://127.0.0.1:{_free_port()}", wire)
    start = START[wire]
    result = coach(
        "practice",
        "natural-selection",
        "--answers",
        _answers(tmp_path, ["one", "two", "three"]),
        "--judge",
        "off",
        "--json",
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [i["origin"] for i in data["items"]] == ["builtin"] * 3
    assert start in data["offline_reason"]
    assert "5 key points" in data["items"][0]["challenge"]
    assert result.stderr.count(start) == 1  # said plainly, once


def test_missing_model_says_which_to_pull_and_still_practises(tmp_path: Path, wire: str) -> None:
    with FakeOllama(models=[], wire=wire) as ollama:
        ollama.inject(Fault.MODEL_NOT_FOUND, times=None)
        coach = Coach(tmp_path, ollama)
        result = coach(
            "practice", "natural-selection", "--answers", _answers(tmp_path, ["a"]), "--json"
        )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    get_it = {"ollama": f"ollama pull {DEFAULT_MODEL}", "openai": f"no model '{DEFAULT_MODEL}'"}
    assert get_it[wire] in data["offline_reason"]
    assert data["items"][0]["origin"] == "builtin" and data["items"][0]["answer"] == "a"


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (Fault.ERROR_MID_STREAM, "reported an error"),
        (Fault.CUT_STREAM, "closed before the reply was finished"),
        (Fault.GARBAGE_LINE, "cannot read"),
        (Fault.SERVER_ERROR, "reported an error"),
    ],
)
def test_stream_faults_fall_back_for_that_challenge_and_lose_nothing(
    tmp_path: Path, fault: Fault, words: str, wire: str
) -> None:
    with FakeOllama(wire=wire) as ollama:
        ollama.inject(fault)
        if fault is not Fault.SERVER_ERROR:  # a fault mid-stream uses up the queued reply
            ollama.queue_challenge("This reply is cut short by the fault?")
        ollama.queue_challenge(HONEST)
        coach = Coach(tmp_path, ollama)
        answers = _answers(tmp_path, ["first answer", "second answer"])
        result = coach("practice", "natural-selection", "--answers", answers, "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["items"][0]["origin"] == "builtin"
    assert any(words in n for n in data["notices"]), data["notices"]
    assert data["items"][1]["challenge"] == HONEST  # the next challenge tries Ollama again
    rows = coach.journal_rows("SELECT answer FROM attempts ORDER BY submitted_at")
    assert [r[0] for r in rows] == ["first answer", "second answer"]


def test_interactive_practice_reads_answers_from_the_terminal(tmp_path: Path, wire: str) -> None:
    with FakeOllama(wire=wire) as ollama:
        ollama.queue_challenge(HONEST)
        ollama.queue_challenge("What would you look for to check that?", "apply")  # follow-up
        coach = Coach(tmp_path, ollama)
        stdin = "Selection keeps\nsmall changes.\n\nFossils in order.\n\n"
        result = coach("practice", "natural-selection", "--count", "1", "--json", stdin=stdin)
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [i["answer"] for i in data["items"]] == [
        "Selection keeps\nsmall changes.",
        "Fossils in order.",
    ]
    assert [i["origin"] for i in data["items"]] == ["tier1", "follow_up"]
    assert HONEST in result.stderr  # the challenge was shown to the learner


def test_unknown_note_and_bad_answers_file_are_usage_errors(tmp_path: Path) -> None:
    coach = Coach(tmp_path, f"http://127.0.0.1:{_free_port()}")
    missing = coach("practice", "no-such-note", "--answers", _answers(tmp_path, ["a"]))
    assert missing.returncode == 2 and "coach notes" in missing.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1}', encoding="utf-8")
    wrong = coach("practice", "natural-selection", "--answers", str(bad))
    assert wrong.returncode == 2 and "JSON list of strings" in wrong.stderr


def test_tier1_is_never_given_the_notes_source_or_tags(tmp_path: Path, wire: str) -> None:
    """ADR 0013 (issue 21): a challenge shaped by the note cannot carry its source or tags
    verbatim, because Tier 1 never sees them; the title it may see is held to the no-quote
    check's run rule."""
    with FakeOllama(wire=wire) as ollama:
        ollama.queue_challenge(HONEST)
        coach = Coach(tmp_path, ollama)
        answers = _answers(tmp_path, ["Small useful changes add up."])
        result = coach(
            "practice", "natural-selection", "--answers", answers, "--judge", "off", "--json"
        )
        chats = ollama.requests_to("/api/chat")
    assert result.returncode == 0, result.stderr
    note = (coach.home / "kb" / "natural-selection.md").read_text(encoding="utf-8")
    source = "Charles Darwin, On the Origin of Species (1859), ch. IV"
    assert source in note and "tags: [evolution, mechanism]" in note
    assert chats
    for chat in chats:
        sent = json.dumps(chat.body, ensure_ascii=False)
        assert "Origin of Species" not in sent and "(1859)" not in sent
        assert "evolution, mechanism" not in sent and '"tags"' not in sent


def test_the_session_ends_in_the_learners_words(tmp_path: Path) -> None:
    """The last line says how many answers and how the session ended in words, not the
    sealed record's value ("1 answers, unjudged_offline" before)."""
    coach = Coach(tmp_path, f"http://127.0.0.1:{_free_port()}")
    result = coach(
        "practice", "natural-selection", "--answers", _answers(tmp_path, ["one"]),
        "--judge", "off",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Session saved (1 answer, kept unjudged)." in result.stderr
    assert "unjudged_offline" not in result.stdout + result.stderr
