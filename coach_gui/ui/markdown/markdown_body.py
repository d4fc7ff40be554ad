"""A note's Markdown body: write it, or read it formatted (rendered only when shown).

The preview renders Obsidian's Markdown (markdown_render, ADR 0017) and never navigates:
a note link asks the editor to open that note, a web link opens in the browser, and
everything else keeps the note on screen."""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, QObject, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QImage,
    QImageReader,
    QPalette,
    QTextDocument,
)
from PySide6.QtWidgets import QPlainTextEdit, QTabWidget, QTextBrowser, QWidget

from coach_gui.domain.text_segments import text_direction
from coach_gui.ui.markdown.preview_schemes import FOLD_SCHEME, NOTE_SCHEME, note_link_target

PARAGRAPH_SEPARATOR = "\u2029"  # how QTextDocument's raw text ends a block
_LINE_BREAKS = re.compile("(\r\n|\r|\n|\u2029)")  # every line break a note may hold
_MAX_DIFF_CELLS = 40_000  # lines compared × lines typed, past which breaks are not restored
_DARK_LINK = "#7ab4ff"  # a link colour that reads on a dark page
_MIN_LINK_LIGHTNESS = 140
_AT_NX = re.compile(r"@\d+(?:\.\d+)?x(?=\.[^.]*$)")


def _no_note(_name: str) -> str | None:
    return None


def _no_file(_name: str) -> Path | None:
    return None


def refused_picture() -> QImage:
    """One transparent pixel: given a null image, None or bytes, Qt's image handler reads
    a local or relative file name straight from disk, past loadResource."""
    image = QImage(1, 1, QImage.Format.Format_ARGB32)
    image.fill(0)
    return image


class VaultPreview(QTextBrowser):
    """Loads only pictures the preview placed, and only from inside the vault (when the
    vault's folder is known). Nothing is fetched from the network, ever."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)  # links are followed by MarkdownBody, never by navigating
        self.vault_root: Path | None = None
        self.placed: frozenset[Path] = frozenset()

    def show_html(self, html: str, placed: frozenset[Path]) -> None:
        scrolled = self.verticalScrollBar().value()
        self.placed = placed
        self.setHtml(html)
        self.verticalScrollBar().setValue(scrolled)  # a fold toggle keeps the reader's place

    def servable(self, url: QUrl) -> Path | None:
        if not url.isLocalFile():
            return None
        path = Path(url.toLocalFile()).resolve()
        # On a HiDPI screen Qt asks for `name@2x.png` when it sits beside `name.png`.
        plain = path.with_name(_AT_NX.sub("", path.name))
        if not self.placed & {path, plain} or not path.is_file():
            return None
        if self.vault_root is not None and not path.is_relative_to(self.vault_root):
            return None
        return path

    def loadResource(self, kind: int, url: QUrl | str) -> object:
        if kind != QTextDocument.ResourceType.ImageResource:
            return b""  # not None: with None, QTextDocument reads the file itself
        url = QUrl(url)
        path = self.servable(url)
        if path is not None and _vector_format(path):
            # An SVG may draw other files (`<image href="../outside.png">`), which Qt's
            # plugin reads itself: outside the vault's check. Refused, by content, not name.
            return refused_picture()
        image = QImage(str(path)) if path else QImage()
        if image.isNull():
            # Given no image, Qt's image handler reads a local or relative name itself.
            return refused_picture() if url.isLocalFile() or url.isRelative() else b""
        room = max(self.viewport().width() - 48, 160)
        if image.width() > room:  # a photo as wide as the pane, not wider
            image = image.scaledToWidth(room)
        return image


def _vector_format(path: Path) -> bool:
    """Whether the file holds an SVG (whatever its name says)."""
    found = bytes(QImageReader(str(path)).format().data()).lower()
    return found.startswith(b"svg")


class MarkdownBody(QTabWidget):
    note_link_activated = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._loaded = ""  # the text as set_text gave it
        self.edit = QPlainTextEdit(self)
        self.edit.setPlaceholderText("Write the note in Markdown…")
        self.edit.setAccessibleName("Note text (Markdown)")
        self.edit.setAccessibleDescription("The body of the note, written in Markdown")
        self.edit.setTabChangesFocus(True)  # Tab moves on; the body is prose, not code
        self.edit.textChanged.connect(self._align_to_the_note)
        self.preview = VaultPreview(self)
        self.preview.setAccessibleName("Preview")
        self.preview.setAccessibleDescription("The note text as it reads once formatted")
        self.preview.anchorClicked.connect(self._follow)
        self.addTab(self.edit, "&Write")
        self.addTab(self.preview, "&Preview")
        self.setAccessibleName("Note text")
        self._resolve_note: Callable[[str], str | None] = _no_note
        self._resolve_file: Callable[[str], Path | None] = _no_file
        self._embed_note: Callable[[str], str | None] | None = None
        self._toggled: set[int] = set()
        self.currentChanged.connect(self.render_if_shown)
        self.tabBar().installEventFilter(self)

    def set_vault(
        self,
        resolve_note: Callable[[str], str | None],
        resolve_file: Callable[[str], Path | None],
        embed_note: Callable[[str], str | None] | None = None,
        *,
        root: Path | None = None,
    ) -> None:
        """How the preview finds what a note links to: see render_note_html. With `root`,
        pictures load only from inside that folder."""
        self._resolve_note, self._resolve_file, self._embed_note = (
            resolve_note,
            resolve_file,
            embed_note,
        )
        self.preview.vault_root = root.resolve() if root is not None else None
        self.render_if_shown()

    def text(self) -> str:
        """Exactly what was typed: toPlainText() would turn U+00A0 into a space and U+2028
        into a newline, so one edit would rewrite every one in the file."""
        typed = self.edit.document().toRawText().replace(PARAGRAPH_SEPARATOR, "\n")
        loaded = self._loaded
        if "\r" not in loaded and PARAGRAPH_SEPARATOR not in loaded:
            return typed
        # The note broke some lines with what Qt cannot keep (U+2029, \r\n or \r among \n
        # lines): every line the learner left alone keeps its own break.
        pieces = _LINE_BREAKS.split(loaded)  # line, break, line, break, ..., line
        lines, breaks = pieces[0::2], pieces[1::2]
        if typed == "\n".join(lines):
            return loaded
        typed_lines = typed.split("\n")

        def kept(i: int) -> tuple[str, str | None]:
            return lines[i], breaks[i] if i < len(breaks) else None

        # An edit touches a few lines: match the unchanged ends directly (this runs on
        # every keystroke), and compare only what lies between.
        shortest = min(len(lines), len(typed_lines))
        head = 0
        while head < shortest and lines[head] == typed_lines[head]:
            head += 1
        tail = 0
        while tail < shortest - head and lines[-1 - tail] == typed_lines[-1 - tail]:
            tail += 1
        pairs: list[tuple[str, str | None]] = [kept(i) for i in range(head)]
        old_middle = lines[head : len(lines) - tail]
        new_middle = typed_lines[head : len(typed_lines) - tail]
        if len(old_middle) * len(new_middle) > _MAX_DIFF_CELLS:  # a paste over a long stretch
            opcodes: Sequence[tuple[str, int, int, int, int]] = [
                ("insert", 0, 0, 0, len(new_middle))  # its lines take \n: no freeze
            ]
        else:
            matcher = difflib.SequenceMatcher(None, old_middle, new_middle, autojunk=False)
            opcodes = matcher.get_opcodes()
        for tag, a1, a2, b1, b2 in opcodes:
            i1, i2, j1, j2 = a1 + head, a2 + head, b1 + head, b2 + head
            if tag == "equal":
                pairs += [kept(i) for i in range(i1, i2)]
            elif tag == "replace" and i2 - i1 == j2 - j1:  # lines edited in place: their breaks
                pairs += [
                    (typed_lines[j1 + k], breaks[i1 + k] if i1 + k < len(breaks) else None)
                    for k in range(i2 - i1)
                ]
            else:  # lines typed anew: \n
                pairs += [(line, None) for line in typed_lines[j1:j2]]
        pairs += [kept(i) for i in range(len(lines) - tail, len(lines))]
        last = len(pairs) - 1
        joined: list[str] = []
        for n, (line, brk) in enumerate(pairs):
            piece = line + ("" if n == last else brk or "\n")
            joined.append(piece)
            k = len(joined) - 1  # a kept lone CR, then an LF, would read as one CRLF:
            while k > 0 and joined[k].startswith("\n") and joined[k - 1].endswith("\r"):
                joined[k - 1] = joined[k - 1][:-1] + "\n"  # so that CR becomes an LF too
                k -= 1
        return "".join(joined)

    def _align_to_the_note(self) -> None:
        """Each line of the editor keeps its own direction (Qt finds it from its first
        letter), but a plain-text editor aligns every line alike: to the right when the
        note's first letter with a direction is Arabic, Hebrew… (ADR 0032). Only the first
        lines are read, up to that letter."""
        document = self.edit.document()
        block, direction = document.begin(), None
        while block.isValid() and direction is None:
            direction = text_direction(block.text())
            block = block.next()
        right = direction == "rtl"
        wanted = Qt.AlignmentFlag.AlignRight if right else Qt.AlignmentFlag.AlignLeft
        option = document.defaultTextOption()
        if option.alignment() != wanted:
            option.setAlignment(wanted)
            document.setDefaultTextOption(option)

    def set_text(self, text: str) -> None:
        self._loaded = text
        self.edit.setPlainText(text)
        self._toggled.clear()
        self.preview.clear()
        self.render_if_shown()

    def render_if_shown(self, *_args: object) -> None:
        if self.currentWidget() is self.preview:
            self._render()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Alt+W and Alt+P (the tabs' mnemonics) show the tab and put the cursor in it:
        the tab bar alone would switch the page and leave focus where it was."""
        if watched is self.tabBar() and event.type() == QEvent.Type.Shortcut:
            handled = self.tabBar().event(event)
            page = self.currentWidget()
            if handled and page is not None:
                page.setFocus(Qt.FocusReason.ShortcutFocusReason)
            return handled
        return super().eventFilter(watched, event)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.render_if_shown()  # light and dark tints differ

    def _render(self) -> None:
        placed: set[Path] = set()

        def resolve_file(name: str) -> Path | None:
            path = self._resolve_file(name)
            if path is not None and path.is_absolute():
                placed.add(path.resolve())
            return path

        # Our palette, not the preview's: PaletteChange reaches us before our children.
        palette = self.palette()
        dark = palette.color(QPalette.ColorRole.Base).lightness() < 128
        self._readable_links(palette, dark)
        from coach_gui.ui.markdown.markdown_render import (
            render_note_html,  # ~75 ms: not at start-up
        )

        html = render_note_html(
            self.text(),
            resolve_note=self._resolve_note,
            resolve_file=resolve_file,
            embed_note=self._embed_note,
            dark=dark,
            toggled_callouts=frozenset(self._toggled),
        )
        self.preview.show_html(html, frozenset(placed))

    def _readable_links(self, palette: QPalette, dark: bool) -> None:
        """A dark theme that keeps Qt's default link blue would draw links nearly black on
        black: the preview then takes a light blue of its own."""
        ours = self.preview.palette()
        link = palette.color(QPalette.ColorRole.Link)
        wanted = QColor(_DARK_LINK) if dark and link.lightness() < _MIN_LINK_LIGHTNESS else link
        if ours.color(QPalette.ColorRole.Link) != wanted:
            ours.setColor(QPalette.ColorRole.Link, wanted)
            ours.setColor(QPalette.ColorRole.LinkVisited, wanted)
            self.preview.setPalette(ours)

    def _follow(self, url: QUrl) -> None:
        scheme = url.scheme().lower()
        href = url.toString(QUrl.ComponentFormattingOption.FullyEncoded)
        if scheme == NOTE_SCHEME:
            target = note_link_target(href)
            if target:
                self.note_link_activated.emit(target)
        elif scheme == FOLD_SCHEME and url.path().isdigit():
            self._toggled ^= {int(url.path())}
            self._render()
        elif scheme in ("http", "https", "mailto"):
            QDesktopServices.openUrl(url)
        elif not scheme and not url.path() and url.fragment():
            self.preview.scrollToAnchor(url.fragment())
        # Anything else (a relative path, file:, obsidian:...) keeps the note on screen.
