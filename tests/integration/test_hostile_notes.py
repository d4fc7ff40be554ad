"""Notes that cannot take the vault down (issue 34, item 3): an alias bomb, a named pipe, a
link to /dev/zero. Each `coach` command runs in a process of its own with a timeout, and
its peak memory is read from the kernel's account of that one child (wait4), so a hang or
a flood fails the test instead of the machine. No wall-clock time is asserted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fakes.coach_files import write_note

MEMORY_BOUND_KB = 400_000  # a `coach notes` run is ~100 MB; the bomb took 3.6 GB before
HANG_SECONDS = 90.0  # far longer than any listing here takes; a hang is killed and fails
ADDRESS_SPACE_CAP = 3 << 30  # so a regression fails with MemoryError, not the machine


def alias_bomb(levels: int, width: int = 9, size: int | None = None) -> bytes:
    """The "billion laughs" in a note's front matter: `width` ** `levels` values once
    expanded, from a few hundred bytes (`size` pads the body to that many bytes)."""
    lines = ["a0: &a0 [" + ",".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * width) + "]")
    text = "---\ntitle: Laughs\n" + "\n".join(lines) + "\n---\n"
    if size is not None:
        assert len(text) <= size
        text += "x" * (size - len(text))
    return text.encode()


def deep_note(levels: int = 500) -> bytes:
    """A kilobyte of lists inside lists: no alias at all, but deep enough to overflow the
    YAML loader's stack (a crash of every command that read the vault, before review)."""
    return f"---\ntitle: Deep\ndeep: {'[' * levels}{']' * levels}\n---\n".encode()


# The kernel carries a process's peak resident size across exec, so a child forked straight
# from this (large, after a whole suite) test process would report the test process's peak.
# A small launcher forks `coach` instead and reports that grandchild's own peak.
_LAUNCHER = """
import os, resource, sys
peak_file, cap = sys.argv[1], int(sys.argv[2])
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    os.execv(sys.executable, [sys.executable, "-m", "coach_gui", *sys.argv[3:]])
_, status, usage = os.wait4(pid, 0)
with open(peak_file, "w") as f:
    f.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
"""


def run_coach(home: Path, config: Path, *args: str) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak resident KB) of one `coach` run in its own
    process; killed (and the test failed) past HANG_SECONDS."""
    env = dict(os.environ, COACH_HOME=str(home), COACH_CONFIG=str(config))
    out, err = home.parent / "out.txt", home.parent / "err.txt"
    peak = home.parent / "peak.txt"
    launcher = [sys.executable, "-c", _LAUNCHER, str(peak), str(ADDRESS_SPACE_CAP), *args]
    with out.open("wb") as stdout, err.open("wb") as stderr:
        child = subprocess.Popen(
            launcher,
            stdout=stdout,
            stderr=stderr,
            stdin=subprocess.DEVNULL,
            env=env,
            start_new_session=True,
        )
        try:
            child.wait(timeout=HANG_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            pytest.fail(f"coach {' '.join(args)} hung (killed after {HANG_SECONDS:.0f} s)")
    code = child.returncode
    if code > 128:  # the launcher passes a signal death on as 128 + its number
        code = -(code - 128)
    return code, out.read_text(), err.read_text(), int(peak.read_text())


@pytest.fixture
def vault(tmp_path: Path) -> tuple[Path, Path, Path]:
    home = tmp_path / "home"
    config = tmp_path / "cfg" / "coach.config.json"
    kb = home / "kb"
    write_note(kb, "Plain", {"title": "Plain", "core_assertions": ["One thing."]}, "Body.\n")
    return home, config, kb


def broken_of(stdout: str) -> dict[str, str]:
    data = json.loads(stdout)
    return {b["file"]: b["error"] for b in data["broken"]}


def test_the_alias_bomb_and_larger_ones_are_listed_as_refused_with_bounded_memory(
    vault: tuple[Path, Path, Path],
) -> None:
    home, config, kb = vault
    (kb / "bomb.md").write_bytes(alias_bomb(9, size=462))  # the red team's 462 bytes
    (kb / "bigger.md").write_bytes(alias_bomb(12))
    (kb / "wider.md").write_bytes(alias_bomb(8, width=40))
    # Under the alias bound but with each alias fanning out to a long list.
    (kb / "long lists.md").write_bytes(
        b"---\ntitle: Long\nl: &l [" + b",".join([b"x"] * 5000) + b"]\n"
        + b"m: [" + b",".join([b"*l"] * 90) + b"]\n---\n"
    )  # fmt: skip
    assert len((kb / "bomb.md").read_bytes()) == 462
    (kb / "deep.md").write_bytes(deep_note())
    code, stdout, stderr, peak_kb = run_coach(home, config, "notes", "--json")
    assert code == 0, stderr
    broken = broken_of(stdout)
    for name in ("bomb.md", "bigger.md", "wider.md", "long lists.md"):
        assert "aliases" in broken[name], broken
    assert "levels deep" in broken["deep.md"], broken
    assert "Traceback" not in stderr
    titles = [n["title"] for n in json.loads(stdout)["notes"]]
    assert "Plain" in titles  # the rest of the vault is read as before
    assert peak_kb < MEMORY_BOUND_KB, f"peak {peak_kb} KB"
    caches = [p for p in home.rglob("*") if p.is_file() and "cache" in p.name.lower()]
    assert all(p.stat().st_size < 1_000_000 for p in caches), caches
    # The plain text listing names each refused note with its reason too.
    code, _, stderr, _ = run_coach(home, config, "notes")
    assert code == 0
    assert "bomb.md: its YAML aliases" in stderr


def test_a_pipe_and_a_link_to_dev_zero_are_listed_as_unreadable(
    vault: tuple[Path, Path, Path],
) -> None:
    home, config, kb = vault
    os.mkfifo(kb / "pipe.md")
    (kb / "zero.md").symlink_to("/dev/zero")
    (kb / "null.md").symlink_to("/dev/null")
    sub = kb / "deeper"
    sub.mkdir()
    os.mkfifo(sub / "another pipe.md")
    code, stdout, stderr, peak_kb = run_coach(home, config, "notes", "--json")
    assert code == 0, stderr
    broken = broken_of(stdout)
    assert "a pipe" in broken["pipe.md"]
    assert "a pipe" in broken["deeper/another pipe.md"]
    assert "a device" in broken["zero.md"]
    assert "a device" in broken["null.md"]
    assert "not an ordinary file" in broken["zero.md"]
    assert peak_kb < MEMORY_BOUND_KB
    assert [n["title"] for n in json.loads(stdout)["notes"]] == ["Plain"]


@pytest.mark.parametrize("command", [("doctor", "--json"), ("today", "--json"), ("notes",)])
def test_commands_that_read_the_vault_never_hang_on_a_pipe_or_a_bomb(
    vault: tuple[Path, Path, Path], command: tuple[str, ...]
) -> None:
    home, config, kb = vault
    os.mkfifo(kb / "pipe.md")
    (kb / "zero.md").symlink_to("/dev/zero")
    (kb / "bomb.md").write_bytes(alias_bomb(9, size=462))
    (kb / "deep.md").write_bytes(deep_note())
    code, _, stderr, peak_kb = run_coach(home, config, *command)
    assert code in (0, 1), stderr  # doctor may report other checks; never a crash (2+)
    assert "Traceback" not in stderr
    assert "something went wrong" not in stderr  # how a crash exits 1
    assert peak_kb < MEMORY_BOUND_KB
