"""The judge contract of DESIGN §4 end to end from the command line, over real sockets
(fake Ollama, fake Gemini speaking the real wire format), a real journal and a real
keyring backend: a verdict per assertion, each resting on the learner's own words.

- A judge that marks an assertion explained with a span that is not in the answer makes a
  gap for it, recorded as the domain's downgrade.
- A judge that leaves an assertion out, or assesses one twice, gives a malformed verdict:
  the answer stays pending and is judged later by a judge that keeps the contract.
- The judge's seed and thinking budget go out with the request, are kept in the outbox
  exactly as sent, and are sealed in the session's config digest.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_run import coach as _coach
from cli_run import practise as _practise
from fakes.gemini_server import (
    FakeGemini,
    RecordedRequest,
    assesses_one_twice,
    cites_words_not_in_the_answer,
    passes_items_whose_answer_contains,
    skips_an_assertion,
)
from fakes.ollama_server import FakeOllama

from coach_gui.cli import main
from coach_gui.domain.verdicts import CITED_NOTHING
from coach_gui.services.practice_settings import PracticeSettings

KEY = "test-key"
ASSERTIONS = [
    "Selection acts only on inherited variation.",
    "Large change takes a long time.",
    "More offspring are born than survive.",
]
ANSWER = "Heritable differences get kept because the better fitted leave more young."


@pytest.fixture
def servers() -> Iterator[tuple[FakeOllama, FakeGemini]]:
    with FakeOllama() as ollama, FakeGemini(api_keys={KEY}) as gemini:
        yield ollama, gemini


def _setup(
    home: Path,
    ollama: FakeOllama,
    gemini: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    **judge: Any,
) -> None:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    settings = {"includeAssertions": True, "baseUrl": gemini.url, "maxRetries": 0, **judge}
    config.write_text(
        json.dumps(
            {
                "kb": {"path": str(home / "notes")},
                "tier1": {"ollamaUrl": ollama.url, "followUps": False},
                "judge": settings,
            }
        ),
        encoding="utf-8",
    )
    folder = home / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    front = {"id": "note1", "title": "Natural selection", "core_assertions": ASSERTIONS}
    (folder / "natural-selection.md").write_text(
        "---\n" + yaml.safe_dump(front) + "---\nBody of the note.\n", encoding="utf-8"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
    assert main(["key", "set"]) == 0
    capsys.readouterr()


def _rows(home: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(home / "journal.sqlite3") as conn:
        return conn.execute(sql).fetchall()


def test_credit_citing_words_not_in_the_answer_becomes_a_gap_for_that_assertion(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    gemini.reply_for = cites_words_not_in_the_answer(1)
    _setup(coach_home, ollama, gemini, monkeypatch, capsys)
    (item,) = _practise(capsys, tmp_path, ANSWER)["items"]

    assert (item["status"], item["verdict"]) == ("judged", "fail")  # the model said "pass"
    assert [(a["assertion"], a["status"]) for a in item["assessments"]] == [
        (0, "explained"), (1, "unexplained"), (2, "explained"),
    ]  # fmt: skip
    downgraded = item["assessments"][1]
    assert downgraded["claimed"] == "explained" and downgraded["reason"] == CITED_NOTHING
    assert downgraded["evidence"] == []
    assert downgraded["unfound"] == ["selection acts on inherited variation"]
    assert item["gaps"] == [
        {"assertion": 1, "problem": "unexplained", "explanation": CITED_NOTHING}
    ]
    # The evidence that counted is the learner's own words.
    assert all(span in ANSWER for a in item["assessments"] for span in a["evidence"])

    code, gaps, _ = _coach(capsys, "gaps", "--json")
    assert code == 0
    assert [(g["assertion_text"], g["problem"]) for g in gaps["gaps"]] == [
        (ASSERTIONS[1], "unexplained")
    ]
    code, text, _ = _coach(capsys, "gaps")
    assert ASSERTIONS[1] in text and CITED_NOTHING in text
    (stored,) = _rows(coach_home, "SELECT assessments FROM verdicts")
    assert json.loads(stored[0])[1]["claimed"] == "explained"
    code, verified, _ = _coach(capsys, "verify", "--json")
    assert (code, verified["ok"]) == (0, True)


@pytest.mark.parametrize(
    ("judge", "reason"),
    [
        (skips_an_assertion(2), "it skipped key point 3 of answer 1"),
        (assesses_one_twice(0), "it graded key point 1 of answer 1 twice"),
    ],
)
def test_a_verdict_that_skips_or_repeats_an_assertion_is_malformed_and_the_answer_waits(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    judge: Callable[[RecordedRequest], str],
    reason: str,
) -> None:
    ollama, gemini = servers
    gemini.reply_for = judge
    _setup(coach_home, ollama, gemini, monkeypatch, capsys)
    (item,) = _practise(capsys, tmp_path, ANSWER)["items"]

    assert (item["status"], item["verdict"]) == ("unjudged", None)
    assert reason in item["reason"] and "kept unjudged" in item["reason"]
    assert _rows(coach_home, "SELECT count(*) FROM verdicts") == [(0,)]
    assert _rows(coach_home, "SELECT reason_code FROM judge_refusals") == [("malformed",)]
    assert _rows(coach_home, "SELECT status FROM attempts") == [("unjudged",)]

    # A judge keeping the contract judges it later, with evidence from the answer.
    gemini.reply_for = passes_items_whose_answer_contains("because")
    code, report, err = _coach(capsys, "judge-pending", "--json")
    assert code == 0, err
    assert len(report["judged"]) == 1
    (assessments,) = _rows(coach_home, "SELECT assessments FROM verdicts")
    assert [a["status"] for a in json.loads(assessments[0])] == ["explained"] * 3
    code, verified, _ = _coach(capsys, "verify", "--json")
    assert (code, verified["ok"]) == (0, True)


def test_the_seed_and_thinking_budget_go_out_are_kept_as_sent_and_are_sealed(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    gemini.reply_for = passes_items_whose_answer_contains("because")
    _setup(coach_home, ollama, gemini, monkeypatch, capsys, seed=42, thinkingBudget=0)
    _practise(capsys, tmp_path, ANSWER)

    (request,) = gemini.generate_requests
    generation = request.body["generationConfig"]
    assert generation["seed"] == 42
    # google-genai 3.x writes the inner field in snake case; Gemini's JSON reader (proto3)
    # accepts both spellings.
    assert generation["thinkingConfig"] in ({"thinkingBudget": 0}, {"thinking_budget": 0})
    assert generation["temperature"] == 0.0
    (body,) = _rows(coach_home, "SELECT request_body FROM outbox")
    assert body[0] == request.raw_body.decode("utf-8")  # the outbox holds it exactly as sent
    (digest,) = _rows(coach_home, "SELECT config_digest FROM sessions")
    sealed = PracticeSettings(follow_ups=False, judge_seed=42, judge_thinking_budget=0)
    assert digest[0] == sealed.digest()
    assert digest[0] != PracticeSettings(follow_ups=False, judge_thinking_budget=0).digest()


def test_a_bad_seed_or_thinking_budget_is_refused_naming_the_key(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini, monkeypatch, capsys)
    config = Path(os.environ["COACH_CONFIG"])
    settings = json.loads(config.read_text(encoding="utf-8"))
    for key, value in (("seed", -1), ("thinkingBudget", 100000), ("seed", "42")):
        config.write_text(
            json.dumps({**settings, "judge": {**settings["judge"], key: value}}), encoding="utf-8"
        )
        code, _, err = _coach(capsys, "notes")
        assert code == 2
        assert f"judge.{key}" in err
