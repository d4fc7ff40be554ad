"""A whole practice session against a real language model, with no fake in between (issue
31): llama.cpp's server with SmolLM2-135M-Instruct on loopback (`tests/real/server.py`),
reached over the OpenAI wire format, writing the challenges and judging the answers.

It asserts what the learner and `coach verify` observe, never the model's words: nothing
that is a placeholder, a non-question or a quote reaches the learner; at least one
challenge the model wrote does; every answer is kept; every judge reply that came back is
well-formed under the schema made for its request; the journal verifies.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from cli_run import coach_process
from real.server import MODEL_ID, real_server

import coach_gui
from coach_gui.domain.challenge_checks import ChallengeChecks
from coach_gui.domain.no_quote import NoQuoteCheck
from coach_gui.domain.tier2 import tier2_payload, verdict_schema

pytestmark = [pytest.mark.real_model, pytest.mark.slow]
ANSWERS = [
    "Traits that help an animal survive get passed on more often, so over many generations "
    "the population changes.",
    "A breeder picks the parents on purpose, while in the wild the surroundings decide who "
    "leaves young.",
    "If the climate changed, different traits would be useful and the population would "
    "drift toward them.",
]


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    with real_server() as url:
        yield url


def _coach(home: Path, config: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return coach_process(*args, home=home, config=config, timeout=900)


def test_a_whole_cli_session_with_a_real_model(server_url: str, tmp_path: Path) -> None:
    home, config = tmp_path / "home", tmp_path / "coach.config.json"
    config.write_text(
        json.dumps(
            {
                "tier1": {
                    "server": "openai",
                    "url": server_url,
                    "model": MODEL_ID,
                    "temperature": 0.9,
                    "seed": 7,
                    "maxRegenerations": 8,
                    "followUps": False,
                },
                "judge": {"provider": "local", "localModel": MODEL_ID, "seed": 1},
            }
        ),
        encoding="utf-8",
    )
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(ANSWERS), encoding="utf-8")
    result = _coach(
        home, config, "practice", "natural-selection", "--answers", str(answers), "--json"
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    shown = [item["challenge"] for item in data["items"]]
    assert len(shown) == len(ANSWERS)

    # What reached the learner: only challenges; at least one written by the model.
    by_model = [i["challenge"] for i in data["items"] if i["origin"] in ("tier1", "follow_up")]
    assert by_model, f"no model challenge got through: {data['notices']}"
    with sqlite3.connect(home / "journal.sqlite3") as conn:
        kept = [r[0] for r in conn.execute("SELECT answer FROM attempts ORDER BY submitted_at")]
        outbox = conn.execute("SELECT payload, response FROM outbox WHERE status = 'ok'").fetchall()
        rejected = conn.execute("SELECT reason FROM challenge_rejections").fetchall()
    note_check = _note_check()
    checks = ChallengeChecks()
    for text in by_model:
        assert "<" not in text and ">" not in text, text
        assert checks.problem(text) is None, text
        assert note_check.check(text) is None, text
    assert kept == ANSWERS  # every answer kept, in order

    # The local judge on the same server: each reply it finished is well-formed under the
    # schema made for its request.
    assert outbox, f"the local judge finished no request: {data['notices']}"
    for payload_json, response in outbox:
        payload = tier2_payload(json.loads(payload_json)["items"], include_assertions=True)
        jsonschema.validate(json.loads(response), verdict_schema(payload))
    print(f"real model: {len(by_model)} model challenges, {len(rejected)} rejections")

    verified = _coach(home, config, "verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def _note_check() -> NoQuoteCheck:
    """The no-quote rule over the whole sample note file (body and assertions)."""
    note = Path(coach_gui.__file__).parent / "resources" / "sample_kb" / "natural-selection.md"
    return NoQuoteCheck(note.read_text(encoding="utf-8"))
