"""Canonical JSON and content digests (DESIGN §6): the same content always gives the same
id, whatever the key order or Unicode normal form it arrived in. The one module for them.

`canonical_json` is the definition: NFC strings and keys, sorted keys, no spaces, UTF-8
text (not ASCII escapes). `canonical_text` gives the same text fast for content already in
NFC (nearly everything): verification recomputes a digest for every stored row and trace,
and walking each value to normalise its strings costs more than the hashing. Dumping first
and checking the whole text once gives the same bytes: the strings sit between ASCII
quotes, which never compose with a neighbour, so the text is NFC exactly when every string
(and key) in it is. When it is not, the value goes the slow way. `tests/unit/test_sealing.py`
holds both to the same result.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any


def _normalised(value: Any) -> Any:
    if isinstance(value, str):
        return unicodedata.normalize("NFC", value)
    if isinstance(value, dict):
        return {unicodedata.normalize("NFC", str(k)): _normalised(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_normalised(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text (not ASCII escapes), NFC strings."""
    return json.dumps(
        _normalised(value),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    )


# One encoder for every call (json.dumps would build one each time).
_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def _unencodable(value: Any) -> Any:
    return _ENCODER.default(value)  # raises the TypeError json.dumps would


# The C encoder `_ENCODER.encode` builds on every call, built once with the same settings
# (no circular-reference check: the values are decoded JSON and records, never cyclic).
def _c_encoder() -> Callable[..., Any] | None:
    make: Callable[..., Any] | None = getattr(json.encoder, "c_make_encoder", None)
    if make is None:
        return None
    try:
        return make(  # type: ignore[no-any-return]
            None, _unencodable, json.encoder.encode_basestring, None, ":", ",", True, False, False
        )
    except TypeError:  # a Python whose private encoder takes other arguments: the slow path
        return None


_C_ENCODE = _c_encoder()


def _encoded(value: Any) -> str:
    if _C_ENCODE is None or isinstance(value, str):
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


def canonical_text(value: Any) -> str:
    """The same text as `canonical_json(value)`, fast when it is already NFC."""
    text = _encoded(value)
    if unicodedata.is_normalized("NFC", text):
        return text
    return canonical_json(value)


def digest(value: Any) -> str:
    """SHA-256 hex of the canonical form of `value`."""
    return hashlib.sha256(canonical_text(value).encode("utf-8")).hexdigest()


def content_id(kind: str, fields: Mapping[str, object]) -> str:
    """A content-addressed id (DESIGN §6): SHA-256 of the record's canonical form with its
    own id blank, so `coach verify` can recompute it from what is stored."""
    return digest({"record": kind, **fields, "id": ""})
