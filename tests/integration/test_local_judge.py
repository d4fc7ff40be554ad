"""The judge on this computer (issue 22, `judge.provider: local`) end to end from the command
line: a fake Ollama on loopback answers judge requests in the judge schema; a fake Gemini
runs beside it and must receive nothing. The suite's socket guard fails any connection
outside loopback.

The contract tests are shared between the providers: a reply that cites words not in the
answer, skips an assertion or is not JSON is handled the same whichever judge sent it.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_run import coach as _coach
from cli_run import practise as _practise
from fakes.gemini_server import (
    FakeGemini,
    cites_words_not_in_the_answer,
    passes_items_whose_answer_contains,
    skips_an_assertion,
)
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama
from fakes.ollama_server import Fault as OllamaFault

from coach_gui.cli import main
from coach_gui.domain.verdicts import CITED_NOTHING

KEY = "test-key"
JUDGE_MODEL = "qwen2.5:7b"
ASSERTIONS = ["Selection acts only on inherited variation.", "Large change takes a long time."]
ANSWER = "Heritable differences get kept because the better fitted leave more young."


# What the learner is told to do when the judge's model is missing, per wire format.
GET_JUDGE_MODEL = {"ollama": f"ollama pull {JUDGE_MODEL}", "openai": f"no model '{JUDGE_MODEL}'"}


@pytest.fixture
def servers(wire: str) -> Iterator[tuple[FakeOllama, FakeGemini]]:
    """The local server in both wire formats (the `wire` fixture), and the Gemini one."""
    with (
        FakeOllama(models=[DEFAULT_MODEL, JUDGE_MODEL], wire=wire) as ollama,
        FakeGemini(api_keys={KEY}) as gemini,
    ):
        yield ollama, gemini


def _configure(home: Path, ollama: FakeOllama, gemini: FakeGemini, **judge: Any) -> None:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    settings = {"provider": "local", "localModel": JUDGE_MODEL, "baseUrl": gemini.url,
                "maxRetries": 0, **judge}  # fmt: skip
    config.write_text(
        json.dumps(
            {
                "kb": {"path": str(home / "notes")},
                "tier1": {**ollama.tier1_config(), "followUps": False},
                "judge": settings,
            }
        ),
        encoding="utf-8",
    )
    folder = home / "notes"
    if not folder.exists():
        folder.mkdir(parents=True)
        front = {"id": "note1", "title": "Natural selection", "core_assertions": ASSERTIONS}
        (folder / "natural-selection.md").write_text(
            "---\n" + yaml.safe_dump(front) + "---\nBody of the note.\n", encoding="utf-8"
        )


def _rows(home: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(home / "journal.sqlite3") as conn:
        return conn.execute(sql).fetchall()


def test_practice_is_judged_on_this_computer_and_nothing_reaches_gemini(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ollama, gemini = servers
    ollama.judge_reply_for = passes_items_whose_answer_contains("because")
    _configure(coach_home, ollama, gemini)  # no Gemini key is stored at all
    data = _practise(capsys, tmp_path, ANSWER, "No idea.")

    first, second = data["items"]
    assert (first["status"], first["verdict"]) == ("judged", "pass")
    assert [a["status"] for a in first["assessments"]] == ["explained", "explained"]
    assert (second["status"], second["verdict"]) == ("judged", "fail")
    assert gemini.requests == []  # not even a connection check
    (request, _) = ollama.judge_requests
    assert request.body["model"] == JUDGE_MODEL and request.schema["required"] == ["items"]
    assert "untrusted_item0_answer_" in request.user_text  # the same fenced prompt
    assert "Body of the note." not in json.dumps(request.body)  # the payload rules hold
    outbox = _rows(coach_home, "SELECT provider, model, status, request_body FROM outbox")
    assert [(p, m, s) for p, m, s, _ in outbox] == [("local", f"local:{JUDGE_MODEL}", "ok")] * 2
    assert outbox[0][3].encode("utf-8") == request.raw_body  # kept exactly as sent
    assert {m for (m,) in _rows(coach_home, "SELECT judge_model FROM verdicts")} == {
        f"local:{JUDGE_MODEL}"
    }
    code, verified, _ = _coach(capsys, "verify", "--json")
    assert (code, verified["ok"]) == (0, True)


@pytest.mark.parametrize("provider", ["gemini", "local"])
@pytest.mark.parametrize(
    ("reply", "expect"),
    [
        (cites_words_not_in_the_answer(1), "downgraded"),
        (skips_an_assertion(1), "it skipped key point 2 of answer 1"),
        (lambda _request: "Sure! Your answer is great.", "it is not valid JSON"),
    ],
    ids=["cites-words-not-in-the-answer", "skips-an-assertion", "not-json"],
)
def test_a_bad_reply_is_handled_the_same_whichever_judge_sent_it(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    provider: str,
    reply: Callable[[Any], str],
    expect: str,
) -> None:
    ollama, gemini = servers
    ollama.judge_reply_for = reply
    gemini.reply_for = reply
    _configure(coach_home, ollama, gemini, provider=provider)
    if provider == "gemini":
        monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0
    (item,) = _practise(capsys, tmp_path, ANSWER)["items"]

    if expect == "downgraded":
        assert (item["status"], item["verdict"]) == ("judged", "fail")
        assert item["gaps"] == [
            {"assertion": 1, "problem": "unexplained", "explanation": CITED_NOTHING}
        ]
    else:
        assert (item["status"], item["verdict"]) == ("unjudged", None)
        assert expect in item["reason"]
        assert _rows(coach_home, "SELECT reason_code FROM judge_refusals") == [("malformed",)]
    used, unused = (
        (ollama.judge_requests, gemini.generate_requests)
        if provider == "local"
        else (gemini.generate_requests, ollama.judge_requests)
    )
    assert len(used) == 1 and unused == []


def test_answers_kept_offline_are_judged_later_on_this_computer_one_per_request(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ollama, gemini = servers
    _configure(coach_home, ollama, gemini, enabled=False)
    _practise(capsys, tmp_path, ANSWER, "It takes a long time because steps are slight.")
    assert ollama.judge_requests == []  # the judge was off

    _configure(coach_home, ollama, gemini, enabled=True)
    code, report, err = _coach(capsys, "judge-pending", "--json")
    assert code == 0, err
    assert len(report["judged"]) == 2
    assert len(ollama.judge_requests) == 2  # judge.localBatchSize 1: bounded requests
    assert gemini.requests == []
    code, verified, _ = _coach(capsys, "verify", "--json")
    assert (code, verified["ok"]) == (0, True)


def test_the_eval_runs_on_the_local_judge_and_is_signed(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ollama, gemini = servers
    ollama.judge_reply_for = passes_items_whose_answer_contains("because")
    _configure(coach_home, ollama, gemini)
    _practise(capsys, tmp_path, ANSWER, "No idea.")
    before = len(ollama.judge_requests)
    code, report, err = _coach(capsys, "eval", "--repeats", "2", "--json")
    assert code == 0, err
    assert len(ollama.judge_requests) - before == 2 * 2 * 2  # answers × repeats × arms
    assert report["judge_model"] == f"local:{JUDGE_MODEL}"
    on = next(arm for arm in report["arms"] if arm["arm"] == "assertions_on")
    assert on["assertion_agreement"] == 1.0
    assert gemini.requests == []
    code, verified, _ = _coach(capsys, "verify", report["eval_run_id"], "--json")
    assert (code, verified["ok"]) == (0, True)


@pytest.mark.parametrize(
    ("break_it", "said"),
    [
        (lambda o: o.inject(OllamaFault.MODEL_NOT_FOUND, times=None), "missing"),
        (lambda o: o.inject(OllamaFault.CUT_STREAM, times=None), "did not finish the reply"),
    ],
    ids=["model-missing", "stream-cut"],
)
def test_a_local_judge_that_fails_keeps_the_answer_with_a_reason_in_plain_words(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    break_it: Callable[[FakeOllama], None],
    said: str,
) -> None:
    ollama, gemini = servers
    said = GET_JUDGE_MODEL[ollama.wire] if said == "missing" else said
    _configure(coach_home, ollama, gemini, enabled=False)
    _practise(capsys, tmp_path, ANSWER)
    _configure(coach_home, ollama, gemini, enabled=True)
    break_it(ollama)
    _code, report, err = _coach(capsys, "judge-pending", "--json")
    assert isinstance(report, dict), err
    assert report["judged"] == []
    (reason,) = {p["reason"] for p in report["pending"]}
    assert reason.startswith("The judge on this computer could not grade")
    assert said in reason and "kept unjudged" in reason
    assert "Error" not in reason and "judge." not in reason  # no class or key names
    assert _rows(coach_home, "SELECT status FROM attempts") == [("unjudged",)]
    assert _rows(coach_home, "SELECT provider, status FROM outbox") == [("local", "error")]


def test_cancel_stops_a_slow_local_request_at_once_and_keeps_the_answer(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from coach_gui.bootstrap import build_context
    from coach_gui.operations.judging import judge_pending_answers

    ollama, gemini = servers
    _configure(coach_home, ollama, gemini, enabled=False)
    _practise(capsys, tmp_path, ANSWER)
    _configure(coach_home, ollama, gemini, enabled=True)
    ollama.inject(OllamaFault.HANG, times=None)  # a model that takes forever
    context = build_context()
    cancelled = threading.Event()
    outcome: dict[str, Any] = {}

    def run() -> None:
        outcome["report"] = judge_pending_answers(context, cancelled=cancelled)

    worker = threading.Thread(target=run)
    worker.start()
    assert ollama.hanging.wait(10)
    started = time.monotonic()
    cancelled.set()
    worker.join(10)
    stopped_in = time.monotonic() - started
    context.close()
    assert not worker.is_alive() and stopped_in < 2.0  # not the 300 s timeout
    report = outcome["report"]
    assert report.judged == []
    assert "cancelled judging" in report.pending[0].reason
    assert _rows(coach_home, "SELECT status FROM attempts") == [("unjudged",)]


def test_doctor_checks_the_local_judge_model_and_asks_for_no_key(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ollama, gemini = servers
    _configure(coach_home, ollama, gemini)
    _code, report, _ = _coach(capsys, "doctor", "--json")
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["judge model"]["ok"] and "nothing leaves" in checks["judge model"]["detail"]
    assert "judge endpoint" not in checks
    assert checks["judge key"]["level"] == "ok"  # no key is needed to judge here
    _configure(coach_home, ollama, gemini, localModel="mistral-nemo:12b")
    _code, report, _ = _coach(capsys, "doctor", "--json")
    checks = {c["name"]: c for c in report["checks"]}
    get_it = {"ollama": "ollama pull mistral-nemo:12b", "openai": "no model 'mistral-nemo:12b'"}
    assert get_it[ollama.wire] in checks["judge model"]["detail"]
    assert checks["judge model"]["level"] == "warn"
    assert gemini.requests == []


def test_choosing_another_judge_mid_session_sends_the_next_answer_to_the_new_one_only(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Settings › Who grades changed while a session is open (the window's live session):
    the answer after the change goes to the judge now chosen, and never to the other."""
    from coach_gui.bootstrap import build_context
    from coach_gui.config import load_config
    from coach_gui.operations.practice import open_practice

    ollama, gemini = servers
    _configure(coach_home, ollama, gemini, provider="gemini")
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
    assert main(["key", "set"]) == 0
    context = build_context()
    note = context.notes.load().find("natural-selection")
    assert note is not None
    settings = context.practice_settings()
    opened = open_practice(context, note.note, settings, live=True)
    assert opened is not None
    run = opened.run

    def answer(text: str) -> Any:
        challenge = run.next_challenge().challenge
        return run.judge(run.submit(challenge, text))

    first = answer(ANSWER)
    assert first.judged and len(gemini.generate_requests) == 1 and ollama.judge_requests == []
    _configure(coach_home, ollama, gemini, provider="local")
    context.config = load_config(context.config_path)  # what saving Settings does
    second = answer("It takes long because each step is slight.")
    assert second.judged and second.verdict.judge_model == f"local:{JUDGE_MODEL}"
    assert len(gemini.generate_requests) == 1 and len(ollama.judge_requests) == 1
    _configure(coach_home, ollama, gemini, provider="gemini")
    context.config = load_config(context.config_path)
    third = answer("Because selection keeps what is inherited.")
    assert third.judged and len(gemini.generate_requests) == 2
    assert len(ollama.judge_requests) == 1
    opened.close()
    context.close()


def test_a_judge_no_longer_chosen_or_cancelled_before_it_starts_sends_nothing(
    servers: tuple[FakeOllama, FakeGemini], coach_home: Path
) -> None:
    from fakes.in_ram import InRamOutbox

    from coach_gui.adapters.gemini import GeminiJudge
    from coach_gui.adapters.local_judge import OllamaJudge
    from coach_gui.domain.judge_errors import JudgeCancelled, JudgeReplaced
    from coach_gui.domain.tier2 import tier2_payload

    ollama, gemini = servers
    payload = tier2_payload(
        [{"challenge": "Why?", "answer": ANSWER, "core_assertions": ASSERTIONS}],
        include_assertions=True,
    )
    outbox = InRamOutbox()
    local = OllamaJudge(ollama.client(), model=JUDGE_MODEL, temperature=0.0, seed=None,
                        keep_alive="1m", timeout_seconds=5, outbox=outbox,
                        still_current=lambda: False)  # fmt: skip
    cloud = GeminiJudge(KEY, model="gemini-2.5-flash", base_url=gemini.url,
                        api_version="v1beta", timeout_seconds=5, temperature=0.0,
                        max_retries=0, outbox=outbox, still_current=lambda: False)  # fmt: skip
    for judge in (local, cloud):
        with pytest.raises(JudgeReplaced):
            judge.judge(payload)
        judge.close()
    stopped = OllamaJudge(ollama.client(), model=JUDGE_MODEL, temperature=0.0,
                          seed=None, keep_alive="1m", timeout_seconds=5, outbox=outbox)  # fmt: skip
    stopped.cancel()  # before the request: not lost
    with pytest.raises(JudgeCancelled):
        stopped.judge(payload)
    stopped.close()
    assert ollama.judge_requests == [] and gemini.requests == [] and outbox.rows == {}


def test_the_eval_compares_the_two_judges_on_the_same_answers_and_verifies(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`coach eval --compare-judges`: each answer R times by each judge, both with core
    assertions; the report says how far the two agree per key point, is signed and
    verifies, and a change to it is caught."""
    ollama, gemini = servers
    ollama.judge_reply_for = passes_items_whose_answer_contains("because")
    gemini.reply_for = passes_items_whose_answer_contains("because")
    _configure(coach_home, ollama, gemini)
    monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
    assert main(["key", "set"]) == 0
    answers = [ANSWER, "No idea.", "Slowly, because steps are slight."]
    _practise(capsys, tmp_path, *answers)
    gemini.reply_for = cites_words_not_in_the_answer(1, span="words nobody wrote")
    local_before, gemini_before = len(ollama.judge_requests), len(gemini.generate_requests)

    code, report, err = _coach(capsys, "eval", "--repeats", "2", "--compare-judges", "--json")
    assert code == 0, err
    assert "Gemini's half sends each challenge" in err
    assert len(ollama.judge_requests) - local_before == 3 * 2
    assert len(gemini.generate_requests) - gemini_before == 3 * 2
    assert all(r.schema for r in ollama.judge_requests[local_before:])
    assert report["kind"] == "judges"
    assert [arm["arm"] for arm in report["arms"]] == ["judge_local", "judge_gemini"]
    local, cloud = report["arms"]
    assert (local["pass"], cloud["pass"]) == (2 * 2, 0)  # 2 of 3 answers say "because"
    agreement = report["judge_agreement"]
    # Gemini explains key point 1 everywhere (it cites each answer's first words, "No
    # idea." included) and never key point 2; the local judge explains both exactly for the
    # two "because" answers. They agree on 3 of the 6 pairs, and on 1 verdict of 3.
    assert agreement["pairs_compared"] == 3 * 2
    assert agreement["status_agreement"] == 0.5
    assert agreement["verdict_agreement"] == round(1 / 3, 4)
    assert report["verdict"] == "fail"  # below 80% of key points
    assert "The two judges gave the same status to 50.0% of 6" in report["summary"]
    assert agreement["pairs_agreed"] == 3
    code, verified, _ = _coach(capsys, "verify", report["eval_run_id"], "--json")
    assert (code, verified["ok"]) == (0, True)

    with sqlite3.connect(coach_home / "journal.sqlite3") as conn:  # a forged agreement
        stored = json.loads(
            conn.execute(
                "SELECT report FROM eval_runs WHERE id = ?", (report["eval_run_id"],)
            ).fetchone()[0]
        )
        stored["judge_agreement"]["status_agreement"] = 1.0
        conn.execute("DROP TRIGGER eval_runs_no_update")
        conn.execute(
            "UPDATE eval_runs SET report = ? WHERE id = ?",
            (json.dumps(stored), report["eval_run_id"]),
        )
    code, verified, _ = _coach(capsys, "verify", report["eval_run_id"], "--json")
    assert (code, verified["ok"]) == (1, False)


def test_comparing_the_judges_needs_the_gemini_key_and_sends_nothing_without_it(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ollama, gemini = servers
    _configure(coach_home, ollama, gemini)
    _practise(capsys, tmp_path, ANSWER)
    before = len(ollama.judge_requests)
    code, _, err = _coach(capsys, "eval", "--repeats", "2", "--compare-judges", "--json")
    assert code == 2 and "coach key set" in err
    assert len(ollama.judge_requests) == before and gemini.requests == []


def test_send_core_assertions_off_holds_for_the_judge_on_this_computer_too(
    servers: tuple[FakeOllama, FakeGemini],
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The payload rules do not change with the provider: with the switch off, the local
    judge gets the challenge and the answer only, and grades without assertions."""
    ollama, gemini = servers
    ollama.judge_reply_for = passes_items_whose_answer_contains("because")
    _configure(coach_home, ollama, gemini, includeAssertions=False)
    (item,) = _practise(capsys, tmp_path, ANSWER)["items"]

    (request,) = ollama.judge_requests
    assert "untrusted_item0_assertion" not in request.user_text
    assert all(assertion not in json.dumps(request.body) for assertion in ASSERTIONS)
    assert (item["status"], item["verdict"], item["assessments"]) == ("judged", "pass", [])
    ((payload,),) = _rows(coach_home, "SELECT payload FROM outbox")
    assert json.loads(payload) == {"items": [{"challenge": item["challenge"], "answer": ANSWER}]}
    assert _rows(coach_home, "SELECT assertions_sent FROM verdicts") == [(0,)]
    assert gemini.requests == []
