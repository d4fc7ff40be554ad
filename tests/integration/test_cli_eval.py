"""Issue 6 acceptance through the `coach` command line: sessions recorded by `coach practice`
(fake Ollama, fake Gemini), then `coach eval` judges them again with and without core
assertions against a judge with a known noise model, records a signed report, and
`coach verify` checks it and catches any change."""

from __future__ import annotations

import io
import json
import os
import sqlite3
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_run import coach as _coach
from fakes.gemini_server import (
    FakeGemini,
    Fault,
    cites_words_not_in_the_answer,
    passes_items_whose_answer_contains,
)
from fakes.noisy_judge import FlippingAssessments, NoisyVerdicts
from fakes.ollama_server import DEFAULT_MODEL, FakeOllama

from coach_gui.cli import main
from coach_gui.domain.evals import fleiss_kappa

KEY = "test-key"
ASSERTIONS = ["Selection acts only on inherited variation.", "Large change takes a long time."]
SESSIONS = 4
PER_SESSION = 3
REPEATS = 3


def _configure(
    home: Path, gemini_url: str, ollama_url: str, *, include: bool = True, timeout: float = 30
) -> None:
    config = Path(os.environ["COACH_CONFIG"])
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        json.dumps(
            {
                "kb": {"path": str(home / "notes")},
                "tier1": {"ollamaUrl": ollama_url, "model": DEFAULT_MODEL},
                "judge": {
                    "includeAssertions": include,
                    "baseUrl": gemini_url,
                    "maxRetries": 0,
                    "timeoutSeconds": timeout,
                },
            }
        ),
        encoding="utf-8",
    )
    front = {"id": "note1", "title": "Natural selection", "core_assertions": ASSERTIONS}
    (home / "notes").mkdir(parents=True, exist_ok=True)
    (home / "notes" / "natural-selection.md").write_text(
        "---\n" + yaml.safe_dump(front) + "---\nBody of the note.\n", encoding="utf-8"
    )


def _answer(session: int, n: int) -> str:
    reason = "because each step is slight" if (session + n) % 2 == 0 else "with no reason given"
    return f"Answer {session}.{n}: it changes slowly {reason}."


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini(api_keys={KEY}) as server:
        server.reply_for = passes_items_whose_answer_contains("because")
        yield server


@pytest.fixture
def practised(
    gemini: FakeGemini,
    coach_home: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> list[str]:
    """SESSIONS sessions of PER_SESSION judged answers, recorded by `coach practice`."""
    with FakeOllama() as ollama:
        _configure(coach_home, gemini.url, ollama.url)
        monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0
        answers: list[str] = []
        for session in range(SESSIONS):
            for n in range(PER_SESSION):
                ollama.queue_challenge(f"Question {session}.{n}: why would this take so long?")
            batch = [_answer(session, n) for n in range(PER_SESSION)]
            path = tmp_path / f"answers{session}.json"
            path.write_text(json.dumps(batch), encoding="utf-8")
            code, data, err = _coach(
                capsys, "practice", "natural-selection", "--answers", str(path), "--json"
            )
            assert code == 0, err
            assert all(item["status"] == "judged" for item in data["items"])
            answers += batch
    return answers


def _journal(home: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(home / "journal.sqlite3")
    conn.row_factory = sqlite3.Row
    return conn


def _expected(noise: NoisyVerdicts, answers: list[str], with_assertions: bool) -> dict[str, Any]:
    """The figures the noise model implies, worked out here, not by the code under test."""
    runs = [noise.verdicts(a, with_assertions, REPEATS) for a in answers]
    pairs = [list(combinations(run, 2)) for run in runs]
    disagree = [sum(a != b for a, b in p) / len(p) for p in pairs]
    return {
        "pass": sum(sum(run) for run in runs),
        "consistency": round(sum(len(set(run)) == 1 for run in runs) / len(runs), 4),
        "flip_rate": round(sum(disagree) / len(disagree), 4),
        # A verdict decides the gap set here (pass: none; fail: one per assertion sent).
        "gap_agreement": round(sum(1 - d for d in disagree) / len(disagree), 4),
    }


def test_eval_over_practised_sessions_shows_the_noise_model_and_verifies(
    gemini: FakeGemini,
    practised: list[str],
    coach_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    noise = NoisyVerdicts(p_without=0.4, p_with=0.0, seed=11)
    gemini.reply_for = noise
    before = len(gemini.generate_requests)
    code, report, err = _coach(capsys, "eval", "--repeats", str(REPEATS), "--json")
    assert code == 0, err
    calls = len(practised) * REPEATS * 2
    assert len(gemini.generate_requests) - before == calls
    assert report["items"] == len(practised) and report["repeats"] == REPEATS
    assert f"{calls}/{calls} calls" in err and report["summary"] in err
    arms = {arm["arm"]: arm for arm in report["arms"]}
    assert set(arms) == {"assertions_on", "assertions_off"}
    for arm, with_assertions in (("assertions_on", True), ("assertions_off", False)):
        expected = _expected(noise, practised, with_assertions)
        figures = arms[arm]
        assert figures["pass"] == expected["pass"], arm
        assert figures["fail"] == len(practised) * REPEATS - expected["pass"]
        assert figures["error"] == 0
        for name in ("consistency", "flip_rate", "gap_agreement"):
            assert figures[name] == expected[name], (arm, name)
        assert figures["tokens_in"] > 0 and figures["latency_ms_p50"] is not None
    assert arms["assertions_on"]["consistency"] == 1.0 > arms["assertions_off"]["consistency"]
    assert arms["assertions_on"]["tokens_in"] > arms["assertions_off"]["tokens_in"]
    assert report["verdict"] == "pass" and not report["partial"]
    assert report["delta"]["consistency"] == round(1.0 - arms["assertions_off"]["consistency"], 4)

    run_id = report["eval_run_id"]
    with _journal(coach_home) as conn:
        stored = conn.execute("SELECT report FROM eval_runs WHERE id = ?", (run_id,)).fetchone()
        children = conn.execute("SELECT count(*) FROM eval_children").fetchone()[0]
        kinds = conn.execute(
            "SELECT count(*) FROM sealed_traces WHERE kind = 'eval_child' AND session_id IS NULL"
        ).fetchone()[0]
        verdicts = conn.execute("SELECT count(*) FROM verdicts").fetchone()[0]
    assert json.loads(stored["report"])["eval_run_id"] == run_id
    assert children == kinds == calls
    assert verdicts == len(practised)  # the learner's sessions are unchanged
    for target in (run_id, None):
        code, checked, err = _coach(capsys, "verify", *([target] if target else []), "--json")
        assert (code, checked["ok"], checked["first_failure"]) == (0, True, None), err
    code, _, _ = _coach(capsys, "sessions", "--json")
    assert code == 0


def test_equal_noise_in_both_arms_gives_the_verdict_the_rule_gives(
    gemini: FakeGemini, practised: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    noise = NoisyVerdicts(p_without=0.3, p_with=0.3, seed=5)
    gemini.reply_for = noise
    code, report, err = _coach(capsys, "eval", "--repeats", str(REPEATS), "--json")
    assert code == 0, err
    on = _expected(noise, practised, True)["consistency"]
    off = _expected(noise, practised, False)["consistency"]
    arms = {arm["arm"]: arm for arm in report["arms"]}
    assert (arms["assertions_on"]["consistency"], arms["assertions_off"]["consistency"]) == (
        on,
        off,
    )
    assert report["verdict"] == ("pass" if on >= off else "fail")


def test_any_change_to_a_report_or_a_child_trace_fails_verify(
    gemini: FakeGemini,
    practised: list[str],
    coach_home: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    code, report, err = _coach(capsys, "eval", "--session", _first_session(coach_home),
                               "--repeats", "2", "--json")  # fmt: skip
    assert code == 0, err
    run_id = report["eval_run_id"]
    child = report["children"][0]["trace_id"]
    with _journal(coach_home) as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'"):
            conn.execute(f'DROP TRIGGER "{name}"')
        original = conn.execute("SELECT report FROM eval_runs").fetchone()[0]
        body = conn.execute("SELECT body FROM sealed_traces WHERE trace_id = ?", (child,))
        child_body = body.fetchone()[0]

    def verify_fails_with(record_id: str, reason: str) -> None:
        code, checked, _ = _coach(capsys, "verify", run_id, "--json")
        assert code == 1 and checked["first_failure"]["id"] == record_id
        assert checked["first_failure"]["reason"].startswith(reason)
        code, whole, _ = _coach(capsys, "verify", "--json")  # the whole journal too
        assert code == 1 and whole["first_failure"]["id"] == record_id, whole

    with _journal(coach_home) as conn:
        conn.execute("UPDATE eval_runs SET report = replace(report, '\"verdict\":\"pass\"',"
                     " '\"verdict\":\"fail\"')")  # fmt: skip
    verify_fails_with(run_id, "bad signature")
    with _journal(coach_home) as conn:
        conn.execute("UPDATE eval_runs SET report = ?", (original,))
        conn.execute(
            "UPDATE sealed_traces SET body = replace(body, '\"repeat\":0', '\"repeat\":1')"
            " WHERE trace_id = ?",
            (child,),
        )
    verify_fails_with(child, "digest mismatch")
    with _journal(coach_home) as conn:
        conn.execute("UPDATE sealed_traces SET body = ? WHERE trace_id = ?", (child_body, child))
        conn.execute("DELETE FROM eval_children WHERE trace_id = ?", (child,))
    verify_fails_with(child, "missing record")
    with _journal(coach_home) as conn:
        conn.execute(
            "INSERT INTO eval_children (eval_run_id, trace_id, arm, repeat, item)"
            " VALUES (?, ?, ?, ?, ?)",
            (run_id, child, report["children"][0]["arm"], 0, report["children"][0]["item"]),
        )
    code, checked, _ = _coach(capsys, "verify", run_id, "--json")
    assert (code, checked["ok"]) == (0, True)
    # The outbox row of one of its calls no longer holds what the child says was sent.
    with _journal(coach_home) as conn:
        outbox_id, payload = conn.execute(
            "SELECT o.id, o.payload FROM outbox o WHERE o.id = ?",
            (json.loads(child_body)["input"]["outbox_id"],),
        ).fetchone()
        conn.execute(
            "UPDATE outbox SET payload = json_set(payload, '$.items[0].answer', 'edited')"
            " WHERE id = ?",
            (outbox_id,),
        )
    verify_fails_with(outbox_id, "digest mismatch")
    with _journal(coach_home) as conn:
        conn.execute("UPDATE outbox SET payload = ? WHERE id = ?", (payload, outbox_id))
    # The signing key is gone from the keyring: verify says so.
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    keys = json.loads(Path(os.environ["COACH_TEST_KEYRING"]).read_text(encoding="utf-8"))
    del keys["coach/eval_signing_key"]
    Path(os.environ["COACH_TEST_KEYRING"]).write_text(json.dumps(keys), encoding="utf-8")
    verify_fails_with(run_id, "signing key missing")


def test_deleting_a_signed_eval_run_fails_verify(
    gemini: FakeGemini, practised: list[str], coach_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 21 item 7: with the run's row gone its children and their traces were never
    looked at, and a whole-journal verify passed."""
    code, report, err = _coach(capsys, "eval", "--session", _first_session(coach_home),
                               "--repeats", "2", "--json")  # fmt: skip
    assert code == 0, err
    with _journal(coach_home) as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'"):
            conn.execute(f'DROP TRIGGER "{name}"')
        conn.execute("DELETE FROM eval_runs WHERE id = ?", (report["eval_run_id"],))
    code, whole, _ = _coach(capsys, "verify", "--json")
    assert code == 1 and whole["first_failure"]["reason"] == "missing record"
    children = {c["trace_id"] for c in report["children"]}
    assert whole["first_failure"]["id"] in children
    with _journal(coach_home) as conn:  # the children deleted too: their traces are orphans
        conn.execute("DELETE FROM eval_children")
    code, whole, _ = _coach(capsys, "verify", "--json")
    assert code == 1 and whole["first_failure"]["id"] in children


def _first_session(home: Path) -> str:
    with _journal(home) as conn:
        row = conn.execute("SELECT id FROM sessions ORDER BY started_at LIMIT 1").fetchone()
    return str(row[0])


def test_errors_count_as_errors_and_the_run_completes(
    gemini: FakeGemini, practised: list[str], coach_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _configure(coach_home, gemini.url, "http://127.0.0.1:9", timeout=1)
    gemini.slow_seconds = 2.5
    gemini.inject(Fault.QUOTA, times=3)
    gemini.inject(Fault.SERVER_ERROR, times=1)
    gemini.inject(Fault.SLOW, times=2)
    code, report, err = _coach(capsys, "eval", "--last", "2", "--repeats", "2", "--json")
    assert code == 0, err
    items = 2 * PER_SESSION
    arms = report["arms"]
    assert sum(a["error"] for a in arms) == 6
    for arm in arms:
        assert arm["pass"] + arm["fail"] + arm["error"] == items * 2
    assert report["calls_done"] == report["calls_planned"] == items * 4
    assert "count as errors, not fails" in report["summary"]
    code, checked, _ = _coach(capsys, "verify", report["eval_run_id"], "--json")
    assert (code, checked["ok"]) == (0, True)


def test_payloads_are_those_of_practice_and_land_in_the_outbox(
    gemini: FakeGemini, practised: list[str], coach_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with _journal(coach_home) as conn:
        practice = [r["payload"] for r in conn.execute("SELECT payload FROM outbox")]
    code, _, err = _coach(capsys, "eval", "--repeats", "2", "--json")
    assert code == 0, err
    with _journal(coach_home) as conn:
        rows = conn.execute("SELECT payload, request_body FROM outbox").fetchall()
    sent = [r["payload"] for r in rows][len(practice) :]
    assert len(sent) == len(practised) * 2 * 2
    with_assertions = [p for p in sent if "core_assertions" in p]
    without = [p for p in sent if "core_assertions" not in p]
    assert sorted(with_assertions) == sorted(practice * 2)  # byte for byte practice's payloads
    for payload in without:
        (item,) = json.loads(payload)["items"]
        assert set(item) == {"challenge", "answer"}
    practice_body = json.loads(rows[0]["request_body"])
    from coach_gui.domain.tier2 import tier2_payload, verdict_schema

    for row in rows[len(practice) :]:
        body = json.loads(row["request_body"])
        assert set(body) == set(practice_body)
        # The same settings; the schema is the one made for this request's payload (issue
        # 31): with key points, one assessment per point; without, none.
        config, practised_config = (
            dict(body["generationConfig"]),
            dict(practice_body["generationConfig"]),
        )
        schema = config.pop("responseJsonSchema")
        practised_config.pop("responseJsonSchema")
        assert config == practised_config
        items = json.loads(row["payload"])["items"]
        assert schema == verdict_schema(tier2_payload(items, include_assertions=True))


def test_assertions_switched_off_refuses_with_exit_2_and_sends_nothing(
    gemini: FakeGemini, practised: list[str], coach_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _configure(coach_home, gemini.url, "http://127.0.0.1:9", include=False)
    before = len(gemini.requests)
    code, out, err = _coach(capsys, "eval", "--repeats", "3", "--json")
    assert code == 2 and out == ""
    assert "includeAssertions" in err and "assertions_on" in err and "Nothing was sent" in err
    assert len(gemini.requests) == before


def test_no_judged_answers_or_no_key_is_a_clear_exit_2(
    gemini: FakeGemini, coach_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _configure(coach_home, gemini.url, "http://127.0.0.1:9")
    code, _, err = _coach(capsys, "eval", "--repeats", "3")
    assert code == 2 and "No Gemini API key" in err
    Path(os.environ["COACH_TEST_KEYRING"]).parent.mkdir(parents=True, exist_ok=True)
    Path(os.environ["COACH_TEST_KEYRING"]).write_text(json.dumps({"coach/gemini_api_key": KEY}))
    code, _, err = _coach(capsys, "eval", "--repeats", "3")
    assert code == 2 and "no judged answers" in err.lower()
    code, _, err = _coach(capsys, "eval", "--repeats", "1")
    assert code == 2 and "at least 2" in err
    assert gemini.requests == []


def _per_assertion_expected(flips: FlippingAssessments, answers: list[str]) -> dict[str, Any]:
    """Agreement and evidence stability the flip model implies, worked out here."""
    rows = [
        [flips.status(answer, n, k) for k in range(REPEATS)]
        for answer in answers
        for n in range(len(ASSERTIONS))
    ]
    stability = []
    for row in rows:  # an explained repeat cites the same words, an unexplained one none
        if "explained" in row:
            pairs = list(combinations(row, 2))
            stability.append(sum(a == b for a, b in pairs) / len(pairs))
    return {
        "assertion_pairs_compared": len(rows),
        "assertion_agreement": round(sum(len(set(r)) == 1 for r in rows) / len(rows), 4),
        "assertion_kappa": fleiss_kappa(rows, ("explained", "unexplained", "wrong")),
        "evidence_stability": round(sum(stability) / len(stability), 4),
        "assessments": len(rows) * REPEATS,
        "downgrades": 0,
        "downgrade_rate": 0.0,
    }


def test_eval_reports_per_assertion_agreement_kappa_and_evidence_stability(
    gemini: FakeGemini,
    practised: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    flips = FlippingAssessments(p=0.3, seed=5)
    gemini.reply_for = flips
    code, report, err = _coach(capsys, "eval", "--repeats", str(REPEATS), "--json")
    assert code == 0, err
    arms = {arm["arm"]: arm for arm in report["arms"]}
    on, off = arms["assertions_on"], arms["assertions_off"]
    expected = _per_assertion_expected(flips, practised)
    assert {name: on[name] for name in expected} == expected
    assert 0.0 < expected["assertion_agreement"] < 1.0  # the model flips some, not all
    assert not set(expected) & set(off)  # without assertions there is nothing per assertion
    assert "Per key point" in report["summary"] and "Fleiss' kappa" in report["summary"]
    code, checked, _ = _coach(capsys, "verify", report["eval_run_id"], "--json")
    assert (code, checked["ok"]) == (0, True)


def test_eval_counts_credit_the_domain_overruled(
    gemini: FakeGemini,
    practised: list[str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    gemini.reply_for = cites_words_not_in_the_answer(1, span="nothing the learner wrote")
    code, report, err = _coach(capsys, "eval", "--repeats", "2", "--json")
    assert code == 0, err
    on = next(arm for arm in report["arms"] if arm["arm"] == "assertions_on")
    calls = len(practised) * 2
    assert (on["assessments"], on["downgrades"]) == (calls * 2, calls)  # key point 2, always
    assert on["downgrade_rate"] == 0.5
    assert on["fail"] == calls and on["pass"] == 0  # the downgrade is a gap, every time
    assert on["assertion_agreement"] == 1.0 and on["assertion_kappa"] is not None
