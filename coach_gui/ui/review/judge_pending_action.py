"""*Judge pending answers*: send the answers kept unjudged (practised offline, or while the
judge was unavailable) with the privacy switch as it is now, saying first what will be sent
and afterwards what was judged and what stays pending and why (issue 5, ADR-0233).

Runs `operations.judging` as `coach judge-pending` does, on a Task with a progress dialog.
Cancel stops waiting for the request under way and sends no more: what was judged is bound
and sealed; the rest stays pending with the reason "cancelled".
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMessageBox, QProgressDialog, QWidget

from coach_gui.ui.kit.button_keys import with_mnemonics
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.tasks import ProgressUpdate, Task

if TYPE_CHECKING:
    from coach_gui.operations.cases import Practice
    from coach_gui.services.judge_later import JudgePendingReport

JUDGE_OFF_TIP = "The judge is off. Switch it on (toolbar) to judge the answers kept pending."
READY_TIP = "Send the answers still waiting to be judged, with today's privacy switch"


def _answers(count: int) -> str:
    return f"{count} answer{'s' if count != 1 else ''}"


def confirm_text(count: int, model: str, *, local: bool = False) -> str:
    """The question before anything is sent: how many answers, and to which judge."""
    if local:
        return f"Judge {_answers(count)} on this computer, with {model}?"
    return f"Send {_answers(count)} to Google Gemini ({model}) to be judged?"


def privacy_notice(include_assertions: bool, *, local: bool = False) -> str:
    if local:
        sent = " and the note's core assertions" if include_assertions else ""
        return (
            f"A model on this computer grades each challenge and your answer{sent}; "
            "nothing leaves this computer."
        )
    if include_assertions:
        return (
            "Each challenge and your answer will be sent to the judge (Google Gemini), with "
            "the note's core assertions, because “Send core assertions” is on now."
        )
    return (
        "Only each challenge and your answer will be sent to the judge (Google Gemini), not "
        "the note's core assertions, because “Send core assertions” is off now."
    )


def report_text(report: JudgePendingReport) -> str:
    if not report.judged and not report.pending:
        return "Nothing to judge: every answer you gave has been judged."
    lines = []
    if report.judged:
        passed = sum(item.passed for item in report.judged)
        gaps = sum(len(item.gaps) for item in report.judged)
        lines.append(
            f"Judged {len(report.judged)} answer{'s' if len(report.judged) != 1 else ''}: "
            f"{passed} passed, {gaps} gap{'s' if gaps != 1 else ''} found."
        )
    if report.pending:
        lines.append(f"Still pending: {len(report.pending)}.")
        for reason, count in Counter(item.reason for item in report.pending).most_common():
            lines.append(f"• {count} × {reason}")
    lines.append(report.privacy_note)
    lines += report.problems
    return "\n".join(lines)


def pending_action(parent: QWidget) -> QAction:
    return QAction("&Judge pending answers…", parent)


class JudgePendingAction(QObject):
    """The action (menu + Sessions toolbar) and the run it starts."""

    finished = Signal(object)  # JudgePendingReport; `report_text` says it to the learner

    def __init__(self, practice: Practice, parent: QWidget, action: QAction | None = None) -> None:
        """`action`: the menu's (built with the window's frame, before the use cases)."""
        super().__init__(parent)
        self._practice = practice
        self._parent = parent
        self.action = action or pending_action(parent)
        self.action.setStatusTip(READY_TIP)
        self.action.triggered.connect(lambda _checked=False: self.run())
        self.progress: QProgressDialog | None = None
        self.last_report: JudgePendingReport | None = None
        self.set_judge_enabled(practice.config.judge.enabled)

    def set_judge_enabled(self, enabled: bool) -> None:
        self.action.setEnabled(enabled)
        tip = READY_TIP if enabled else JUDGE_OFF_TIP
        self.action.setToolTip(tip)
        self.action.setStatusTip(tip)

    def run(self, *, confirm: bool = True) -> None:
        """Count the answers waiting (on a worker), say how many go to which judge, and
        judge them once the learner agrees. With none waiting nothing is asked: the run
        sends nothing and its report says so."""
        if not confirm:
            self._start()
            return
        self.action.setEnabled(False)  # once: a second press waits for this count
        practice = self._practice

        def count(_progress: object) -> int:
            return practice.pending_count()

        Task(self, op=count, success=self._ask, failure=self._on_failed,
             name="count pending answers").run()  # fmt: skip

    def _ask(self, count: int) -> None:
        self.set_judge_enabled(self._practice.config.judge.enabled)
        if not self.action.isEnabled():
            return  # switched off meanwhile
        if count:
            judge = self._practice.config.judge
            buttons = QMessageBox.StandardButton
            box = QMessageBox(self._parent)
            box.setIcon(QMessageBox.Icon.Question)
            box.setWindowTitle("Judge pending answers")
            box.setAccessibleName("Judge pending answers")
            box.setText(confirm_text(count, judge.local_model if judge.local else judge.model,
                                     local=judge.local))  # fmt: skip
            box.setInformativeText(privacy_notice(judge.include_assertions, local=judge.local))
            box.setStandardButtons(buttons.Ok | buttons.Cancel)
            box.button(buttons.Ok).setText("&Judge now")
            with_mnemonics(box)
            box.setDefaultButton(buttons.Ok)
            if box.exec() != buttons.Ok:
                return
        self._start()

    def _start(self) -> None:
        stop = threading.Event()
        dialog = self.progress = QProgressDialog(
            "Judging the pending answers…", "&Cancel", 0, 0, self._parent
        )
        dialog.setWindowTitle("Judge pending answers")
        dialog.setAccessibleName("Judging progress")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.setMinimumDuration(0)
        dialog.setAutoClose(False)
        dialog.setAutoReset(False)
        dialog.canceled.connect(stop.set)
        dialog.canceled.connect(lambda: dialog.setLabelText("Stopping…"))
        self.action.setEnabled(False)
        practice = self._practice
        Task(
            self,
            # On a worker, as `coach judge-pending` does it (`operations.judging`).
            op=lambda progress: practice.judge_pending(progress, stop),
            success=self._on_done,
            failure=self._on_failed,
            progress=self._on_progress,
            name="judge pending",
        ).run()

    def _on_progress(self, update: ProgressUpdate) -> None:
        if self.progress is not None and update.total:
            self.progress.setMaximum(update.total)
            self.progress.setValue(update.done)

    def _close_progress(self) -> None:
        if self.progress is not None:
            self.progress.close()
            self.progress.deleteLater()
            self.progress = None
        self.set_judge_enabled(self._practice.config.judge.enabled)

    def _on_done(self, report: JudgePendingReport) -> None:
        self._close_progress()
        self.last_report = report
        self.finished.emit(report)

    def _on_failed(self, error: Exception) -> None:
        self._close_progress()
        show_failure(self._parent, error)
