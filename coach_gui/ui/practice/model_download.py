"""Download the configured Tier 1 model through Ollama (`/api/pull`), with progress and a
Cancel that closes the stream at once. Coach itself still talks only to loopback Ollama."""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette, QShowEvent
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
from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.tasks import Latest, Task, TaskProgress

if TYPE_CHECKING:
    from coach_gui.domain.connections import PullProgress
    from coach_gui.operations.cases import LocalServer
    from coach_gui.services.ports.practice import LocalModelServer, PullStream

log = logging.getLogger(__name__)


def error_colour(palette: QPalette) -> str:
    """A red that reads well on the current (light or dark) palette."""
    dark = palette.color(QPalette.ColorRole.Window).lightness() < 128
    return "#ff8a80" if dark else "#b3261e"


def _size(count: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} byte{'' if count == 1 else 's'}"


class ModelDownloadDialog(QDialog):
    """Starts downloading when shown; accepts on success, rejects on Cancel."""

    downloaded = Signal(str)  # the model name, once Ollama has it

    def __init__(
        self,
        client_factory: Callable[[], LocalModelServer],
        model: str,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._client_factory = client_factory
        self.model = model
        self._task: Task[None] | None = None
        self._stream: PullStream | None = None
        self._started = False
        self._total: int | None = None
        self.setWindowTitle("Download model")
        self.setObjectName("modelDownloadDialog")
        self.setAccessibleName("Download model")
        self.setMinimumWidth(460)

        self.intro = QLabel(
            f"Ollama is downloading the model <b>{html.escape(model)}</b> (a few GB) to this "
            "computer. "
            "Practice uses built-in challenges until it is done.",
            self,
        )
        self.intro.setWordWrap(True)
        self.intro.setAccessibleName("What is being downloaded")
        self.status_line = QLabel("Starting…", self)
        self.status_line.setAccessibleName("Download status")
        self.bar = QProgressBar(self)
        self.bar.setAccessibleName("Download progress")
        self.bar.setAccessibleDescription("How much of the model Ollama has downloaded")
        self.bytes_line = QLabel("", self)
        self.bytes_line.setAccessibleName("Bytes downloaded")
        self.error_line = QLabel("", self)
        self.error_line.setWordWrap(True)
        self.error_line.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error_line.setStyleSheet(f"color: {error_colour(self.palette())}")
        self.error_line.setAccessibleName("Download error")
        self.error_line.hide()

        self.retry_button = QPushButton("&Try again", self)
        self.retry_button.setAccessibleName("Try the download again")
        self.retry_button.setAccessibleDescription("Ask Ollama to download the model again")
        self.retry_button.clicked.connect(self.start_download)
        self.retry_button.hide()
        self.cancel_button = QPushButton("&Cancel", self)
        self.cancel_button.setAccessibleName("Cancel download")
        self.cancel_button.setAccessibleDescription("Stop the download now (Esc)")
        self.cancel_button.clicked.connect(self.reject)

        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.retry_button)
        buttons.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        for widget in (self.intro, self.status_line, self.bar, self.bytes_line, self.error_line):
            layout.addWidget(widget)
        layout.addLayout(buttons)

    @classmethod
    def for_server(cls, server: LocalServer, parent: QWidget | None = None) -> ModelDownloadDialog:
        """Downloading the model the settings name, on the configured server."""
        return cls(server.client, server.model, parent)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if not self._started:
            self._started = True
            self.start_download()

    def start_download(self) -> None:
        if self.running:
            return
        try:
            client = self._client_factory()  # builds only; nothing is sent yet
        except CoachError as exc:
            self._on_failed(exc)
            return
        stream = client.pull(self.model)
        self._stream = stream
        self.error_line.hide()
        self.retry_button.hide()
        self.cancel_button.setText("&Cancel")
        self.cancel_button.setAccessibleName("Cancel download")
        self.status_line.setText("Asking Ollama for the model…")
        self.bar.setRange(0, 0)  # busy until Ollama reports a size
        self.bytes_line.setText("")

        latest: Latest[PullProgress] = Latest()  # Ollama may send many lines a second

        def pull(progress: TaskProgress) -> None:
            try:
                for line in stream:
                    if latest.put(line):
                        progress(0)  # wakes the GUI, which reads the latest line itself
            finally:
                client.close()

        self._task = Task(
            self,
            pull,
            self._on_done,
            self._on_failed,
            lambda _update: self._show_progress(latest.take()),
            name="model-download",
        ).run()

    def _show_progress(self, line: PullProgress | None) -> None:
        if line is None:
            return
        status = line.status or "downloading"
        self.status_line.setText(status[:1].upper() + status[1:])
        if line.total:
            done = min(line.completed or 0, line.total)
            self.bar.setRange(0, 1000)
            self.bar.setValue(done * 1000 // line.total)
            self.bytes_line.setText(f"{_size(done)} of {_size(line.total)}")
            self._total = line.total
        elif status != "success":
            self.bar.setRange(0, 0)

    def _on_done(self, _result: None) -> None:
        self.bar.setRange(0, 1000)
        self.bar.setValue(1000)
        self.status_line.setText("Done.")
        self.cancel_button.setText("&Close")  # nothing left to cancel
        self.cancel_button.setAccessibleName("Close")
        if self._total:
            self.bytes_line.setText(f"{_size(self._total)} of {_size(self._total)}")
        self.downloaded.emit(self.model)
        self.accept()

    def _on_failed(self, error: Exception) -> None:
        if not isinstance(error, CoachError):
            log.error("model download failed", exc_info=(type(error), error, error.__traceback__))
        self.bar.setRange(0, 1000)
        self.bar.setValue(0)
        self.status_line.setText("The download stopped.")
        self.error_line.setText(learner_message(error))
        self.error_line.show()
        self.retry_button.show()
        self.cancel_button.setText("&Close")
        self.cancel_button.setAccessibleName("Close")

    def reject(self) -> None:
        """Cancel and Esc: stop the download at once (Ollama keeps what it has so far)."""
        if self._task is not None:
            self._task.cancel()
        if self._stream is not None:
            self._stream.cancel()  # closes the socket now; the worker ends within moments
        super().reject()
