"""Issue 33, item 9: `coach sessions | head -1`, and every other command's output into a pipe
whose reader has gone: Coach stops quietly with 141 (128 + SIGPIPE, as a shell reports for
`yes | head -1`), adds nothing on stderr and logs nothing. Before, it printed "coach:
something went wrong" and logged a BrokenPipeError."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from cli_run import coach_process

CLOSED_PIPE = 141
COMMANDS = (  # every command that prints on stdout on a home with one practised note
    ("notes",),
    ("notes", "--json"),
    ("sessions",),
    ("sessions", "--json"),
    ("gaps", "--json"),
    ("today",),
    ("today", "--json"),
    ("stats",),
    ("stats", "--json"),
    ("optimize",),
    ("optimize", "--json"),
    ("verify",),
    ("verify", "--json"),
    ("doctor",),
    ("doctor", "--json"),
    ("key", "status"),
    ("key", "status", "--json"),
    ("backup",),
    ("backup", "--json"),
    ("schedule", "undo", "--json"),
    ("practice", "natural-selection", "--answers", "ANSWERS", "--judge", "off"),
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def practised(tmp_path: Path) -> Path:
    """A home with one note and one practice session in it (no Ollama: built-in challenges)."""
    home = Path(os.environ["COACH_HOME"])
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "kb": {"path": str(home / "notes")},
                "tier1": {"ollamaUrl": f"http://127.0.0.1:{_free_port()}"},
                "judge": {"enabled": False},
            }
        ),
        encoding="utf-8",
    )
    front = {"id": "note1", "title": "Natural selection", "core_assertions": ["A.", "B."]}
    (home / "notes").mkdir(parents=True)
    (home / "notes" / "natural-selection.md").write_text(
        "---\n" + yaml.safe_dump(front) + "---\nBody of the note.\n", encoding="utf-8"
    )
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["Each step is slight.", "No idea."]), encoding="utf-8")
    done = _coach("practice", "natural-selection", "--answers", str(answers), "--judge", "off")
    assert done.returncode == 0, done.stderr
    return answers


def _coach(*args: str, stdout: int = subprocess.PIPE) -> subprocess.CompletedProcess[str]:
    return coach_process(*args, stdout=stdout)


def _log() -> str:
    log = Path(os.environ["COACH_HOME"]) / "logs" / "coach.log"
    return log.read_text(encoding="utf-8", errors="replace") if log.exists() else ""


def test_coach_sessions_into_head_stops_quietly(practised: Path) -> None:
    # As the learner typed it. Whether Coach is still writing when `head` goes depends on
    # timing (a short listing fits the pipe): the test below closes the pipe first.
    shell = subprocess.run(
        f'"{sys.executable}" -m coach_gui sessions | head -1 >/dev/null; echo "${{PIPESTATUS[0]}}"',
        shell=True,
        executable="/bin/bash",
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert shell.stderr == ""
    assert shell.stdout.strip() in {str(CLOSED_PIPE), "0"}  # 0: all of it fit the pipe first
    assert "BrokenPipe" not in _log() and "went wrong" not in _log()


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_into_a_closed_pipe_exits_141_and_says_nothing(
    practised: Path, args: tuple[str, ...]
) -> None:
    args = tuple(str(practised) if a == "ANSWERS" else a for a in args)
    shown = _coach(*args)
    assert shown.stdout, f"`coach {' '.join(args)}` prints nothing: not a test of a pipe"
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before Coach writes its first line
    try:
        closed = _coach(*args, stdout=write_end)
    finally:
        os.close(write_end)
    assert closed.returncode == CLOSED_PIPE, closed.stderr
    # Only what it says on a pipe that is read too ("Practising …"), and nothing else.
    assert set(closed.stderr.splitlines()) <= set(shown.stderr.splitlines()), closed.stderr
    assert "went wrong" not in closed.stderr
    assert "BrokenPipe" not in _log() and "went wrong" not in _log()
