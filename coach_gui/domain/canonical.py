"""Canonical JSON and content digests (DESIGN §6): the same content always gives the
same id, whatever the key order or Unicode normal form it arrived in."""

from __future__ import annotations

import hashlib
import json
import unicodedata
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


def digest(value: Any) -> str:
    """SHA-256 hex of the canonical form of `value`."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()
