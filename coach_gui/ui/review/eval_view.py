"""*Judge consistency*: judge recorded answers again, R times with core assertions and R times
without, and see whether the assertions make the judge consistent (issue 6, DESIGN §7).

Pick sessions, set repeats and concurrency, Run (after saying how many calls go to the
judge and that half of them carry core assertions), watch the progress, Cancel (the calls
under way finish; what finished is recorded as a partial report and shown). The two arms
show side by side in a table and a small chart; past reports are listed with their
verify status. All work runs on Tasks; the view is built standalone from the evals use case.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.changes import Changes
from coach_gui.domain.evals import AGREEMENT_BAR, EvalReport, arm_labels, figure_rows
from coach_gui.operations import evals
from coach_gui.operations.vocabulary import counted
from coach_gui.ui.charts.eval_chart import ArmChart
from coach_gui.ui.kit.button_keys import tell, with_mnemonics
from coach_gui.ui.kit.changes import StaleUntilShown
from coach_gui.ui.kit.failures import learner_message, show_failure
from coach_gui.ui.kit.tasks import ProgressUpdate, Task

if TYPE_CHECKING:
    from coach_gui.operations.cases import Evals
    from coach_gui.services.evals import EvalRun

_ROLE = Qt.ItemDataRole.UserRole
_JUDGED = Qt.ItemDataRole.UserRole + 1  # a session's judged answers: the calls, without I/O
LIST_CHARS = 18  # the session and report lists keep room for this many characters a line


def _named(widget: QWidget, name: str, description: str = "") -> None:
    widget.setAccessibleName(name)
    if description:
        widget.setAccessibleDescription(description)
        widget.setToolTip(description)


def verdict_text(report: EvalReport) -> str:
    """The verdict, why, and what it is about: the judge's consistency (or two judges'
    agreement), not how many answers passed, which a 0% pass rate beside "pass" would
    otherwise seem to contradict."""
    on, off = report.arms
    partial = " (stopped early: partial)" if report.partial else ""
    if report.kind == "judges":
        bar = f"{float(AGREEMENT_BAR):.0%}"
        why = (
            f"the judge on this computer agrees with Gemini on at least {bar} of key points"
            if report.verdict == "pass"
            else f"the two judges agree on fewer than {bar} of key points, or hardly more "
            "than chance would"
        )
        about = (
            "It is about whether the two judges grade alike, not about how many of your "
            "answers passed (the pass rate)."
        )
    else:
        if report.verdict == "pass":
            why = "with core assertions the judge was at least as consistent as without"
        elif not on.items_compared or not off.items_compared:
            why = "an arm has no answer whose every repeat returned a verdict"
        else:
            why = "the judge was less consistent with core assertions than without"
        about = (
            "It is about consistency (the same verdict each time the judge sees the same "
            "answer), not about how many of your answers passed (the pass rate)."
        )
    return f"<b>Verdict: {report.verdict}</b>{partial} — {why}. {about}"


class EvalView(QWidget, StaleUntilShown):
    """The *Judge consistency* view. `refresh()` reloads sessions and history."""

    # The judged sessions it offers: new sessions and verdicts, here or from elsewhere.
    reads_again_on = Changes(sessions=True, verdicts=True)

    sessions_loaded = Signal()
    history_loaded = Signal()
    run_finished = Signal(object)  # EvalReport (partial when cancelled)

    def __init__(self, evals: Evals, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._evals = evals
        self._stop: threading.Event | None = None
        self.shown_report: EvalReport | None = None
        self._just_made: tuple[str, str] | None = None  # the run's report id, what it said
        self._stale = True  # read the journal when first shown, not while Coach starts
        self._build()

    # --- layout ------------------------------------------------------------------------------
    def _build(self) -> None:
        self.sessions = QListWidget()
        self.sessions.setWordWrap(True)  # a long note title wraps instead of hiding the count
        _named(self.sessions, "Sessions to evaluate", "Judged sessions, newest first")
        self.select_all = QPushButton("Select &all")
        _named(self.select_all, "Select all sessions")
        self.select_all.clicked.connect(lambda: self._check_all(True))
        self.repeats = QSpinBox()
        self.repeats.setRange(2, 10)
        self.repeats.setValue(3)
        _named(self.repeats, "Repeats", "How many times each answer is judged in each arm")
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 16)
        self.concurrency.setValue(
            1 if self._evals.config.judge.local else 4
        )  # Ollama: one at a time
        _named(self.concurrency, "Concurrency", "How many judge calls run at a time")
        self.run_button = QPushButton("&Run")
        _named(self.run_button, "Run the eval", "Judge the chosen answers again, in both arms")
        self.run_button.clicked.connect(lambda _checked=False: self.start())
        self.cancel_button = QPushButton("&Cancel")
        _named(self.cancel_button, "Cancel the eval", "Stop sending; what finished is kept")
        self.cancel_button.setEnabled(False)
        self.cancel_button.clicked.connect(self.cancel)
        self.progress = QProgressBar()
        _named(self.progress, "Eval progress")
        self.progress.setFormat("%v of %m calls")
        self.status = QLabel("Pick sessions, then Run.")
        self.status.setWordWrap(True)
        form = QFormLayout()
        form.addRow("Re&peats:", self.repeats)
        form.addRow("C&oncurrency:", self.concurrency)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        left = QVBoxLayout()
        left.addWidget(QLabel("Judged sessions:"))
        left.addWidget(self.sessions, 1)
        left.addWidget(self.select_all)
        left.addLayout(form)
        left.addLayout(buttons)
        left.addWidget(self.progress)
        left.addWidget(self.status)

        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Figure", "With assertions", "Without"])
        rows = self.table.verticalHeader()
        rows.setVisible(False)
        # Compact rows: more figures in view before the table scrolls.
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.table.fontMetrics().height() + 8)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)  # read with the arrows; Tab moves on
        columns = self.table.horizontalHeader()
        columns.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        for arm_column in (1, 2):
            columns.setSectionResizeMode(arm_column, QHeaderView.ResizeMode.Stretch)
        _named(self.table, "Both arms side by side")
        self.chart = ArmChart()
        self.verdict = QLabel("")
        self.verdict.setWordWrap(True)
        self.verdict.setAccessibleName("Eval verdict")
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
        self.summary.setAccessibleName("Eval summary")
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        results = self.results_box = QGroupBox("With and without core assertions")
        middle = QVBoxLayout(results)
        middle.addWidget(self.verdict)
        middle.addWidget(self.table, 1)
        middle.addWidget(self.chart)
        # The summary runs to ten lines: in a short window (1.5x) it scrolls, never cut.
        summary_box = QScrollArea()
        summary_box.setWidget(self.summary)
        summary_box.setWidgetResizable(True)
        summary_box.setFrameShape(QFrame.Shape.NoFrame)
        summary_box.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        middle.addWidget(summary_box, 1)

        self.history = QListWidget()
        self.history.setWordWrap(True)
        _named(self.history, "Past reports", "Recorded eval reports, newest first")
        self.history.currentItemChanged.connect(self._history_selected)
        self.verify_status = QLabel("")
        self.verify_status.setWordWrap(True)
        self.verify_status.setAccessibleName("Verify status of the selected report")
        right = QVBoxLayout()
        right.addWidget(QLabel("Past reports:"))
        right.addWidget(self.history, 1)
        right.addWidget(self.verify_status)

        for listing in (self.sessions, self.history):  # narrow windows: they wrap, to a point
            listing.setMinimumWidth(self.fontMetrics().averageCharWidth() * LIST_CHARS)
        row = QHBoxLayout(self)
        row.addLayout(left, 2)
        row.addWidget(results, 4)
        row.addLayout(right, 2)

    # --- loading -----------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def refresh(self) -> None:
        self._stale = False
        cases = self._evals
        Task(self, op=lambda _p: cases.judged_sessions(),
             success=self._show_sessions, name="eval sessions").run()  # fmt: skip
        self._load_history()

    def _load_history(self, select: str | None = None) -> None:
        cases = self._evals
        Task(self, op=lambda _p: cases.past_runs(),
             success=lambda runs: self._show_history(runs, select),
             name="eval history").run()  # fmt: skip

    def _show_sessions(self, sessions: list[evals.JudgedSession]) -> None:
        rows = (self.sessions.item(n) for n in range(self.sessions.count()))
        checked = {i.data(_ROLE) for i in rows if i.checkState() == Qt.CheckState.Checked}
        self.sessions.clear()
        for session in sessions:
            label = f"{session.started_at[:16].replace('T', ' ')} — {session.note_title} "
            label += f"({session.judged} judged)"
            item = QListWidgetItem(label)
            item.setToolTip(label)
            item.setData(_ROLE, session.session_id)
            item.setData(_JUDGED, session.judged)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            keep = session.session_id in checked  # a refresh keeps the learner's choice
            item.setCheckState(Qt.CheckState.Checked if keep else Qt.CheckState.Unchecked)
            self.sessions.addItem(item)
        if not sessions:
            self.status.setText("No judged answers yet: practise with the judge on first.")
        self.sessions_loaded.emit()

    def _show_history(self, runs: list[evals.PastRun], select: str | None) -> None:
        """List the past reports; select `select`, else the report on show, else (after a
        restart, say) the newest, so a report is always shown when there is one."""
        if select is None and self.shown_report is not None:
            select = self.shown_report.eval_run_id
        if select is None and runs:
            select = runs[0].report.eval_run_id
        self.history.clear()
        for past in runs:
            report = past.report
            mark = "✓" if past.verified else "✗"
            label = f"{mark} {report.created_at[:16].replace('T', ' ')} — {report.verdict} — "
            label += f"{counted(report.items, 'answer')} × {report.repeats}"
            label += " (partial)" if report.partial else ""
            label += " — this computer vs Gemini" if report.kind == "judges" else ""
            item = QListWidgetItem(label)
            item.setData(_ROLE, past)
            item.setToolTip(past.verify_detail)
            self.history.addItem(item)
            if report.eval_run_id == select:
                self.history.setCurrentItem(item)
        self.history_loaded.emit()

    def _history_selected(self, item: QListWidgetItem | None) -> None:
        if item is None:
            return
        past: evals.PastRun = item.data(_ROLE)
        self.show_report(past.report)
        verdict = "Verified" if past.verified else "Verify FAILED"
        self.verify_status.setText(f"{verdict}: {past.verify_detail}")
        if not self.cancel_button.isEnabled():  # a run under way says how it is getting on
            made = self._just_made
            if made is not None and made[0] == past.report.eval_run_id:
                self.status.setText(made[1])  # the report just made is no past report
            else:
                self.status.setText(
                    "Showing a past report. To measure again, tick sessions and choose Run."
                )

    def show_report(self, report: EvalReport) -> None:
        self.shown_report = report
        self.results_box.setTitle(
            "The judge on this computer and Gemini, on the same answers"
            if report.kind == "judges"
            else "With and without core assertions"
        )
        self.table.setHorizontalHeaderLabels(["Figure", *arm_labels(report)])
        rows = figure_rows(report)
        self.table.setRowCount(len(rows))
        for r, cells in enumerate(rows):
            for c, text in enumerate(cells):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self._fit_table_width()
        self.chart.set_report(report)
        self.verdict.setText(verdict_text(report))
        self.verdict.setAccessibleDescription(self.verdict.text())
        self.summary.setText(report.summary)

    def _fit_table_width(self) -> None:
        """Wide enough for every figure's name and each arm's numbers and title (its columns
        stretch alike): in a narrow window the lists beside it wrap their lines instead."""
        table, header = self.table, self.table.horizontalHeader()
        table.resizeColumnsToContents()
        needs = [
            max(table.sizeHintForColumn(c), header.sectionSizeHint(c))
            for c in range(table.columnCount())
        ]
        arms = max(needs[1:], default=0) * (len(needs) - 1)
        frame = 2 * table.frameWidth() + table.verticalScrollBar().sizeHint().width()
        table.setMinimumWidth(needs[0] + arms + frame)

    # --- running -----------------------------------------------------------------------------
    def checked_session_ids(self) -> list[str]:
        return [
            str(self.sessions.item(n).data(_ROLE))
            for n in range(self.sessions.count())
            if self.sessions.item(n).checkState() == Qt.CheckState.Checked
        ]

    def _check_all(self, checked: bool) -> None:
        state = Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked
        for n in range(self.sessions.count()):
            self.sessions.item(n).setCheckState(state)

    def _refuse(self, text: str) -> None:
        self.status.setText(text)
        tell(self, QMessageBox.Icon.Information, "Judge consistency", text)

    def start(self, *, confirm: bool = True) -> None:
        """Ask, then run the eval over the checked sessions."""
        config = self._evals.config.judge
        ids = self.checked_session_ids()
        if not ids:
            self._refuse("Tick at least one session to evaluate.")
            return
        if not config.enabled:
            self._refuse("The judge is switched off. Switch it on (toolbar) to run an eval.")
            return
        if not config.include_assertions:
            self._refuse(
                "“Send core assertions” is off, so the arm with assertions cannot run and "
                "nothing was sent. Turn it on (toolbar) to compare the two arms."
            )
            return
        items = sum(
            int(self.sessions.item(n).data(_JUDGED))
            for n in range(self.sessions.count())
            if self.sessions.item(n).checkState() == Qt.CheckState.Checked
        )
        calls = items * self.repeats.value() * 2
        if confirm and not self._confirmed(items, calls, config.judge_model):
            return
        self._launch(ids, calls)

    def _confirmed(self, items: int, calls: int, model: str) -> bool:
        buttons = QMessageBox.StandardButton
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Run the eval")
        local = self._evals.config.judge.local
        box.setText(
            f"Run {calls} judge calls on this computer ({model})?"
            if local
            else f"Send {calls} calls to the judge ({model})?"
        )
        box.setInformativeText(
            f"{'Your answer is' if items == 1 else f'Each of your {items} answers is'} judged "
            f"{self.repeats.value()} times with your "
            f"core assertions and {self.repeats.value()} times without. Half of the calls "
            "include the note's core assertions; every call includes the challenge and your "
            "answer. Each payload is kept in “Sent to judge”."
        )
        box.setStandardButtons(buttons.Ok | buttons.Cancel)
        box.button(buttons.Ok).setText("&Run" if local else "&Send")
        with_mnemonics(box)
        box.setDefaultButton(buttons.Cancel)
        box.setAccessibleName("Run the eval")
        return box.exec() == buttons.Ok

    def _launch(self, ids: list[str], calls: int) -> None:
        stop = self._stop = threading.Event()
        self.progress.setRange(0, max(calls, 1))
        self.progress.setValue(0)
        self.run_button.setEnabled(False)
        self.cancel_button.setEnabled(True)
        self.status.setText("Judging…")
        cases, repeats, concurrency = (
            self._evals,
            self.repeats.value(),
            self.concurrency.value(),
        )
        Task(
            self,
            op=lambda progress: cases.run(
                ids,
                repeats=repeats,
                concurrency=concurrency,
                on_progress=lambda d, t: progress(d, t),
                cancelled=stop,
            ),
            success=self._finished,
            failure=self._failed,
            progress=self._progressed,
            name="eval run",
        ).run()

    def cancel(self) -> None:
        if self._stop is not None:
            self._stop.set()
            self.cancel_button.setEnabled(False)
            self.status.setText("Stopping after the calls under way…")

    def _progressed(self, update: ProgressUpdate) -> None:
        if update.total:
            self.progress.setMaximum(update.total)
        self.progress.setValue(update.done)

    def _idle(self) -> None:
        self._stop = None
        self.run_button.setEnabled(True)
        self.cancel_button.setEnabled(False)

    def _finished(self, run: EvalRun) -> None:
        self._idle()
        report = run.report
        self.show_report(report)
        done = "Stopped early; recorded what finished" if report.partial else "Recorded"
        self._just_made = (report.eval_run_id, f"{done} as {report.eval_run_id[:12]}…, signed.")
        self.status.setText(self._just_made[1])
        self._load_history(select=report.eval_run_id)
        self.run_finished.emit(report)

    def _failed(self, error: Exception) -> None:
        self._idle()
        self.status.setText(learner_message(error))
        show_failure(self, error)
