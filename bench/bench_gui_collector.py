"""Where and how long Python's cyclic garbage collector runs in the real window (ADR 0029),
side by side in one run:

- a bare PySide6 window: one explicit collection of each generation (the interpreter's and
  Qt's floor);
- Coach's window over a real-shaped vault (`coach --smoke --soak`: the notes listed, then
  2,000 note switches and 100,000 void calls), with its collector on the GUI thread;
- the same with Python's automatic collector left on (what Coach did before): it runs on
  whichever thread allocates, so this peer can crash (the run then says so).

For each: collections by generation and thread, the longest pause a collection made on the
GUI thread, the share of the run spent collecting, and the process's exit status.

    python bench/bench_gui_collector.py [--vault-notes 13000] [--runs 2]

Prints figures only; nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_startup import prepare_home  # noqa: E402

# Registered before anything else runs in the child: times every collection by thread.
_COUNTER = r"""
import atexit, gc, json, os, sys, threading, time
_gui = threading.get_ident()
_seen = {}
_began = {}
_gui_pauses = []  # (seconds since start, ms) of every collection on the GUI thread
_started = time.perf_counter()
def _counted(phase, info):
    me = threading.get_ident()
    if phase == "start":
        _began[me] = time.perf_counter()
        return
    took = (time.perf_counter() - _began.pop(me, time.perf_counter())) * 1000
    where = "gui" if me == _gui else "other"
    row = _seen.setdefault(f"{where} gen{info['generation']}", [0, 0.0, 0.0, 0.0])
    row[0] += 1; row[1] += took
    if took > row[2]:
        row[2], row[3] = took, time.perf_counter() - _started
    if where == "gui":
        _gui_pauses.append((time.perf_counter() - _started, took))
gc.callbacks.append(_counted)
def _report():
    print("COLLECTOR " + json.dumps({"seen": _seen, "wall": time.perf_counter() - _started,
                                     "objects": len(gc.get_objects()),
                                     "gui_pauses": _gui_pauses}), flush=True)
"""

BARE = (
    _COUNTER
    + r"""
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow
app = QApplication([])
window = QMainWindow()
window.setCentralWidget(QLabel("bare"))
window.show()
app.processEvents()
for generation in (0, 1, 2):
    for _ in range(3):
        gc.collect(generation)
_report()
"""
)

COACH = (
    _COUNTER
    + r"""
from coach_gui.ui.shell import app as coach_app
from coach_gui.ui.kit import tasks
if os.environ.get("BENCH_AUTOMATIC_COLLECTOR") == "1":
    tasks.collect_on_gui_thread = lambda: None  # what Coach did before ADR 0029
if os.environ.get("BENCH_COLLECT_EVERY_MS"):
    tasks.COLLECT_EVERY_MS = int(os.environ["BENCH_COLLECT_EVERY_MS"])
code = coach_app.run_gui(["--smoke", "--soak"], smoke=True, soak=True)
_report()
sys.exit(code)
"""
)


def run(script: str, env: dict[str, str]) -> dict[str, object]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=900
    )
    took = time.perf_counter() - started
    found = [line for line in done.stdout.splitlines() if line.startswith("COLLECTOR ")]
    data: dict[str, object] = json.loads(found[-1][len("COLLECTOR ") :]) if found else {}
    data["code"] = done.returncode
    data["smoke"] = [line for line in done.stdout.splitlines() if line.startswith("coach --")]
    data["took"] = took
    if done.returncode != 0:
        data["tail"] = done.stderr.strip().splitlines()[-3:]
    return data


def describe(label: str, data: dict[str, object]) -> str:
    seen: dict[str, list[float]] = data.get("seen", {})  # type: ignore[assignment]
    if not seen:
        status = "crashed (segmentation fault)" if data["code"] == -11 else f"exit {data['code']}"
        return f"{label}: {status} after {data['took']:.1f} s; {data.get('tail', '')}"
    parts = []
    total_ms = 0.0
    for key in sorted(seen):
        count, spent, longest, when = seen[key]
        total_ms += spent
        parts.append(
            f"{key} ×{count:,.0f} ({spent:.0f} ms, longest {longest:.1f} ms at {when:.1f} s)"
        )
    wall = float(data["wall"])  # type: ignore[arg-type]
    listed = [
        float(m.group(1))
        for line in data.get("smoke", [])  # type: ignore[attr-defined]
        if (m := re.search(r"notes listed at ([0-9.]+) s", line))
    ]
    if listed:  # the evening proper: from a second after the notes were listed (the soak's
        # own full collection, `qt_health.settle`, comes right after the listing)
        later = [ms for at, ms in data["gui_pauses"] if at > listed[0] + 1.0]  # type: ignore[attr-defined]
        parts.append(
            f"after the listing: {len(later):,} collections on the GUI thread, longest "
            f"{max(later, default=0):.1f} ms, median {statistics.median(later or [0]):.2f} ms"
        )
    others = sum(int(v[0]) for k, v in seen.items() if k.startswith("other"))
    return (
        f"{label}: exit {data['code']}, {wall:.1f} s, {data['objects']:,} objects tracked at "
        f"the end; collections on other threads: {others:,}; collecting took "
        f"{total_ms:.0f} ms ({100 * total_ms / 1000 / max(wall, 1e-9):.2f}% of the run)\n    "
        + "\n    ".join([*parts, *data.get("smoke", [])])  # type: ignore[list-item]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault-notes", type=int, default=13_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--every",
        type=int,
        nargs="*",
        default=[],
        help="also run Coach with the collector looking every N ms (to compare intervals)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coach-gc-") as tmp:
        env = prepare_home(Path(tmp), args.vault_notes, vault=True)
        env["PYTHONPATH"] = str(REPO)
        peers = {
            "bare PySide6 window": (BARE, env),
            "Coach, collector on the GUI thread": (COACH, env),
            "Coach, Python's automatic collector": (
                COACH,
                {**env, "BENCH_AUTOMATIC_COLLECTOR": "1"},
            ),
        }
        for every in args.every:
            peers[f"Coach, collector on the GUI thread every {every} ms"] = (
                COACH,
                {**env, "BENCH_COLLECT_EVERY_MS": str(every)},
            )
        results: dict[str, list[dict[str, object]]] = {label: [] for label in peers}
        for _ in range(args.runs):  # interleaved: a busy moment falls on every peer alike
            for label, (script, peer_env) in peers.items():
                results[label].append(run(script, peer_env))
        print(f"vault: {args.vault_notes:,} notes; {args.runs} runs of each, interleaved")
        for label, runs in results.items():
            for number, data in enumerate(runs, 1):
                print(describe(f"{label} (run {number})", data))
        soaks = [float(d["took"]) for d in results["Coach, collector on the GUI thread"]]
        print(
            f"soak wall time, collector on the GUI thread: median {statistics.median(soaks):.1f} s"
        )


if __name__ == "__main__":
    main()
