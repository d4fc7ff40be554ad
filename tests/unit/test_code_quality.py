"""STYLE habit 10, kept by the suite: ruff lint and format, and strict types in the core."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=False)


def test_ruff_lint_is_clean() -> None:
    result = _run(str(BIN / "ruff"), "check", "coach_gui", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = _run(str(BIN / "ruff"), "format", "--check", "coach_gui", "tests", "bench")
    assert result.returncode == 0, result.stdout + result.stderr


def test_domain_services_and_config_type_check_strictly() -> None:
    result = _run(
        sys.executable,
        "-m",
        "mypy",
        "--no-incremental",
        "coach_gui/domain",
        "coach_gui/services",
        "coach_gui/config.py",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_faces_operations_and_fakes_type_check() -> None:
    """Issue 35: the window, the terminal, the operations and the entry points too (the
    core above is held to `strict`; these to mypy's defaults), and the test fakes, which
    `fakes.in_ram._conforms` and their annotations hold to the ports they stand in for."""
    result = _run(
        sys.executable,
        "-m",
        "mypy",
        "--no-incremental",
        "coach_gui/ui",
        "coach_gui/commands",
        "coach_gui/operations",
        "coach_gui/cli.py",
        "coach_gui/bootstrap.py",
        "tests/fakes",
    )
    assert result.returncode == 0, result.stdout + result.stderr
