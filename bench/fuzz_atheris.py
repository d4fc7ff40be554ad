"""Coverage-guided fuzzing (atheris) of the parsers that read outside text: note files, the
config file, the judge's reply, Ollama's NDJSON stream, and `tier2_payload()`.

Each input either parses or raises one of our own CoachError subclasses; anything else is
a finding, printed with the input that caused it (and the run exits 1).

    python bench/fuzz_atheris.py --runs 20000          # each target, then a summary
    python bench/fuzz_atheris.py --target verdicts --runs 100000
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable

TARGETS = ("front_matter", "config", "verdicts", "ndjson", "tier2_payload")


def _front_matter(data: bytes) -> None:
    from coach_gui.adapters import front_matter

    with contextlib.suppress(front_matter.NoteFormatError):
        front_matter.parse(b"---\n" + data, fallback_id="x1")


def _config(data: bytes) -> None:
    from coach_gui.config import parse_config
    from coach_gui.domain.errors import ConfigError

    with contextlib.suppress(ConfigError):
        parse_config(data.decode("utf-8", "replace"))


def _verdicts(data: bytes) -> None:
    from coach_gui.domain.judge_errors import MalformedVerdict
    from coach_gui.domain.tier2 import tier2_payload
    from coach_gui.domain.verdicts import parse_verdicts

    payload = tier2_payload(
        [
            {"challenge": "Why?", "answer": "Because.", "core_assertions": ["A.", "B."]},
            {"challenge": "How?", "answer": "Thus."},
        ],
        include_assertions=True,
    )
    with contextlib.suppress(MalformedVerdict):
        parse_verdicts(data.decode("utf-8", "replace"), payload)


def _ndjson(data: bytes) -> None:
    import httpx

    from coach_gui.adapters.ollama import OllamaClient
    from coach_gui.domain.tier1_errors import Tier1Error

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=data))
    client = OllamaClient("http://127.0.0.1:11434", transport=transport)
    with client, contextlib.suppress(Tier1Error):
        "".join(client.chat_stream("m", [{"role": "user", "content": "hi"}]))


def _tier2_payload(data: bytes) -> None:
    from coach_gui.domain.tier2 import PayloadRejected, tier2_payload

    try:
        items = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return
    with contextlib.suppress(PayloadRejected):
        tier2_payload(items, include_assertions=bool(data[:1] == b"["))


_FUNCTIONS: dict[str, Callable[[bytes], None]] = {
    "front_matter": _front_matter,
    "config": _config,
    "verdicts": _verdicts,
    "ndjson": _ndjson,
    "tier2_payload": _tier2_payload,
}
_SEEDS = {
    "front_matter": b"id: a1\ntitle: T\ntags: [x]\ncore_assertions:\n- A.\n---\nBody\n",
    "config": b'{"tier1": {"ollamaUrl": "http://127.0.0.1:11434"}, "judge": {"enabled": false}}',
    "verdicts": b'{"items": [{"index": 0, "verdict": "pass", "gaps": [], "feedback": "ok"}, '
    b'{"index": 1, "verdict": "fail", "gaps": [{"assertion": null, "problem": "wrong", '
    b'"explanation": "x"}], "feedback": "f"}]}',
    "ndjson": b'{"message":{"content":"Hi"},"done":false}\n{"done":true,"eval_count":3}\n',
    "tier2_payload": b'[{"challenge": "c", "answer": "a", "core_assertions": ["x"]}]',
}


def run_one(target: str, runs: int) -> None:
    """Fuzz one target in this process (atheris takes over sys.argv and exits when done)."""
    import atheris

    with atheris.instrument_imports():
        import coach_gui.adapters.front_matter
        import coach_gui.adapters.ollama
        import coach_gui.config
        import coach_gui.domain.tier2
        import coach_gui.domain.verdicts  # noqa: F401
    corpus = f"/tmp/coach-fuzz-{target}"
    subprocess.run(["mkdir", "-p", corpus], check=True)
    with open(f"{corpus}/seed", "wb") as seed:
        seed.write(_SEEDS[target])
    atheris.Setup(
        [sys.argv[0], f"-runs={runs}", "-print_final_stats=1", "-max_len=4096", corpus],
        _FUNCTIONS[target],
    )
    atheris.Fuzz()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20_000, help="executions per target")
    parser.add_argument("--target", choices=TARGETS, help="one target, in this process")
    args = parser.parse_args()
    if args.target:
        run_one(args.target, args.runs)
        return 0
    failed = False
    for target in TARGETS:  # one process each: atheris exits the process when it is done
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, __file__, "--target", target, "--runs", str(args.runs)],
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.monotonic() - started
        stats = dict(re.findall(r"^stat::(\w+):\s+(\d+)", result.stderr, re.MULTILINE))
        runs = stats.get("number_of_executed_units", "?")
        status = "ok" if result.returncode == 0 else f"FINDING (exit {result.returncode})"
        rate = stats.get("average_exec_per_sec", "?")
        print(f"{target:14} executions {runs:>8}  {rate:>6}/s  {seconds:6.1f} s  {status}")
        if result.returncode != 0:
            failed = True
            print("\n".join(result.stderr.splitlines()[-25:]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
