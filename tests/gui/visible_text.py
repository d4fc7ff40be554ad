"""What a learner can read on screen, checked for words that are not theirs.

    assert_learner_words()  # every window shown now

collects the text of every shown window and widget — titles, labels, buttons, group
boxes, tabs, tooltips, status tips, the status bar, message boxes, the rows of lists and
tables, read-only text panes, accessible names and descriptions — and fails, naming the
widget and quoting the text, on anything a machine wrote for machines:

- a config key (``judge.includeAssertions``, ``tier1.model``; a file name such as
  ``coach.config.json``, a web address or a path is not one),
- an exception class name (``ConnectError``, ``JSONDecodeError``), ``Errno`` or
  ``Traceback``,
- a server's web page (``<html``, ``<!DOCTYPE``, ``<body``),
- a keyring backend's class name (``keyring.backends``, ``SecretService``, ``FileKeyring``),
- a count that is not plural-aware ("1 sessions").

What the learner wrote is theirs and is not checked: text fields they type in, the note's
text and preview, and the records *Sent to judge* and the payload review show exactly as
sent (ADR 0021). Pass `learners_own` for more (a note list of their own titles, say).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from PySide6 import QtGui
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QAction, QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPlainTextEdit,
    QTabBar,
    QTextEdit,
    QWidget,
)

from coach_gui.config import SETTING_NAMES

_REAL_KEYS = "|".join(re.escape(key) for key in SETTING_NAMES)
_ROWS_READ = 200  # rows of a list or table: enough for what a test puts there

# A token that is a file name, a host or a path, not a config key.
_FILE_ENDINGS = (
    "md|json|bak|log|txt|png|jpg|jpeg|gif|svg|webp|pdf|html|htm|sqlite3|sqlite|ini|toml|"
    "yaml|yml|canvas|desktop|lock|csv|zip|py|gguf|cpp"  # (llama.cpp: a program's name)
)
_NOT_A_KEY = re.compile(
    rf"^(?:.*/.*|.*\.(?:{_FILE_ENDINGS})|.*\.(?:com|org|net|io|dev|ai|app)(?::\d+)?)$",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[\w~/:@.+-]*\w")
_KEY = re.compile(rf"^(?:{_REAL_KEYS}|[a-z]+\.[a-z][A-Za-z]+)$")
# Singular words that end in s, for "1 pass", "1 class".
_SINGULAR_S = {
    "is", "was", "has", "its", "this", "us", "as", "yes", "does", "goes", "pass", "process",
    "progress", "status", "focus", "bonus", "class", "less", "miss", "plus", "minus", "bias",
    "analysis", "basis", "lens", "news", "gas", "chaos",
}  # fmt: skip

_WEB_PAGE = re.compile(r"<\s*(?:html|!doctype|body|head)\b", re.IGNORECASE)
CHECKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an exception class name", re.compile(r"\b\w+(?:Error|Exception)\b|\bErrno\b")),
    ("a traceback", re.compile(r"Traceback")),
    ("a server's web page", _WEB_PAGE),
    (
        "a keyring backend's class name",
        re.compile(
            r"keyring\.backends|keyrings\.alt|SecretService|\b[A-Z]\w*(?:Keyring|Backend)\b"
        ),
    ),
)
_PLURAL = re.compile(r"(?<![\w.,])1 ([a-z]+s)\b")


@dataclass(frozen=True)
class Shown:
    where: str  # the widget, as a person would find it
    text: str


def problems_in(text: str) -> list[str]:
    """What is wrong with `text`, in words (empty: nothing)."""
    found = []
    for token in _TOKEN.findall(text):
        core = token.strip(".:")
        if _KEY.match(core) and not _NOT_A_KEY.match(core):
            found.append(f"a config key ({core})")
    for what, pattern in CHECKS:
        match = pattern.search(text)
        if match:
            found.append(f"{what} ({match.group(0)})")
    for match in _PLURAL.finditer(text):
        if match.group(1) not in _SINGULAR_S:
            found.append(f"a count that is not plural-aware ({match.group(0)})")
    return found


def _plain(text: str) -> str:
    """A label's rich text as read (tags of our own markup gone, a server's kept)."""
    if not QtGui.Qt.mightBeRichText(text):  # QtGui adds it to Qt
        return text
    document = QTextDocument()
    document.setHtml(text)
    return document.toPlainText()


def _describe(widget: QWidget) -> str:
    name = widget.accessibleName() or widget.objectName()
    window = widget.window().windowTitle()
    return f"{type(widget).__name__} “{name}” in “{window}”"


def _own_records() -> list[QWidget]:
    """The raw records shown exactly as sent (ADR 0021): what they hold is not our words."""
    from coach_gui.ui.practice.payload_review import PayloadReviewDialog
    from coach_gui.ui.review.sent_to_judge import SentToJudgeView

    kept: list[QWidget] = []
    for top in QApplication.topLevelWidgets():
        for view in top.findChildren(SentToJudgeView):
            kept += [view.payload_text, view.request_text, view.reply_text]
        for dialog in [top, *top.findChildren(PayloadReviewDialog)]:
            if isinstance(dialog, PayloadReviewDialog):
                kept.append(dialog.payload_view)
    return kept


def _learners_own_by_default() -> list[QWidget]:
    """The note's own text and preview: the learner wrote them."""
    from coach_gui.ui.markdown.markdown_body import MarkdownBody

    found: list[QWidget] = []
    for top in QApplication.topLevelWidgets():
        for body in top.findChildren(MarkdownBody):
            found += [body.edit, body.preview]
    return found


def _columns(model: QAbstractItemModel, parent: QModelIndex) -> int:
    try:
        return model.columnCount(parent)
    except TypeError:  # a list model keeps columnCount to itself: it has one
        return 1


def _rows(model: QAbstractItemModel, parent: QModelIndex, budget: list[int]) -> Iterator[str]:
    for row in range(model.rowCount(parent)):
        for column in range(_columns(model, parent)):
            if budget[0] <= 0:
                return
            budget[0] -= 1
            index = model.index(row, column, parent)
            for role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole):
                value = model.data(index, role)
                if isinstance(value, str) and value:
                    yield value
            if column == 0 and model.rowCount(index) > 0:
                yield from _rows(model, index, budget)


def _rich(text: str) -> Iterator[str]:
    """A label's text as read; and as it came, should it be a server's web page."""
    yield _plain(text)
    if _WEB_PAGE.search(text):
        yield text


def _texts_of(widget: QWidget) -> Iterator[str]:
    yield from (widget.toolTip(), widget.statusTip(), widget.whatsThis())
    yield from (widget.accessibleName(), widget.accessibleDescription())
    if widget.isWindow():
        yield widget.windowTitle()
    if isinstance(widget, QMessageBox):
        for text in (widget.text(), widget.informativeText(), widget.detailedText()):
            yield from _rich(text)
    elif isinstance(widget, QLabel):
        yield from _rich(widget.text())
    elif isinstance(widget, QAbstractButton):
        yield widget.text()
    elif isinstance(widget, QGroupBox):
        yield widget.title()
    elif isinstance(widget, QTabBar):
        for index in range(widget.count()):
            yield from (widget.tabText(index), widget.tabToolTip(index))
    elif isinstance(widget, QLineEdit):
        yield widget.placeholderText()  # what is typed is the learner's
    elif isinstance(widget, (QPlainTextEdit, QTextEdit)):
        yield widget.placeholderText()
        if widget.isReadOnly():
            yield widget.toPlainText()
    elif isinstance(widget, QAbstractItemView) and not isinstance(widget, QHeaderView):
        model = widget.model()
        for section in range(_columns(model, QModelIndex())):
            header = model.headerData(section, Qt.Orientation.Horizontal)
            if isinstance(header, str):
                yield header
        yield from _rows(model, QModelIndex(), [_ROWS_READ])
    if isinstance(widget, QMainWindow):
        yield widget.statusBar().currentMessage()
        for action in widget.findChildren(QAction):  # menus and toolbars
            yield from (action.text(), action.toolTip(), action.statusTip())


def shown_texts(learners_own: Iterable[QWidget] = ()) -> list[Shown]:
    """Every text a learner can read in the windows shown now."""
    skipped = {id(w) for w in [*learners_own, *_learners_own_by_default(), *_own_records()]}
    found: list[Shown] = []
    for top in QApplication.topLevelWidgets():
        if not top.isVisible():
            continue
        for widget in [top, *top.findChildren(QWidget)]:
            if id(widget) in skipped or not widget.isVisible():
                continue
            if any(id(parent) in skipped for parent in _parents(widget)):
                continue
            where = _describe(widget)
            found += [Shown(where, text) for text in _texts_of(widget) if text and text.strip()]
    return found


def _parents(widget: QWidget) -> Iterator[QWidget]:
    parent = widget.parentWidget()
    while parent is not None:
        yield parent
        parent = parent.parentWidget()


def assert_learner_words(learners_own: Iterable[QWidget] = (), *, step: str = "") -> int:
    """Fail, quoting each offending text and its widget, if any text shown now is not in
    the learner's words. Returns how many texts were read (a test can check it read some)."""
    texts = shown_texts(learners_own)
    bad = [
        f"- {shown.where}: {problem}\n    {shown.text!r}"
        for shown in texts
        for problem in problems_in(shown.text)
    ]
    heading = f"At {step}: " if step else ""
    assert not bad, (
        heading
        + "text on screen that is not in the learner's words:\n"
        + "\n".join(dict.fromkeys(bad))
    )
    return len(texts)
