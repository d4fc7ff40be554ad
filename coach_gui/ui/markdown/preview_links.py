"""What a link or a picture in the note preview points at, as HTML (ADR 0017): a note is
a `coach-note:` link, a picture a file:// path the vault gave, the web stays a link, and
anything else is text."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

from markdown_it.common.utils import escapeHtml
from mdit_py_plugins.anchors.index import slugify

from coach_gui.ui.markdown.preview_schemes import FOLD_SCHEME as FOLD_SCHEME
from coach_gui.ui.markdown.preview_schemes import NOTE_SCHEME as NOTE_SCHEME
from coach_gui.ui.markdown.preview_schemes import note_link_target as note_link_target
from coach_gui.ui.markdown.preview_style import PreviewColours

WEB_SCHEMES = frozenset({"http", "https", "mailto"})
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".webp"})
_SIZE = re.compile(r"(\d{1,5})(?:x(\d{1,5}))?")  # Obsidian's `|240` or `|240x100`


def is_picture(name: str) -> bool:
    return Path(name).suffix.lower() in IMAGE_SUFFIXES


def note_link(
    name: str,
    heading: str,
    alias: str,
    resolve_note: Callable[[str], str | None],
    colours: PreviewColours,
) -> str:
    """`[[name#heading|alias]]`, shown as Obsidian shows it (`name > heading`)."""
    parts = [p.strip() for p in heading.split("#") if p.strip()]
    if not name:  # [[#Heading]]: a place in this note
        anchor = escapeHtml(slugify(parts[-1])) if parts else ""
        return f'<a href="#{anchor}">{escapeHtml(alias or " > ".join(parts))}</a>'
    shown = alias or " > ".join([name, *parts])
    return f"{note_anchor(name, heading, resolve_note, colours)}{escapeHtml(shown)}</a>"


def note_anchor(
    name: str, heading: str, resolve_note: Callable[[str], str | None], colours: PreviewColours
) -> str:
    """`<a>` to a note: always clickable, drawn as unresolved when the vault lacks it."""
    href = f"{NOTE_SCHEME}:{quote(name, safe='')}"
    if heading:
        href += "#" + quote(heading, safe="")
    style = "" if resolve_note(name) is not None else f' style="{colours.unresolved_css}"'
    return f'<a href="{escapeHtml(href)}"{style}>'


def picture(path: Path | None, label: str, name: str, colours: PreviewColours) -> str:
    """An <img> for a vault file (absolute paths only), else the name, greyed."""
    if path is None or not path.is_absolute():
        return f'<span style="{colours.muted_css}">[missing picture: {escapeHtml(name)}]</span>'
    size = _SIZE.fullmatch(label.rsplit("|", 1)[-1].strip())
    attrs, alt = "", label
    if size:
        attrs = f' width="{size.group(1)}"'
        attrs += f' height="{size.group(2)}"' if size.group(2) else ""
        alt = label.rsplit("|", 1)[0] if "|" in label else ""
    return f'<img src="{escapeHtml(path.as_uri())}" alt="{escapeHtml(alt or name)}"{attrs} />'


def link_open(href: str, resolve_note: Callable[[str], str | None], colours: PreviewColours) -> str:
    """The `<a>` for `[text](href)`: web links as they are, `Note.md#Part` as a note link,
    `#Part` within the note; anything else (file:, obsidian:, an attachment) is text."""
    parts = urlsplit(href)
    if parts.scheme.lower() in WEB_SCHEMES:
        return f'<a href="{escapeHtml(href)}">'
    if parts.scheme or parts.netloc:
        return "<a>"
    if not parts.path:
        return f'<a href="#{escapeHtml(slugify(unquote(parts.fragment)))}">'
    name = unquote(parts.path)
    if Path(name).suffix.lower() not in ("", ".md"):
        return "<a>"  # the preview opens no files
    name = name[:-3] if name.lower().endswith(".md") else name
    return note_anchor(name, unquote(parts.fragment), resolve_note, colours)


def markdown_image(
    src: str, alt: str, resolve_file: Callable[[str], Path | None], colours: PreviewColours
) -> str:
    """`![alt](src)`: a vault file, or a link for a web picture (nothing is fetched)."""
    scheme = urlsplit(src).scheme.lower()
    if scheme in ("http", "https"):
        return f'<a href="{escapeHtml(src)}">[picture: {escapeHtml(alt or src)}]</a>'
    if scheme:
        return f'<span style="{colours.muted_css}">[picture not shown: {escapeHtml(alt)}]</span>'
    return picture(resolve_file(unquote(src)), alt, unquote(src), colours)
