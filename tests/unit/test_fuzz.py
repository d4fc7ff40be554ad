"""Issue 9 item 4: the parsers that read text from outside (note files, the config file, the
judge's reply, Ollama's NDJSON stream) and `tier2_payload()` never crash on any input: they
return their documented result or raise one of our own CoachError subclasses.

Each target runs a few hundred examples in the suite; set COACH_FUZZ_EXAMPLES (e.g. 20000)
for a deeper run on the bench. bench/fuzz_atheris.py drives the same targets with atheris.
"""

from __future__ import annotations

import json
import os
from typing import Any

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coach_gui.adapters import front_matter
from coach_gui.adapters.ollama import OllamaClient
from coach_gui.config import Config, parse_config
from coach_gui.domain.errors import ConfigError
from coach_gui.domain.judge_errors import MalformedVerdict
from coach_gui.domain.tier1_errors import Tier1Error
from coach_gui.domain.tier2 import PayloadRejected, Tier2Payload, tier2_payload
from coach_gui.domain.verdicts import parse_verdicts

EXAMPLES = int(os.environ.get("COACH_FUZZ_EXAMPLES", "200"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- shared strategies -----------------------------------------------------------------------
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
)
json_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=25,
)


def _dumps(value: Any) -> str:
    return json.dumps(value, allow_nan=True)


def _mutated(text: str) -> st.SearchStrategy[str]:
    """`text` cut, spliced and garbled at random places."""
    return st.tuples(st.integers(0, len(text)), st.integers(0, len(text)), st.text(max_size=8)).map(
        lambda c: text[: min(c[0], c[1])] + c[2] + text[max(c[0], c[1]) :]
    )


# --- note files ------------------------------------------------------------------------------
_yaml_pieces = st.sampled_from(
    [
        "id: ", "title: ", "tags: ", "core_assertions:\n", "- ", "source: ", "\n", "  ", ": ",
        "[", "]", "{", "}", "&a ", "*a", "!!python/object:os.system ", "!!binary ", "? ", "|",
        ">", "'", '"', "#", "---", "...", "%YAML 1.2\n", "<<: *a", "~", "null", "true", "1e999",
        "0x1F", "2024-01-01", "\t", "\ufeff", "\x85", "\u2028", "é", "\\u0000", "[[[[[[[[",
    ]
)  # fmt: skip
_front = st.lists(st.one_of(_yaml_pieces, st.text(max_size=6)), max_size=40).map("".join)


@FUZZ
@given(_front, st.text(max_size=80), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_note_files_parse_or_raise_note_format_error(
    front: str, body: str, newline: str, bom: bool
) -> None:
    raw = (("\ufeff" if bom else "") + f"---{newline}{front}{newline}---{newline}{body}").encode(
        "utf-8", "surrogatepass"
    )
    try:
        parsed = front_matter.parse(raw, fallback_id="fallback")
    except front_matter.NoteFormatError as error:
        assert str(error)
        return
    assert parsed.note.title.strip()
    again = front_matter.parse(front_matter.render(parsed.note, parsed), fallback_id="fallback")
    assert again.note == parsed.note


# --- the config file -------------------------------------------------------------------------
_KEYS = {
    "kb": ["path"],
    "tier1": list(Config().to_json_dict()["tier1"]),
    "judge": list(Config().to_json_dict()["judge"]),
    "noQuote": list(Config().to_json_dict()["noQuote"]),
}
_configs = st.dictionaries(
    st.sampled_from([*_KEYS, "extra"]),
    st.one_of(
        json_values,
        st.dictionaries(
            st.sampled_from(sorted({k for keys in _KEYS.values() for k in keys} | {"bogus"})),
            json_values,
            max_size=6,
        ),
    ),
    max_size=4,
).map(_dumps)


@FUZZ
@given(st.one_of(_configs, _configs.flatmap(_mutated), st.text(max_size=60)))
def test_config_text_parses_or_raises_config_error(text: str) -> None:
    try:
        config = parse_config(text)
    except ConfigError as error:
        assert str(error).startswith("coach.config.json: ")
        return
    assert parse_config(json.dumps(config.to_json_dict())) == config


# --- the judge's reply -----------------------------------------------------------------------
PAYLOAD = tier2_payload(
    [
        {"challenge": "Why?", "answer": "Because.", "core_assertions": ["A.", "B."]},
        {"challenge": "How?", "answer": "Thus."},
    ],
    include_assertions=True,
)
_gap = st.fixed_dictionaries(
    {
        "assertion": st.one_of(st.none(), st.integers(-2, 3), json_values),
        "problem": st.one_of(st.sampled_from(["unexplained", "wrong"]), json_values),
        "explanation": st.one_of(st.text(max_size=20), json_values),
    }
)
_item = st.fixed_dictionaries(
    {
        "index": st.one_of(st.integers(-1, 3), json_values),
        "verdict": st.one_of(st.sampled_from(["pass", "fail"]), json_values),
        "gaps": st.one_of(st.lists(_gap, max_size=3), json_values),
        "feedback": st.one_of(st.text(max_size=20), json_values),
    },
    optional={"extra": json_values},
)
_replies = st.one_of(
    st.fixed_dictionaries({"items": st.lists(_item, max_size=4)}).map(_dumps),
    json_values.map(_dumps),
    st.text(max_size=60),
)


@FUZZ
@given(st.one_of(_replies, _replies.flatmap(_mutated)), st.sampled_from([PAYLOAD]))
def test_judge_replies_give_verdicts_or_malformed_verdict(raw: str, payload: Tier2Payload) -> None:
    try:
        verdicts = parse_verdicts(raw, payload)
    except MalformedVerdict as error:
        assert str(error)
        return
    assert [v.index for v in verdicts] == [0, 1]
    assert all(not v.passed or not v.gaps for v in verdicts)


# --- Ollama's NDJSON stream ------------------------------------------------------------------
_line = st.one_of(
    st.fixed_dictionaries(
        {"message": st.one_of(st.fixed_dictionaries({"content": st.text(max_size=10)}),
                              json_values)},
        optional={"done": st.one_of(st.booleans(), json_values), "error": json_values,
                  "eval_count": json_values, "done_reason": json_values},
    ).map(_dumps),
    json_values.map(_dumps),
    st.text(max_size=30),
)  # fmt: skip
_streams = st.lists(_line, max_size=6).map("\n".join).map(lambda s: s.encode("utf-8", "replace"))


@FUZZ
@given(st.one_of(_streams, st.binary(max_size=200)), st.sampled_from([200, 200, 404, 500]))
def test_ollama_streams_give_text_or_a_tier1_error(body: bytes, status: int) -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(status, content=body))
    with OllamaClient("http://127.0.0.1:11434", transport=transport) as client:
        stream = client.chat_stream("m", [{"role": "user", "content": "hi"}])
        try:
            text = "".join(stream)
        except Tier1Error as error:
            assert str(error)
            return
    assert stream.stats is not None and text == stream.text


# --- tier2_payload ---------------------------------------------------------------------------
_fields = st.sampled_from(["challenge", "answer", "core_assertions", "note", "title", ""])
_raw_items = st.one_of(
    st.lists(
        st.one_of(
            st.dictionaries(_fields, st.one_of(st.text(max_size=8), json_values), max_size=4),
            json_values,
        ),
        max_size=4,
    ),
    json_values,
)


@FUZZ
@given(_raw_items, st.booleans())
def test_tier2_payload_builds_or_raises_payload_rejected(items: Any, allow: bool) -> None:
    try:
        payload = tier2_payload(items, include_assertions=allow)
    except PayloadRejected as error:
        assert "Nothing left this computer" in str(error)
        return
    assert len(payload.items) == len(items)
    assert allow or not payload.carries_assertions
