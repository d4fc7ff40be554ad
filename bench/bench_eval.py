"""Paired eval throughput: 50 answers x 3 repeats x 2 arms against the loopback fake Gemini
answering after 200 ms, 8 calls at a time, through the real stack (GeminiJudge, the SQLite
outbox with synchronous=FULL, sealing every call, the signed report stored in the journal).

Prints the wall time, the ideal (calls x latency / concurrency) and their ratio.
Target: ratio <= 1.5.

    python bench/bench_eval.py [--items 50] [--repeats 3] [--concurrency 8] [--latency 0.2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakes.gemini_server import FakeGemini
from fakes.noisy_judge import NoisyVerdicts

from coach_gui.adapters.gemini import GeminiJudge
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.evals import SqliteEvalJournal
from coach_gui.adapters.journal.outbox import SqliteOutbox
from coach_gui.bootstrap import SystemClock
from coach_gui.domain.eval_traces import key_id_for
from coach_gui.services.evals import EvalItem, run_eval

KEY = "bench-key"
MODEL = "gemini-2.5-flash"


class _Keys:
    """The signing key in memory: the bench measures judging, not the OS keyring."""

    key = bytes(range(32))

    def signing_key(self) -> tuple[str, bytes]:
        return key_id_for(self.key), self.key

    def key_for(self, key_id: str) -> bytes | None:
        return self.key


def _items(count: int) -> list[EvalItem]:
    return [
        EvalItem(
            session_id=f"{n:032x}",
            attempt_id=f"{n:064x}",
            challenge=f"Challenge {n}: why does a small change take so long to add up?",
            answer=f"Answer {n}: " + ("because each step is slight." if n % 3 else "it is slow."),
            assertions=("Selection acts only on inherited variation.", "Change is slow."),
        )
        for n in range(count)
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=50)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    noise = NoisyVerdicts(p_without=0.2, p_with=0.02, latency_seconds=args.latency)
    with tempfile.TemporaryDirectory() as folder, FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = noise
        journal = Journal.open(Path(folder) / "journal.sqlite3")
        judge = GeminiJudge(
            KEY,
            model=MODEL,
            base_url=gemini.url,
            api_version="v1beta",
            timeout_seconds=30,
            temperature=0.0,
            max_retries=0,
            outbox=SqliteOutbox(journal),
        )
        items = _items(args.items)
        calls = len(items) * args.repeats * 2
        started = time.perf_counter()
        run = run_eval(
            items,
            judge=judge,
            clock=SystemClock(),
            store=SqliteEvalJournal(journal),
            keys=_Keys(),
            repeats=args.repeats,
            concurrency=args.concurrency,
            include_assertions=True,
            judge_model=MODEL,
        )
        wall = time.perf_counter() - started
        judge.close()
        journal.close()
    ideal = calls * args.latency / args.concurrency
    on, off = run.report.arm("assertions_on"), run.report.arm("assertions_off")
    print(
        f"{len(items)} items x {args.repeats} repeats x 2 arms = {calls} calls, "
        f"latency {args.latency * 1000:.0f} ms, concurrency {args.concurrency}"
    )
    print(f"wall time   {wall:.2f} s")
    print(f"ideal       {ideal:.2f} s  (calls x latency / concurrency)")
    print(f"ratio       {wall / ideal:.2f}x  (target <= 1.5x)")
    print(f"errors      {on.errors + off.errors}")
    print(f"consistency on {on.consistency}  off {off.consistency}  verdict {run.report.verdict}")


if __name__ == "__main__":
    main()
