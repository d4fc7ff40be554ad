"""Reading and writing one note file: optional YAML front matter, then a Markdown body.

The file format belongs to the learner (it opens in Obsidian or any editor), so this
module changes as little as it can (ADR 0016):
- It reads a folder as Obsidian does: a file without front matter is a note with no
  assertions, a note without ``title`` is titled by its file name, ``aliases`` and tags
  in every Obsidian form are read. Front matter is read with PyYAML's *base* loader, so
  every value is the text as written: ``time: 12:30``, ``publish: yes`` and ``1.10``
  stay themselves (no YAML 1.1 sexagesimals, booleans or floats).
- It writes surgically: an unchanged note is never rewritten; a body edit keeps the front
  matter text; changing a field replaces only that key's lines (found through the YAML
  node marks), so every other byte — key order, comments, quoting, flow style, line
  endings, BOM — stays as it was.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from pydantic import ValidationError

from coach_gui.domain.errors import NoteError
from coach_gui.domain.notes import ID_PATTERN, Note

MAX_NOTE_BYTES = 1_000_000
# An alias bomb (a few hundred bytes of `&a [*a, *a, ...]` levels) expands to billions of
# values: a note's front matter may use a few aliases, expanding to a bounded size, and
# must be read within a time budget; each bound only refuses that note (listed with why).
MAX_ALIASES = 100
MAX_EXPANDED_VALUES = 100_000
PARSE_BUDGET_SECONDS = 10.0  # far above any real note (a 1 MB list: ~5 s here)
MAX_CACHED_VALUES = 10_000  # a bigger front matter is parsed each time, not cached
# Lists or mappings inside each other this deep (`[[[[…]]]]`, a few hundred bytes; or
# aliases to nested values, nested again) would overflow Python's stack in the loader and
# in whatever walks the value: refused like a bomb. Real front matter nests 2 or 3 deep.
MAX_DEPTH = 64
KNOWN_KEYS = ("id", "title", "source", "tags", "aliases", "alias", "core_assertions")
EDITABLE_KEYS = ("title", "source", "tags", "core_assertions")  # what Coach's editor changes

# Every scalar as the text it is written as (ADR 0016): Coach's keys are text, and the
# learner's other keys are never re-written, so no value needs a type.
_Loader: Any = getattr(yaml, "CBaseLoader", yaml.BaseLoader)
_Dumper: Any = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
_OPEN = re.compile(r"\A---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.MULTILINE)
_BOM = "\ufeff"
# A list key written as a bare null ("core_assertions: ~") holds nothing. (A title or
# source of "null" is kept: the base loader cannot tell a quoted 'NULL' from a bare null.)
_NULLS = {"", "~", "null", "Null", "NULL"}


class NoteFormatError(NoteError):
    """A note file does not parse; the message says what to fix."""


@dataclass(frozen=True)
class ParsedFile:
    """A note as read from disk, with what is needed to write it back faithfully."""

    note: Note
    front_matter_text: str | None  # between the delimiters, exactly as in the file; None: none
    extra: dict[str, Any] = field(default_factory=dict)  # unknown keys, in file order
    newline: str = "\n"
    bom: bool = False
    body_text: str = ""  # the body exactly as in the file (line endings included)
    has_id: bool = True  # the id is the front matter's own
    titled: bool = True  # the title is the front matter's own (not the file name)
    delimiters: tuple[str, str] = ("---\n", "---\n")  # the opening and closing lines as written


def too_big(size: int) -> NoteFormatError:
    """The reason a file of `size` bytes (more than MAX_NOTE_BYTES) is not read."""
    return NoteFormatError(
        f"the file is {size / 1_000_000:.1f} MB; Coach reads notes up to 1 MB — "
        "split it into smaller notes"
    )


def decode(raw: bytes) -> str:
    if len(raw) > MAX_NOTE_BYTES:
        raise too_big(len(raw))
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


def split(text: str) -> tuple[str | None, str]:
    """(front matter text or None when there is none, body) of a note's text, the BOM
    already removed."""
    front, body, _ = _split(text)
    return front, body


def _split(text: str) -> tuple[str | None, str, tuple[str, str]]:
    """`split`, and the delimiter lines exactly as written (kept on a rewrite)."""
    opening = _OPEN.match(text)
    if not opening:
        return None, text, ("", "")
    closing = _CLOSE.search(text, opening.end())
    if not closing:
        raise NoteFormatError("the front matter is not closed: add a '---' line after it")
    delimiters = (opening.group(0), closing.group(0))
    return text[opening.end() : closing.start()], text[closing.end() :], delimiters


def _one_line(value: str) -> str:
    """A title as one line: a block scalar's lines joined by spaces."""
    if "\n" not in value and "\r" not in value:
        return value
    return " ".join(part.strip() for part in value.splitlines() if part.strip())


def _item_text(item: Any) -> str | None:
    """A list item as text: `- Selection: acts on variation` (a one-key mapping to YAML)
    is read as the sentence it was meant to be."""
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and len(item) == 1:
        ((key, value),) = item.items()
        if isinstance(key, str) and isinstance(value, str):
            return f"{key}: {value}" if value else f"{key}:"
    return None


def _assertions(value: Any) -> tuple[str, ...]:
    if value is None or (isinstance(value, str) and value in _NULLS):
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list):
        raise NoteFormatError("'core_assertions' must be a list (one '- item' per line)")
    items: list[str] = []
    for i, item in enumerate(value):
        text = _item_text(item)
        if text is None:
            raise NoteFormatError(f"'core_assertions' item {i + 1} must be text")
        if text.strip():  # an empty `-` (started in another editor) is no assertion yet
            items.append(text)
    return tuple(items)


def clean_tag(tag: str) -> str:
    return tag.strip().lstrip("#").strip()


def _tags(value: Any) -> tuple[str, ...]:
    """Tags in every form Obsidian accepts: a list, "a, b", "a b", "#a #b", nested "a/b"."""
    if value is None:
        return ()
    found: list[str] = []
    pieces = value if isinstance(value, list) else [value]
    for piece in pieces:
        if not isinstance(piece, str):
            continue  # not a tag Obsidian would show either
        parts = re.split(r"[,\s]+", piece) if not isinstance(value, list) else [piece]
        for part in parts:
            tag = clean_tag(part) if part.strip() else ""
            if tag and tag not in found:
                found.append(tag)
    return tuple(found)


def _aliases(data: dict[str, Any]) -> tuple[str, ...]:
    value = data.get("aliases", data.get("alias"))
    if isinstance(value, str):
        return (value.strip(),) if value.strip() not in _NULLS else ()
    if isinstance(value, list):
        return tuple(a.strip() for a in value if isinstance(a, str) and a.strip())
    return ()


def _field_label(loc: tuple[int | str, ...]) -> str:
    if not loc:
        return "note"
    name = str(loc[0])
    return f"'{name}' item {int(loc[1]) + 1}" if len(loc) > 1 else f"'{name}'"


def json_safe(value: Any) -> bool:
    """True when `value` survives a JSON round trip unchanged (so it may be cached)."""
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(json_safe(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and json_safe(v) for k, v in value.items())
    return False


def _expanded_size(root: yaml.Node, started: float) -> int:
    """How many values the front matter holds once every alias is expanded (what anything
    that walks or caches the parsed value pays), counted once per distinct node. Raises
    NoteFormatError past the alias, size, depth or time bounds, before anything is built."""
    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}  # how deep the value under each counted node nests
    aliases = 0
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes and not children_done:
            aliases += 1  # a node reached again: an alias (`*name`) to it
            if aliases > MAX_ALIASES:
                raise NoteFormatError(
                    f"its front matter uses over {MAX_ALIASES} YAML aliases (*name); "
                    "Coach skips it — write the values out"
                )
            continue
        children = _children(node)
        if children_done:
            total = 1 + sum(sizes[id(child)] for child in children)
            if total > MAX_EXPANDED_VALUES and aliases:  # a long list as written is fine
                raise NoteFormatError(
                    f"its YAML aliases (*name) expand to over {MAX_EXPANDED_VALUES:,} "
                    "values; Coach skips it — write the values out"
                )
            sizes[id(node)] = total
            depth = 1 + max((depths.get(id(child), 0) for child in children), default=0)
            if depth > MAX_DEPTH:
                raise _too_deep()
            depths[id(node)] = depth
            continue
        sizes[id(node)] = -1  # seen, being counted
        if len(sizes) % 1024 == 0:
            _check_budget(started)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(children))
    return sizes[id(root)]


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    return []


def _too_deep() -> NoteFormatError:
    return NoteFormatError(
        f"its front matter nests lists or sections over {MAX_DEPTH} levels deep; Coach "
        "skips it — flatten it"
    )


def _check_budget(started: float) -> None:
    if time.monotonic() - started > PARSE_BUDGET_SECONDS:
        raise NoteFormatError("its front matter took too long to read; Coach skips it — shorten it")


def _load_bounded(front: str) -> tuple[Any, int]:
    """The base loader's value of `front` and its expanded size; a NoteFormatError when
    it would be an alias bomb: the node graph is composed (linear in the text, which is at
    most MAX_NOTE_BYTES) and measured before any value is built from it."""
    started = time.monotonic()
    loader = _Loader(front)
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:  # the pure-Python composer (no libyaml) recurses per level
            raise _too_deep() from None
        if node is None:
            return None, 0
        _check_budget(started)
        size = _expanded_size(node, started)
        data = loader.construct_document(node)
        _check_budget(started)
        return data, size
    finally:
        loader.dispose()


# Names the bounds a cached value was read under: a cache written before them ("b:") may
# hold an alias bomb's expanded value, which must not be served as a note (issue 34).
_CACHE_KEY = "v2:"


def yaml_cache_key(front: str) -> str:
    """The key of front matter `front` in a `load_yaml` cache."""
    return _CACHE_KEY + hashlib.blake2b(front.encode("utf-8"), digest_size=16).hexdigest()


def load_yaml(front: str, cache: dict[str, Any] | None = None) -> Any:
    """Parse front-matter YAML, every scalar as text. `cache` maps a digest of the text to
    its parsed value: YAML parsing is most of the cost of opening a large knowledge base,
    and the key is the content itself, so a cached value can never be stale."""
    key = yaml_cache_key(front)
    if cache is not None and key in cache:
        return cache[key]  # shared, not copied: parsed front matter is only ever read
    data, size = _load_bounded(front)  # the base loader: text only, nothing built
    if cache is not None and size <= MAX_CACHED_VALUES and json_safe(data):
        cache[key] = data
    return data


def _yaml_problem(front: str, exc: yaml.YAMLError) -> NoteFormatError:
    if "{{" in front:
        return NoteFormatError(
            "it looks like a template ({{...}} in its front matter is not valid YAML); "
            "Coach lists it but does not read it"
        )
    mark = getattr(exc, "problem_mark", None)
    where = f" (front matter line {mark.line + 1})" if mark is not None else ""
    problem = getattr(exc, "problem", None) or "invalid YAML"
    return NoteFormatError(f"the front matter is not valid YAML{where}: {problem}")


def _newline_of(text: str) -> str:
    first = text.find("\n")
    return "\r\n" if first > 0 and text[first - 1] == "\r" else "\n"


def parse(
    raw: bytes,
    *,
    fallback_id: str | Callable[[], str] | None = None,
    file_stem: str = "",
    yaml_cache: dict[str, Any] | None = None,
) -> ParsedFile:
    """Parse a note file. `fallback_id` (or what it returns) is the id when the front
    matter has none of its own (a missing or unusable `id`); `file_stem` is the title when
    it has no `title`."""
    text = decode(raw)
    bom = text.startswith(_BOM)
    if bom:
        text = text[1:]
    front, body, delimiters = _split(text)
    newline = _newline_of(text)
    data: Any = {}
    if front is not None:
        try:
            data = load_yaml(front, yaml_cache)
        except yaml.YAMLError as exc:
            raise _yaml_problem(front, exc) from None
    if data is None or data == "":
        data = {}
    if not isinstance(data, dict):
        raise NoteFormatError("the front matter must be 'key: value' lines")
    raw_id = data.get("id")
    has_id = isinstance(raw_id, str) and ID_PATTERN.match(raw_id) is not None
    if not has_id:  # none, or one that is not an id Coach can use: left in the file as it is
        raw_id = fallback_id() if callable(fallback_id) else fallback_id
    if not isinstance(raw_id, str) or raw_id == "":
        raise NoteFormatError(
            "'id' must be text such as 3f2a9c...; delete the line to get a new one"
        )
    title = data.get("title")
    titled = isinstance(title, str) and _one_line(title).strip() != ""
    if titled:
        assert isinstance(title, str)
        title = _one_line(title)
    elif file_stem.strip():
        title = file_stem
    else:
        raise NoteFormatError("missing title: add a line 'title: ...' to the front matter")
    source = data.get("source")
    if isinstance(source, list):
        source = ", ".join(s for s in source if isinstance(s, str))
    try:
        note = Note(
            id=raw_id,
            title=title,
            source=source if isinstance(source, str) else "",
            tags=_tags(data.get("tags")),
            aliases=_aliases(data),
            core_assertions=_assertions(data.get("core_assertions")),
            body=body.replace("\r\n", "\n") if newline == "\r\n" else body,
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        message = str(first["msg"]).removeprefix("Value error, ")  # pydantic's wording
        raise NoteFormatError(f"{_field_label(tuple(first['loc']))}: {message}") from None
    extra = {k: v for k, v in data.items() if k not in KNOWN_KEYS}
    return ParsedFile(
        note=note,
        front_matter_text=front,
        extra=extra,
        newline=newline,
        bom=bom,
        body_text=body,
        has_id=has_id,
        titled=titled,
        delimiters=delimiters,
    )


# --- writing ---------------------------------------------------------------------------------


def _dump(mapping: dict[str, Any] | list[str], *, flow: bool | None) -> str:
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
    """The front matter text of a new note: known keys in a fixed order, then `extra`."""
    parts = [_dump({"id": note.id, "title": note.title}, flow=False)]
    if note.source:
        parts.append(_dump({"source": note.source}, flow=False))
    if note.tags:
        parts.append(_dump({"tags": list(note.tags)}, flow=None))
    if note.aliases:
        parts.append(_dump({"aliases": list(note.aliases)}, flow=None))
    if note.core_assertions:
        parts.append(_dump({"core_assertions": list(note.core_assertions)}, flow=False))
    else:
        parts.append("core_assertions: []\n")
    if extra:
        parts.append(_dump(extra, flow=False))
    return "".join(parts)


@dataclass(frozen=True)
class _Span:
    """Where one top-level key's lines are in the front matter text, and how its value is
    written (for a rewrite in the same style)."""

    start: int
    end: int
    flow: bool  # a flow list `[a, b]` (or a string of tags), not a block list
    indent: int  # the column of a block list's dashes
    items: tuple[tuple[str, str], ...] = ()  # a block list's (value, its lines as written)
    head: str = ""  # a block list's key line and any comment lines before its first item


def _spans(front: str) -> dict[str, _Span]:
    """The span of each top-level key, found through the YAML node marks (character
    offsets, from the same loader that read the note). A key written twice: its last
    occurrence, the one that was read."""
    try:
        node = yaml.compose(front, Loader=_Loader)
    except yaml.YAMLError as exc:
        raise _yaml_problem(front, exc) from None
    if not isinstance(node, yaml.MappingNode):
        return {}
    spans: dict[str, _Span] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            continue
        start = front.rfind("\n", 0, key_node.start_mark.index) + 1
        end = _line_end(front, value_node.end_mark.index)
        lines = front[start:end].splitlines(keepends=True)
        while len(lines) > 1 and (not lines[-1].strip() or lines[-1].lstrip().startswith("#")):
            lines.pop()  # comments and blank lines before the next key stay where they are
        end = start + sum(len(line) for line in lines)
        flow = not isinstance(value_node, yaml.SequenceNode) or bool(value_node.flow_style)
        indent = 0
        items: list[tuple[str, str]] = []
        head = ""
        if isinstance(value_node, yaml.SequenceNode) and value_node.value and not flow:
            indent = value_node.start_mark.column  # where the dashes are
            items = _written_items(front, value_node, end)
            head = front[start : front.rfind("\n", 0, value_node.value[0].start_mark.index) + 1]
        spans[str(key_node.value)] = _Span(start, end, flow, indent, tuple(items), head)
    return spans


def _line_end(text: str, index: int) -> int:
    if index == 0 or text[index - 1] == "\n":
        return index
    found = text.find("\n", index)
    return len(text) if found == -1 else found + 1


def _written_items(front: str, node: yaml.SequenceNode, end: int) -> list[tuple[str, str]]:
    """Each item of a block list with its lines exactly as written — from the end of the
    item before (so a comment above an item stays with it) to the end of its last line —
    so an item the learner kept is written back as it was."""
    found: list[tuple[str, str]] = []
    start = front.rfind("\n", 0, node.value[0].start_mark.index) + 1
    for item in node.value:
        value = _item_text(_node_value(item))
        if value is None:
            return []  # a nested value: rewrite the list rather than guess
        stop = min(_line_end(front, item.end_mark.index), end)
        found.append((value, front[start:stop]))
        start = stop
    return found


def _node_value(node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return node.value
    if isinstance(node, yaml.MappingNode) and len(node.value) == 1:
        ((key, value),) = node.value
        if isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode):
            return {key.value: value.value}
    return None


def _render_key(key: str, note: Note, span: _Span | None) -> str:
    """`key` of `note` as front matter lines, in the style it had (when it had one)."""
    if key in ("title", "source"):
        value: str = getattr(note, key)
        return _dump({key: value}, flow=False)
    items: Sequence[str] = note.tags if key == "tags" else note.core_assertions
    if not items:
        return f"{key}: []\n"
    if key == "tags" and (span is None or span.flow):
        return f"{key}: " + _dump(list(items), flow=True)  # "[a, b]\n"
    pad = " " * (span.indent if span is not None else 2)
    kept = list(span.items) if span is not None else []
    head = span.head.replace("\r\n", "\n") if span is not None and span.head else ""
    lines = [head if head.lstrip().startswith(f"{key}:") else f"{key}:\n"]
    same = clean_tag if key == "tags" else (lambda text: text)  # "#a" is the tag a
    for item in items:
        written = next((i for i, (value, _) in enumerate(kept) if same(value) == item), None)
        if written is not None:  # an item kept as it was: its own lines, quoting and all
            lines.append(kept.pop(written)[1].replace("\r\n", "\n"))
            continue
        dumped = _dump([item], flow=False)  # "- item\n", quoted where YAML needs it
        lines.extend(pad + line for line in dumped.splitlines(keepends=True))
    return "".join(lines)


def _edited_front(front: str, note: Note, keys: Sequence[str], newline: str) -> str:
    """`front` with only `keys` rewritten from `note` (added at the end if missing)."""
    spans = _spans(front)
    edits: list[tuple[int, int, str]] = []
    appended: list[str] = []
    for key in keys:
        span = spans.get(key)
        empty = not getattr(note, key)
        if span is None:
            if not empty:
                appended.append(_render_key(key, note, None))
            continue
        edits.append((span.start, span.end, _render_key(key, note, span)))
    text = front
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement.replace("\n", newline) + text[end:]
    if appended:
        if text and not text.endswith("\n"):
            text += newline
        text += "".join(appended).replace("\n", newline)
    return text


def without_id(raw: bytes) -> bytes:
    """A note file's bytes with its `id:` line taken out, all else as it was (for a copy
    that must not claim the original's identity)."""
    text = raw.decode("utf-8")
    bom = _BOM if text.startswith(_BOM) else ""
    front, body, (opening, closing) = _split(text[len(bom) :])
    if front is None:
        return raw
    span = _spans(front).get("id")
    if span is None:
        return raw
    front = front[: span.start] + front[span.end :]
    return (bom + opening + front + closing + body).encode("utf-8")


def _changed_keys(note: Note, previous: ParsedFile) -> list[str]:
    keys = [k for k in EDITABLE_KEYS if getattr(note, k) != getattr(previous.note, k)]
    return keys


def render(note: Note, previous: ParsedFile | None = None) -> bytes:
    """The bytes of a note file for `note`, as close to `previous` as the edit allows:
    only the keys that changed are rewritten, and the body only when it changed."""
    if previous is None:
        text = f"---\n{render_front_matter(note)}---\n{note.body}"
        return text.encode("utf-8")
    newline = previous.newline
    keys = _changed_keys(note, previous)
    front = previous.front_matter_text
    if keys:
        front = _edited_front(front or "", note, keys, newline)
    if note.body == previous.note.body:
        body = previous.body_text
    else:
        body = note.body.replace("\n", newline) if newline != "\n" else note.body
    if front is None:
        text = body
    elif previous.front_matter_text is None:  # the note gains front matter now
        text = f"---{newline}{front}---{newline}{body}"
    else:  # the delimiter lines as written ('...' closes it too, trailing spaces kept)
        opening, closing = previous.delimiters
        if not closing.endswith("\n") and body:
            closing += newline
        text = f"{opening}{front}{closing}{body}"
    if previous.bom:
        text = _BOM + text
    return text.encode("utf-8")
