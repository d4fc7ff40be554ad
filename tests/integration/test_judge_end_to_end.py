"""Practise and judge end to end over real sockets (fake Ollama, fake Gemini), a real
journal, a real keyring backend: what leaves the machine, and what the learner sees.

Each test is named after the ADR-0021 decision it checks."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakes.gemini_server import FakeGemini, Fault, RecordedRequest, verdict_json
from fakes.ollama_server import FakeOllama
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coach_gui.cli import main

KEY = "test-key"
ASSERTIONS = ["Selection acts only on inherited variation.", "Large change takes a long time."]


@pytest.fixture
def servers(wire: str) -> Iterator[tuple[FakeOllama, FakeGemini]]:
    """Tier 1 on both wire formats (the `wire` fixture), the judge on the fake Gemini."""
    with FakeOllama(wire=wire) as ollama, FakeGemini(api_keys={KEY}) as gemini:
        yield ollama, gemini


def _setup(
    home: Path,
    ollama: FakeOllama,
    gemini: FakeGemini,
    *,
    include: bool = True,
    enabled: bool = True,
    note: dict[str, object] | None = None,
    file_stem: str = "natural-selection",
) -> None:
    config = Path(__import__("os").environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "kb": {"path": str(home / "notes")},
                "tier1": ollama.tier1_config(),
                "judge": {
                    "enabled": enabled,
                    "includeAssertions": include,
                    "baseUrl": gemini.url,
                    "maxRetries": 0,
                },
            }
        ),
        encoding="utf-8",
    )
    fields = note or {
        "id": "note1",
        "title": "Natural selection",
        "source": "Darwin",
        "tags": ["evolution"],
        "core_assertions": ASSERTIONS,
        "body": "Body of the note.",
    }
    folder = home / "notes"
    folder.mkdir(parents=True, exist_ok=True)
    front = {k: v for k, v in fields.items() if k != "body"}
    import yaml

    (folder / f"{file_stem}.md").write_text(
        "---\n" + yaml.safe_dump(front, allow_unicode=True) + "---\n" + str(fields["body"]),
        encoding="utf-8",
    )


def _practise(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, note: str, answers: list[str], *extra: str
) -> dict[str, object]:
    path = tmp_path / "answers.json"
    path.write_text(json.dumps(answers), encoding="utf-8")
    capsys.readouterr()
    code = main(["practice", note, "--answers", str(path), "--json", *extra])
    out = capsys.readouterr()
    assert code == 0, out.err
    return json.loads(out.out)  # type: ignore[no-any-return]


def _set_key(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
    assert main(["key", "set"]) == 0
    out = capsys.readouterr()
    assert KEY not in out.out + out.err


def test_practice_judge_on_returns_verdicts_and_gaps(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    gemini.reply_for = lambda r: verdict_json(r, lambda item: "because" in item.answer)
    _setup(coach_home, ollama, gemini)
    _set_key(monkeypatch, capsys)
    data = _practise(
        capsys, tmp_path, "natural-selection", ["It works because of time.", "No idea."]
    )
    first, second = data["items"]  # type: ignore[misc]
    assert (first["status"], first["verdict"], first["gaps"]) == ("judged", "pass", [])
    assert second["verdict"] == "fail"
    assert [g["assertion"] for g in second["gaps"]] == [0, 1]
    assert second["gaps"][0]["problem"] == "unexplained"
    assert data["disposition"] == "gaps_found"
    requests = gemini.generate_requests
    assert len(requests) == 2
    assert requests[0].header("x-goog-api-key") == KEY
    assert KEY not in requests[0].raw_body.decode()
    with sqlite3.connect(coach_home / "journal.sqlite3") as conn:
        outbox = conn.execute("SELECT payload, status FROM outbox ORDER BY created_at").fetchall()
        verdicts = conn.execute("SELECT verdict FROM verdicts ORDER BY created_at").fetchall()
    assert [s for _, s in outbox] == ["ok", "ok"]
    assert json.loads(outbox[0][0])["items"][0]["answer"] == "It works because of time."
    assert [v for (v,) in verdicts] == ["pass", "fail"]


def test_judge_on_from_the_command_line_judges_with_assertions_when_the_config_has_it_off(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Found in review: `--judge on` with `judge.enabled: false` in the config refused every
    payload, the adapter reading the (off) window switches instead of the command's word."""
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini, enabled=False)
    _set_key(monkeypatch, capsys)
    data = _practise(capsys, tmp_path, "natural-selection", ["It works because."], "--judge", "on")
    (item,) = data["items"]  # type: ignore[misc]
    assert item["status"] == "judged", item
    (request,) = gemini.generate_requests
    assert all(a in request.user_text for a in ASSERTIONS)


def test_adr0021_d8_judge_off_sends_nothing_to_the_judge(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini, enabled=False)
    _set_key(monkeypatch, capsys)
    data = _practise(capsys, tmp_path, "natural-selection", ["an answer"])
    assert gemini.requests == []  # not even a connection test
    assert data["items"][0]["reason"] == "the judge is switched off"  # type: ignore[index]
    data = _practise(capsys, tmp_path, "natural-selection", ["again"], "--judge", "off")
    assert gemini.requests == []


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (Fault.KEY_INVALID, "API key not valid"),
        (Fault.QUOTA, "quota"),
        (Fault.SERVER_ERROR, "Gemini service had a problem"),
        (Fault.NOT_JSON_TEXT, "could not be used"),
    ],
)
def test_judge_failures_keep_the_answer_unjudged_with_the_reason(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    fault: Fault,
    words: str,
) -> None:
    ollama, gemini = servers
    gemini.inject(fault, times=None)
    _setup(coach_home, ollama, gemini)
    _set_key(monkeypatch, capsys)
    data = _practise(capsys, tmp_path, "natural-selection", ["kept whatever happens"])
    item = data["items"][0]  # type: ignore[index]
    assert item["status"] == "unjudged" and item["answer"] == "kept whatever happens"
    assert words.lower() in item["reason"].lower()
    assert data["disposition"] == "judge_unavailable"
    with sqlite3.connect(coach_home / "journal.sqlite3") as conn:
        rows = conn.execute("SELECT status, unjudged_reason FROM attempts").fetchall()
        refusals = conn.execute("SELECT reason_code FROM judge_refusals").fetchall()
    assert rows[0][0] == "unjudged" and words.lower() in rows[0][1].lower()
    assert len(refusals) == 1


def test_no_key_says_how_to_set_one_and_keeps_answers(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ollama, gemini = servers
    _setup(coach_home, ollama, gemini)
    data = _practise(capsys, tmp_path, "natural-selection", ["kept"])
    assert "coach key set" in data["items"][0]["reason"]  # type: ignore[index]
    assert gemini.requests == []


_marker = st.from_regex(r"[A-Z]{4}[0-9]{6}", fullmatch=True)


def _bodies(requests: list[RecordedRequest]) -> str:
    return "\n".join(r.raw_body.decode("utf-8") for r in requests)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    markers=st.lists(_marker, min_size=9, max_size=9, unique=True),
    include=st.booleans(),
)
def test_adr0021_d1_d2_egress_audit_only_the_payload_leaves(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    markers: list[str],
    include: bool,
) -> None:
    """Unique markers in every part of a note; after practising and judging, the judge has
    seen the challenges, the answers and (switch on) the assertions, and nothing else."""
    ollama, gemini = servers
    title, body, stem, note_id, source, tag, assertion, answer, feedback = markers
    gemini.reply_for = lambda r: verdict_json(r, lambda item: False).replace(
        "Explain the missing points.", f"feedback {feedback}"
    )
    home = coach_home / markers[0]
    monkeypatch.setenv("COACH_HOME", str(home))
    _setup(
        home,
        ollama,
        gemini,
        include=include,
        note={
            "id": f"id{note_id}",
            "title": f"Title {title}",
            "source": f"Source {source}",
            "tags": [f"tag{tag}"],
            "core_assertions": [f"Assertion {assertion} one.", f"Assertion {assertion} two."],
            "body": f"Body {body} of the note.",
        },
        file_stem=f"file{stem}",
    )
    _set_key(monkeypatch, capsys)
    before = len(gemini.generate_requests)
    data = _practise(capsys, tmp_path, f"file{stem}", [f"Answer {answer} a", f"Answer {answer} b"])
    sent = _bodies(gemini.generate_requests[before:])
    assert f"Answer {answer} a" in sent and f"Answer {answer} b" in sent
    for item in data["items"]:  # type: ignore[attr-defined]
        assert item["challenge"] in sent
    assert (f"Assertion {assertion}" in sent) is include
    for forbidden in (title, body, stem, note_id, source, tag, feedback):
        assert forbidden not in sent, forbidden
    assert str(data["session_id"]) not in sent
    assert "Not explained" not in sent  # no earlier verdict or gap went back out
