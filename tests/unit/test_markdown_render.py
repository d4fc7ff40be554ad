"""The note preview's HTML (ADR 0017): each Obsidian feature as a reader sees it, and what a
hostile note can and cannot make the preview do. No Qt: the renderer is pure."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from coach_gui.ui.markdown.markdown_render import render_note_html
from coach_gui.ui.markdown.preview_links import note_link_target

NOTES = {
    "Evolution": "# Evolution\n\n## Variation\nIndividuals differ.\n\n## Other\nNot this.",
    "Genetics": "Genes, with ![[Evolution]] inside.",
    "Loop": "Loop embeds ![[Loop]] itself.",
    "Dated": "Paragraph with a block. ^para-1\n\nAnother.",
}


class FakeVault:
    """Answers like a vault with NOTES and the given files; records what was asked."""

    def __init__(self, folder: Path | None = None, files: tuple[str, ...] = ()) -> None:
        self.folder = folder
        self.files = set(files)
        self.asked: list[str] = []

    def note(self, name: str) -> str | None:
        self.asked.append(name)
        return name if name in NOTES else None

    def file(self, name: str) -> Path | None:
        if self.folder is None or name not in self.files:
            return None
        return self.folder / name

    def embed(self, name: str) -> str | None:
        return NOTES.get(name)


def render(markdown: str, vault: FakeVault | None = None, **kwargs: object) -> str:
    vault = vault or FakeVault()
    return render_note_html(
        markdown,
        resolve_note=vault.note,
        resolve_file=vault.file,
        embed_note=vault.embed,
        **kwargs,  # type: ignore[arg-type]
    )


def body(html: str) -> str:
    return html.removeprefix("<html><body>").removesuffix("</body></html>")


# --- wikilinks -------------------------------------------------------------------------


def test_a_wikilink_to_a_note_in_the_vault_is_a_coach_note_link() -> None:
    html = render("See [[Evolution]].")
    assert '<a href="coach-note:Evolution">Evolution</a>' in html


def test_a_wikilink_shows_its_alias_and_heading_like_obsidian() -> None:
    html = render("[[Genetics|genes]] and [[Evolution#Variation]]")
    assert '<a href="coach-note:Genetics">genes</a>' in html
    assert '<a href="coach-note:Evolution#Variation">Evolution &gt; Variation</a>' in html


def test_a_wikilink_target_is_url_quoted_and_round_trips() -> None:
    name = 'Café 100% "odd" <name>/sub&co'
    html = render(f"[[{name}]]")
    href = re.search(r'href="([^"]+)"', html)
    assert href is not None
    assert " " not in href.group(1) and "<" not in href.group(1)
    assert note_link_target(href.group(1).replace("&amp;", "&")) == name
    assert "Café 100% &quot;odd&quot; &lt;name&gt;/sub&amp;co</a>" in html


def test_a_missing_note_is_drawn_unresolved_but_stays_clickable() -> None:
    html = render("[[Nowhere]]")
    assert re.search(r'<a href="coach-note:Nowhere" style="color:#[0-9a-f]{6};">Nowhere</a>', html)
    assert '<a href="coach-note:Evolution">' in render("[[Evolution]]")  # resolved: no style


def test_a_link_to_a_heading_in_this_note_scrolls_to_it() -> None:
    html = render("## My Heading\n\n[[#My Heading]]")
    assert '<h2 id="my-heading">' in html
    assert '<a href="#my-heading">My Heading</a>' in html


def test_a_wikilink_in_a_table_cell_keeps_its_escaped_pipe() -> None:
    html = render("| a | b |\n| - | - |\n| [[Genetics\\|genes]] | x |")
    assert '<td><a href="coach-note:Genetics">genes</a></td>' in html


def test_an_unclosed_wikilink_is_text() -> None:
    assert "[[Evolution and more" in render("[[Evolution and more")
    assert "coach-note" not in render("[[a\nb]]")  # a wikilink does not span lines


WIKILINK = re.compile(r"\[\[((?:(?!\[\[|\]\])[^\n])*)\]\]")  # inner: up to the first ]]


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet="[]ab |\n", max_size=60))
def test_wikilinks_are_found_as_a_plain_scan_finds_them(text: str) -> None:
    """The remembered searches (`_find`) change speed, never what is found."""
    note = "\n\n".join(line.strip() for line in text.split("\n"))  # paragraphs, no code
    expected = [m for m in WIKILINK.findall(note) if m.partition("|")[0].strip()]
    assert len(re.findall(r'<a href="coach-note:', render(note))) == len(expected)


def test_markdown_links_to_notes_become_note_links() -> None:
    html = render("[the idea](Evolution.md#Variation) and [gone](folder/Gone%20Away.md)")
    assert '<a href="coach-note:Evolution#Variation">the idea</a>' in html
    assert 'href="coach-note:folder%2FGone%20Away" style=' in html


def test_note_link_target_reads_only_note_links() -> None:
    assert note_link_target("coach-note:A%20B#Heading") == "A B"
    assert note_link_target("https://example.com") is None


# --- embeds ----------------------------------------------------------------------------


def test_an_embedded_picture_is_a_file_url_from_the_vault(tmp_path: Path) -> None:
    html = render("![[finch.png|240]]", FakeVault(tmp_path, ("finch.png",)))
    uri = (tmp_path / "finch.png").as_uri()
    assert f'<img src="{uri}" alt="finch.png" width="240" />' in html


def test_a_picture_the_vault_lacks_is_named_not_loaded(tmp_path: Path) -> None:
    html = render("![[nowhere.png]] ![alt](also-missing.png)", FakeVault(tmp_path))
    assert "<img" not in html
    assert "[missing picture: nowhere.png]" in html and "also-missing.png" in html


def test_a_relative_markdown_image_goes_through_the_vault(tmp_path: Path) -> None:
    vault = FakeVault(tmp_path, ("pics/a b.png",))
    html = render("![a finch|100](pics/a%20b.png)", vault)
    assert f'<img src="{(tmp_path / "pics/a b.png").as_uri()}" alt="a finch" width="100" />' in html


def test_a_relative_path_from_the_resolver_is_not_used() -> None:
    html = render_note_html(
        "![[x.png]]", resolve_note=lambda n: None, resolve_file=lambda n: Path("x.png")
    )
    assert "<img" not in html


def test_an_embedded_note_is_rendered_inline_one_level_deep() -> None:
    html = render("Before\n\n![[Genetics]]\n\nAfter")
    assert "Genes, with" in html
    assert '<a href="coach-note:Evolution">Evolution</a>' in html  # the inner embed is a link
    assert "Individuals differ" not in html
    assert "<p><table" not in html  # the embed is a box, not a table inside a paragraph


def test_a_note_that_embeds_itself_does_not_loop() -> None:
    html = render("![[Loop]]")
    assert html.count("Loop embeds") == 1


def test_an_embedded_heading_shows_only_that_section() -> None:
    html = render("![[Evolution#Variation]]")
    assert "Individuals differ." in html and "Not this." not in html


def test_an_embedded_block_shows_only_that_paragraph() -> None:
    html = render("![[Dated#^para-1]]")
    assert "<p>Paragraph with a block.</p>" in html and "Another." not in html


def test_an_embedded_section_that_is_missing_says_so() -> None:
    assert "No section “Nope” there." in render("![[Evolution#Nope]]")


def test_without_embed_note_an_embed_is_a_link() -> None:
    html = render_note_html("![[Evolution]]", resolve_note=lambda n: n, resolve_file=lambda n: None)
    assert '<a href="coach-note:Evolution">Evolution</a>' in html


def test_embeds_stop_at_a_limit() -> None:
    html = render("\n\n".join(["![[Evolution]]"] * 40))
    assert html.count("Individuals differ.") == 25


# --- callouts --------------------------------------------------------------------------


def test_a_callout_is_a_coloured_box_with_its_title() -> None:
    html = render("> [!note] Key idea\n> Body **bold**.")
    assert 'bgcolor="#086ddd"' in html  # Obsidian's note blue, as the bar
    assert ">Key idea</p>" in html and "<strong>bold</strong>" in html
    assert "<blockquote" not in html and "[!note]" not in html


def test_a_callout_without_a_title_takes_its_type_name() -> None:
    assert ">Warning</p>" in render("> [!WARNING]\n> Careful.")


def test_callout_types_have_obsidian_colours_and_unknown_ones_look_like_notes() -> None:
    assert 'bgcolor="#e93147"' in render("> [!danger] x")
    assert 'bgcolor="#086ddd"' in render("> [!mine|wide] x")


def test_a_callout_keeps_a_lazy_line_and_a_title_without_a_space() -> None:
    """The two texts mdformat-obsidian's parser drops (ADR 0017)."""
    assert "lazy line" in render("> [!note] T\nlazy line")
    assert ">Tight</p>" in render("> [!note]Tight\n> b")


def test_a_folded_callout_hides_its_body_until_toggled() -> None:
    note = "Intro\n\n> [!warning]- Folded\n> Secret body"
    shut = render(note)
    assert "Folded" in shut and "Secret body" not in shut
    assert '<a href="coach-fold:2"' in shut and "show</a>" in shut
    opened = render(note, toggled_callouts={2})
    assert "Secret body" in opened and "hide</a>" in opened


def test_an_open_foldable_callout_can_be_folded() -> None:
    note = "> [!tip]+ Open\n> Visible"
    assert "Visible" in render(note)
    assert "Visible" not in render(note, toggled_callouts={0})


def test_callouts_nest() -> None:
    html = render("> [!tip] Outer\n> text\n> > [!example] Inner\n> > inner text")
    assert 'bgcolor="#7852ee"' in html and "inner text" in html
    assert html.index("Outer") < html.index("Inner")


def test_a_plain_quote_stays_a_quote() -> None:
    html = render("> Just a quote\n> [!note] not at the start")
    assert "Just a quote" in html and "[!note] not at the start" in html


# --- highlight, comments ---------------------------------------------------------------


def test_highlight_is_a_background_span_and_nests() -> None:
    html = render("a ==marked **bold**== b")
    assert '<span style="background-color:#fff099;">marked <strong>bold</strong></span>' in html


def test_an_unclosed_highlight_is_text() -> None:
    assert "==open" in render("==open and more")


def test_inline_and_block_comments_vanish() -> None:
    html = render("Seen %% hidden %% seen.\n\n%%\nblock hidden\n%%\n\nAfter.")
    assert "hidden" not in html and "%%" not in html
    assert "Seen  seen." in html and "After." in html


def test_a_block_comment_can_interrupt_a_paragraph() -> None:
    html = render("line one\n%%\nhidden\n%%\nline two")
    assert "hidden" not in html and "line one" in html and "line two" in html


def test_an_unclosed_inline_comment_stays_visible_a_block_one_runs_to_the_end() -> None:
    assert "%% never closed" in render("text %% never closed")
    html = render("Seen\n\n%%\nhidden to the end\n\nstill hidden")
    assert "Seen" in html and "hidden" not in html


def test_comments_in_code_are_code() -> None:
    html = render("```\n%% not a comment %%\n```\n\n`%% nor this %%`")
    assert html.count("%% not a comment %%") == 1 and "%% nor this %%" in html


# --- plugin features -------------------------------------------------------------------


def test_front_matter_is_not_shown() -> None:
    html = render("---\ntitle: Secret title\ntags: [a]\n---\n# Heading")
    assert "Secret title" not in html and "Heading" in html


def test_footnotes_are_superscripts_and_a_list() -> None:
    html = render("Claim[^1] and inline^[quick note].\n\n[^1]: The source.")
    assert '<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup>' in html
    assert "The source." in html and "quick note" in html
    assert "<section" not in html and "\ufe0e" not in html


def test_math_is_monospace_text_escaped() -> None:
    html = render("Inline $a<b$ and\n\n$$\n\\frac{1}{2}\n$$")
    assert '<span style="font-family:monospace;' in html and "a&lt;b</span>" in html
    assert "\\frac{1}{2}</pre>" in html


def test_dollars_in_prose_are_not_math() -> None:
    assert "font-family:monospace" not in render("It cost $5 and $10 then.")


def test_task_lists_use_qt_check_marks_not_inputs() -> None:
    html = render("- [ ] open\n- [x] done")
    assert '<li class="unchecked">open</li>' in html
    assert '<li class="checked">done</li>' in html
    assert "<input" not in html


def test_tables_and_strikethrough() -> None:
    html = render("| a | b |\n| - | - |\n| 1 | 2 |\n\n~~gone~~")
    assert '<table border="1"' in html and "<td>1</td>" in html and "<s>gone</s>" in html


def test_dark_uses_dark_tints() -> None:
    light, dark = render("==x== `c`"), render("==x== `c`", dark=True)
    assert "#fff099" in light and "#fff099" not in dark


# --- hostile notes ---------------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=http://evil.example/x.png>",
    '<a href="javascript:alert(1)">x</a>',
    "[x](javascript:alert(1)) [y](JAVASCRIPT:alert(1)) [z](vbscript:x)",
    "![remote](http://evil.example/pixel.png) ![r2](https://evil.example/p.png)",
    "![data](data:image/png;base64,iVBORw0KGgo=)",
    "[file](file:///etc/passwd) [app](obsidian://open?vault=x)",
    '[[a" onclick="alert(1)]] ![[b" onerror="x.png]]',
    '![[x.png|"><script>alert(1)</script>]]',
    "> [!note] <script>alert(1)</script>\n> <style>body{}</style>",
    "<iframe src=https://evil.example></iframe>",
    "$<script>$ ==<b>== %%<i>%%",
    "<http://evil.example/auto>",
]


@pytest.mark.parametrize("note", HOSTILE)
def test_raw_html_and_unsafe_urls_never_reach_the_browser(note: str) -> None:
    html = body(render(note))
    assert not re.search(r"<(script|iframe|style|input|object|embed)\b", html, re.I)
    assert not re.search(r'\bon\w+="', html)
    assert not re.search(r'href="(?!coach-note:|coach-fold:|#|https?://|mailto:)', html)
    for src in re.findall(r'<img src="([^"]*)"', html):
        assert src.startswith("file:///")


def test_remote_pictures_are_links_not_images() -> None:
    html = render("![logo](https://example.com/logo.png)")
    assert "<img" not in html
    assert '<a href="https://example.com/logo.png">[picture: logo]</a>' in html


def test_web_links_keep_their_href() -> None:
    assert '<a href="https://example.com/a?b=1&amp;c=2">' in render(
        "[w](https://example.com/a?b=1&c=2)"
    )


UNTERMINATED = [
    "[[open",
    "![[open",
    "==open",
    "%%open",
    "$open",
    "$$\nopen",
    "```\nopen",
    "> [!note",
    "[^1",
    "^[open",
    "[link](open",
    "<span",
    "**open",
    "---\nfront: open",
    "| a |\n| - |\n| open",
]


@pytest.mark.parametrize("note", UNTERMINATED)
def test_unterminated_constructs_render(note: str) -> None:
    html = render(note)
    assert html.startswith("<html><body>") and html.endswith("</body></html>")


LONG = 100_000
LONG_LINES = {
    "prose": "word " * (LONG // 5),
    "open brackets": "[" * LONG,
    "open wikilinks": "[[" * (LONG // 2),
    "open embeds": "![[" * (LONG // 3),
    "wikilinks": "[[Evolution]] " * (LONG // 14),
    "highlights": "==" * (LONG // 2),
    "comments": "%%" * (LONG // 2),
    "dollars": "$a" * (LONG // 2),
    "emphasis": "_a*" * (LONG // 3),
    "angles": "<" * LONG,
    "footnotes": "^[" * (LONG // 2),
    "backslashes": "\\" * LONG,
    "callout": "> [!note] " + "a" * LONG,
    "mixed": "[[a]]==b==%%c%%$d$`e`" * (LONG // 21),
}


@pytest.mark.parametrize("line", LONG_LINES.values(), ids=LONG_LINES.keys())
def test_a_100000_character_line_renders_well_under_a_second(line: str) -> None:
    started = time.perf_counter()
    render(line)
    assert time.perf_counter() - started < 0.5


def test_a_line_too_dense_to_format_is_shown_as_text_with_a_notice() -> None:
    html = render("Top\n\n" + "[" * 10_000 + "\n\nBottom ==kept==")
    assert "[" * 10_000 in html
    assert "shown as plain text" in html
    assert '<span style="background-color:#fff099;">kept</span>' in html


def test_a_note_of_thousands_of_headings_or_callouts_is_shown_as_written_at_once() -> None:
    """Review of issue 14: 30,000 bare '#' lines took 176 s to render, 20,000 callouts 57 s."""
    import time

    from coach_gui.ui.markdown.markdown_render import MAX_BLOCKS

    for note in ("#\n" * 30_000, "> [!note] x\n> body\n\n" * 20_000, "## Example\n" * 8_000):
        started = time.perf_counter()
        html = render_note_html(note, resolve_note=lambda _n: None, resolve_file=lambda _n: None)
        assert time.perf_counter() - started < 2.0
        assert "as written" in html and "<pre>" in html
    small = "## Heading\n" * (MAX_BLOCKS // 2)
    assert "<pre>" not in render_note_html(
        small, resolve_note=lambda _n: None, resolve_file=lambda _n: None
    )


def test_obsidian_block_ids_are_not_shown() -> None:
    """Issue 33: `^b15695` at the end of a block is a link target, not text."""
    shown = render(
        "Paragraph with a block. ^b15695\n\n- an item ^item-2\n- another\n\n## Heading ^h1\n\n"
        "| a |\n|---|\n| 1 |\n\n^table-3\n\nx^2 stays, and 2 ^ 3 too"
    )
    assert "^" not in shown.split("x^2")[0]  # every id before the last line is gone
    assert "b15695" not in shown and "item-2" not in shown and "table-3" not in shown
    assert "<p>Paragraph with a block.</p>" in shown
    assert "<li>an item</li>" in shown
    assert "<p></p>" not in shown  # the line that was only an id leaves no empty line
    assert "x^2 stays, and 2 ^ 3 too" in shown  # a caret in text is text
