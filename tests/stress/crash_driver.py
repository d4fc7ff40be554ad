"""Crash durability (issue 9, item 1): a child process (`crash_child`) saves notes and
submits answers through Coach's own code, printing an acknowledgement line after each one
returns; the parent SIGKILLs it at a random moment, then runs `crash_checks`.

A chain of trials shares one data folder, like an app that crashes again and again; each
child starts as the app does (build_context, recovery, the daily backup). 10% of the kills
land during start-up, the rest up to `window` seconds after the child is ready.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stress.crash_checks import (
    ChainState,
    check_backups,
    check_journal,
    check_notes,
    new_temp_files,
)

CHILD = Path(__file__).resolve().with_name("crash_child.py")


@dataclass
class TrialResult:
    trial: int
    killed_before_ready: bool
    acks: dict[str, int]
    recovered: int
    stray_temp_files: int
    problems: list[str]
    seconds: float


@dataclass
class Summary:
    trials: int = 0
    failures: list[TrialResult] = field(default_factory=list)
    acked_saves: int = 0
    acked_answers: int = 0
    acked_seals: int = 0
    recovered_sessions: int = 0
    killed_before_ready: int = 0
    stray_temp_files: int = 0
    seconds: float = 0.0

    def add(self, result: TrialResult) -> None:
        self.trials += 1
        if result.problems:
            self.failures.append(result)
        self.acked_saves += result.acks.get("save", 0)
        self.acked_answers += result.acks.get("answer", 0)
        self.acked_seals += result.acks.get("sealed", 0)
        self.recovered_sessions += result.recovered
        self.killed_before_ready += result.killed_before_ready
        self.stray_temp_files += result.stray_temp_files
        self.seconds += result.seconds


def _write_config(home: Path) -> Path:
    config = home.parent / f"{home.name}.config.json"
    # The judge is off and Tier 1 is never asked: nothing but files and SQLite is used.
    config.write_text(json.dumps({"judge": {"enabled": False}}), encoding="utf-8")
    return config


def _spawn(home: Path, config: Path, seed: int) -> subprocess.Popen[str]:
    env = dict(os.environ, COACH_HOME=str(home), COACH_CONFIG=str(config))
    return subprocess.Popen(
        [sys.executable, str(CHILD), "--seed", str(seed)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _collect(stream: Any, lines: list[str], ready: threading.Event) -> None:
    for line in stream:
        lines.append(line)
        if line.startswith('{"op": "ready"'):
            ready.set()
    ready.set()  # the child ended: nobody should wait longer


def run_trial(
    trial: int,
    home: Path,
    state: ChainState,
    rng: random.Random,
    *,
    window: float,
    early: float,
) -> TrialResult:
    started = time.perf_counter()
    config = _write_config(home)
    child = _spawn(home, config, rng.randrange(2**31))
    lines: list[str] = []
    ready = threading.Event()
    reader = threading.Thread(target=_collect, args=(child.stdout, lines, ready), daemon=True)
    reader.start()
    before_ready = rng.random() < early
    if before_ready:  # during start-up: recovery, the daily backup, loading the notes
        time.sleep(rng.uniform(0.0, 0.6))
    else:
        ready.wait(timeout=120)
        time.sleep(rng.uniform(0.0, window))
    child.send_signal(signal.SIGKILL)
    child.wait()
    reader.join()
    assert child.stderr is not None
    errors = child.stderr.read()
    child.stderr.close()
    problems: list[str] = []
    if child.returncode != -signal.SIGKILL:
        problems.append(f"the child ended by itself ({child.returncode}): {errors[-2000:]}")
    acks = [json.loads(line) for line in lines if line.endswith("\n")]
    counts: dict[str, int] = {}
    for ack in acks:
        counts[ack["op"]] = counts.get(ack["op"], 0) + 1
    problems += check_notes(home, state, acks)
    recovered, journal_problems = check_journal(home, state, acks)
    problems += journal_problems + check_backups(home)
    strays = new_temp_files(home, state)
    return TrialResult(
        trial,
        before_ready and "ready" not in counts,
        counts,
        recovered,
        strays,
        problems,
        time.perf_counter() - started,
    )


def run_trials(
    root: Path,
    trials: int,
    *,
    seed: int = 1,
    chain: int = 10,
    window: float = 0.5,
    early: float = 0.1,
    on_trial: Callable[[TrialResult], None] | None = None,
) -> Summary:
    """`trials` kills, `chain` per data folder (a folder that passed is then deleted)."""
    rng = random.Random(seed)
    summary = Summary()
    state = ChainState()
    for trial in range(trials):
        home = root / f"chain-{trial // chain:04d}"
        if trial % chain == 0:
            state = ChainState()
        result = run_trial(trial, home, state, rng, window=window, early=early)
        summary.add(result)
        if on_trial is not None:
            on_trial(result)
        chain_ends = trial % chain == chain - 1 or trial == trials - 1
        if chain_ends and not any(f.trial // chain == trial // chain for f in summary.failures):
            shutil.rmtree(home, ignore_errors=True)
            home.with_name(f"{home.name}.config.json").unlink(missing_ok=True)
    return summary
