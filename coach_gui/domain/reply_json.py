"""The JSON object in a model's reply (issue 31): a model asked for JSON without a grammar
(plain JSON mode, or the schema only in the prompt) may wrap it in a Markdown code fence or
follow it with a sentence. The object is read from inside; nothing is added or repaired, so
a reply that is not whole JSON stays malformed."""

from __future__ import annotations

import json
import re

_FENCE = re.compile(r"^```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```", re.S)


def json_object_text(reply: str) -> str:
    """The text of the first JSON object in `reply`: the reply itself when it is one, the
    inside of a leading code fence, or the object that opens it with prose after; else
    the reply unchanged (for the caller to report as not JSON)."""
    text = reply.strip()
    fenced = _FENCE.match(text)
    if fenced:
        text = fenced.group(1).strip()
    start = text.find("{")
    if start < 0 or text[:start].strip():
        return text if fenced else reply
    try:
        _, end = json.JSONDecoder().raw_decode(text, start)
    except (ValueError, RecursionError):
        return text if fenced else reply
    return text[start:end]
