"""Reading and writing one note file: YAML front matter, then a Markdown body.

The file format belongs to the learner (it opens in Obsidian or any editor), so this
module changes as little as it can: an unchanged note is never rewritten, a body-only
edit keeps the front matter text as it was, and front-matter keys Coach does not know
(``aliases``, ``created``, ...) are kept in their order.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError

from coach_gui.domain.errors import NoteError
from coach_gui.domain.notes import Note

MAX_NOTE_BYTES = 1_000_000
KNOWN_KEYS = ("id", "title", "source", "tags", "core_assertions")

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_OPEN = re.compile(r"\A---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_BOM = "\ufeff"


class NoteFormatError(NoteError):
    """A note file does not parse; the message says what to fix."""


@dataclass(frozen=True)
class ParsedFile:
    """A note as read from disk, with what is needed to write it back faithfully."""

    note: Note
    front_matter_text: str  # between the delimiters, exactly as in the file
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys, in file order
    newline: str = "\n"
    bom: bool = False


def decode(raw: bytes) -> str:
    if len(raw) > MAX_NOTE_BYTES:
        raise NoteFormatError(
            f"the file is {len(raw) / 1_000_000:.1f} MB; Coach reads notes up to 1 MB — "
            "split it into smaller notes"
        )
    if b"\x00" in raw:
        raise NoteFormatError(
            "this is a binary file, not a Markdown note; move it out of the folder"
        )
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NoteFormatError(
            f"not UTF-8 text (bad byte at position {exc.start}); re-save it as UTF-8"
        ) from None


def split(text: str) -> tuple[str, str]:
    """(front matter text, body) of a note's text, the BOM already removed."""
    opening = _OPEN.match(text)
    if not opening:
        raise NoteFormatError(
            "no front matter: the file must start with a '---' line, then at least "
            "'title: ...', then another '---' line"
        )
    closing = _CLOSE.search(text, opening.end())
    if not closing:
        raise NoteFormatError("the front matter is not closed: add a '---' line after it")
    return text[opening.end() : closing.start()], text[closing.end() :]


def _as_text_list(value: Any, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        if key == "tags":  # Obsidian also accepts "tags: a, b"
            return tuple(t for t in re.split(r"[,\s]+", value) if t)
        return (value,)
    if not isinstance(value, list):
        raise NoteFormatError(f"'{key}' must be a list (one '- item' per line)")
    items: list[str] = []
    for i, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            raise NoteFormatError(f"'{key}' item {i + 1} must be text")
        items.append(str(item))
    return tuple(items)


def _field_label(loc: tuple[int | str, ...]) -> str:
    if not loc:
        return "note"
    name = str(loc[0])
    return f"'{name}' item {int(loc[1]) + 1}" if len(loc) > 1 else f"'{name}'"


def _json_safe(value: Any) -> bool:
    """True when `value` survives a JSON round trip unchanged (so it may be cached)."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_json_safe(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_safe(v) for k, v in value.items())
    return False


def load_yaml(front: str, cache: dict[str, Any] | None = None) -> Any:
    """Parse front-matter YAML. `cache` maps a digest of the text to its parsed value:
    YAML parsing is most of the cost of opening a large knowledge base, and the key is
    the content itself, so a cached value can never be stale."""
    key = hashlib.blake2b(front.encode("utf-8"), digest_size=16).hexdigest()
    if cache is not None and key in cache:
        return cache[key]  # shared, not copied: parsed front matter is only ever read
    data = yaml.load(front, Loader=_Loader)  # a safe loader (CSafeLoader or SafeLoader)
    if cache is not None and _json_safe(data):
        cache[key] = data
    return data


def parse(
    raw: bytes,
    *,
    fallback_id: str | Callable[[], str] | None = None,
    yaml_cache: dict[str, Any] | None = None,
) -> ParsedFile:
    """Parse a note file. `fallback_id` (or what it returns) is used when the front
    matter has no id."""
    text = decode(raw)
    bom = text.startswith(_BOM)
    if bom:
        text = text[1:]
    front, body = split(text)
    opening = _OPEN.match(text)
    newline = "\r\n" if opening and opening.group(0).endswith("\r\n") else "\n"
    try:
        data = load_yaml(front, yaml_cache)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (front matter line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise NoteFormatError(f"the front matter is not valid YAML{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise NoteFormatError("the front matter must be 'key: value' lines")
    raw_id = data.get("id")
    if raw_id is None:
        raw_id = fallback_id() if callable(fallback_id) else fallback_id
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or raw_id == "":
        raise NoteFormatError(
            "'id' must be text such as 3f2a9c...; delete the line to get a new one"
        )
    title = data.get("title")
    if title is None or (isinstance(title, str) and not title.strip()):
        raise NoteFormatError("missing title: add a line 'title: ...' to the front matter")
    if not isinstance(title, str):
        title = str(title)
    source = data.get("source")
    try:
        note = Note(
            id=str(raw_id),
            title=title,
            source="" if source is None else str(source),
            tags=_as_text_list(data.get("tags"), "tags"),
            core_assertions=_as_text_list(data.get("core_assertions"), "core_assertions"),
            body=body.replace("\r\n", "\n") if newline == "\r\n" else body,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        raise NoteFormatError(f"{_field_label(tuple(first['loc']))}: {first['msg']}") from None
    extra = {k: v for k, v in data.items() if k not in KNOWN_KEYS}
    return ParsedFile(note=note, front_matter_text=front, extra=extra, newline=newline, bom=bom)


def _dump(mapping: dict[str, Any], *, flow: bool | None) -> str:
    text: str = yaml.dump(
        mapping,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=flow,
        width=2**16,
    )
    return text


def render_front_matter(note: Note, extra: dict[str, Any] | None = None) -> str:
    """The front matter text for `note`: known keys in a fixed order, then `extra`."""
    parts = [_dump({"id": note.id, "title": note.title}, flow=False)]
    if note.source:
        parts.append(_dump({"source": note.source}, flow=False))
    parts.append(_dump({"tags": list(note.tags)}, flow=None) if note.tags else "tags: []\n")
    if note.core_assertions:
        parts.append(_dump({"core_assertions": list(note.core_assertions)}, flow=False))
    else:
        parts.append("core_assertions: []\n")
    if extra:
        parts.append(_dump(extra, flow=False))
    return "".join(parts)


def render(note: Note, previous: ParsedFile | None = None) -> bytes:
    """The bytes of a note file for `note`, as close to `previous` as the edit allows."""
    newline = previous.newline if previous else "\n"
    front_unchanged = (
        previous is not None and previous.note.model_copy(update={"body": note.body}) == note
    )
    if previous is not None and front_unchanged:
        front = previous.front_matter_text
    else:
        front = render_front_matter(note, previous.extra if previous else None)
        if newline != "\n":
            front = front.replace("\n", newline)
    body = note.body.replace("\n", newline) if newline != "\n" else note.body
    text = f"---{newline}{front}---{newline}{body}"
    if previous is not None and previous.bom:
        text = _BOM + text
    return text.encode("utf-8")


def stamp_id(raw: bytes, note_id: str) -> bytes:
    """`raw` with an ``id:`` line added as the first front-matter line, all else as it was."""
    text = raw.decode("utf-8")
    bom = _BOM if text.startswith(_BOM) else ""
    body = text[len(bom) :]
    opening = _OPEN.match(body)
    if not opening:
        raise NoteFormatError("no front matter to add an id to")
    newline = "\r\n" if opening.group(0).endswith("\r\n") else "\n"
    line = _dump({"id": note_id}, flow=False).replace("\n", newline)
    return (bom + body[: opening.end()] + line + body[opening.end() :]).encode("utf-8")
