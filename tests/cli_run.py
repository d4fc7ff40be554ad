"""`coach` run in the test's own process, as the integration tests drive it (issue 35: one
copy instead of seven)."""

from __future__ import annotations

import json
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
