"""When the local model cannot write challenges during a session: the banner that says why
(once), *Download model* when Ollama lacks it, and the session going back to the model
once it is installed."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal

if TYPE_CHECKING:
    from coach_gui.operations.cases import Practice
    from coach_gui.operations.practice import Asked, OpenedPractice
    from coach_gui.operations.practice_steps import PracticeSteps
    from coach_gui.ui.practice.practice_view import PracticeView
    from coach_gui.ui.practice.session_jobs import SessionJobs


class OfflineNotice(QObject):
    tier1_offline = Signal(str)  # the local model went off, and why
    model_downloaded = Signal(str)

    def __init__(
        self,
        practice: Practice,
        view: PracticeView,
        jobs: SessionJobs,
        session: Callable[[], tuple[OpenedPractice | None, PracticeSteps]],
    ) -> None:
        super().__init__(view)
        self._practice, self._view, self._jobs = practice, view, jobs
        self._session = session  # the session open now (if any) and its steps
        self.shown = False  # the banner has said why, this session

    def note(self, asked: Asked) -> None:
        """A challenge was asked for: say once why the local model is off, if it is."""
        if asked.offline_reason is None or self.shown:
            return
        opened, steps = self._session()
        problem = opened.tier1_problem if opened is not None else None
        reason = problem or asked.offline_reason
        steps.offline_reason, self.shown = reason, True
        self._view.show_offline(reason, asked.model_missing)
        self.tier1_offline.emit(reason)

    def download(self) -> None:
        from coach_gui.ui.practice.model_download import ModelDownloadDialog

        dialog = ModelDownloadDialog.for_server(self._practice.local_server, self._view)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.downloaded.connect(self._downloaded)
        dialog.open()

    def _downloaded(self, model: str) -> None:
        view = self._view
        view.banner_label.setText(
            f"<b>{html.escape(model)} is installed.</b> The next challenge is written by it."
        )
        view.download_button.hide()
        opened, steps = self._session()
        steps.offline_reason = None
        if opened is not None:  # on the lane, so it never races a running call
            run = opened.run
            self._jobs.submit(lambda _p: run.resume_tier1(), _ignore, supersede=False)
        self.shown = False  # should Tier 1 fail again, say so again
        self.model_downloaded.emit(model)


def _ignore(_result: object) -> None:
    pass
