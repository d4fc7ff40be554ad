"""The key stays on the wire only to the judge (issue 34, item 4): `localhost` in
judge.baseUrl means 127.0.0.1 without asking any resolver, and proxies named in the
environment are never used for the judge, so a remapped hosts file or an HTTP_PROXY cannot
carry the key and the answers anywhere else; a SOCKS proxy in ALL_PROXY is no crash."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fakes.byte_recorder import ByteRecorder
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains

from coach_gui.adapters.gemini import GeminiJudge
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.outbox import SqliteOutbox
from coach_gui.domain.tier2 import tier2_payload

KEY = "AIzaSyWireTestKey0123456789abcdefghijk"
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy",
                   "all_proxy")  # fmt: skip
ITEM = {"challenge": "Why do finches differ?", "answer": "Because of food."}


@pytest.fixture
def outbox(tmp_path: Path) -> Iterator[SqliteOutbox]:
    with Journal.open(tmp_path / "journal.sqlite3") as journal:
        yield SqliteOutbox(journal)


@pytest.fixture
def server() -> Iterator[FakeGemini]:
    with FakeGemini(api_keys={KEY}) as fake:
        fake.reply_for = passes_items_whose_answer_contains("because")
        yield fake


@pytest.fixture
def looked_up(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every host name given to the resolver while the test runs."""
    names: list[str] = []
    real = socket.getaddrinfo

    def recording(host: Any, *args: Any, **kwargs: Any) -> Any:
        names.append(str(host))
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", recording)
    return names


def judge_at(url: str, outbox: SqliteOutbox) -> GeminiJudge:
    return GeminiJudge(
        KEY,
        model="gemini-2.5-flash",
        base_url=url,
        api_version="v1beta",
        timeout_seconds=5.0,
        temperature=0.0,
        max_retries=0,
        outbox=outbox,
    )


def test_localhost_is_reached_by_address_and_no_environment_proxy_is_used(
    server: FakeGemini,
    outbox: SqliteOutbox,
    looked_up: list[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    port = server.url.rsplit(":", 1)[1]
    with ByteRecorder() as proxy:
        for name in PROXY_VARIABLES:
            monkeypatch.setenv(name, proxy.url)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        judge = judge_at(f"http://localhost:{port}/", outbox)
        judge.judge(tier2_payload([ITEM], include_assertions=True))
        judge.close()
    assert len(server.generate_requests) == 1
    assert server.generate_requests[0].header("x-goog-api-key") == KEY
    assert "localhost" not in [name.lower() for name in looked_up]
    assert (proxy.connections, proxy.received) == (0, b"")


@pytest.mark.parametrize("proxy", ["socks5://127.0.0.1:9", "socks5h://127.0.0.1:9"])
def test_a_socks_proxy_in_the_environment_is_no_crash(
    server: FakeGemini, outbox: SqliteOutbox, monkeypatch: pytest.MonkeyPatch, proxy: str
) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, proxy)
    judge = judge_at(server.url, outbox)
    judge.judge(tier2_payload([ITEM], include_assertions=True))
    judge.close()
    assert len(server.generate_requests) == 1


def _namespace_works() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = subprocess.run(["unshare", "-rn", "--mount", "true"], capture_output=True,
                           check=False, timeout=30)  # fmt: skip
    return probe.returncode == 0


@pytest.mark.skipif(not _namespace_works(), reason="no user and network namespaces here")
@pytest.mark.parametrize("proxy", ["with-proxy", "no-proxy"])
def test_with_localhost_remapped_and_a_proxy_set_no_byte_leaves_for_the_judge(
    tmp_path: Path, proxy: str
) -> None:
    """In a network namespace of its own (nothing but loopback), with /etc/hosts mapping
    `localhost` to 127.0.0.2 where a recorder listens on the judge's port, and every proxy
    variable naming another recorder (or none): the judge gets the request, neither
    recorder a byte."""
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.2 localhost\n::1 ip6-localhost\n")
    child = Path(__file__).with_name("judge_wire_child.py")
    script = (
        f"mount --bind {hosts} /etc/hosts && ip link set lo up && "
        f'getent hosts localhost && exec "{sys.executable}" "{child}" {proxy}'
    )
    result = subprocess.run(["unshare", "-rn", "--mount", "sh", "-c", script],
                            capture_output=True, text=True, timeout=120, check=False,
                            env=dict(os.environ))  # fmt: skip
    assert result.returncode == 0, result.stderr
    resolved, report = result.stdout.strip().splitlines()[0], result.stdout.strip().splitlines()[-1]
    assert resolved.split()[0] == "127.0.0.2"  # the hosts file really is remapped in there
    seen = json.loads(report)
    assert seen == {
        "error": "",
        "judge_requests": 1,
        "elsewhere_bytes": 0,
        "elsewhere_saw_key": False,
        "proxy_bytes": 0,
        "proxy_connections": 0,
    }


@pytest.mark.parametrize("variable", ["ALL_PROXY", "https_proxy"])
def test_doctor_says_an_environment_proxy_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
    variable: str,
) -> None:  # fmt: skip
    from coach_gui.cli import main

    monkeypatch.setenv("COACH_HOME", str(tmp_path / "home"))
    monkeypatch.setenv(variable, "socks5://127.0.0.1:9")
    main(["doctor", "--json"])
    checks = {c["name"]: c for c in json.loads(capsys.readouterr().out)["checks"]}
    assert checks["proxy"]["level"] == "warn"
    assert "not used" in checks["proxy"]["detail"]
    assert variable.upper() in checks["proxy"]["detail"]
