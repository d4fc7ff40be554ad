"""An Anki field's HTML as Markdown, and its cloze deletions (issue 37, ADR 0038).

Anki's editor writes a small set of tags (b, i, u, s, sub, sup, br, div, p, ul/ol/li,
img, a, span, code, pre, headings, tables); the stdlib's `html.parser` reads them all and
what it does not know is kept as its text. Media are named in `<img src>` and
`[sound:…]`; the import copies them and `link` says what each becomes in Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from html import escape as html_escape
from html.parser import HTMLParser

_CLOZE = re.compile(r"\{\{c(\d+)::(.*?)(?:::(.*?))?\}\}", re.DOTALL)
_SOUND = re.compile(r"\[sound:([^\]\n]+)\]")
_IMG_SRC = re.compile(
    r"""<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.IGNORECASE
)
_SPACES = re.compile(r"[ \t\u00a0]+")
_BLOCKS = {"div", "p", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table", "ul", "ol"}
_DROPPED = {"script", "style", "head", "title"}
_MARKS = {"b": "**", "strong": "**", "i": "*", "em": "*", "s": "~~", "del": "~~", "strike": "~~"}

Link = Callable[[str], str | None]  # a media name -> its Markdown target, None: not copied


def _no_link(name: str) -> str | None:
    return None


class _ToMarkdown(HTMLParser):
    def __init__(self, link: Link) -> None:
        super().__init__(convert_charrefs=True)
        self.link = link
        self.lines: list[str] = []
        self.line: list[str] = []
        self.lists: list[list[int]] = []  # per open list: [ordered?, next number]
        self.href: list[str | None] = []
        self.dropped = 0
        self.pre = 0

    def _break(self) -> None:
        text = "".join(self.line)
        self.lines.append(text if self.pre else _SPACES.sub(" ", text).strip())
        self.line = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag in _DROPPED:
            self.dropped += 1
        elif tag == "br":
            self._break()
        elif tag in _BLOCKS:
            if self.line:
                self._break()
            if tag in ("ul", "ol"):
                self.lists.append([tag == "ol", 1])
        elif tag == "li":
            if self.line:
                self._break()
            if self.lists and self.lists[-1][0]:
                self.line.append(f"{self.lists[-1][1]}. ")
                self.lists[-1][1] += 1
            else:
                self.line.append("- ")
        elif tag in _MARKS:
            self.line.append(_MARKS[tag])
        elif tag == "code" and not self.pre:
            self.line.append("`")
        elif tag == "pre":
            if self.line:
                self._break()
            self.lines.append("```")
            self.pre += 1
        elif tag == "coach-sound":  # Anki's [sound:name], marked before parsing
            name = found.get("name") or ""
            target = self.link(name) if name else None
            if target is not None:
                self.line.append(f"[{name}](<{target}>)")
        elif tag == "img":
            src = found.get("src") or ""
            target = self.link(src) if src else None
            if target is not None:
                self.line.append(f"![{found.get('alt') or ''}](<{target}>)")
        elif tag == "a":
            self.href.append(found.get("href"))
            self.line.append("[")
        elif tag in ("td", "th") and self.line:
            self.line.append(" | ")
        elif tag == "hr" and self.line:
            self._break()

    def handle_endtag(self, tag: str) -> None:
        if tag in _DROPPED:
            self.dropped = max(0, self.dropped - 1)
        elif tag in _BLOCKS or tag == "li":
            if self.line:
                self._break()
            if tag in ("ul", "ol") and self.lists:
                self.lists.pop()
                self.lines.append("")  # what follows is not part of the last item
        elif tag in _MARKS:
            self.line.append(_MARKS[tag])
        elif tag == "code" and not self.pre:
            self.line.append("`")
        elif tag == "pre" and self.pre:
            if self.line:
                self._break()
            self.lines.append("```")
            self.pre -= 1
        elif tag == "a" and self.href:
            href = self.href.pop()
            self.line.append(f"](<{href}>)" if href else "]")

    def handle_data(self, data: str) -> None:
        if self.dropped:
            return
        if self.pre:
            parts = data.split("\n")
            for n, part in enumerate(parts):
                if n:
                    self._break()
                self.line.append(part)
        else:
            self.line.append(data.replace("\n", " ").replace("\r", " "))


def _tidy(text: str) -> str:
    """Empty marks (`****`, `~~~~`): Anki leaves them where a word was deleted."""
    return re.sub(r"(\*\*|~~)\1", "", text)


def to_markdown(html: str, link: Link = _no_link) -> str:
    """`html` (one field) as Markdown lines; `[sound:x]` becomes a link to x when copied."""

    def sound(match: re.Match[str]) -> str:
        return f'<coach-sound name="{html_escape(match.group(1).strip())}">'

    parser = _ToMarkdown(link)
    parser.feed(_SOUND.sub(sound, html))
    parser.close()
    if parser.line:
        parser._break()
    lines: list[str] = []
    for line in parser.lines:
        line = _tidy(line)
        if line or (lines and lines[-1]):
            lines.append(line)
    return "\n".join(lines).strip()


def media_names(html: str) -> list[str]:
    """The media files a field names, in order, each once."""
    names = [
        next(g for g in m.groups() if g is not None)
        for m in _IMG_SRC.finditer(html)
        if any(g is not None for g in m.groups())
    ]
    names += _SOUND.findall(html)
    return list(dict.fromkeys(n.strip() for n in names if n.strip()))


def plain(markdown: str) -> str:
    """One line of text from Markdown: images, link targets and marks taken out."""
    text = re.sub(r"!\[[^\]]*\]\(<[^>]*>\)", " ", markdown)
    text = re.sub(r"\[([^\]]*)\]\(<[^>]*>\)", r"\1", text)
    text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", text, flags=re.MULTILINE)
    text = text.replace("**", "").replace("~~", "").replace("`", "")
    text = re.sub(r"(?<!\w)\*(\S(?:.*?\S)?)\*(?!\w)", r"\1", text)
    return " ".join(text.replace("```", " ").split())


# --- cloze deletions ----------------------------------------------------------------------


def cloze_numbers(text: str) -> list[int]:
    """The cloze numbers a text holds, ascending."""
    return sorted({int(m.group(1)) for m in _CLOZE.finditer(text)})


def cloze_question(text: str) -> str:
    """The text as Anki asks it: every deletion shown as […] (or its hint)."""
    return _CLOZE.sub(lambda m: f"[{m.group(3)}]" if m.group(3) else "[…]", text)


def cloze_answer(text: str, number: int | None = None) -> str:
    """The text with every deletion filled in; cloze `number`'s answers set in bold."""

    def fill(m: re.Match[str]) -> str:
        answer = m.group(2).strip()
        return f"**{answer}**" if number is not None and int(m.group(1)) == number else answer

    return _CLOZE.sub(fill, text)


_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+")


def cloze_key_point(text: str, number: int) -> str:
    """The sentences of `text` that hold cloze `number`, filled in, the answer in bold: one
    key point per cloze number."""
    marker = re.compile(r"\{\{c" + str(number) + r"::")
    found: list[str] = []
    for line in text.splitlines():
        for sentence in _SENTENCE_END.split(line):
            if marker.search(sentence):
                found.append(sentence.strip())
    if not found:  # a deletion spread over lines: the whole text
        found = [" ".join(text.split())]
    return " ".join(plain_keep_bold(cloze_answer(s, number)) for s in found)


def plain_keep_bold(markdown: str) -> str:
    """`plain` but the bold marks kept (a cloze key point shows what was asked)."""
    held = markdown.replace("**", "\x00")
    return plain(held).replace("\x00", "**")


def key_points(markdown: str) -> tuple[str, ...]:
    """The answer side's key points: one per list item or line, as plain one-line text
    (inline marks kept), media left out; each once."""
    found: list[str] = []
    for line in markdown.splitlines():
        if line.strip() in ("```", "---"):
            continue
        text = re.sub(r"!\[[^\]]*\]\(<[^>]*>\)", " ", line)
        text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", text)
        text = " ".join(text.split())
        if text and re.search(r"\w", text):
            found.append(text)
    return tuple(dict.fromkeys(found))
