"""The installed app: bundle size, build time, and cold start of the bundle to its main window.

    python bench/bench_bundle.py [--build] [--runs 7] [--bundle dist/coach/coach]

--build runs packaging/build first and reads its timings; without it the bundle already in
dist/ is measured (build it with packaging/build). Each start is a fresh process of the
bundle with `--smoke`, offscreen, in an empty home (so it seeds the sample notes, as on a
learner's first run); "shown" is the time from process creation to the main window shown,
as `--smoke` reports it from /proc; "listed" adds the first load of the notes; "exit" is the
wall time from spawn to exit. The page cache is warm after the first run.

Target (issue 8): bundle cold start to main window ≤ 0.8 s (median).
Prints figures only; nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SMOKE_LINE = re.compile(r"shown (?P<shown>[\d.]+) s .*listed at (?P<listed>[\d.]+) s")


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def mib(count: int) -> str:
    return f"{count / 1048576:.1f} MiB"


def build() -> dict[str, str]:
    """Run packaging/build; its `build: ... in N s` lines, by step."""
    started = time.perf_counter()
    result = subprocess.run(
        [str(REPO / "packaging" / "build"), "--python", sys.executable],
        capture_output=True,
        text=True,
        check=True,
    )
    times = {"wall": f"{time.perf_counter() - started:.1f} s"}
    for line in result.stdout.splitlines():
        match = re.match(r"build: (bundle|package|total).* ([\d.]+) s$", line)
        if match:
            times[match.group(1)] = f"{match.group(2)} s"
    return times


def smoke_once(bundle: Path, root: Path) -> tuple[float, float, float]:
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(root / "home"),
        "LANG": "C.UTF-8",
        "QT_QPA_PLATFORM": "offscreen",
        "COACH_HOME": str(root / "data"),
        "COACH_CONFIG": str(root / "config" / "coach.config.json"),
        "XDG_CONFIG_HOME": str(root / "xdg-config"),
        "XDG_RUNTIME_DIR": str(root / "runtime"),
    }
    (root / "runtime").mkdir(mode=0o700, parents=True)
    started = time.perf_counter()
    result = subprocess.run(
        [str(bundle), "--smoke"], capture_output=True, text=True, env=env, timeout=120
    )
    wall = time.perf_counter() - started
    match = SMOKE_LINE.search(result.stdout)
    if result.returncode != 0 or match is None:
        raise SystemExit(f"bench_bundle: --smoke failed ({result.returncode}): {result.stderr}")
    return float(match["shown"]), float(match["listed"]), wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true", help="run packaging/build first")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--bundle", type=Path, default=REPO / "dist" / "coach" / "coach")
    args = parser.parse_args()

    if args.build:
        for step, took in build().items():
            print(f"build time ({step}): {took}")
    if not args.bundle.exists():
        raise SystemExit(f"bench_bundle: no bundle at {args.bundle}; run packaging/build")
    folder = args.bundle.parent
    print(f"bundle: {folder} {mib(folder_size(folder))}")
    debs = sorted((REPO / "dist").glob("coach_*.deb"), key=lambda p: p.stat().st_mtime)
    if debs:
        print(f".deb: {debs[-1].name} {mib(debs[-1].stat().st_size)}")

    shown, listed, wall = [], [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="coach-bench-") as root:
            a, b, c = smoke_once(args.bundle, Path(root))
        shown.append(a)
        listed.append(b)
        wall.append(c)
    print(f"cold start, {args.runs} runs, {os.cpu_count()} CPUs (median, min–max):")
    for name, values in (("main window shown", shown), ("notes listed", listed), ("exit", wall)):
        print(
            f"  {name:<17} {statistics.median(values):.3f} s ({min(values):.3f}–{max(values):.3f})"
        )
    print("  target: main window shown ≤ 0.8 s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
