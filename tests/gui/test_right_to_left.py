"""Right-to-left notes (issue 32, ADR 0032): Arabic and Hebrew read from the right in the
editor, the preview and the practice thread, and a line that mixes directions keeps each
paragraph's own direction."""

from __future__ import annotations

import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from coach_gui.domain.text_segments import reads_right_to_left
from coach_gui.domain.verdicts import Assessment
from coach_gui.ui.markdown.evidence_html import assessments_html, isolated
from coach_gui.ui.markdown.markdown_body import MarkdownBody
from coach_gui.ui.markdown.markdown_render import render_note_html
from coach_gui.ui.practice.practice_thread import PracticeThread

RTL, LTR = Qt.LayoutDirection.RightToLeft, Qt.LayoutDirection.LeftToRight
ARABIC = "رأى نيوتن أن كل جسمين في الكون يتجاذبان (Newton, 1687) بقوة تتناسب مع كتلتيهما."
HEBREW = "חוק ההיצע והביקוש קובע את המחיר בשוק."
ENGLISH_WITH_ARABIC = "Newton called it الجاذبية, the pull between masses."


def _directions(document: QTextDocument) -> dict[str, Qt.LayoutDirection]:
    found = {}
    block = document.begin()
    while block.isValid():
        if block.text().strip():
            found[block.text()[:12]] = block.textDirection()
        block = block.next()
    return found


@pytest.mark.parametrize(
    ("text", "rtl"),
    [
        (ARABIC, True),
        (HEBREW, True),
        (ENGLISH_WITH_ARABIC, False),
        ("  (1687) — الجاذبية", True),  # digits and punctuation have no direction of their own
        ("自然选择", False),
        ("", False),
    ],
)
def test_a_paragraph_reads_the_way_its_first_strong_letter_does(text: str, rtl: bool) -> None:
    assert reads_right_to_left(text) is rtl


def test_the_practice_thread_shows_arabic_and_hebrew_from_the_right(qtbot: QtBot) -> None:
    thread = PracticeThread()
    qtbot.addWidget(thread)
    arabic = thread.add("Challenge 1", "لماذا يسقط التفاح على الأرض؟", ARABIC)
    hebrew = thread.add("Challenge 2", HEBREW, "התשובה שלי: המחיר עולה.")
    english = thread.add("Challenge 3", "Why does an apple fall?", ENGLISH_WITH_ARABIC)
    assert arabic.challenge.layoutDirection() == RTL and arabic.answer.layoutDirection() == RTL
    assert hebrew.challenge.layoutDirection() == RTL and hebrew.answer.layoutDirection() == RTL
    assert english.challenge.layoutDirection() == LTR and english.answer.layoutDirection() == LTR
    assert arabic.caption.layoutDirection() == LTR  # Coach's own words stay as they are


def test_the_editor_gives_each_paragraph_its_own_direction_and_aligns_to_the_note(
    qtbot: QtBot,
) -> None:
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.set_text(f"{ARABIC}\n\n{ENGLISH_WITH_ARABIC}\n\n{HEBREW}\n")
    directions = _directions(body.edit.document())
    assert list(directions.values()) == [RTL, LTR, RTL]
    # A plain-text editor aligns all lines alike: to the right, for an Arabic note.
    assert body.edit.document().defaultTextOption().alignment() == Qt.AlignmentFlag.AlignRight
    body.set_text(f"# Gravity\n\n{ENGLISH_WITH_ARABIC}\n\n{ARABIC}\n")
    assert body.edit.document().defaultTextOption().alignment() == Qt.AlignmentFlag.AlignLeft
    body.edit.setPlainText("")
    body.edit.insertPlainText("שלום")  # a new note, typed in Hebrew
    assert body.edit.document().defaultTextOption().alignment() == Qt.AlignmentFlag.AlignRight


def test_the_preview_gives_each_paragraph_heading_and_item_its_own_direction(
    qtbot: QtBot,
) -> None:
    body = MarkdownBody()
    qtbot.addWidget(body)
    body.resize(640, 420)
    body.show()
    qtbot.waitExposed(body)
    body.set_text(f"# الجاذبية\n\n{ARABIC}\n\n- {HEBREW}\n- {ENGLISH_WITH_ARABIC}\n")
    body.setCurrentWidget(body.preview)
    qtbot.waitUntil(lambda: "Newton" in body.preview.toPlainText())
    directions = _directions(body.preview.document())
    assert list(directions.values()) == [RTL, RTL, RTL, LTR], directions
    html = render_note_html(
        f"# الجاذبية\n\n{ARABIC}\n\n- {HEBREW}\n\n| {HEBREW} |\n|---|\n| {ARABIC} |\n",
        resolve_note=lambda _: None,
        resolve_file=lambda _: None,
    )
    for tag in ("h1", "p", "li", "th", "td"):
        assert re.search(f'<{tag}[^>]* dir="rtl"', html), tag
    assert "<p>Newton" in render_note_html(
        ENGLISH_WITH_ARABIC, resolve_note=lambda _: None, resolve_file=lambda _: None
    )


def test_an_arabic_key_point_or_reason_keeps_its_order_inside_an_english_line(
    qtbot: QtBot,
) -> None:
    """Without an isolate, the full stop of an Arabic reason inside "Feedback: …" was drawn
    at its right-hand end, as English puts it, not at the left where Arabic ends."""
    assert isolated("شرح جيد.") == "\u2068شرح جيد.\u2069"
    assert isolated("Well explained.") == "Well explained."
    document = QTextDocument()
    document.setHtml(f"<p><b>Feedback:</b> {isolated('شرح جيد.')}</p>")
    document.setTextWidth(600)
    assert document.documentLayout() is not None  # lays the text out
    block = document.begin()
    layout = block.layout()
    line = layout.lineAt(0)
    text = block.text()
    stop, letter = text.index("."), text.index("د")
    assert line.cursorToX(stop)[0] < line.cursorToX(letter)[0]  # the stop is left of the letters


def test_an_arabic_quote_has_its_bar_on_the_right() -> None:
    def render(text: str) -> str:
        return render_note_html(text, resolve_note=lambda _: None, resolve_file=lambda _: None)

    arabic, english = render(f"> {ARABIC}\n"), render("> A quote in English.\n")
    assert re.search(r"<tr><td width=\"4\" bgcolor=[^>]*></td><td", english)
    assert re.search(r"</p>\s*</td><td width=\"4\" bgcolor=[^>]*></td></tr></table>", arabic)
    callout = render(f"> [!note] {HEBREW}\n> {ARABIC}\n")
    assert re.search(r"</td><td width=\"4\" bgcolor=[^>]*></td></tr></table>", callout)


def test_an_arabic_key_point_and_reason_read_from_the_right_under_an_english_heading() -> None:
    """The learner's Arabic key point and the judge's Arabic reason were lines of the English
    "Key point 1" paragraph: drawn from the left, their quotation marks and full stop where
    English puts them. Each is now a right-to-left paragraph of its own, aligned right."""
    palette = QApplication.palette()
    own, reason = (
        "قوة الجاذبية تتناقص مع مربع المسافة.",
        "الإجابة تشرح هذه النقطة (inverse square).",
    )
    arabic = Assessment(assertion=0, status="explained", evidence=(), reason=reason)
    english = Assessment(assertion=1, status="unexplained", evidence=(), reason="Not mentioned.")
    document = QTextDocument()
    document.setHtml(
        assessments_html([arabic, english], [own, "Gravity falls with distance."], palette, "#888")
    )
    document.setTextWidth(600)
    assert document.size().height() > 0  # lays the text out
    lines: dict[str, tuple[Qt.LayoutDirection, float]] = {}
    block = document.begin()
    while block.isValid():
        layout = block.layout()
        for number in range(layout.lineCount()):
            line = layout.lineAt(number)
            text = block.text()[line.textStart() : line.textStart() + line.textLength()]
            start = line.cursorToX(line.textStart())[0]  # where its first letter is drawn
            lines[text.strip("\u2028 ")] = (block.textDirection(), start)
        block = block.next()
    quoted, why = lines[f"“{own}”"], lines[reason]
    assert quoted[0] == RTL and why[0] == RTL
    assert quoted[1] > 550 and why[1] > 550  # aligned right: they start at the right margin
    heading = next(v for k, v in lines.items() if k.endswith("Key point 1 — ✓ Explained"))
    assert heading[0] == LTR and heading[1] < 50
    assert lines["Not mentioned."][0] == LTR  # an English reason stays as it was
    only_english = assessments_html([english], ["Gravity falls with distance."], palette, "#888")
    assert only_english.count("<p") == 1 and "dir=" not in only_english
