"""JSON nested past any recursion limit from the model on this computer (issue 34, item 6):
as a line of Ollama's stream, or as the challenge or verdict the model writes, it is a
reply Coach cannot read — said in a sentence — never a crash of practice or of
`judge-pending` with the local judge."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakes.ollama_server import DEEP, DEFAULT_MODEL, FakeOllama
from fakes.ollama_server import Fault as OllamaFault
from test_cli_sessions import _coach as coach

JUDGE_MODEL = "qwen2.5:7b"
NESTED = "[" * DEEP + "]" * DEEP
SHORT_NESTED = "[" * 4000 + "]" * 4000  # under the reply length cap, past recursion limits


@pytest.fixture
def ollama(coach_home: Path, wire: str) -> Iterator[FakeOllama]:
    """The local server in both wire formats (the `wire` fixture), judging too."""
    with FakeOllama(models=[DEFAULT_MODEL, JUDGE_MODEL], wire=wire) as fake:
        config = Path(os.environ["COACH_CONFIG"])
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({
            "kb": {"path": str(coach_home / "notes")},
            "tier1": {**fake.tier1_config(), "followUps": False, "maxRegenerations": 0},
            "judge": {"provider": "local", "localModel": JUDGE_MODEL, "maxRetries": 0},
        }), encoding="utf-8")  # fmt: skip
        (coach_home / "notes").mkdir(parents=True)
        front = {"id": "note1", "title": "Selection", "core_assertions": ["Traits vary."]}
        (coach_home / "notes" / "selection.md").write_text(
            "---\n" + yaml.safe_dump(front) + "---\nBody.\n", encoding="utf-8"
        )
        yield fake


def practise(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, *extra: str
) -> tuple[int, Any, str]:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["Because traits vary."]), encoding="utf-8")
    return coach(capsys, "practice", "selection", "--count", "1", "--answers", str(answers),
                 "--json", *extra)  # fmt: skip


def no_crash(err: str) -> None:
    assert "Traceback" not in err and "RecursionError" not in err
    assert "something went wrong" not in err  # the CLI's words for an unexpected error


def test_a_deeply_nested_stream_line_is_a_reply_coach_cannot_read(
    ollama: FakeOllama, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ollama.inject(OllamaFault.DEEP_LINE, times=None)
    code, data, err = practise(capsys, tmp_path, "--judge", "off")
    no_crash(err)
    assert code == 0  # practice goes on with a built-in challenge, and says why
    assert "nested too deeply to read" in err and "built-in challenge" in err
    assert len(data["items"]) == 1


def test_a_deeply_nested_challenge_is_a_reply_coach_cannot_read(
    ollama: FakeOllama, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    ollama.reply_for = lambda _request: '{"challenge": ' + SHORT_NESTED + ', "kind": "explain"}'
    code, data, err = practise(capsys, tmp_path, "--judge", "off")
    no_crash(err)
    assert code == 0
    assert "nested too deeply to read" in err and "built-in challenge" in err
    assert len(data["items"]) == 1


@pytest.mark.parametrize("where", ["stream", "verdict"])
def test_judge_pending_with_the_local_judge_survives_a_deeply_nested_reply(
    ollama: FakeOllama, capsys: pytest.CaptureFixture[str], tmp_path: Path, where: str
) -> None:
    code, data, err = practise(capsys, tmp_path, "--judge", "off")
    assert code == 0, err
    assert data["items"][0]["status"] != "judged"
    if where == "stream":
        ollama.inject(OllamaFault.DEEP_LINE, times=None)
    else:
        nested = SHORT_NESTED  # a reply under the judge's length cap
        ollama.judge_reply_for = lambda _request: '{"items": ' + nested + "}"
    for _ in range(2):  # the answer stays pending, and the next run is no crash either
        code, _, err = coach(capsys, "judge-pending")
        no_crash(err)
        assert code in (0, 1)
    ollama.judge_reply_for = None
    ollama._faults.clear()
    code, _, err = coach(capsys, "judge-pending")
    assert code == 0, err  # with a sane reply, the answer is judged after all
    code, sessions, _ = coach(capsys, "sessions", "--json")
    assert "judged" in json.dumps(sessions)
