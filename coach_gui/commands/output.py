"""How commands talk: results on stdout (one JSON object with --json), messages on stderr."""

from __future__ import annotations

import json
import sys
from typing import Any

EXIT_OK, EXIT_CHECK_FAILED, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A mistake in how the command was called; exit 2 with this message."""


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def emit_json(payload: dict[str, Any]) -> None:
    text = json.dumps(payload, ensure_ascii=False, indent=2)
    try:
        sys.stdout.write(text + "\n")
    except UnicodeEncodeError:  # text from elsewhere that is not Unicode: escaped instead
        sys.stdout.write(json.dumps(payload, ensure_ascii=True, indent=2) + "\n")
    sys.stdout.flush()
