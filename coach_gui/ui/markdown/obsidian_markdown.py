"""Obsidian's additions to Markdown as markdown-it rules: wikilinks and embeds, callouts,
==highlights== and %% comments %% (ADR 0017: no kept plugin parses them).

The rules only make tokens; how they look is markdown_render's business. Tokens:
`wikilink` (meta: name, heading, alias, embed), `mark_open`/`mark_close`,
`callout_open` (meta: kind, fold, line) with `callout_title_open`, an inline title and
`callout_title_close` before the body, and `callout_close`. Comments leave no token.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.rules_inline import StateInline
from markdown_it.rules_inline.state_inline import Delimiter
from markdown_it.token import Token

# `[!type]`, an optional fold sign, then the title, on the quote's first line.
_CALLOUT = re.compile(r"\[!([^\]\s]+)\]([+-]?)[ \t]*(.*)")
_HEADING = re.compile(r" {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*")
_FENCE = re.compile(r" {0,3}(```|~~~)")
# An Obsidian block id: `^b15695` at the end of a block's line, after a space (or alone on
# the line below a table or a quote). A link target, not text: the reader never sees it.
_BLOCK_ID = re.compile(r"(?:^|[ \t])\^[A-Za-z0-9-]+[ \t]*$")


def obsidian_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("link", "wikilink", _wikilink)
    md.inline.ruler.before("emphasis", "highlight", _highlight)
    md.inline.ruler2.before("emphasis", "highlight", _pair_highlights)
    md.inline.ruler.before("escape", "obsidian_comment", _inline_comment)
    md.block.ruler.before(
        "fence", "obsidian_comment", _block_comment, {"alt": ["paragraph", "blockquote", "list"]}
    )
    md.core.ruler.after("block", "obsidian_callouts", _callouts)
    md.core.ruler.after("inline", "obsidian_block_ids", _hide_block_ids)


def _find(state: StateInline, needle: str, start: int) -> int:
    """str.find, remembered per inline run: a line of 50,000 unclosed `[[` stays linear."""
    memo = state.env.setdefault("_obsidian_find", {})
    key = (needle, state.posMax)
    seen = memo.get(key)
    if seen is not None and seen[0] is state.src and seen[1] <= start:
        found = seen[2]
        if found < 0 or found >= start:
            return int(found)
    found = state.src.find(needle, start, state.posMax)
    memo[key] = (state.src, start, found)
    return found


def _wikilink(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    if not embed and not src.startswith("[[", pos):
        return False
    start = pos + (3 if embed else 2)
    end = _find(state, "]]", start)
    newline = _find(state, "\n", start)
    if end < 0 or 0 <= newline < end:
        return False
    inner = src[start:end].replace("\\|", "|")  # `\|` is how a table cell writes the pipe
    target, _, alias = inner.partition("|")
    if not target.strip() or "[[" in inner:
        return False
    if not silent:
        name, _, heading = target.partition("#")
        token = state.push("wikilink", "", 0)
        token.content = src[pos : end + 2]
        token.meta = {
            "name": name.strip(),
            "heading": heading.strip(),
            "alias": alias.strip(),
            "embed": embed,
        }
    state.pos = end + 2
    return True


def _highlight(state: StateInline, silent: bool) -> bool:
    """`==text==`, with the delimiter rules of ~~strikethrough~~ (as markdown-it-mark)."""
    if silent or state.src[state.pos] != "=":
        return False
    scanned = state.scanDelims(state.pos, True)
    length = scanned.length
    if length < 2:
        return False
    if length % 2:
        state.push("text", "", 0).content = "="
        length -= 1
    for _ in range(length // 2):
        state.push("text", "", 0).content = "=="
        state.delimiters.append(
            Delimiter(
                marker=ord("="),
                length=0,
                token=len(state.tokens) - 1,
                end=-1,
                open=scanned.can_open,
                close=scanned.can_close,
            )
        )
    state.pos += scanned.length
    return True


def _pair_delimiters(state: StateInline, delimiters: list[Delimiter]) -> None:
    lone = []
    for start in delimiters:
        if start.marker != ord("=") or start.end == -1:
            continue
        end = delimiters[start.end]
        opener, closer = state.tokens[start.token], state.tokens[end.token]
        opener.type, opener.nesting, closer.type, closer.nesting = "mark_open", 1, "mark_close", -1
        for token in (opener, closer):
            token.tag, token.markup, token.content = "mark", "==", ""
        previous = state.tokens[end.token - 1]
        if previous.type == "text" and previous.content == "=":
            lone.append(end.token - 1)
    # An odd run (`===`) left one `=` before its closer: move it after the mark_close.
    while lone:
        i = lone.pop()
        j = i + 1
        while j < len(state.tokens) and state.tokens[j].type == "mark_close":
            j += 1
        j -= 1
        if i != j:
            state.tokens[i], state.tokens[j] = state.tokens[j], state.tokens[i]


def _pair_highlights(state: StateInline) -> None:
    _pair_delimiters(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair_delimiters(state, meta["delimiters"])


def _inline_comment(state: StateInline, silent: bool) -> bool:
    """`%% hidden %%` inside a paragraph; an unclosed one stays visible text."""
    if not state.src.startswith("%%", state.pos):
        return False
    end = _find(state, "%%", state.pos + 2)
    if end < 0:
        return False
    state.pos = end + 2
    return True


def _block_comment(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """A `%%` line opens a comment to the next line with `%%`; unclosed, it runs to the end
    of the note, as in Obsidian."""
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    first = state.src[begin : state.eMarks[start_line]]
    if not first.startswith("%%"):
        return False
    close = first.find("%%", 2)
    last = start_line
    if close >= 0:
        if first[close + 2 :].strip():
            return False  # `%% a %% more text` is a paragraph with an inline comment
    else:
        last += 1
        while last < end_line - 1:
            if "%%" in state.src[state.bMarks[last] : state.eMarks[last]]:
                break
            last += 1
        last = min(last, end_line - 1)
    if not silent:
        state.line = last + 1
    return True


def _hide_block_ids(state: StateCore) -> None:
    """Drop the `^block-id` that ends a block of text (a paragraph, a list item, a
    heading); a paragraph that was only an id (below a table or a quote) goes with it."""
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type != "inline" or not token.children or "^" not in token.content:
            continue
        last = token.children[-1]  # the end of the block (mid-paragraph it is text)
        if last.type != "text" or "^" not in last.content:
            continue
        last.content = _BLOCK_ID.sub("", last.content)
        alone = len(token.children) == 1 and not last.content
        if alone and 0 < i < len(tokens) - 1 and tokens[i - 1].type == "paragraph_open":
            tokens[i - 1].hidden = tokens[i + 1].hidden = True  # no empty line left


def _callouts(state: StateCore) -> None:
    """A quote whose first line is `[!type] Title` becomes a callout (before inline parsing,
    so the title and body are parsed like any other text)."""
    tokens = state.tokens
    i = 0
    while i + 2 < len(tokens):
        quote, paragraph, inline = tokens[i], tokens[i + 1], tokens[i + 2]
        if quote.type == "blockquote_open" and paragraph.type == "paragraph_open":
            first, _, rest = inline.content.partition("\n")
            match = _CALLOUT.fullmatch(first.strip())
            if match:
                _make_callout(tokens, i, match, rest)
        i += 1


def _make_callout(tokens: list[Token], i: int, match: re.Match[str], rest: str) -> None:
    quote = tokens[i]
    kind = match.group(1).split("|", 1)[0].lower()
    depth = 0
    for close in range(i, len(tokens)):
        depth += {"blockquote_open": 1, "blockquote_close": -1}.get(tokens[close].type, 0)
        if depth == 0:
            tokens[close].type, tokens[close].tag = "callout_close", "div"
            break
    line = quote.map[0] if quote.map else i
    quote.type, quote.tag = "callout_open", "div"
    quote.meta = {"kind": kind, "fold": match.group(2), "line": line}
    title = Token("inline", "", 0, content=match.group(3).strip() or kind.capitalize())
    title.children, title.map, title.level = [], [line, line + 1], quote.level + 2
    title_tokens = [
        Token("callout_title_open", "p", 1, level=quote.level + 1),
        title,
        Token("callout_title_close", "p", -1, level=quote.level + 1),
    ]
    if rest.strip():
        tokens[i + 2].content = rest
        tokens[i + 1 : i + 1] = title_tokens
    else:  # the marker line was the whole first paragraph
        tokens[i + 1 : i + 4] = title_tokens


def note_section(markdown: str, heading: str) -> str | None:
    """The part of a note under `heading` (to the next heading as high), or a paragraph
    ending in `^block-id` when `heading` starts with `^`; None when there is none."""
    lines = markdown.split("\n")
    if heading.startswith("^"):
        return _block(lines, heading)
    wanted = heading.rsplit("#", 1)[-1].strip().casefold()
    fenced, start, level = False, -1, 0
    for number, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
        found = None if fenced else _HEADING.fullmatch(line)
        if not found:
            continue
        if start >= 0 and len(found.group(1)) <= level:
            return "\n".join(lines[start:number])
        if start < 0 and found.group(2).strip().casefold() == wanted:
            start, level = number, len(found.group(1))
    return "\n".join(lines[start:]) if start >= 0 else None


def _block(lines: list[str], block_id: str) -> str | None:
    for number, line in enumerate(lines):
        if line.rstrip().endswith(" " + block_id) or line.strip() == block_id:
            first = number
            while first > 0 and lines[first - 1].strip():
                first -= 1
            text = "\n".join(lines[first : number + 1])
            return text.rstrip()[: -len(block_id)].rstrip()
    return None
