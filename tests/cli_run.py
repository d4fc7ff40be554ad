"""`coach` run in the test's own process, as the integration tests drive it (issue 35: one
copy instead of seven)."""

from __future__ import annotations

import json
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
