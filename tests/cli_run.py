"""`coach` as the tests drive it (issue 35: one copy instead of one per test module): in the
test's own process (`coach`, `practise`), or in a process of its own (`coach_process`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from coach_gui.cli import main


def coach(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any, str]:
    """(exit code, stdout parsed as JSON when `--json` was asked and something was
    printed, else its text, stderr)."""
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    parsed = json.loads(out.out) if "--json" in argv and out.out.strip() else out.out
    return code, parsed, out.err


def practise(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    *answers: str,
    note: str = "natural-selection",
    extra: tuple[str, ...] = (),
) -> Any:
    """`coach practice NOTE --answers FILE --json`, one challenge per answer (the session's
    count is the answers'); its JSON. A failed run fails the test with what it said."""
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(list(answers)), encoding="utf-8")
    code, data, err = coach(capsys, "practice", note, "--answers", str(path), "--json", *extra)
    assert code == 0, err
    return data


def coach_process(
    *args: str,
    home: Path | None = None,
    config: Path | None = None,
    stdin: str | None = None,
    stdout: int = subprocess.PIPE,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`python -m coach_gui ARGS` in a process of its own, with Coach's folder and config
    given (else the test's own, from the environment); a hang fails at `timeout`."""
    env = dict(os.environ)
    if home is not None:
        env["COACH_HOME"] = str(home)
    if config is not None:
        env["COACH_CONFIG"] = str(config)
    return subprocess.run(
        [sys.executable, "-m", "coach_gui", *args],
        stdout=stdout, stderr=subprocess.PIPE, text=True, env=env, input=stdin,
        timeout=timeout, check=False,
    )  # fmt: skip
