"""Schedule › Fit schedule to my history… (issue 19, ADR 0028): fit FSRS's parameters to the
learner's own reviews on a worker, show how much better they predict them and how the
schedule would change, and use them only when the learner clicks Apply."""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.errors import CoachError
from coach_gui.domain.schedule_control import AppliedParameters
from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.tasks import Lane, ProgressUpdate, Task, TaskProgress
from coach_gui.ui.kit.theme import warning_colour

if TYPE_CHECKING:
    from coach_gui.operations.cases import Schedule
    from coach_gui.operations.optimize import FitResult, Fitted

log = logging.getLogger(__name__)

INTRO = (
    "Coach decides when each key point comes back with FSRS, whose settings were fitted "
    "to millions of other people's reviews. From your own reviews it can find settings "
    "that predict better when <i>you</i> forget. This reads your history and changes "
    "nothing until you click Apply; you can go back to the defaults at any time."
)
MEANING = (
    "Log-loss and RMSE measure how far the predicted chance of remembering was from what "
    "you actually remembered, over all your reviews: lower is better."
)


def _days(n: int) -> str:
    return f"{n} day" if n == 1 else f"{n} days"


class OptimizerDialog(QDialog):
    """Fits when shown; Apply and Back to the defaults write through the journal's lane."""

    changed = Signal(object)  # AppliedParameters: the schedule now runs on other parameters

    def __init__(self, schedule: Schedule, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._schedule = schedule
        self._task: Task[tuple[FitResult, bool]] | None = None
        self._result: Fitted | None = None
        self._started = False
        self.setWindowTitle("Fit the schedule to your history")
        self.setObjectName("optimizerDialog")
        self.setAccessibleName("Fit the schedule to your history")
        self.setMinimumWidth(520)

        self.intro = QLabel(INTRO, self)
        self.intro.setWordWrap(True)
        self.intro.setAccessibleName("What fitting the schedule does")
        self.status_line = QLabel("Starting…", self)
        self.status_line.setWordWrap(True)
        self.status_line.setAccessibleName("Fit status")
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Fit progress")
        self.bar.setAccessibleDescription("How far the fit to your reviews has got")
        self.table = QLabel("", self)
        self.table.setTextFormat(Qt.TextFormat.RichText)
        self.table.setAccessibleName("The fit, before and after")
        flags = Qt.TextInteractionFlag
        self.table.setTextInteractionFlags(
            flags.TextSelectableByKeyboard | flags.TextSelectableByMouse
        )
        self.table.hide()
        self.meaning = QLabel(MEANING, self)
        self.meaning.setWordWrap(True)
        self.meaning.setAccessibleName("What the figures mean")
        self.meaning.hide()
        self.in_force = QLabel("", self)
        self.in_force.setWordWrap(True)
        self.in_force.setAccessibleName("Parameters in use")
        self.error_line = QLabel("", self)
        self.error_line.setWordWrap(True)
        self.error_line.setStyleSheet(f"color: {warning_colour(self.palette())}")
        self.error_line.setAccessibleName("Problem")
        self.error_line.hide()

        self.apply_button = QPushButton("&Apply", self)
        self.apply_button.setObjectName("applyFit")
        self.apply_button.setAccessibleName("Apply the fitted parameters")
        self.apply_button.setAccessibleDescription(
            "Schedule with the parameters fitted to your history from now on"
        )
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self.apply_fit)
        self.defaults_button = QPushButton("&Back to the defaults", self)
        self.defaults_button.setObjectName("backToDefaults")
        self.defaults_button.setAccessibleName("Back to the default parameters")
        self.defaults_button.setAccessibleDescription(
            "Schedule with FSRS's default parameters again"
        )
        self.defaults_button.clicked.connect(self.back_to_defaults)
        self.defaults_button.hide()
        self.close_button = QPushButton("&Cancel", self)
        self.close_button.setObjectName("closeFit")
        self.close_button.setAccessibleName("Cancel")
        self.close_button.setAccessibleDescription("Stop and close; nothing changes (Esc)")
        self.close_button.clicked.connect(self.reject)

        buttons = QHBoxLayout()
        buttons.addWidget(self.defaults_button)
        buttons.addStretch(1)
        buttons.addWidget(self.apply_button)
        buttons.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        for widget in (self.intro, self.status_line, self.bar, self.table, self.meaning,
                       self.in_force, self.error_line):  # fmt: skip
            layout.addWidget(widget)
        layout.addLayout(buttons)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._started:
            self._started = True
            self.start_fit()

    # --- the fit ------------------------------------------------------------------------------
    def start_fit(self) -> None:
        if self.running:
            return
        schedule = self._schedule
        self.status_line.setText("Reading your reviews…")
        self.bar.setRange(0, 0)

        def fit(progress: TaskProgress) -> tuple[FitResult, bool]:
            return schedule.fit(progress)

        self._task = Task(self, fit, self._show_fit, self._on_failed, self._on_progress,
                          name="fit-schedule").run()  # fmt: skip

    def _on_progress(self, update: ProgressUpdate) -> None:
        if update.total:
            self.bar.setRange(0, update.total)
            self.bar.setValue(update.done)
        if update.text:
            self.status_line.setText(f"{update.text}…")

    def _finished(self) -> None:
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        self.bar.hide()
        self.close_button.setText("&Close")
        self.close_button.setAccessibleName("Close")
        self.close_button.setAccessibleDescription("Close; nothing changes that you did not apply")

    def _show_fit(self, found: tuple[FitResult, bool]) -> None:
        from coach_gui.operations.optimize import Fitted, NotYet, not_yet_text

        result, in_force = found
        self._finished()
        self._show_in_force(in_force)
        if isinstance(result, NotYet):
            self.status_line.setText(
                f"{not_yet_text(result).capitalize()}. Keep practising: Coach keeps every "
                "review, and the fit is offered here once there are enough."
            )
            return
        if not isinstance(result, Fitted):
            self.status_line.setText(
                "The fit could not be used: it gave settings the scheduler cannot work "
                "with, so your schedule stays as it is. Try again after more practice."
            )
            return
        fit = result.summary
        self.status_line.setText(
            f"Fitted to your {fit.reviews:,} reviews of {fit.assertions:,} key points."
        )
        self.table.setText(self._table_html(result))
        self.table.setAccessibleDescription(self._table_text(result))
        self.table.show()
        self.meaning.show()
        # The dialog was laid out before the table was there: grow it to hold the whole
        # table once the layout has taken it in (it was squeezed to a few clipped rows).
        QTimer.singleShot(0, self.adjustSize)
        if result.better:
            self._result = result
            self.apply_button.setEnabled(True)
            self.apply_button.setDefault(True)
            self.apply_button.setFocus()
        else:
            self.error_line.setText(
                "The fitted settings predict your reviews no better than those in use: "
                "there is nothing to gain from applying them now."
            )
            self.error_line.show()

    @staticmethod
    def _table_html(result: Fitted) -> str:
        fit, change = result.summary, result.change
        rows = [
            ("Log-loss", f"{fit.log_loss_before:.4f}", f"{fit.log_loss_after:.4f}"),
            ("RMSE", f"{fit.rmse_before:.2%}", f"{fit.rmse_after:.2%}"),
            ("A good first answer comes back after", _days(change.first_good_days_before),
             _days(change.first_good_days_after)),
            ("Due within the next 14 days (about)", str(change.due_soon_before),
             str(change.due_soon_after)),
        ]  # fmt: skip
        cells = "".join(
            f"<tr><td>{html.escape(name)}</td><td align='right'>{before}</td>"
            f"<td align='right'>{after}</td></tr>"
            for name, before, after in rows
        )
        return (
            "<table cellspacing='0' cellpadding='4'><tr><th></th><th align='right'>In use</th>"
            f"<th align='right'>Fitted</th></tr>{cells}</table>"
        )

    @staticmethod
    def _table_text(result: Fitted) -> str:
        fit, change = result.summary, result.change
        return (
            f"Log-loss {fit.log_loss_before:.4f} in use, {fit.log_loss_after:.4f} fitted. "
            f"RMSE {fit.rmse_before:.2%} in use, {fit.rmse_after:.2%} fitted. "
            f"A good first answer comes back after {_days(change.first_good_days_before)} "
            f"now, {_days(change.first_good_days_after)} fitted. About "
            f"{change.due_soon_before} due within 14 days now, {change.due_soon_after} fitted."
        )

    def _show_in_force(self, fitted: bool) -> None:
        self.defaults_button.setVisible(fitted)
        self.in_force.setText(
            "Your schedule uses settings fitted to your history."
            if fitted
            else "Your schedule uses FSRS's default settings."
        )

    def _on_failed(self, error: Exception) -> None:
        if not isinstance(error, CoachError):
            log.error("fitting the schedule failed", exc_info=(type(error), error,
                                                               error.__traceback__))  # fmt: skip
        self._finished()
        self.status_line.setText("The fit stopped; your schedule is as it was.")
        self.error_line.setText(learner_message(error))
        self.error_line.show()

    # --- the learner's yes --------------------------------------------------------------------
    def apply_fit(self) -> None:
        result = self._result
        if result is None:
            return
        schedule = self._schedule
        self.apply_button.setEnabled(False)
        self._write(lambda _p: schedule.apply(result),
                    "Applied: from now on your schedule uses the fitted settings.")  # fmt: skip

    def back_to_defaults(self) -> None:
        schedule = self._schedule
        self.defaults_button.setEnabled(False)
        self._write(
            lambda _p: schedule.reset(),
            "Back to the defaults: your schedule uses FSRS's default settings again.",
        )

    def _write(self, op: Callable[[TaskProgress], AppliedParameters], done_text: str) -> None:
        def success(applied: AppliedParameters) -> None:
            self.defaults_button.setEnabled(True)
            self.apply_button.setEnabled(applied.parameters is None and self._result is not None)
            self._show_in_force(applied.parameters is not None)
            self.status_line.setText(done_text)
            self.close_button.setFocus()
            self.changed.emit(applied)

        Task(self, op, success, self._on_failed, lane=Lane.WRITER,
             name="apply-schedule-fit").run()  # fmt: skip

    def reject(self) -> None:
        """Cancel, Close and Esc: a fit under way is dropped; nothing is applied."""
        if self._task is not None:
            self._task.cancel()
        super().reject()


def show_optimizer(
    window: QWidget, schedule: Schedule, applied: Callable[[AppliedParameters], None]
) -> OptimizerDialog:
    """Open the dialog over the window (not blocking it); `applied` hears of parameters
    applied or put back. Returns the dialog."""
    dialog = OptimizerDialog(schedule, window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.changed.connect(applied)
    dialog.open()
    return dialog
