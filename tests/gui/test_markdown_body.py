"""The note body's Write and Preview tabs: the text comes back exactly as written, links in
the preview are followed the Coach way (never by navigating), and the preview loads
pictures only from inside the vault (ADR 0017)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QObject, QPoint, Qt, QUrl, Slot
from PySide6.QtGui import QColor, QDesktopServices, QImage, QPalette, QTextCursor, QTextDocument
from pytestqt.qtbot import QtBot

from coach_gui.ui.markdown.markdown_body import MarkdownBody

IMAGE = QTextDocument.ResourceType.ImageResource


@pytest.fixture
def body(qtbot: QtBot) -> MarkdownBody:
    widget = MarkdownBody()
    qtbot.addWidget(widget)
    widget.resize(640, 420)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def show_preview(body: MarkdownBody, text: str) -> None:
    body.set_text(text)
    body.setCurrentWidget(body.preview)


def click_text(qtbot: QtBot, body: MarkdownBody, words: str) -> None:
    """Click in the middle of `words` as a reader would."""
    found = body.preview.document().find(words)
    assert not found.isNull(), f"{words!r} is not in the preview"
    cursor = QTextCursor(body.preview.document())
    cursor.setPosition((found.selectionStart() + found.selectionEnd()) // 2)
    rect = body.preview.cursorRect(cursor)
    at = QPoint(rect.left() + 1, rect.center().y())
    qtbot.mouseClick(body.preview.viewport(), Qt.MouseButton.LeftButton, pos=at)


def save_png(tmp_path: Path, name: str) -> Path:
    image = QImage(30, 20, QImage.Format.Format_RGB32)
    image.fill(QColor("#2e7d32"))
    path = tmp_path / name
    assert image.save(str(path))
    return path


# --- the text round trip ---------------------------------------------------------------


def test_text_comes_back_exactly_with_no_break_spaces_and_line_separators(
    body: MarkdownBody,
) -> None:
    text = "Price:\u00a0€5\u2028second line\tand a tab\n\nNext paragraph\u00a0end\n"
    body.set_text(text)
    assert body.text() == text
    assert body.edit.toPlainText() != text  # what text() used to return


def test_one_edit_changes_one_character(body: MarkdownBody, qtbot: QtBot) -> None:
    text = "a\u00a0b\u2028c\nd\u00a0e"
    body.set_text(text)
    body.edit.moveCursor(QTextCursor.MoveOperation.End)
    qtbot.keyClicks(body.edit, "!")
    assert body.text() == text + "!"


def test_no_carriage_returns_are_introduced(body: MarkdownBody) -> None:
    body.set_text("one\ntwo\n\nthree\n")
    assert "\r" not in body.text()
    mixed = "windows\r\nline ends\r\nand one unix\nline\rold mac\u2029para\n"
    body.set_text(mixed)  # Qt splits blocks on all of these: untouched, each comes back
    assert body.text() == mixed
    cursor = body.edit.textCursor()
    cursor.movePosition(cursor.MoveOperation.End)
    cursor.insertText("typed")
    assert body.text() == mixed + "typed"
    cursor.movePosition(cursor.MoveOperation.Start)
    cursor.insertText("New first ")  # an edited line takes a plain \n; the rest keep theirs
    assert body.text() == "New first " + mixed + "typed"


# --- links -----------------------------------------------------------------------------


def test_clicking_a_wikilink_asks_for_that_note(body: MarkdownBody, qtbot: QtBot) -> None:
    body.set_vault(lambda name: name if name == "Other note" else None, lambda name: None)
    show_preview(body, "Read [[Other note#Part|the other one]] and [[Missing one]].")
    with qtbot.waitSignal(body.note_link_activated, timeout=2000) as signal:
        click_text(qtbot, body, "the other one")
    assert signal.args == ["Other note"]
    with qtbot.waitSignal(body.note_link_activated, timeout=2000) as signal:
        click_text(qtbot, body, "Missing one")  # unresolved, still clickable
    assert signal.args == ["Missing one"]


def test_a_name_with_odd_characters_arrives_as_written(body: MarkdownBody, qtbot: QtBot) -> None:
    name = "Café 100% sure/sub-note & co"
    show_preview(body, f"[[{name}|go]]")
    with qtbot.waitSignal(body.note_link_activated, timeout=2000) as signal:
        click_text(qtbot, body, "go")
    assert signal.args == [name]


def test_a_relative_link_keeps_the_preview(body: MarkdownBody, qtbot: QtBot) -> None:
    show_preview(body, "[a page](folder/page.html) and [a file](notes.pdf)\n\nStill here.")
    for words in ("a page", "a file"):
        click_text(qtbot, body, words)
        qtbot.wait(50)
        assert "Still here." in body.preview.toPlainText()
        assert body.preview.source().isEmpty()
        assert body.currentWidget() is body.preview


def test_a_markdown_link_to_a_note_asks_for_it(body: MarkdownBody, qtbot: QtBot) -> None:
    show_preview(body, "[the idea](Some%20Idea.md)")
    with qtbot.waitSignal(body.note_link_activated, timeout=2000) as signal:
        click_text(qtbot, body, "the idea")
    assert signal.args == ["Some Idea"]


class UrlRecorder(QObject):
    """Stands in for the desktop's browser (QDesktopServices.setUrlHandler)."""

    def __init__(self) -> None:
        super().__init__()
        self.opened: list[str] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.opened.append(url.toString())


@pytest.fixture
def browser() -> Iterator[UrlRecorder]:
    recorder = UrlRecorder()
    for scheme in ("http", "https"):
        QDesktopServices.setUrlHandler(scheme, recorder, "open")
    yield recorder
    for scheme in ("http", "https"):
        QDesktopServices.unsetUrlHandler(scheme)


def test_a_web_link_opens_in_the_browser(
    body: MarkdownBody, qtbot: QtBot, browser: UrlRecorder
) -> None:
    show_preview(body, "[the site](https://example.com/page)\n\nStill here.")
    click_text(qtbot, body, "the site")
    qtbot.waitUntil(lambda: browser.opened == ["https://example.com/page"], timeout=2000)
    assert "Still here." in body.preview.toPlainText()


def test_a_footnote_reference_scrolls_within_the_note(body: MarkdownBody, qtbot: QtBot) -> None:
    show_preview(body, "Claim[^1]\n\n" + "filler\n\n" * 80 + "[^1]: The source.")
    assert body.preview.verticalScrollBar().value() == 0
    click_text(qtbot, body, "[1]")
    qtbot.waitUntil(lambda: body.preview.verticalScrollBar().value() > 0, timeout=2000)
    assert "Claim" in body.preview.toPlainText()


def test_a_folded_callout_opens_when_clicked(body: MarkdownBody, qtbot: QtBot) -> None:
    show_preview(body, "> [!warning]- Careful\n> The hidden part.")
    assert "The hidden part." not in body.preview.toPlainText()
    click_text(qtbot, body, "show")
    qtbot.waitUntil(lambda: "The hidden part." in body.preview.toPlainText(), timeout=2000)
    body.set_text("> [!warning]- Careful\n> The hidden part.")  # another note: folded again
    assert "The hidden part." not in body.preview.toPlainText()


def test_a_dark_palette_renders_dark_tints(body: MarkdownBody) -> None:
    show_preview(body, "==marked==")
    light = body.preview.toHtml()
    palette = body.palette()
    palette.setColor(QPalette.ColorRole.Base, QColor("#202020"))
    palette.setColor(QPalette.ColorRole.Text, QColor("#dddddd"))
    body.setPalette(palette)
    assert body.preview.toHtml() != light
    assert "#6e5c10" in body.preview.toHtml()


# --- what the preview loads ------------------------------------------------------------


@pytest.fixture
def vault_body(body: MarkdownBody, tmp_path: Path) -> tuple[MarkdownBody, Path]:
    vault = tmp_path / "vault"
    vault.mkdir()
    save_png(vault, "inside.png")
    save_png(vault, "not-placed.png")
    save_png(tmp_path, "outside.png")

    def resolve_file(name: str) -> Path | None:
        path = vault / name
        return path if path.is_file() else None

    body.set_vault(lambda name: None, resolve_file, root=vault)
    return body, vault


def test_a_vault_picture_is_shown(vault_body: tuple[MarkdownBody, Path], qtbot: QtBot) -> None:
    body, vault = vault_body
    show_preview(body, "![[inside.png]]")
    loaded = body.preview.loadResource(IMAGE, QUrl.fromLocalFile(str(vault / "inside.png")))
    assert isinstance(loaded, QImage) and loaded.size().width() == 30
    body.preview.grab()  # laid out and painted: the picture is in the document
    shown = body.preview.document().resource(IMAGE, QUrl((vault / "inside.png").as_uri()))
    assert isinstance(shown, QImage) and shown.width() == 30


def refused(result: object) -> bool:
    return result == b"" or (isinstance(result, QImage) and result.size().width() <= 1)


def test_load_resource_refuses_a_remote_url(vault_body: tuple[MarkdownBody, Path]) -> None:
    body, _ = vault_body
    show_preview(body, "![[inside.png]]")
    for url in ("https://example.com/x.png", "http://127.0.0.1:9/x.png", "ftp://e.com/x.png"):
        assert refused(body.preview.loadResource(IMAGE, QUrl(url)))


def test_load_resource_refuses_files_outside_the_vault_or_not_placed(
    vault_body: tuple[MarkdownBody, Path], tmp_path: Path
) -> None:
    body, vault = vault_body
    (vault / "link.png").symlink_to(tmp_path / "outside.png")
    show_preview(body, "![[inside.png]] ![[link.png]]")
    preview = body.preview
    for path in (tmp_path / "outside.png", vault / "not-placed.png", vault / "link.png"):
        assert refused(preview.loadResource(IMAGE, QUrl.fromLocalFile(str(path)))), path
    assert refused(preview.loadResource(IMAGE, QUrl("data:image/png;base64,iVBORw0KGgo=")))
    style = QTextDocument.ResourceType.StyleSheetResource
    assert preview.loadResource(style, QUrl.fromLocalFile(str(vault / "inside.png"))) == b""


def test_a_hidpi_variant_of_a_placed_picture_is_served(
    vault_body: tuple[MarkdownBody, Path],
) -> None:
    body, vault = vault_body
    save_png(vault, "inside@2x.png")
    show_preview(body, "![[inside.png]]")
    twice = QUrl.fromLocalFile(str(vault / "inside@2x.png"))
    assert not refused(body.preview.loadResource(IMAGE, twice))
    other = QUrl.fromLocalFile(str(vault / "not-placed@2x.png"))
    assert refused(body.preview.loadResource(IMAGE, other))


def test_qt_does_not_read_a_refused_file_by_itself(
    vault_body: tuple[MarkdownBody, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Qt's image handler reads a local file itself when loadResource gives it nothing."""
    body, _ = vault_body
    outside = QUrl((tmp_path / "outside.png").as_uri())
    monkeypatch.chdir(tmp_path)  # a relative name would be read from the working folder
    html = f'<p><img src="{outside.toString()}" /><img src="outside.png" /></p>'
    body.preview.show_html(html, frozenset())
    body.setCurrentWidget(body.preview)
    body.preview.grab()
    for url in (outside, QUrl("outside.png")):
        assert refused(body.preview.document().resource(IMAGE, url))


def test_the_offscreen_platform_is_in_use() -> None:
    assert os.environ.get("QT_QPA_PLATFORM") == "offscreen"


_LINES = st.lists(
    st.tuples(
        st.text(alphabet="ab \u00a0\u2028é", max_size=6),
        st.sampled_from(["\n", "\r\n", "\r", "\u2029"]),
    ),
    max_size=8,
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(lines=_LINES, at=st.integers(min_value=0, max_value=80), typed=st.text("xy\n", max_size=3))
def test_text_is_what_was_typed_and_untouched_lines_keep_their_breaks(
    body: MarkdownBody, lines: list[tuple[str, str]], at: int, typed: str
) -> None:
    loaded = "".join(line + brk for line, brk in lines)
    body.set_text(loaded)
    assert body.text() == loaded  # nothing typed: every byte as loaded
    cursor = body.edit.textCursor()
    cursor.setPosition(min(at, len(body.edit.document().toRawText())))
    cursor.insertText(typed)
    shown = body.edit.document().toRawText().replace("\u2029", "\n")
    got = body.text()
    assert re.sub("\r\n|\r|\u2029", "\n", got) == shown  # exactly what the editor shows
    assert got.count("\r") <= loaded.count("\r")  # no line break is ever invented
    assert got.count("\u2029") <= loaded.count("\u2029")


def test_an_svg_in_the_vault_is_never_drawn_whatever_its_name(
    vault_body: tuple[MarkdownBody, Path], tmp_path: Path
) -> None:
    """Review of issue 14: Qt's SVG plugin read the files an SVG refers to itself, so an
    SVG in the vault could show a picture from outside it (even named .png)."""
    body, vault = vault_body
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'
        f' width="40" height="40"><image xlink:href="{tmp_path / "outside.png"}"'
        ' width="40" height="40"/></svg>'
    )
    (vault / "evil.svg").write_text(svg, encoding="utf-8")
    (vault / "disguised.png").write_text(svg, encoding="utf-8")
    show_preview(body, "![[evil.svg]] ![[disguised.png]]")
    for name in ("evil.svg", "disguised.png"):
        url = QUrl.fromLocalFile(str(vault / name))
        assert refused(body.preview.loadResource(IMAGE, url)), name


def test_a_paste_over_a_long_note_with_odd_breaks_never_freezes_the_editor(
    body: MarkdownBody,
) -> None:
    import time

    lines = [f"paragraph {n}" if n % 2 else "" for n in range(2_000)]
    body.set_text("\r\n".join(lines[:2]) + "\n" + "\n".join(lines[2:]))
    cursor = body.edit.textCursor()
    cursor.movePosition(cursor.MoveOperation.Start)
    cursor.movePosition(cursor.MoveOperation.End, cursor.MoveMode.KeepAnchor)
    cursor.insertText("\n".join(f"pasted {n}" if n % 3 else "" for n in range(2_000)))
    started = time.perf_counter()
    typed = body.text()
    assert time.perf_counter() - started < 2.0  # was 57 s before the bound
    assert typed.replace("\r\n", "\n").startswith("\npasted 1\npasted 2")
