"""The read Today and Statistics make of the schedule, written once (issue 35): a read
still running is dropped when another starts; meanwhile the summary says "Loading…" and
Refresh waits; then the view shows what came back, or the summary says why nothing did.

    self.read = ScheduleRead(self, self.summary_label, self.refresh_button,
                             shown=self._on_loaded, failed="Could not read what is due",
                             name="load today")
    self.read.start(lambda: schedule.today(notes, catalogue))   # on a worker
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from PySide6.QtWidgets import QAbstractButton, QLabel, QWidget

from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.tasks import Lane, Task

T = TypeVar("T")


class ScheduleRead(Generic[T]):
    def __init__(
        self,
        view: QWidget,
        summary: QLabel,
        refresh: QAbstractButton,
        *,
        shown: Callable[[T], None],
        failed: str,
        name: str,
    ) -> None:
        """`failed`: the summary's words when the read fails (the reason follows)."""
        self._view, self._summary, self._refresh = view, summary, refresh
        self._shown, self._failed_words, self._name = shown, failed, name
        self._task: Task[T] | None = None

    @property
    def reading(self) -> bool:
        return self._task is not None

    def start(self, read: Callable[[], T]) -> None:
        """`read` runs on a worker: it must not touch widgets."""
        if self._task is not None:
            self._task.cancel()
        self._summary.setText("Loading…")
        self._refresh.setEnabled(False)
        self._task = Task(
            self._view,
            op=lambda _progress: read(),
            success=self._done,
            failure=self._failed,
            # Not the writer lane, though a read also brings the memory cache up to date:
            # the journal serialises its own writes, and a first cache build can take many
            # seconds, which a note save or quitting must not queue behind.
            lane=Lane.GENERAL,
            name=self._name,
        ).run()

    def _done(self, result: T) -> None:
        self._task = None
        self._refresh.setEnabled(True)
        self._shown(result)

    def _failed(self, error: Exception) -> None:
        self._task = None
        self._refresh.setEnabled(True)
        self._summary.setText(f"{self._failed_words}: {learner_message(error)}")
