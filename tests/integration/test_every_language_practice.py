"""Practice in the note's own language, end to end (issue 32, DESIGN §3): the real practice
flow over real sockets (fake Ollama, fake Gemini), a real journal, a real keyring backend.

A quote of a Chinese, Japanese, Thai, Korean, Arabic, German or Russian note never reaches
the learner, the journal or the judge; the honest question after it does; spans the judge
copies from inside an answer count as evidence; both prompts ask for the right language,
and a reply in another language is still accepted."""

from __future__ import annotations

import io
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakes.gemini_server import FakeGemini, RecordedRequest, prompt_items, verdict_json
from fakes.multilingual_notes import NOTES, LanguageNote
from fakes.ollama_server import FakeOllama

from coach_gui.cli import main

KEY = "test-key"
# One note per language (the first of each), with its first quote and honest question.
FIRST = {note.lang: note for note in reversed(NOTES)}


@pytest.fixture
def servers() -> Iterator[tuple[FakeOllama, FakeGemini]]:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        yield ollama, gemini


def _setup(
    home: Path,
    servers: tuple[FakeOllama, FakeGemini],
    note: LanguageNote,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ollama, gemini = servers
    config = Path(__import__("os").environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    settings = {
        "kb": {"path": str(home / "notes")},
        "tier1": {"ollamaUrl": ollama.url},
        "judge": {"enabled": True, "baseUrl": gemini.url, "maxRetries": 0},
    }
    config.write_text(json.dumps(settings), encoding="utf-8")
    front = {"id": "note1", "title": note.title, "core_assertions": list(note.assertions)}
    folder = home / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "note.md").write_text(
        "---\n" + yaml.safe_dump(front, allow_unicode=True) + "---\n" + note.body,
        encoding="utf-8",
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
    assert main(["key", "set"]) == 0
    capsys.readouterr()


def _practise(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, answers: list[str]
) -> tuple[dict[str, Any], str]:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers, ensure_ascii=False), encoding="utf-8")
    code = main(["practice", "note", "--answers", str(path), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out), out.out + out.err


def _journal(home: Path) -> str:
    with sqlite3.connect(home / "journal.sqlite3") as conn:
        return "\n".join(conn.iterdump())


def _explained_citing(spans: tuple[str, ...], reason: str) -> Any:
    """A judge that explains every assertion, citing `spans` (copied from inside the
    answer), with its reasons in `reason`'s language."""

    def reply(request: RecordedRequest) -> str:
        items = []
        for item in prompt_items(request):
            count = len(item.assertions or ())
            assessments = [
                {"assertion": n, "status": "explained", "evidence": list(spans), "reason": reason}
                for n in range(count)
            ]
            items.append(
                {"index": item.index, "assessments": assessments, "gaps": [],
                 "verdict": "pass", "feedback": reason}
            )  # fmt: skip
        return json.dumps({"items": items}, ensure_ascii=False)

    return reply


@pytest.mark.parametrize("which", [0, 1], ids=["verbatim", "lightly-edited"])
@pytest.mark.parametrize("lang", sorted(FIRST))
def test_a_quote_never_reaches_the_learner_the_journal_or_the_judge(
    lang: str,
    which: int,
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    note = FIRST[lang]
    ollama, gemini = servers
    quote, honest = note.quotes[which], note.honest[which]
    ollama.queue_challenge(quote)
    ollama.queue_challenge(honest)
    gemini.reply_for = lambda request: verdict_json(request, lambda item: True)
    _setup(coach_home, servers, note, monkeypatch, capsys)
    data, shown = _practise(capsys, tmp_path, [note.answer])
    (item,) = data["items"]
    assert item["challenge"] == honest  # the honest question in the note's language
    assert item["status"] == "judged" and item["verdict"] == "pass"
    assert quote not in shown and quote not in _journal(coach_home)
    (request,) = gemini.generate_requests
    sent = request.raw_body.decode("utf-8")
    assert quote not in sent and quote not in json.loads(sent).__repr__()
    assert honest in request.user_text and note.answer in request.user_text
    # Tier 1 was told why its first question was refused, in words that repeat nothing.
    chats = ollama.requests_to("/api/chat")
    assert len(chats) == 2 and "rejected because" in chats[1].user_text
    assert quote not in chats[1].user_text


@pytest.mark.parametrize("lang", ["zh", "ja", "th", "ko"])
def test_spans_from_inside_an_answer_are_evidence(
    lang: str,
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The issue: a span copied from inside a Chinese answer was refused ("the judge cited
    nothing from your answer") because it did not start and end at a space."""
    note = FIRST[lang]
    ollama, gemini = servers
    ollama.queue_challenge(note.honest[0])
    gemini.reply_for = _explained_citing(note.spans, note.honest[1])
    _setup(coach_home, servers, note, monkeypatch, capsys)
    data, _ = _practise(capsys, tmp_path, [note.answer])
    (item,) = data["items"]
    assert (item["status"], item["verdict"], item["gaps"]) == ("judged", "pass", [])


def test_both_prompts_ask_for_the_right_language_and_other_languages_are_accepted(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tier 1 is asked to write in the note's language and the judge to explain in the
    answer's; a model that does otherwise is still heard (a question in English about a
    Chinese note, English feedback on a Chinese answer)."""
    note = FIRST["zh"]
    ollama, gemini = servers
    english = "Why would a living thing that fits its surroundings leave more offspring?"
    ollama.queue_challenge(english)
    gemini.reply_for = _explained_citing(note.spans[:1], "You explained it well.")
    _setup(coach_home, servers, note, monkeypatch, capsys)
    data, _ = _practise(capsys, tmp_path, [note.answer])
    (item,) = data["items"]
    assert item["challenge"] == english
    assert (item["status"], item["verdict"]) == ("judged", "pass")
    assert "You explained it well." in json.dumps(item)
    (chat,) = ollama.requests_to("/api/chat")
    assert "in the language the note is written in" in chat.system_text
    (request,) = gemini.generate_requests
    assert "in the language of the learner's answer" in request.system_text
