"""The learner's answer with the judge's evidence marked, and each key point's assessment
beside the learner's own words (DESIGN §4, issue 18).

Each key point has a colour (a light tint on a light palette, a deep one on a dark palette,
so the text stays readable), and every marked span ends with the numbers of the key points
that cite it, "[1]" or "[1, 3 ✗]" (✗: the judge found this part wrong for that key point),
so the marks read the same without colour and to a screen reader. Only spans found in the
answer are marked: `evidence.evidence_ranges` places them.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

from PySide6.QtGui import QPalette

from coach_gui.domain.evidence import evidence_ranges
from coach_gui.domain.text_segments import reads_right_to_left
from coach_gui.domain.verdicts import Assessment

_LIGHT = ("#fff0a8", "#cfe6ff", "#d5f2cc", "#ffd6e8", "#e4d9ff", "#ffe0c2")
_DARK = ("#5a4a00", "#123f66", "#214d1c", "#5e203c", "#3d2c68", "#5c3500")
STATUS_WORDS = {"explained": "✓ Explained", "unexplained": "○ Not explained", "wrong": "✗ Wrong"}


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Base).lightness() < 128


def tint(assertion: int, palette: QPalette) -> str:
    """The background colour of key point `assertion` (0-based) on this palette."""
    tints = _DARK if is_dark(palette) else _LIGHT
    return tints[assertion % len(tints)]


def status_colour(status: str, palette: QPalette) -> str:
    """A key point's status colour (explained, unexplained, wrong), light or dark."""
    dark = is_dark(palette)
    if status == "explained":
        return "#6fcf73" if dark else "#2e7d32"
    if status == "wrong":
        return "#ff8a80" if dark else "#b3261e"
    return "#ffb74d" if dark else "#a35f00"


def _esc(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def isolated(text: str) -> str:
    """`text` (escaped) set apart for the bidi algorithm when it reads right to left, so an
    Arabic or Hebrew key point or reason inside one of Coach's English lines keeps its own
    order and punctuation (Unicode's first-strong isolate, FSI … PDI; ADR 0032)."""
    escaped = _esc(text)
    return f"\u2068{escaped}\u2069" if reads_right_to_left(text) else escaped


def marked_answer_html(answer: str, assessments: Sequence[Assessment], palette: QPalette) -> str:
    """`answer`, escaped, with each key point's found evidence on its tint and followed by
    the key point numbers that cite it."""
    cover: list[set[int]] = [set() for _ in answer]
    ends: dict[int, set[int]] = {}
    wrong = {a.assertion for a in assessments if a.status == "wrong"}
    for assessment in assessments:
        for start, end in evidence_ranges(answer, assessment.evidence):
            for index in range(start, end):
                cover[index].add(assessment.assertion)
            ends.setdefault(end, set()).add(assessment.assertion)
    parts: list[str] = []
    start = 0
    for index in range(1, len(answer) + 1):
        if index < len(answer) and cover[index] == cover[start] and index not in ends:
            continue
        text = _esc(answer[start:index])
        citing = cover[start]
        if citing:
            colour = tint(min(citing), palette)
            parts.append(f"<span style='background-color: {colour}'>{text}</span>")
        else:
            parts.append(text)
        if index in ends:
            numbers = ", ".join(
                f"{n + 1} ✗" if n in wrong else str(n + 1) for n in sorted(ends[index])
            )
            parts.append(f"<sup><b>[{numbers}]</b></sup>")
        start = index
    return "".join(parts)


def _claim(assessment: Assessment) -> str:
    said = "explained" if assessment.claimed == "explained" else "wrong"
    if assessment.unfound:
        quoted = "; ".join(f"“{span}”" for span in assessment.unfound)
        return (
            f"The judge said this was {said} and quoted {quoted}, which is not in your "
            "answer, so it does not count."
        )
    return (
        f"The judge said this was {said} but cited nothing from your answer, so it does not count."
    )


def assessments_html(
    assessments: Sequence[Assessment],
    assertions: Sequence[str],
    palette: QPalette,
    muted: str,
    corrected: Mapping[int, tuple[str, str]] | None = None,
) -> str:
    """One paragraph per key point: its number on its tint, its status, the learner's own
    words, and the judge's reason (or, when the domain overruled the judge, why). Where
    the learner corrected the judge (`corrected`: key point index -> their status and
    note), their word stands beside the judge's (issue 36)."""
    corrected = corrected or {}
    parts: list[str] = []
    for assessment in assessments:
        number = assessment.assertion + 1
        own = assertions[assessment.assertion] if assessment.assertion < len(assertions) else ""
        swatch = (
            f"<span style='background-color: {tint(assessment.assertion, palette)}'>"
            f"&nbsp;[{number}]&nbsp;</span>"
        )
        status = (
            f"<b style='color: {status_colour(assessment.status, palette)}'>"
            f"{STATUS_WORDS[assessment.status]}</b>"
        )
        whose = "the judge: " if assessment.assertion in corrected else ""
        lines = [(f"{swatch} <b>Key point {number}</b> — {whose}{status}", False)]
        if own:  # the learner's own words, kept apart from the judge's
            lines.append(
                (f"<span style='color: {muted}'>“{_esc(own)}”</span>", reads_right_to_left(own))
            )
        reason = _claim(assessment) if assessment.downgraded else assessment.reason
        if reason.strip():
            lines.append((_esc(reason), reads_right_to_left(reason)))
        if assessment.assertion in corrected:
            status_, note = corrected[assessment.assertion]
            said = (
                f"<b>Your word: <span style='color: {status_colour(status_, palette)}'>"
                f"{STATUS_WORDS[status_]}</span></b> — this is what counts"
            )
            lines.append((said, False))
            if note.strip():
                lines.append((f"“{_esc(note)}”", reads_right_to_left(note)))
        parts.append(indented_lines(lines))
    return "".join(parts)


def indented_lines(lines: Sequence[tuple[str, bool]]) -> str:
    """One indented item of `lines` (each its HTML and whether it reads right to left):
    lines of one direction share a paragraph, line under line; an Arabic or Hebrew line is
    a right-to-left paragraph of its own, aligned right with its quotation marks and full
    stop where Arabic puts them (Qt's rich text sets one direction per paragraph, so inside
    an English paragraph they were drawn where English puts them; ADR 0032)."""
    groups: list[tuple[bool, list[str]]] = []
    for text, rtl in lines:
        if groups and groups[-1][0] == rtl:
            groups[-1][1].append(text)
        else:
            groups.append((rtl, [text]))
    blocks = []
    for at, (rtl, texts) in enumerate(groups):
        style = ["margin-right: 12px" if rtl else "margin-left: 12px"]
        if at > 0:
            style.append("margin-top: 0px")
        if at < len(groups) - 1:
            style.append("margin-bottom: 0px")
        direction = ' dir="rtl"' if rtl else ""
        blocks.append(f"<p{direction} style='{'; '.join(style)}'>{'<br>'.join(texts)}</p>")
    return "".join(blocks)
