"""The practice pane: a challenge streams in, the learner answers, each answer is saved at
once and then judged (when the judge is on), and the verdict shows the gaps.

It is two parts put together: `view` (`PracticeView`: the widgets, and how each phase
looks; it only shows) and `controller` (`PracticeController`: the steps, on the pane's
own ordered lane of tasks). The session itself, from opening to seal, is
`operations.practice`. The pane's methods and signals are the controller's, for the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QCoreApplication, SignalInstance
from PySide6.QtWidgets import QVBoxLayout, QWidget

from coach_gui.operations.practice import SessionEnded
from coach_gui.ui.practice.practice_controller import PracticeController
from coach_gui.ui.practice.practice_view import Phase, PracticeView

if TYPE_CHECKING:
    from collections.abc import Callable

    from coach_gui.domain.notes import Note
    from coach_gui.domain.practice import GapPlan
    from coach_gui.operations.cases import Practice

__all__ = ["Phase", "PracticePane", "SessionEnded"]

QUIT_WAIT_MS = 500  # how long quitting waits for the session's seal (it takes milliseconds)


class PracticePane(QWidget):
    def __init__(self, practice: Practice, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("practicePane")
        self.setAccessibleName("Practice")
        self.practice = practice
        self.view = PracticeView(self)
        self.controller = PracticeController(practice, self.view)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        controller = self.controller
        self.session_started: SignalInstance = controller.session_started
        self.session_finished: SignalInstance = controller.session_finished
        self.changed: SignalInstance = controller.changed
        self.next_due_requested: SignalInstance = controller.next_due_requested
        self.model_downloaded: SignalInstance = controller.model_downloaded
        self.add_assertions_requested: SignalInstance = controller.add_assertions_requested
        self.tier1_offline: SignalInstance = controller.tier1_offline
        app = QCoreApplication.instance()
        if app is not None:  # a safety net: the main window should call shutdown() first
            app.aboutToQuit.connect(lambda: self.shutdown(QUIT_WAIT_MS))

    # --- what the window asks of it (the controller's) ----------------------------------------
    @property
    def phase(self) -> Phase:
        return self.controller.phase

    @property
    def active(self) -> bool:
        return self.controller.active

    @property
    def note(self) -> Note | None:
        return self.controller.note

    def start(self, note: Note, plan: GapPlan | None = None) -> None:
        self.controller.start(note, plan)

    def submit(self) -> None:
        self.controller.submit()

    def skip(self) -> None:
        self.controller.skip()

    def next(self) -> None:
        self.controller.next()

    def finish(self) -> None:
        self.controller.finish()

    def cancel_generation(self) -> None:
        self.controller.cancel_generation()

    def offer(self, note: Note) -> None:
        self.controller.offer(note)

    def set_next_due(self, title: str | None) -> None:
        self.controller.set_next_due(title)

    def take_focus(self) -> None:
        self.controller.take_focus()

    def has_unsubmitted_answer(self) -> bool:
        return self.controller.has_unsubmitted_answer()

    def confirm_leave(self, question: str = "Finish without it?") -> bool:
        return self.controller.confirm_leave(question)

    def set_settings_opener(self, open_settings: Callable[[], None]) -> None:
        """Let the judge notice offer Open Settings (the window owns the Settings dialog)."""
        self.view.settings_button.clicked.connect(open_settings)
        self.view.settings_button.show()

    def shutdown(self, timeout_ms: int = 10_000) -> bool:
        """Before the window closes: end the session and wait for its lane, at most
        `timeout_ms` (True if idle). Asked again once closing, it does not wait again."""
        return self.controller.shutdown(timeout_ms)

    def wait_idle(self, timeout_ms: int = 10_000) -> bool:
        """Tests and teardown: wait for the lane; results arrive at the next event turn."""
        return self.controller.jobs.wait(timeout_ms)
