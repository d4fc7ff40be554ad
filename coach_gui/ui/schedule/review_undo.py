"""Undo review / Redo review (Schedule menu, Ctrl+Alt+Z / Ctrl+Alt+Shift+Z): take back the
last review a session made of its note's key points, or count it again (ADR 0026).

The answers, the judge's verdicts and the learner's ratings stay in the history; only the
review stops counting, and the note's schedule is replayed without it. What Undo and
Redo would do is read on a worker (the menu names the note and when); the change is
written on the writer lane. Right after a session the status bar offers *Undo review*
too, as it offers *Undo* after a delete.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QPushButton

from coach_gui.domain.changes import Changes
from coach_gui.operations.vocabulary import when_words
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.tasks import Lane, Task

if TYPE_CHECKING:
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QStatusBar

    from coach_gui.domain.notes import NoteEntry
    from coach_gui.operations.cases import Schedule
    from coach_gui.services.scheduler import UndoneReview

OFFER_MS = 30_000  # how long the status bar offers Undo review after a session
KEPT = "Your answers and the judge's verdicts stay in the history."


class ReviewHost(Protocol):
    """The window ReviewUndo works in: its notes and its status line."""

    def statusBar(self) -> QStatusBar: ...

    def entry_for(self, note_id: str | None) -> NoteEntry | None: ...


class ReviewUndo(QObject):
    """`changed(UndoneReview)`: a review was undone or counted again; what shows the
    schedule reads it again."""

    changed = Signal(object)  # the UndoneReview: its changes go out
    checked = Signal()  # what Undo and Redo would do is on the actions

    def __init__(
        self, window: ReviewHost, schedule: Schedule, undo: QAction, redo: QAction
    ) -> None:
        super().__init__(window.statusBar())
        self._window = window
        self._schedule = schedule
        self._parent = window.statusBar().window()  # tasks and messages belong to it
        self._undo, self._redo = undo, redo
        self.last: UndoneReview | None = None  # what Undo takes back
        self.undone: UndoneReview | None = None  # what Redo counts again
        self._busy = False
        self._offer_session: str | None = None
        self._button_redoes = False  # the status bar's button: Undo review, or Redo review
        self.button = QPushButton("Undo re&view", window.statusBar())
        self.button.setAccessibleName("Undo review")
        self.button.setAutoDefault(False)
        self.button.clicked.connect(self._button_clicked)
        self.button.hide()
        window.statusBar().insertPermanentWidget(1, self.button)  # after the folder
        self._offer = QTimer(self)
        self._offer.setSingleShot(True)
        self._offer.setInterval(OFFER_MS)
        self._offer.timeout.connect(self.button.hide)

    def _when(self, stamp: str) -> str:
        return when_words(stamp, self._schedule.now())

    def title(self, review: UndoneReview) -> str:
        entry = self._window.entry_for(review.note_id)
        return f"‘{entry.note.title}’" if entry is not None else "a note no longer in your notes"

    # --- what Undo and Redo would do ----------------------------------------------------------
    def take_changes(self, changes: Changes) -> None:
        """A session, a verdict or another computer's records may have made a review
        newer than the one Undo would take back."""
        if changes.touches(Changes(sessions=True, verdicts=True, synced=True)):
            self.check()

    def check(self, *, offer_session: str | None = None) -> None:
        """Read what Undo and Redo would do (on a worker); with `offer_session`, the status
        bar offers Undo review if that session's review is the last."""
        if offer_session is not None:
            self._offer_session = offer_session
        schedule = self._schedule
        Task(
            self._parent,
            op=lambda _p: (schedule.last_review(), schedule.last_undone()),
            success=self._show,
            failure=lambda _error: None,  # the actions stay as they were; Today says why
            name="last review",
        ).run()

    def _show(self, found: tuple[UndoneReview | None, UndoneReview | None]) -> None:
        self.last, self.undone = found
        last, undone = found
        self._undo.setEnabled(last is not None and not self._busy)
        self._undo.setText(
            f"&Undo review of {self.title(last)} ({self._when(last.at)})"
            if last
            else "&Undo review"
        )
        self._redo.setEnabled(undone is not None and not self._busy)
        self._redo.setText(
            f"Re&do review of {self.title(undone)} ({self._when(undone.at)})"
            if undone
            else "Re&do review"
        )
        offered, self._offer_session = self._offer_session, None
        if offered is not None and last is not None and last.session_id == offered:
            what = f"{self._undo.text().replace('&', '')} ({self._undo.shortcut().toString()})"
            self._offer_button("Undo re&view", what, redoes=False)
        self.checked.emit()

    def _offer_button(self, text: str, what: str, *, redoes: bool) -> None:
        self._button_redoes = redoes
        self.button.setText(text)
        self.button.setAccessibleName(text.replace("&", ""))
        self.button.setToolTip(what)
        self.button.setAccessibleDescription(what)
        self.button.show()
        self._offer.start()

    def _button_clicked(self) -> None:
        if self._button_redoes:
            self.redo()
        else:
            self.undo()

    # --- undo and redo ------------------------------------------------------------------------
    def undo(self) -> None:
        """Take back the last review (Schedule › Undo review)."""
        self._change(self._schedule.undo_last_review, self.last)

    def redo(self) -> None:
        """Count the review undone last again (Schedule › Redo review)."""
        self._change(self._schedule.redo_review, self.undone)

    def _change(
        self, run: Callable[[str | None], UndoneReview | None], shown: UndoneReview | None
    ) -> None:
        if self._busy:
            return
        expected = shown.session_id if shown is not None else None
        self._busy = True
        self._undo.setEnabled(False)
        self._redo.setEnabled(False)
        self.button.hide()
        Task(
            self._parent,
            op=lambda _p: run(expected),
            success=lambda done: self._done(done, shown),
            failure=self._failed,
            lane=Lane.WRITER,
            name="undo review",
        ).run()

    def _done(self, done: UndoneReview | None, shown: UndoneReview | None) -> None:
        self._busy = False
        status = self._window.statusBar()
        if done is None and shown is not None:
            status.showMessage(
                "Another review came in meanwhile, so nothing was changed; the Schedule menu "
                "now names the latest.",
                8000,
            )
        elif done is None:
            status.showMessage("There is no review to take back or count again.", 8000)
        else:
            what = f"the review of {self.title(done)} ({self._when(done.at)})"
            if done.action == "undo":
                status.showMessage(
                    f"Undid {what}: its key points are scheduled as if it had not happened. "
                    f"{KEPT} Redo review: {self._redo.shortcut().toString()}.",
                    15_000,
                )
                again = f"Count {what} again ({self._redo.shortcut().toString()})"
                self._offer_button("Re&do review", again, redoes=True)
            else:
                status.showMessage(
                    f"Counted {what} again: its key points are scheduled with it.", 15_000
                )
            self.changed.emit(done)
        self.check()

    def _failed(self, error: Exception) -> None:
        self._busy = False
        show_failure(self._parent, error)
        self.check()
