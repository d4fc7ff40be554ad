"""`coach notes --json` over a vault holding notes meant to take it down (issue 34 item 3):
the red team's 462-byte alias bomb and larger ones, a named pipe and a link to /dev/zero,
beside the sample notes. Each run is a fresh process (first run: the cache is written;
second run: it is read); its wall time and peak resident memory (the kernel's account of
that one child, wait4) are printed, and the size of the front-matter cache it leaves.
Then the time to read the largest honest front matter a note may hold (a 1 MB list).

    python bench/bench_hostile_notes.py [--runs 3]

Before the fix (red team's figures): 139 s and 3.6 GB, and a 1.85 GB cache, for the 9-level
bomb; 17 s and 206 MB for 8 levels; a FIFO hung every command. Prints figures only.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def bomb(levels: int, width: int = 9) -> bytes:
    lines = ["a0: &a0 [" + ",".join(['"lol"'] * width) + "]"]
    lines += [f"a{n}: &a{n} [" + ",".join([f"*a{n - 1}"] * width) + "]" for n in range(1, levels)]
    return ("---\ntitle: Laughs\n" + "\n".join(lines) + "\n---\n").encode()


def run(home: Path) -> tuple[float, int, int]:
    env = dict(os.environ, COACH_HOME=str(home), COACH_CONFIG=str(home / "coach.config.json"),
               PYTHONPATH=str(REPO))  # fmt: skip
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "coach_gui", "notes", "--json"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - started
    assert os.waitstatus_to_exitcode(status) == 0
    cache = home / "cache" / "front-matter.json"
    return elapsed, usage.ru_maxrss, cache.stat().st_size if cache.exists() else 0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    runs = parser.parse_args().runs
    cases = {
        "samples only": {},
        f"+ 9-level bomb ({len(bomb(9))} B)": {"bomb.md": bomb(9)},
        "+ 8, 9, 12-level and 40-wide bombs": {
            "b8.md": bomb(8), "b9.md": bomb(9), "b12.md": bomb(12), "wide.md": bomb(8, 40)},
        "+ a FIFO and a /dev/zero link": {"pipe.md": None, "zero.md": "/dev/zero"},
    }  # fmt: skip
    print(f"{'vault':40} {'first run':>10} {'again':>8} {'peak RSS':>10} {'cache':>9}")
    for label, files in cases.items():
        firsts, agains, peaks, caches = [], [], [], []
        for _ in range(runs):
            with tempfile.TemporaryDirectory() as folder:
                home = Path(folder)
                run(home)  # seeds the sample notes into home/kb
                for name, content in files.items():
                    path = home / "kb" / name
                    if content is None:
                        os.mkfifo(path)
                    elif isinstance(content, str):
                        path.symlink_to(content)
                    else:
                        path.write_bytes(content)
                (home / "cache" / "front-matter.json").unlink(missing_ok=True)
                first, peak, cache = run(home)
                again, peak_again, _ = run(home)
                firsts.append(first)
                agains.append(again)
                peaks.append(max(peak, peak_again))
                caches.append(cache)
        print(f"{label:40} {statistics.median(firsts):9.2f}s {statistics.median(agains):7.2f}s"
              f" {max(peaks) / 1024:8.0f}MB {max(caches) / 1024:7.0f}KB")  # fmt: skip

    sys.path.insert(0, str(REPO))
    from coach_gui.adapters import front_matter

    front = "many: [" + ",".join(["x"] * 499_990) + "]"
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        front_matter.load_yaml(front)
        times.append(time.perf_counter() - started)
    print(f"a 1 MB front-matter list (500,000 values): {statistics.median(times):.2f} s"
          f" to read (budget {front_matter.PARSE_BUDGET_SECONDS:.0f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
