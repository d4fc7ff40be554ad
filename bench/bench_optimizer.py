"""The optimizer on 100,000 reviews (issue 19 figure; ADR 0028): time and peak memory of
`services.optimizer.fit_parameters` (build the items, fit, score before and after, the
14-day preview), and what each candidate optimizer costs to install.

The fit runs in a child process per repeat, and its peak RSS is read from the child's own
`ru_maxrss`: the Rust optimizer allocates outside Python, where tracemalloc cannot see.
The histories come from a simulated learner (tests/fakes/review_history.py) who forgets
sooner than FSRS's average one, practising on the default schedule.

    python bench/bench_optimizer.py [--reviews 100000] [--repeats 3] [--torch-wheel PATH]
"""

from __future__ import annotations

import argparse
import json
import pickle
import resource
import subprocess
import sys
import tempfile
import time
from importlib.metadata import distribution
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]  # this checkout's coach_gui, and the fakes

TORCH_WHEEL_BYTES = 554_581_699  # torch 2.14.1 cp311 manylinux x86_64, the wheel alone


def _histories(reviews: int) -> list[list[object]]:
    from fakes.review_history import forgetful_parameters, simulate

    from coach_gui.domain.memory import ReviewRow
    from coach_gui.services.scheduler import stamp

    found: list[list[object]] = []
    total, seed = 0, 1
    while total < reviews:  # 2,000 assertions over a year: ~20,000 reviews a batch
        for n, history in enumerate(simulate(2_000, 365, truth=forgetful_parameters(), seed=seed)):
            rows = [ReviewRow(f"note{seed}-{n}", "d", f"s{k}", stamp(at), rating, "judge", False)
                    for k, (at, rating) in enumerate(history)]  # fmt: skip
            rows = rows[: reviews - total]
            if rows:
                found.append(rows)
                total += len(rows)
        seed += 1
    return found


def child(path: str) -> None:
    """Fit the pickled histories; print the time and this process's peak RSS."""
    from datetime import timedelta

    from fsrs.scheduler import DEFAULT_PARAMETERS

    from coach_gui.services.optimizer import Fitted, fit_parameters

    with open(path, "rb") as file:
        histories, now = pickle.load(file)
    before_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    began = time.perf_counter()
    result = fit_parameters(histories, DEFAULT_PARAMETERS, desired_retention=0.9, now=now,
                            utc_offset=timedelta(hours=1))  # fmt: skip
    seconds = time.perf_counter() - began
    assert isinstance(result, Fitted), result
    print(json.dumps({
        "seconds": seconds, "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rss_before_fit_kib": before_rss, "summary": result.summary.model_dump(),
        "change": result.change.to_json(),
    }))  # fmt: skip


def _installed_bytes(name: str) -> int:
    dist = distribution(name)
    return sum(
        Path(str(dist.locate_file(f))).stat().st_size
        for f in dist.files or ()
        if Path(str(dist.locate_file(f))).is_file()
    )


def _wheel_bytes(name: str, version: str) -> int | None:
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"{name}=={version}",
             "-d", folder],
            capture_output=True, check=False,
        )  # fmt: skip
        wheels = list(Path(folder).glob("*.whl"))
        return wheels[0].stat().st_size if done.returncode == 0 and wheels else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reviews", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--torch-wheel", type=Path, help="a downloaded torch wheel to size")
    args = parser.parse_args()
    began = time.perf_counter()
    histories = _histories(args.reviews)
    last = max(r.at for rows in histories for r in rows)  # type: ignore[attr-defined]
    print(f"simulated {sum(map(len, histories)):,} reviews of {len(histories):,} assertions "
          f"in {time.perf_counter() - began:.1f} s")  # fmt: skip
    runs = []
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "histories.pickle"
        data.write_bytes(pickle.dumps((histories, last)))
        for _ in range(args.repeats):
            out = subprocess.run([sys.executable, __file__, "--child", str(data)],
                                 capture_output=True, text=True, check=True)  # fmt: skip
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    fastest = min(runs, key=lambda r: r["seconds"])
    times = ", ".join(f"{r['seconds']:.2f}" for r in runs)
    fit = fastest["summary"]
    peak = max(r["peak_rss_kib"] for r in runs) / 1024
    held = fastest["rss_before_fit_kib"] / 1024
    print(f"fit ({args.repeats} runs, each in a fresh process): {times} s; peak RSS "
          f"{peak:.0f} MiB (the process held {held:.0f} MiB before the fit)")  # fmt: skip
    print(f"  log-loss {fit['log_loss_before']:.4f} -> {fit['log_loss_after']:.4f}, RMSE "
          f"{fit['rmse_before']:.4f} -> {fit['rmse_after']:.4f}; {fastest['change']}")  # fmt: skip
    version = distribution("fsrs-rs-python").version
    wheel = _wheel_bytes("fsrs-rs-python", version)
    print(f"fsrs-rs-python {version}: wheel "
          f"{'unknown (no registry)' if wheel is None else f'{wheel / 1e6:.2f} MB'}, installed "
          f"{_installed_bytes('fsrs-rs-python') / 1e6:.2f} MB, no dependencies")  # fmt: skip
    torch = args.torch_wheel.stat().st_size if args.torch_wheel else TORCH_WHEEL_BYTES
    source = "measured" if args.torch_wheel else "torch 2.14.1 cp311 manylinux, as measured"
    print(
        f"fsrs[optimizer] needs torch: its wheel alone {torch / 1e6:.0f} MB ({source}), "
        "before its CUDA libraries"
    )


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        main()
