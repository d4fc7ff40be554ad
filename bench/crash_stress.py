"""Crash durability stress (issue 9, item 1): SIGKILL a child process that saves notes and
submits answers through Coach's own code, at random moments, and check what survived.

Run: python bench/crash_stress.py [--trials 1000] [--seed 1] [--chain 10] [--window 0.5]

Prints trials run, failures found (with the first problems of each), what was
acknowledged before the kills, sessions sealed by crash recovery, and the time per trial.
SIGKILL ends the process, not the machine: this proves durability across a crash of
Coach, not across power loss (that rests on fsync and SQLite's synchronous=FULL).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from stress.crash_driver import TrialResult, run_trials


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--chain", type=int, default=10, help="trials per data folder")
    parser.add_argument("--window", type=float, default=0.5, help="max seconds before the kill")
    parser.add_argument("--keep", type=Path, help="folder for the trials (default: a temp one)")
    args = parser.parse_args()

    def progress(result: TrialResult) -> None:
        if result.problems:
            print(f"trial {result.trial}: FAILED: {result.problems[:3]}", flush=True)
        elif (result.trial + 1) % 50 == 0:
            print(f"... {result.trial + 1} trials", file=sys.stderr, flush=True)

    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="coach-crash-") as scratch:
        root = args.keep or Path(scratch)
        summary = run_trials(
            root,
            args.trials,
            seed=args.seed,
            chain=args.chain,
            window=args.window,
            on_trial=progress,
        )
    elapsed = time.perf_counter() - started
    print(f"trials run:                {summary.trials} (seed {args.seed}, chain {args.chain})")
    print(f"failures found:            {len(summary.failures)}")
    print(f"acknowledged note saves:   {summary.acked_saves}")
    print(f"acknowledged answers:      {summary.acked_answers}")
    print(f"acknowledged seals:        {summary.acked_seals}")
    print(f"sessions sealed by crash recovery: {summary.recovered_sessions}")
    print(f"killed during start-up:    {summary.killed_before_ready}")
    print(f"temp files left by cut writes: {summary.stray_temp_files} (hidden; Coach ignores them)")
    print(
        f"time: {elapsed:.1f} s total, {elapsed / max(summary.trials, 1) * 1000:.0f} ms per trial"
    )
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
