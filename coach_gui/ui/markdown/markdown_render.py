"""A note's Markdown, as Obsidian writes it, rendered to the HTML subset QTextBrowser shows
(ADR 0017). No Qt here: the widget only displays what this returns.

Raw HTML is text; links and pictures are decided in preview_links (notes become
`coach-note:` links, pictures are vault files, nothing remote is loaded). Boxes (callouts,
quotes, code, embeds) are tables with background colours, since QTextBrowser draws no CSS
borders or padding on blocks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from mdit_py_plugins.anchors import anchors_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.footnote.index import render_footnote_anchor
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from coach_gui.domain.text_segments import reads_right_to_left
from coach_gui.ui.markdown.obsidian_markdown import note_section, obsidian_plugin
from coach_gui.ui.markdown.preview_links import (
    FOLD_SCHEME,
    is_picture,
    link_open,
    markdown_image,
    note_link,
    picture,
)
from coach_gui.ui.markdown.preview_style import PreviewColours, callout_accent, colours_for

# Where markdown-it's inline rules run: its cost is per such character, ~8 µs each in pure
# Python and ~40 µs for a `[` (a link label is looked for), so a run or a note dense with
# them is shown as plain text past a budget: the worst note then renders in ~0.4 s.
_MARKUP = re.compile(r"[\n!#$%&*+\-:<=>@\[\\\]^_`{}~]")
RUN_MARKUP_LIMIT = 5_000
NOTE_MARKUP_LIMIT = 50_000
EMBED_LIMIT = 25


@dataclass(frozen=True)
class _Page:
    resolve_note: Callable[[str], str | None]
    resolve_file: Callable[[str], Path | None]
    embed_note: Callable[[str], str | None] | None
    colours: PreviewColours
    toggled: Collection[int]
    spent: list[int]  # [markup characters, notes embedded, runs left plain], with embeds
    depth: int = 0


MAX_BLOCKS = 3_000  # heading, quote/callout and table lines a note may hold and be formatted
_BLOCK_STARTS = re.compile(r"^ {0,3}(?:#|>|\|)", re.MULTILINE)


def render_note_html(
    markdown: str,
    *,
    resolve_note: Callable[[str], str | None],
    resolve_file: Callable[[str], Path | None],
    embed_note: Callable[[str], str | None] | None = None,
    dark: bool = False,
    toggled_callouts: Collection[int] = frozenset(),
) -> str:
    """The note as HTML. `resolve_note(name)` is None for a note the vault lacks (its links
    are drawn as unresolved); `resolve_file(name)` is the absolute path of a vault file or
    None; `embed_note(name)` is another note's Markdown for `![[name]]` (one level deep).
    `toggled_callouts` are the first source lines of foldable callouts the reader opened
    or closed (their `coach-fold:<line>` links)."""
    colours = colours_for(dark)
    if len(_BLOCK_STARTS.findall(markdown)) > MAX_BLOCKS:
        # Thousands of headings, quotes or table rows cost the parser (its plugins) far
        # more than their text: such a note is shown as it is written.
        notice = "This note holds too much markup to show formatted; here it is as written."
        return (
            f'<html><body><p style="{colours.muted_css}">{notice}</p>'
            f"<pre>{escapeHtml(markdown)}</pre></body></html>"
        )
    page = _Page(resolve_note, resolve_file, embed_note, colours, toggled_callouts, [0, 0, 0])
    body = _render(markdown, page, {})
    if page.spent[2]:
        notice = "Parts of this note are shown as plain text: they hold too much markup."
        body = f'<p style="{colours.muted_css}">{notice}</p>\n{body}'
    return f"<html><body>{body}</body></html>"


def _render(markdown: str, page: _Page, env: dict[str, Any]) -> str:
    env["coach"] = page
    return str(_parser().render(markdown, env))


@cache
def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "breaks": True})  # Obsidian keeps line breaks
    md.enable(["table", "strikethrough"])
    md.use(front_matter_plugin).use(footnote_plugin).use(tasklists_plugin)
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
    md.use(anchors_plugin, max_level=6).use(obsidian_plugin)
    md.core.ruler.after("obsidian_callouts", "coach_fold", _fold_callouts)
    md.core.ruler.before("inline", "coach_markup_budget", _markup_budget)
    md.core.ruler.push("coach_task_marks", _task_marks)
    md.core.ruler.push("coach_embed_blocks", _embed_blocks)
    md.core.ruler.push("coach_text_direction", _text_direction)
    rules: dict[str, Callable[..., str]] = {
        "wikilink": _wikilink,
        "link_open": _link_open,
        "image": _image,
        "html_block": _raw_html,
        "html_inline": _raw_html,
        "code_inline": _code_inline,
        "fence": _code_block,
        "code_block": _code_block,
        "math_inline": _math_inline,
        "math_inline_double": _math_inline,
        "math_block": _math_block,
        "math_block_label": _math_block,
        "mark_open": lambda s, t, i, o, env: f'<span style="{_c(env).highlight_css}">',
        "mark_close": lambda *_: "</span>",
        "coach_plain": _plain,
        "blockquote_open": lambda s, t, i, o, env: _box_open(_c(env).quote_bar, "", t, i),
        "blockquote_close": _box_close,
        "callout_open": _callout_open,
        "callout_close": _box_close,
        "callout_title_open": _callout_title_open,
        "callout_title_close": _callout_title_close,
        "table_open": lambda s, t, i, o, env: _c(env).table_open,
        "hr": lambda s, t, i, o, env: _c(env).rule,
        "footnote_block_open": lambda s, t, i, o, env: f"{_c(env).rule}<ol>\n",
        "footnote_block_close": lambda *_: "</ol>\n",
    }
    # The back link's emoji variation selector shows as a box in Qt's fonts.
    rules["footnote_anchor"] = lambda *a: render_footnote_anchor(*a).replace("\ufe0e", "")
    for name, rule in rules.items():
        md.add_render_rule(name, rule)
    return md


def _c(env: EnvType) -> PreviewColours:
    return _page(env).colours


def _page(env: EnvType) -> _Page:
    page = env["coach"]
    assert isinstance(page, _Page)
    return page


def _fold_callouts(state: StateCore) -> None:
    """Drop the body of a folded callout; `-` folds by default, `+` opens, a toggle flips."""
    page, tokens, i = _page(state.env), state.tokens, 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "callout_open" and token.meta["fold"]:
            foldable = page.depth == 0
            shut = (token.meta["fold"] == "-") != (token.meta["line"] in page.toggled)
            token.meta["open"] = not (foldable and shut)
            token.meta["foldable"] = foldable
            if not token.meta["open"]:
                body = i + 4  # callout_open, title open, title, title close
                depth, end = 1, body
                while depth:
                    depth += {"callout_open": 1, "callout_close": -1}.get(tokens[end].type, 0)
                    end += 1
                del tokens[body : end - 1]
        i += 1


def _task_marks(state: StateCore) -> None:
    """Qt draws its own check box for `<li class="checked|unchecked">`: use it, not <input>."""
    tokens = state.tokens
    for i, token in enumerate(tokens):
        first = token.children[0] if token.type == "inline" and token.children else None
        if first and first.type == "html_inline" and "task-list-item-checkbox" in first.content:
            tokens[i - 2].attrSet(
                "class", "checked" if "checked=" in first.content else "unchecked"
            )
            token.children = token.children[1:] if token.children else []
            if token.children and token.children[0].type == "text":
                token.children[0].content = token.children[0].content.lstrip()


def _markup_budget(state: StateCore) -> None:
    """Keeps a hostile note (a line of 100,000 `[`) from freezing the window: past the
    budget an inline run is shown as its text, unformatted."""
    spent = _page(state.env).spent
    for token in state.tokens:
        if token.type == "inline":
            cost = len(_MARKUP.findall(token.content)) + 4 * token.content.count("[")
            if cost > RUN_MARKUP_LIMIT or spent[0] + cost > NOTE_MARKUP_LIMIT:
                token.type = "coach_plain"
                spent[2] += 1
            else:
                spent[0] += cost


_DIRECTED_BLOCKS = frozenset(
    ("paragraph_open", "heading_open", "list_item_open", "th_open", "td_open")
)


def _text_direction(state: StateCore) -> None:
    """A paragraph, heading, list item or table cell whose first strong letter is Arabic,
    Hebrew… reads from the right (`dir="rtl"`), next to English ones that do not (ADR 0032).
    HTML's `dir="auto"` would say the same, but Qt's rich text does not know it and takes
    every block inside `<html>` as left-to-right, so the right-to-left ones are named. A
    quote or callout box whose text starts right-to-left has its bar on the right."""
    tokens = state.tokens
    for at, token in enumerate(tokens):
        if token.type in _DIRECTED_BLOCKS or token.type in _BOXES:
            # The block's text is the next inline token (found by index: a slice of the
            # tokens per block made rendering quadratic in the length of the note).
            inline = at + 1
            while inline < len(tokens) and tokens[inline].type != "inline":
                inline += 1
            text = tokens[inline].content if inline < len(tokens) else ""
            if not reads_right_to_left(text):
                continue
            if token.type in _BOXES:
                token.meta = {**(token.meta or {}), "rtl_close": _matching_close(tokens, at)}
            else:
                token.attrSet("dir", "rtl")


_BOXES = frozenset(("blockquote_open", "callout_open"))


def _matching_close(tokens: Sequence[Token], at: int) -> int:
    opening, depth = tokens[at].type, 0
    closing = opening.replace("_open", "_close")
    for index in range(at, len(tokens)):
        depth += {opening: 1, closing: -1}.get(tokens[index].type, 0)
        if depth == 0:
            return index
    return len(tokens) - 1


def _plain(self: RendererHTML, tokens: Sequence[Token], idx: int, *_: Any) -> str:
    return escapeHtml(tokens[idx].content).replace("\n", "<br />\n")


def _embed_blocks(state: StateCore) -> None:
    """A paragraph holding only `![[note]]` is the embed's box, not a <p> around a table."""
    tokens = state.tokens
    for i, token in enumerate(tokens):
        children = (token.children or []) if token.type == "inline" else []
        if (
            len(children) == 1
            and children[0].type == "wikilink"
            and children[0].meta["embed"]
            and not is_picture(children[0].meta["name"])
            and tokens[i - 1].type == "paragraph_open"
        ):
            tokens[i - 1].hidden = tokens[i + 1].hidden = True


def _raw_html(self: RendererHTML, tokens: Sequence[Token], idx: int, *_: Any) -> str:
    return escapeHtml(tokens[idx].content)  # never reached with html off; kept as text anyway


def _code_inline(self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any) -> str:
    return f'<code style="{_c(env).code_css}">{escapeHtml(tokens[idx].content)}</code>'


def _code_block(self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any) -> str:
    code = escapeHtml(tokens[idx].content.rstrip("\n"))
    return f"{_c(env).code_box}<pre>{code}</pre></td></tr></table>\n"


def _math_inline(self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any) -> str:
    return f'<span style="{_c(env).math_css}">{escapeHtml(tokens[idx].content.strip())}</span>'


def _math_block(self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any) -> str:
    math = escapeHtml(tokens[idx].content.strip())
    label = tokens[idx].info
    tail = f"   ({escapeHtml(label)})" if label else ""
    return f'{_c(env).code_box}<pre align="center">{math}{tail}</pre></td></tr></table>\n'


def _box_open(bar: str, background: str, tokens: Sequence[Token] = (), idx: int = 0) -> str:
    """A table drawn as a box: a thin coloured bar on the left, then the content; for a
    right-to-left quote the content, then the bar on the right (Qt does not mirror table
    columns), which the matching close draws."""
    fill = f' bgcolor="{background}"' if background else ""
    table = (
        f'<table width="100%" cellspacing="0" cellpadding="0"{fill} '
        'style="margin-top:6px; margin-bottom:6px;"><tr>'
    )
    close = tokens[idx].meta.get("rtl_close") if tokens else None
    if close is not None:
        tokens[close].meta["bar"] = bar
        return f'{table}<td style="padding-left:8px; padding-right:10px; {_CELL_PADDING}">'
    content = f'<td style="padding-left:10px; padding-right:8px; {_CELL_PADDING}">'
    return f'{table}<td width="4" bgcolor="{bar}"></td>{content}'


_CELL_PADDING = "padding-top:2px; padding-bottom:2px;"


def _box_close(self: RendererHTML, tokens: Sequence[Token], idx: int, *_: Any) -> str:
    bar = tokens[idx].meta.get("bar")
    if bar:
        return f'</td><td width="4" bgcolor="{bar}"></td></tr></table>\n'
    return "</td></tr></table>\n"


def _callout_open(self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any) -> str:
    accent, tint = callout_accent(tokens[idx].meta["kind"], _c(env))
    return _box_open(accent, tint, tokens, idx)


def _callout_title_open(
    self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any
) -> str:
    accent, _ = callout_accent(_callout(tokens, idx).meta["kind"], _c(env))
    return f'<p style="color:{accent}; font-weight:bold; margin-top:4px; margin-bottom:4px;">'


def _callout_title_close(
    self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any
) -> str:
    """After the title, a foldable callout's switch: Obsidian's chevron, with a word."""
    callout = _callout(tokens, idx)
    if not callout.meta.get("foldable"):
        return "</p>\n"
    accent, _ = callout_accent(callout.meta["kind"], _c(env))
    arrow, word = ("\u25be", "hide") if callout.meta["open"] else ("\u25b8", "show")
    style = f"color:{accent}; font-weight:normal; text-decoration:none;"
    href = f"{FOLD_SCHEME}:{callout.meta['line']}"
    return f'&nbsp;&nbsp;<a href="{href}" style="{style}">{arrow}&nbsp;{word}</a></p>\n'


def _callout(tokens: Sequence[Token], idx: int) -> Token:
    return next(t for t in reversed(tokens[:idx]) if t.type == "callout_open")


def _wikilink(self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any) -> str:
    page, meta = _page(env), tokens[idx].meta
    name, heading, alias = meta["name"], meta["heading"], meta["alias"]
    if meta["embed"] and is_picture(name):
        return picture(page.resolve_file(name), alias, name, page.colours)
    if meta["embed"] and page.depth == 0 and page.embed_note and name:
        page.spent[1] += 1
        text = page.embed_note(name) if page.spent[1] <= EMBED_LIMIT else None
        if text is not None:
            return _embedded_note(page, name, heading, text, env)
    return note_link(name, heading, alias, page.resolve_note, page.colours)


def _embedded_note(page: _Page, name: str, heading: str, text: str, env: EnvType) -> str:
    env["embeds"] = number = env.get("embeds", 0) + 1
    section = note_section(text, heading) if heading else text
    inner = _page_inside(page, section, number) if section is not None else ""
    if section is None:
        inner = f'<p style="{page.colours.muted_css}">No section “{escapeHtml(heading)}” there.</p>'
    link = note_link(name, heading, "", page.resolve_note, page.colours)
    head = f'<p style="margin-top:4px; margin-bottom:2px;">{link}</p>'
    box = _box_open(page.colours.embed_bar, page.colours.embed_fill)
    return f"{box}{head}{inner}</td></tr></table>"


def _page_inside(page: _Page, markdown: str, number: int) -> str:
    # One level deep: inside an embed, `![[...]]` is a link, so no loop can form.
    return _render(markdown, replace(page, depth=1, toggled=()), {"docId": f"embed{number}"})


def _link_open(self: RendererHTML, tokens: Sequence[Token], idx: int, _o: Any, env: Any) -> str:
    page, href = _page(env), tokens[idx].attrGet("href")
    return link_open(href if isinstance(href, str) else "", page.resolve_note, page.colours)


def _image(
    self: RendererHTML, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
) -> str:
    page, src = _page(env), tokens[idx].attrGet("src")
    alt = self.renderInlineAsText(tokens[idx].children or [], options, env)
    return markdown_image(src if isinstance(src, str) else "", alt, page.resolve_file, page.colours)
