"""The config file: defaults, and errors that name the key a person has to fix."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from coach_gui.config import (
    SECTION_NAMES,
    SETTING_NAMES,
    Config,
    default_config_text,
    is_loopback_host,
    load_config,
    loopback_address,
    parse_config,
    reset_config,
    save_config,
)
from coach_gui.domain.errors import ConfigError

REPO = Path(__file__).resolve().parents[2]


def _with(section: str, key: str, value: object) -> str:
    data = json.loads(default_config_text())
    data[section][key] = value
    return json.dumps(data)


def test_repo_default_config_is_exactly_the_schema_defaults() -> None:
    assert (REPO / "coach.config.json").read_text(encoding="utf-8") == default_config_text()


def test_defaults_match_design() -> None:
    config = parse_config(default_config_text())
    assert config.judge.enabled is True
    assert config.judge.include_assertions is True
    assert config.tier1.ollama_url == "http://127.0.0.1:11434"


def test_a_partial_file_takes_defaults_for_the_rest() -> None:
    config = parse_config('{"judge": {"includeAssertions": false}}')
    assert config.judge.include_assertions is False
    assert config.judge.enabled is True


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        (
            _with("judge", "includeAssertion", True),
            "judge.includeAssertion",
            "did you mean 'includeAssertions'",
        ),
        ('{"colour": "blue"}', "colour", "unknown key"),
        (_with("judge", "timeoutSeconds", "30"), "judge.timeoutSeconds", 'got "30"'),
        (_with("judge", "enabled", "yes"), "judge.enabled", "boolean"),
        (_with("judge", "timeoutSeconds", -1), "judge.timeoutSeconds", "greater than 0"),
        (
            _with("tier1", "challengesPerSession", 0),
            "tier1.challengesPerSession",
            "greater than or equal to 1",
        ),
        (
            _with("noQuote", "maxContainment", 1.5),
            "noQuote.maxContainment",
            "less than or equal to 1",
        ),
        (_with("judge", "baseUrl", "ftp://x"), "judge.baseUrl", "https:// URL"),
        # Issue 21: clear text only to this computer.
        (_with("judge", "baseUrl", "http://judge.example.com"), "judge.baseUrl", "clear text"),
        (_with("judge", "baseUrl", "http://10.1.2.3:8080"), "judge.baseUrl", "clear text"),
        (_with("judge", "baseUrl", "http://localhost.:8080"), "judge.baseUrl", "clear text"),
        ('{"tier1": []}', "tier1", "got []"),
    ],
)
def test_bad_values_name_the_key(text: str, key: str, words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, path="/home/me/coach.config.json")
    assert caught.value.key == key
    message = str(caught.value)
    assert message.startswith(f"/home/me/coach.config.json: {key}: ")
    assert words in message
    assert "\n" not in message


@pytest.mark.parametrize(
    "url",
    [
        "http://192.168.1.10:11434",
        "http://10.0.0.2:11434",
        "http://example.com:11434",
        "http://localhost.example.com:11434",
        "http://[2001:db8::1]:11434",
        "http://0.0.0.0:11434",
        "ollama:11434",
        "http://127.0.0.1.:11434",  # a trailing dot goes to a resolver (issue 21)
        "http://localhost.:11434",
        "http://LOCALHOST.:11434",
    ],
)
def test_tier1_must_be_on_loopback(url: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(_with("tier1", "ollamaUrl", url))
    assert caught.value.key == "tier1.ollamaUrl"


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:11434",
        "http://127.0.0.1:11434",
        "http://127.3.4.5:8080",
        "http://[::1]:11434",
    ],
)
def test_tier1_loopback_urls_are_accepted(url: str) -> None:
    assert parse_config(_with("tier1", "ollamaUrl", url)).tier1.ollama_url == url


def test_loopback_host_rule() -> None:
    assert is_loopback_host("LOCALHOST")
    assert is_loopback_host("127.255.0.1")
    assert not is_loopback_host("128.0.0.1")
    assert not is_loopback_host("::2")
    for resolved_by_a_resolver in ("localhost.", "127.0.0.1.", "LOCALHOST.", "::1%lo"):
        assert not is_loopback_host(resolved_by_a_resolver)
    assert loopback_address("localhost") == "127.0.0.1"  # never looked up
    assert loopback_address("[::1]") == "::1"


def test_bad_json_says_where() -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config('{"judge": {"enabled": true,}}')
    assert caught.value.key is None
    assert "not valid JSON (line 1" in str(caught.value)


def test_first_run_writes_the_defaults(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "coach.config.json"
    assert load_config(path) == Config()
    assert path.read_text(encoding="utf-8") == default_config_text()


def test_not_utf8_and_missing_files_are_clear(tmp_path: Path) -> None:
    path = tmp_path / "coach.config.json"
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(path)
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path / "missing.json", create=False)


def test_save_then_load_round_trips_and_reset_keeps_a_backup(tmp_path: Path) -> None:
    path = tmp_path / "coach.config.json"
    changed = Config().with_changes({"judge.enabled": False, "tier1.model": "qwen3:4b"})
    save_config(changed, path)
    assert load_config(path) == changed
    path.write_text("{broken", encoding="utf-8")
    reset_config(path)
    assert load_config(path) == Config()
    assert path.with_suffix(".json.bak").read_text(encoding="utf-8") == "{broken"


def test_reset_keeps_a_settings_file_too_big_to_read_whole_as_the_backup(tmp_path: Path) -> None:
    """Review of issue 34: past the 1 MB read limit the old file was replaced with the
    defaults and no backup kept (COACH_CONFIG pointed at another file by mistake, say)."""
    path = tmp_path / "coach.config.json"
    raw = b"# not Coach's settings\n" + b"a line of someone's own file\n" * 80_000
    assert len(raw) > 2_000_000
    path.write_bytes(raw)
    with pytest.raises(ConfigError, match="over 1 MB"):
        load_config(path)
    reset_config(path)
    assert path.with_suffix(".json.bak").read_bytes() == raw
    assert load_config(path) == Config()


def test_reset_over_a_pipe_keeps_no_backup_and_never_waits(tmp_path: Path) -> None:
    path = tmp_path / "coach.config.json"
    os.mkfifo(path)
    reset_config(path)  # a pipe holds no settings: nothing read from it
    assert not path.with_suffix(".json.bak").exists()
    assert load_config(path) == Config()


def test_with_changes_validates() -> None:
    with pytest.raises(ConfigError) as caught:
        Config().with_changes({"tier1.ollamaUrl": "http://203.0.113.5:11434"})
    assert caught.value.key == "tier1.ollamaUrl"


@pytest.mark.parametrize(
    "url",
    ["https://judge.example.com", "https://10.1.2.3/v", "http://127.0.0.1:9", "http://[::1]:9"],
)
def test_the_judge_endpoint_is_https_or_on_this_computer(url: str) -> None:
    config = parse_config(_with("judge", "baseUrl", url))
    assert config.judge.base_url == url and config.judge.endpoint() == url


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
        ('{"judge": {"timeoutSeconds": ' + "9" * 5000 + "}}", "too large to read"),
        ('{"tier1": {"seed": ' + "1" * 5000 + "}}", "too large to read"),
    ],
)
def test_a_config_no_parser_can_hold_is_one_clear_line(text: str, words: str) -> None:
    """Issue 21 item 10: these printed a raw traceback and exited 1."""
    with pytest.raises(ConfigError) as caught:
        parse_config(text, path="/home/me/coach.config.json")
    message = str(caught.value)
    assert message.startswith("/home/me/coach.config.json: ") and words in message
    assert "\n" not in message and "Traceback" not in message


def _dotted_keys(model: type[BaseModel], prefix: str = "") -> list[str]:
    keys = []
    for name, field in model.model_fields.items():
        key = prefix + (field.alias or name)
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys += _dotted_keys(annotation, key + ".")
        else:
            keys.append(key)
    return keys


def test_every_setting_has_a_name_in_the_learners_words() -> None:
    keys = _dotted_keys(Config)
    assert len(keys) > 25
    assert sorted(SETTING_NAMES) == sorted(keys)
    assert all(name and "." not in name for name in SETTING_NAMES.values())
    assert sorted(SECTION_NAMES) == sorted({key.split(".")[0] for key in keys})


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (_with("judge", "timeoutSeconds", -1), "Gemini timeout: Input should be greater than 0"),
        (_with("judge", "includeAssertions", "yes"), "Send core assertions to the judge: "),
        (_with("judge", "includeAssertion", True), "an entry Coach does not know in its Judge"),
        ('{"tier1": []}', "The Local model part: must be a group of settings in braces"),
        ("{", "The settings file /home/me/coach.config.json: not valid JSON (line 1"),
    ],
)
def test_the_window_names_the_setting_never_the_key(text: str, shown: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(text, path="/home/me/coach.config.json")
    said = caught.value.learner_text
    assert said.startswith(shown) or shown in said, said
    assert not re.search(r"\b[a-z][a-z0-9]*\.[a-z][A-Za-z]+\b", said.replace(".config.json", ""))
    assert "includeAssertion" not in said and "Config" not in said
