"""`coach notes`, `coach doctor` and `coach --version` as a script would run them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_run import coach_process

from coach_gui import __version__


def coach(*args: str, env_home: Path, config: Path) -> subprocess.CompletedProcess[str]:
    return coach_process(*args, home=env_home, config=config, timeout=60)


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "home", tmp_path / "cfg" / "coach.config.json"


def test_version(home: tuple[Path, Path]) -> None:
    result = coach("--version", env_home=home[0], config=home[1])
    assert result.returncode == 0
    assert result.stdout.strip() == f"coach {__version__}"


def test_notes_json_on_an_empty_home_lists_the_samples(home: tuple[Path, Path]) -> None:
    result = coach("notes", "--json", env_home=home[0], config=home[1])
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["location"] == str(home[0] / "kb")
    assert 6 <= len(data["notes"]) <= 10
    assert data["broken"] == []
    for note in data["notes"]:
        assert note["id"] and note["title"] and note["file"].endswith(".md")
        assert 3 <= len(note["core_assertions"]) <= 5
    assert home[1].exists()  # first run wrote the default config


def test_doctor_passes_on_a_fresh_home(home: tuple[Path, Path]) -> None:
    result = coach("doctor", "--json", env_home=home[0], config=home[1])
    assert result.returncode == 0, result.stdout + result.stderr
    data = json.loads(result.stdout)
    assert data["ok"] is True
    names = [c["name"] for c in data["checks"]]
    assert names[:3] == ["config", "knowledge base", "journal"]
    assert (home[0] / "journal.sqlite3").exists()
    keyring = next(c for c in data["checks"] if c["name"] == "keyring")
    judge_key = next(c for c in data["checks"] if c["name"] == "judge key")
    assert keyring["detail"].endswith("FileKeyring")  # the tests' file backend
    # The judge is on by default and has no key yet: worth a warning, not a failure.
    assert judge_key["level"] == "warn" and "coach key set" in judge_key["detail"]


def test_doctor_names_a_judge_endpoint_that_is_not_the_default(home: tuple[Path, Path]) -> None:
    result = coach("doctor", "--json", env_home=home[0], config=home[1])
    endpoint = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "judge endpoint")
    assert endpoint["level"] == "ok" and "Google Gemini (the default)" in endpoint["detail"]
    home[1].write_text(json.dumps({"judge": {"baseUrl": "https://judge.example.org"}}), "utf-8")
    result = coach("doctor", env_home=home[0], config=home[1])
    assert "warn judge endpoint: not the default: https://judge.example.org (judge on" in (
        result.stdout
    )


def test_doctor_says_a_key_is_set_without_showing_it(home: tuple[Path, Path]) -> None:
    env = dict(os.environ, COACH_HOME=str(home[0]), COACH_CONFIG=str(home[1]))
    subprocess.run(
        [sys.executable, "-m", "coach_gui", "key", "set"],
        input="AIza-doctor-secret\n", text=True, env=env, check=True, capture_output=True,
    )  # fmt: skip
    result = coach("doctor", "--json", env_home=home[0], config=home[1])
    judge_key = next(c for c in json.loads(result.stdout)["checks"] if c["name"] == "judge key")
    assert judge_key["level"] == "ok" and "a key is set" in judge_key["detail"]
    assert "AIza-doctor-secret" not in result.stdout + result.stderr


def test_a_broken_note_is_one_line_naming_the_file(home: tuple[Path, Path]) -> None:
    coach("notes", env_home=home[0], config=home[1])
    (home[0] / "kb" / "oops.md").write_text("---\ntitle: [unclosed\n---\n", encoding="utf-8")
    result = coach("notes", "--json", env_home=home[0], config=home[1])
    assert result.returncode == 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("coach: oops.md: ")
    assert json.loads(result.stdout)["broken"][0]["file"] == "oops.md"
    doctor = coach("doctor", env_home=home[0], config=home[1])
    assert doctor.returncode == 0  # Coach works; the file is listed and left alone
    (line,) = [x for x in doctor.stdout.splitlines() if "knowledge base" in x]
    assert line.startswith("warn ") and "oops.md" in line and "1 file could not" in line


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('{"judge": {"enabeld": true}}', "judge.enabeld"),
        ('{"tier1": {"ollamaUrl": "http://192.168.0.7:11434"}}', "tier1.ollamaUrl"),
        ('{"judge": {"timeoutSeconds": "soon"}}', "judge.timeoutSeconds"),
    ],
)
def test_a_bad_config_is_one_line_naming_the_key_and_exit_2(
    home: tuple[Path, Path], text: str, key: str
) -> None:
    home[1].parent.mkdir(parents=True)
    home[1].write_text(text, encoding="utf-8")
    result = coach("notes", env_home=home[0], config=home[1])
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"coach: {home[1]}: {key}: ")
    assert "Traceback" not in result.stderr
    doctor = coach("doctor", "--json", env_home=home[0], config=home[1])
    assert doctor.returncode == 2
    assert json.loads(doctor.stdout)["checks"][0]["ok"] is False


def test_bad_json_config_names_the_file(home: tuple[Path, Path]) -> None:
    home[1].parent.mkdir(parents=True)
    home[1].write_text("{not json", encoding="utf-8")
    result = coach("notes", env_home=home[0], config=home[1])
    assert result.returncode == 2
    assert result.stderr.startswith(f"coach: {home[1]}: not valid JSON")


def test_usage_errors_exit_2(home: tuple[Path, Path]) -> None:
    result = coach("frobnicate", env_home=home[0], config=home[1])
    assert result.returncode == 2
    assert "invalid choice" in result.stderr


def test_a_config_too_deep_to_parse_exits_2_with_one_line(home: tuple[Path, Path]) -> None:
    home[1].parent.mkdir(parents=True, exist_ok=True)
    home[1].write_text("[" * 100_000 + "]" * 100_000, "utf-8")
    result = coach("notes", env_home=home[0], config=home[1])
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"coach: {home[1]}: is nested too deeply to be a Coach config; fix the file or reset "
        "it to the defaults"
    )


@pytest.mark.parametrize("special", ["/dev/zero", "/dev/urandom", "fifo", "huge"])
def test_a_config_that_is_a_device_a_pipe_or_huge_is_one_sentence(
    home: tuple[Path, Path], tmp_path: Path, special: str
) -> None:
    """Issue 34 item 6: COACH_CONFIG=/dev/zero read without limit and printed a traceback."""
    config = Path(special)
    if special == "fifo":
        config = tmp_path / "coach.config.json"
        os.mkfifo(config)
    elif special == "huge":
        config = tmp_path / "coach.config.json"
        config.write_text('{"tier1": {}' + " " * 3_000_000 + "}", encoding="utf-8")
    for command in (("notes",), ("doctor", "--json")):
        result = coach(*command, env_home=home[0], config=config)  # a hang fails at 60 s
        assert result.returncode == 2
        assert "Traceback" not in result.stderr
        words = {"fifo": "is a pipe", "huge": "is over 1 MB"}.get(special, "is a device")
        assert words in result.stdout + result.stderr
        assert "not a settings file" in result.stdout + result.stderr or special == "huge"
