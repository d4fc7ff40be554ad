"""How strictly the judge grades (issue 36, DESIGN §4): `judge.strictness` lenient, standard
or strict. Over the fake Gemini on loopback, the request for the same answers differs
between levels exactly in the one sentence of the instructions that says what "explained"
requires, and in the config digest sealed with the session; the eval records it for each
arm."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from cli_run import coach as _coach
from fakes.gemini_server import FakeGemini, RecordedRequest, passes_items_whose_answer_contains
from test_cli_sessions import KEY, _configure, _set_key

from coach_gui.bootstrap import build_context
from coach_gui.domain.tier2 import STRICTNESS_LEVELS, STRICTNESS_RULES

NOW = "2026-11-02T09:00:00+00:00"


def _with_strictness(level: str) -> None:
    config = Path(os.environ["COACH_CONFIG"])
    settings = json.loads(config.read_text("utf-8"))
    settings["judge"]["strictness"] = level
    config.write_text(json.dumps(settings), encoding="utf-8")


def _unfenced(text: str, request: RecordedRequest) -> str:
    """`text` with the request's own fence boundary (fresh per request) made common."""
    boundary = re.search(r"untrusted_\w+?_([0-9a-f]{12})>", request.user_text)
    assert boundary is not None
    return text.replace(boundary[1], "BOUNDARY")


def _practise(
    capsys: pytest.CaptureFixture[str], gemini: FakeGemini, tmp_path: Path
) -> tuple[RecordedRequest, str]:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["It is slow because each step is slight."]))
    before = len(gemini.generate_requests)
    code, data, err = _coach(
        capsys, "practice", "natural-selection", "--count", "1", "--answers", str(answers),
        "--json",
    )  # fmt: skip
    assert code == 0, err
    (request,) = gemini.generate_requests[before:]
    context = build_context()
    try:
        (records,) = context.traces().records_for([data["session_id"]])
    finally:
        context.close()
    return request, records.session.config_digest


def test_the_request_differs_between_levels_only_in_the_instruction_and_the_sealed_config(
    tmp_path: Path,
    coach_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COACH_NOW", NOW)
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        _configure(coach_home, gemini.url)
        _set_key(monkeypatch, capsys)
        sent: dict[str, tuple[RecordedRequest, str]] = {}
        for level in STRICTNESS_LEVELS:
            _with_strictness(level)
            sent[level] = _practise(capsys, gemini, tmp_path)

    def body(level: str) -> dict[str, Any]:
        request = sent[level][0]
        found: dict[str, Any] = json.loads(_unfenced(request.raw_body.decode(), request))
        return found

    standard = body("standard")
    for level in ("lenient", "strict"):
        other = body(level)
        system = other["systemInstruction"]["parts"][0]["text"]
        assert STRICTNESS_RULES[level] in system
        assert STRICTNESS_RULES["standard"] not in system
        # Put the standard sentence back: then every byte of the request is the same.
        other["systemInstruction"]["parts"][0]["text"] = system.replace(
            STRICTNESS_RULES[level], STRICTNESS_RULES["standard"]
        )
        assert other == standard, level
    digests = {level: digest for level, (_request, digest) in sent.items()}
    assert len(set(digests.values())) == 3  # each level sealed as what it was


def test_the_eval_records_the_strictness_of_each_arm(
    tmp_path: Path,
    coach_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        _configure(coach_home, gemini.url)
        _set_key(monkeypatch, capsys)
        _practise(capsys, gemini, tmp_path)
        _with_strictness("strict")
        code, data, err = _coach(capsys, "eval", "--last", "1", "--repeats", "2", "--json")
        assert code == 0, err
        strict_requests = gemini.generate_requests[1:]
    assert [arm["strictness"] for arm in data["arms"]] == ["strict", "strict"]
    assert data["judge_sampling"]["judge_strictness"] == "strict"
    assert all(STRICTNESS_RULES["strict"] in r.system_text for r in strict_requests)
    code, verified, err = _coach(capsys, "verify", "--json")
    assert code == 0 and verified["ok"], err
