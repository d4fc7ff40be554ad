"""Run by test_judge_wire.py inside a network namespace of its own whose /etc/hosts maps
`localhost` to 127.0.0.2: one judge request to `http://localhost:PORT` with every proxy
variable pointing at a recorder (argument `with-proxy`) or none set. Prints what each
listener saw, as JSON."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from fakes.byte_recorder import ByteRecorder
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains

from coach_gui.adapters.gemini import GeminiJudge
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.outbox import SqliteOutbox
from coach_gui.domain.errors import CoachError
from coach_gui.domain.tier2 import tier2_payload

KEY = "AIzaSyWireTestKey0123456789abcdefghijk"


def main() -> None:
    item = {"challenge": "Why do finches differ?", "answer": "Because of food."}
    with (
        FakeGemini(api_keys={KEY}) as judge_server,
        ByteRecorder("127.0.0.1") as proxy,
        tempfile.TemporaryDirectory() as folder,
    ):
        judge_server.reply_for = passes_items_whose_answer_contains("because")
        port = int(judge_server.url.rsplit(":", 1)[1])
        with ByteRecorder("127.0.0.2", port) as elsewhere:
            for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
                if sys.argv[1:] == ["with-proxy"]:
                    os.environ[name] = proxy.url
                else:
                    os.environ.pop(name, None)
            os.environ.pop("NO_PROXY", None)
            os.environ.pop("no_proxy", None)
            with Journal.open(Path(folder) / "journal.sqlite3") as journal:
                error = ""
                try:
                    judge = GeminiJudge(
                        KEY,
                        model="gemini-2.5-flash",
                        base_url=f"http://localhost:{port}/",
                        api_version="v1beta",
                        timeout_seconds=5.0,
                        temperature=0.0,
                        max_retries=0,
                        outbox=SqliteOutbox(journal),
                    )
                    judge.judge(tier2_payload([item], include_assertions=True))
                    judge.close()
                except (CoachError, ImportError, OSError) as exc:
                    error = f"{type(exc).__name__}: {exc}"
            print(
                json.dumps(
                    {
                        "error": error,
                        "judge_requests": len(judge_server.generate_requests),
                        "elsewhere_bytes": len(elsewhere.received),
                        "elsewhere_saw_key": KEY.encode() in elsewhere.received,
                        "proxy_bytes": len(proxy.received),
                        "proxy_connections": proxy.connections,
                    }
                )
            )


if __name__ == "__main__":
    main()
