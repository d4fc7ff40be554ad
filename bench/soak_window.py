"""A long evening in the real main window, at full size (issue 13).

2,000 note switches and 30 practice sessions against an instant fake Ollama (a share of
its replies quote the note) and a fake judge that injects random faults, both privacy
switches flipped and the window finished or quit at random moments; every step has a
deadline, and a hang dumps every thread's stack. Prints steps, wall time, peak memory,
hangs, answers lost, verify, and how far None/True moved. Each seed runs in a fresh
process with a fresh data folder. The driver is tests/stress/window_soak.py.

    python bench/soak_window.py [--seeds 3] [--switches 2000] [--sessions 30]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def child(switches: int, sessions: int, seed: int) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from stress.window_soak import REFCOUNT_FALL_TOLERANCE, SoakConfig, run_soak

    report = run_soak(SoakConfig(switches=switches, sessions=sessions, seed=seed))
    print("\n".join(f"  {line}" for line in report.lines()), flush=True)
    ok = not report.answers_lost and report.verify_ok and not report.left_running
    fall = -REFCOUNT_FALL_TOLERANCE
    sys.exit(0 if ok and report.none_delta >= fall and report.true_delta >= fall else 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--switches", type=int, default=2_000)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.switches, args.sessions, args.child)
        return
    failed = 0
    for seed in range(1, args.seeds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(
                os.environ, QT_QPA_PLATFORM="offscreen", COACH_HOME=f"{tmp}/home",
                COACH_CONFIG=f"{tmp}/coach.config.json", XDG_CONFIG_HOME=f"{tmp}/xdg",
                XDG_DATA_HOME=f"{tmp}/xdg-data", COACH_TEST_KEYRING=f"{tmp}/keys.json",
                PYTHON_KEYRING_BACKEND="fakes.keyring_backend.FileKeyring",
                PYTHONPATH=os.pathsep.join([str(REPO), str(REPO / "tests")]),
            )  # fmt: skip
            print(f"seed {seed}:", flush=True)
            code = subprocess.run(
                [sys.executable, __file__, "--child", str(seed),
                 "--switches", str(args.switches), "--sessions", str(args.sessions)],
                env=env, check=False, stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
            hung = "soak: hang" in code.stderr or "Timeout (" in code.stderr
            if code.returncode != 0:
                failed += 1
                kind = "HANG" if hung else f"exit {code.returncode}"
                print(f"  {kind}; stderr tail:\n{code.stderr[-3000:]}", flush=True)
    print(f"{args.seeds} runs, {failed} failed (crash, hang, answer lost or verify failed)")


if __name__ == "__main__":
    main()
