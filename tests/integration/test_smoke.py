"""`coach --smoke`, as CI runs it on the bundle: a fresh process opens the main window
offscreen, lists the sample notes, prints one line and exits 0, without the first-run
welcome."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / "coach_gui" / "resources" / "sample_kb"
pytestmark = pytest.mark.slow


def test_smoke_opens_the_window_lists_the_notes_and_exits_0(tmp_path: Path) -> None:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    # Ollama at a loopback port where nothing listens: the check fails fast, offline.
    config.write_text(json.dumps({"tier1": {"ollamaUrl": "http://127.0.0.1:9"}}), "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "coach_gui", "--smoke"],
        capture_output=True,
        text=True,
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("coach --smoke: main window shown ")
    samples = len(list(SAMPLES.glob("*.md")))
    assert f"; {samples} notes listed at " in lines[0]
    assert f"; {samples} read from the files at " in lines[0]
    assert "Traceback" not in result.stderr
    kb = Path(os.environ["COACH_HOME"]) / "kb"
    assert len(list(kb.glob("*.md"))) == samples  # the sample knowledge base, seeded on first run
    settings = [p for p in Path(os.environ["XDG_CONFIG_HOME"]).rglob("*") if p.is_file()]
    assert not any("welcome" in p.read_text(errors="replace") for p in settings)


def test_smoke_with_a_bad_config_says_why_and_exits_2_instead_of_waiting_for_a_click() -> None:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("{not json", "utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "coach_gui", "--smoke"],
        capture_output=True,
        text=True,
        env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
        timeout=120,
        check=False,
    )
    assert result.returncode == 2
    assert f"coach: {config}: not valid JSON" in result.stderr
    assert "Traceback" not in result.stderr
