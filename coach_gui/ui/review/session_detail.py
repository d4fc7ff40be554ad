"""The selected session, answer by answer: the challenge, the answer, the verdict with each
gap named by the learner's own assertion, the feedback, or why it is still unjudged; and
*Export gaps as Markdown…*.

    detail = SessionDetail(lambda session_id: load_session_detail(reader, session_id))
    detail.show_session(summary)   # read on a worker, shown when it arrives
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from coach_gui.operations.gap_export import gaps_markdown
from coach_gui.operations.review import (
    AnswerDetail,
    SessionDetailData,
    SessionSummary,
)
from coach_gui.operations.vocabulary import counted, mode_label, to_the_minute
from coach_gui.ui.kit.failures import learner_message, show_failure
from coach_gui.ui.kit.tasks import Lane, Task
from coach_gui.ui.markdown.evidence_html import assessments_html, marked_answer_html

FOLLOW_UP_INDENT_PX = 24
NOTHING_CHOSEN = "Choose a session in the list to see each challenge, your answer and the verdict."


def _esc(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


CORRECT_LINK = "correct:"  # an answer's "Correct a key point…" link: correct:<attempt id>


def detail_html(
    summary: SessionSummary,
    data: SessionDetailData,
    palette: QPalette | None = None,
    *,
    correcting: bool = False,
) -> str:
    """The session as HTML; `palette` colours each key point's evidence in the answers;
    with `correcting`, each answer judged key point by key point links to correcting one."""
    palette = palette or QPalette()
    parts = [
        f"<h3>{_esc(summary.note_title)}</h3>",
        f"<p>Practised {_esc(to_the_minute(summary.started_at))} · "
        f"{counted(summary.items, 'answer')} · "
        f"{summary.passed} passed · {counted(summary.gaps, 'gap')} · "
        f"{_esc(mode_label(summary.mode))}</p>",
    ]
    if not data.answers:
        parts.append("<p>No answers were submitted in this session.</p>")
    number = 0
    for answer in data.answers:
        turn = _answer_html(answer, palette, correcting=correcting)
        if answer.follow_up and number:  # nested under the answer it follows up
            parts.append(f"<h4 style='margin-left: {FOLLOW_UP_INDENT_PX}px'>↳ Follow-up on "
                         f"your answer: {_esc(answer.challenge)}</h4>"
                         f"<table cellpadding='0' style='margin-left: {FOLLOW_UP_INDENT_PX}px'>"
                         f"<tr><td>{turn}</td></tr></table>")  # fmt: skip
            continue
        number += 1
        parts.append(f"<h4>{number}. {_esc(answer.challenge or 'Challenge')}</h4>{turn}")
    return "".join(parts)


def _answer_html(answer: AnswerDetail, palette: QPalette, *, correcting: bool = False) -> str:
    """One answer under its challenge: the answer (its evidence marked), the verdict and
    each key point (with the learner's word where they corrected the judge's), as the
    practice pane's thread shows it."""
    parts = []
    if answer.assessments:
        marked = marked_answer_html(answer.answer, answer.assessments, palette)
        parts.append(f"<p><b>Your answer</b> (the judge's evidence marked):<br>{marked}</p>")
    else:
        parts.append(f"<p><b>Your answer:</b><br>{_esc(answer.answer)}</p>")
    if answer.verdict is None:
        why = answer.pending_reason or "not judged yet"
        parts.append(f"<p><b>Not judged yet</b>: {_esc(why)}</p>")
        return "".join(parts)
    muted = palette.color(QPalette.ColorRole.PlaceholderText).name()
    by = f"judged by {_esc(answer.judged_by)}" if answer.judged_by else ""
    if answer.strictness:
        by += f"{', ' if by else 'judged '}at {answer.strictness} strictness"
    if by:
        by = f" <span style='color: {muted}'>· {by}</span>"
    parts.append(f"<p><b>{'✓ Pass' if answer.verdict == 'pass' else 'Needs work'}</b>{by}</p>")
    if answer.assessments:
        parts.append(
            assessments_html(answer.assessments, answer.assertions, palette, muted, answer.learners)
        )
    elif answer.gaps:
        items = "".join(
            f"<li><b>{_esc(problem)}</b>: {_esc(what)}<br><i>{_esc(why)}</i></li>"
            for problem, what, why in answer.gaps
        )
        parts.append(f"<ul>{items}</ul>")
    if answer.feedback.strip():
        parts.append(f"<p><b>Feedback:</b> {_esc(answer.feedback)}</p>")
    if correcting and answer.correctable and answer.attempt_id:
        href = html.escape(CORRECT_LINK + answer.attempt_id, quote=True)
        parts.append(f"<p><a href='{href}'>Correct a key point…</a></p>")
    return "".join(parts)


class SessionDetail(QWidget):
    """The detail pane of the Sessions view. `load` runs on a worker."""

    shown = Signal(str)  # the session id, once its detail is on screen
    exported = Signal(str)  # the path written

    def __init__(
        self,
        load: Callable[[str], SessionDetailData],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setAccessibleName("Session detail")
        self._load = load
        self._task: Task[SessionDetailData] | None = None
        self.summary: SessionSummary | None = None
        self.data: SessionDetailData | None = None
        self.text = QTextBrowser(self)
        self.text.setAccessibleName("The session, answer by answer")
        self.text.setOpenLinks(False)
        self.text.setPlainText(NOTHING_CHOSEN)
        # Given by the window: correct a key point of an answer (by its id; issue 36).
        self._correct: Callable[[str, int | None], None] | None = None
        self.text.anchorClicked.connect(self._link)
        self.export_button = QPushButton("E&xport gaps as Markdown…", self)
        self.export_button.setAccessibleName("Export gaps as Markdown")
        self.export_button.setAccessibleDescription("Saves this session's gap list to a file")
        self.export_button.setEnabled(False)
        # Not `connect(self.export)`: `clicked(bool)` would arrive as the path (issue 13).
        self.export_button.clicked.connect(lambda: self.export())
        self.status = QLabel(self)
        self.status.setAccessibleName("Export status")
        row = QHBoxLayout()
        row.addWidget(self.status, 1)
        row.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text, 1)
        layout.addLayout(row)

    def show_session(self, summary: SessionSummary | None) -> None:
        if self._task is not None:
            self._task.cancel()
        same = (
            summary is not None
            and self.summary is not None
            and (summary.session_id == self.summary.session_id)
        )
        self.summary, self.data = summary, None
        self.export_button.setEnabled(False)
        if not same:  # read again (a correction, say): what it said stays
            self.status.clear()
        if summary is None:
            self.text.setPlainText(NOTHING_CHOSEN)
            return
        self.text.setPlainText("Reading the session…")
        load, session_id = self._load, summary.session_id
        self._task = Task(
            self,
            op=lambda _p: load(session_id),
            success=lambda data: self._on_loaded(summary, data),
            failure=self._on_failed,
            name="load session detail",
        ).run()

    def _on_loaded(self, summary: SessionSummary, data: SessionDetailData) -> None:
        self._task = None
        self.data = data
        self.text.setHtml(
            detail_html(summary, data, self.text.palette(), correcting=self._correct is not None)
        )
        self.export_button.setEnabled(True)
        self.shown.emit(summary.session_id)

    def _on_failed(self, error: Exception) -> None:
        self._task = None
        self.text.setPlainText(f"This session could not be read.\n\n{learner_message(error)}")

    def set_corrector(self, correct: Callable[[str, int | None], None]) -> None:
        """Each answer judged key point by key point links to `correct(attempt_id, None)`
        (None: the dialog starts on the first key point the judge did not count)."""
        self._correct = correct

    def _link(self, url: QUrl) -> None:
        target = url.toString()
        if self._correct is not None and target.startswith(CORRECT_LINK):
            self._correct(target[len(CORRECT_LINK) :], None)

    def say(self, text: str) -> None:
        """A line under the session (what a correction did)."""
        self.status.setText(text)
        self.status.setToolTip("")

    def markdown(self) -> str:
        assert self.summary is not None and self.data is not None
        return gaps_markdown(self.summary, self.data.gaps)

    def export(self, path: str | None = None) -> None:
        """Ask where (unless `path` is given), then write the Markdown on the writer lane."""
        if self.summary is None or self.data is None:
            return
        if path is None:
            stem = "".join(c if c.isalnum() else "-" for c in self.summary.note_title.lower())
            suggested = str(Path.home() / f"gaps-{stem.strip('-')}.md")
            path, _filter = QFileDialog.getSaveFileName(
                self, "Export gaps as Markdown", suggested, "Markdown (*.md);;All files (*)"
            )
            if not path:
                return
        from coach_gui.operations.review import export_text

        target, text = Path(path), self.markdown()
        Task(
            self,
            op=lambda _p: export_text(target, text),
            success=lambda _none: self._on_exported(str(target)),
            failure=self._on_export_failed,
            lane=Lane.WRITER,
            name="export gaps",
        ).run()

    def _on_export_failed(self, error: Exception) -> None:
        show_failure(self, error)

    def _on_exported(self, path: str) -> None:
        home = str(Path.home())
        shown = "~" + path[len(home) :] if path.startswith(home + "/") else path
        self.status.setText(f"Saved the gaps to {shown}")
        self.status.setToolTip(path)
        self.exported.emit(path)
