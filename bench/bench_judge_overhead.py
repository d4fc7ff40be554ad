"""Judge round trip: our adapter's overhead over a raw google-genai call, and prompt size.

Both sides talk to the same loopback fake Gemini (tests/fakes/gemini_server.py), so the
difference is our code: re-validating the payload, building the fenced prompt, the outbox
writes (in memory, and in a real SQLite journal with synchronous=FULL), parsing the verdict.
The raw call sends the same prompt with the same config. Target: p50 difference <= 5 ms.

Prompt tokens are the fake's `promptTokenCount`, an ESTIMATE of ceil(characters / 4) of the
system instruction plus the user text (there is no real tokenizer on this machine).

    python bench/bench_judge_overhead.py [--rounds 200]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from fakes.gemini_server import FakeGemini
from google import genai
from google.genai import types

from coach_gui.adapters.gemini import GeminiJudge
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.outbox import SqliteOutbox
from coach_gui.domain.tier2 import (
    VERDICT_SCHEMA,
    OutboxEntry,
    OutboxOutcome,
    Tier2Payload,
    judge_prompt,
    tier2_payload,
)
from coach_gui.domain.verdicts import parse_verdicts

KEY = "bench-key"
MODEL = "gemini-2.5-flash"
B = "0123456789ab"


class InRamOutbox:
    def __init__(self) -> None:
        self.rows: dict[str, tuple[OutboxEntry, OutboxOutcome | None]] = {}

    def record_sent(self, entry: OutboxEntry) -> str:
        outbox_id = f"{len(self.rows):x}"
        self.rows[outbox_id] = (entry, None)
        return outbox_id

    def record_outcome(self, outbox_id: str, outcome: OutboxOutcome) -> None:
        self.rows[outbox_id] = (self.rows[outbox_id][0], outcome)


def make_payload(count: int) -> Tier2Payload:
    item = {
        "challenge": "Why do the finches of one archipelago have such different beaks?",
        "answer": "Each island offered different food, and birds whose beaks suited it left "
        "more young, who inherited those beaks; over many generations the forms drew apart.",
        "core_assertions": [
            "Individuals vary, and much of the variation is inherited.",
            "More are born than can survive, so there is a struggle for existence.",
            "Variations that help in that struggle are preserved: natural selection.",
        ],
    }
    return tier2_payload([item] * count, include_assertions=True)


def p50_ms(call: Callable[[], object], rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    rounds = parser.parse_args().rounds
    payload = make_payload(1)
    with FakeGemini() as server, tempfile.TemporaryDirectory() as tmp:
        options = types.HttpOptions(base_url=server.url, api_version="v1beta", timeout=30_000)
        raw_client = genai.Client(api_key=KEY, vertexai=False, http_options=options)
        system, user = judge_prompt(payload, B)
        config = types.GenerateContentConfig(
            system_instruction=system,
            temperature=0.0,
            response_mime_type="application/json",
            response_json_schema=VERDICT_SCHEMA,
        )

        def raw_call() -> object:
            return raw_client.models.generate_content(model=MODEL, contents=user, config=config)

        journal = Journal.open(Path(tmp) / "journal.sqlite3")
        settings = {"model": MODEL, "base_url": server.url, "api_version": "v1beta",
                    "timeout_seconds": 30.0, "temperature": 0.0, "max_retries": 2}  # fmt: skip
        in_memory = GeminiJudge(KEY, outbox=InRamOutbox(), **settings)  # type: ignore[arg-type]
        on_disk = GeminiJudge(KEY, outbox=SqliteOutbox(journal), **settings)  # type: ignore[arg-type]

        def ours(judge: GeminiJudge) -> Callable[[], object]:
            return lambda: parse_verdicts(judge.judge(payload).raw_text, payload)

        for call in (raw_call, ours(in_memory), ours(on_disk)):
            p50_ms(call, 20)  # warm up connections and lazy imports
        # Interleave the measurements so drift on the machine hits all three alike.
        raw, memory, disk = [], [], []
        for _ in range(5):
            raw.append(p50_ms(raw_call, rounds // 5))
            memory.append(p50_ms(ours(in_memory), rounds // 5))
            disk.append(p50_ms(ours(on_disk), rounds // 5))
        raw_p50, memory_p50, disk_p50 = (statistics.median(x) for x in (raw, memory, disk))
        print(f"judge round trip, 1 item with 3 assertions, {rounds} calls each (p50):")
        print(f"  raw google-genai call            {raw_p50:7.2f} ms")
        print(f"  GeminiJudge, in-memory outbox    {memory_p50:7.2f} ms  "
              f"(+{memory_p50 - raw_p50:.2f} ms)")  # fmt: skip
        print(f"  GeminiJudge, SQLite outbox FULL  {disk_p50:7.2f} ms  "
              f"(+{disk_p50 - raw_p50:.2f} ms)")  # fmt: skip
        print("prompt tokens (fake's estimate: ceil(chars / 4) of system + user text):")
        counts = {}
        for count in (1, 10):
            in_memory.judge(make_payload(count))
            body = server.generate_requests[-1]
            counts[count] = -(-len(body.system_text + body.user_text) // 4)
            print(f"  {count:2d} item(s): {counts[count]:5d} tokens, "
                  f"{counts[count] / count:6.1f} per item")  # fmt: skip
        print(f"  each item beyond the first adds {(counts[10] - counts[1]) / 9:.1f} tokens "
              f"(the system instruction is ~{-(-len(system) // 4)} tokens, paid once)")  # fmt: skip
        for client in (in_memory, on_disk):
            client.close()
        raw_client.close()
        journal.close()


if __name__ == "__main__":
    main()
