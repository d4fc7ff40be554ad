"""`canonical.digest`, fast for content that is already in NFC (nearly everything).

Verification recomputes a digest for every stored row and trace, and walking each value to
normalise its strings costs more than the hashing. Dumping first and checking the whole
text once gives the same bytes: the strings sit between ASCII quotes, which never compose
with a neighbour, so the text is NFC exactly when every string (and key) in it is. When
it is not, the value goes the slow way. `tests/unit/test_sealing.py` holds both to the
same result.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Callable
from typing import Any

from coach_gui.domain import canonical

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
    """The same text as `canonical.canonical_json(value)`."""
    text = _encoded(value)
    if unicodedata.is_normalized("NFC", text):
        return text
    return canonical.canonical_json(value)


def digest(value: Any) -> str:
    """The same digest as `canonical.digest(value)`."""
    return hashlib.sha256(canonical_text(value).encode("utf-8")).hexdigest()


def content_id(kind: str, fields: dict[str, Any]) -> str:
    """The same id as `practice.content_id(kind, fields)`."""
    return digest({"record": kind, **fields, "id": ""})
