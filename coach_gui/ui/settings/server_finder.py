"""Finding a local model server from the Welcome and Settings (issue 31): one button looks
at each runtime's default port on this computer (Ollama, LM Studio, llama.cpp, Jan, vLLM,
GPT4All) on a worker thread, lists what answered by name with its models, and says for a
server that cannot be used yet what to do there. Choosing one emits `chosen`.

    finder = ServerFinder(cases.practice.local_server.find, parent)
    finder.chosen.connect(lambda wire, url, model: ...)
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.local_servers import FoundServer
from coach_gui.ui.kit.tasks import Task, TaskCancelled

Finder = Callable[[Callable[[], bool]], list[FoundServer]]  # (cancelled) -> what answered
IDLE = "Look for a model server already running on this computer."
SEARCHING = "Looking on this computer (Ollama, LM Studio, llama.cpp, Jan, vLLM, GPT4All)…"
NONE_FOUND = (
    "No model server is running on this computer. Start one (Ollama, LM Studio, llama.cpp's "
    "llama-server, Jan…), then look again; until then practice uses built-in challenges."
)
FAILED = "The search stopped before it finished. Look again; nothing was changed."


class ServerFinder(QWidget):
    chosen = Signal(str, str, str)  # wire ("ollama" | "openai"), url, model
    searched = Signal()  # a search finished (found or not)

    def __init__(
        self,
        finder: Finder,
        parent: QWidget | None = None,
        *,
        find_text: str = "&Find servers",
        use_text: str = "Use this ser&ver",
    ) -> None:
        super().__init__(parent)
        self.setObjectName("serverFinder")
        self.setAccessibleName("Find a model server")
        self._finder = finder
        self._task: Task[list[FoundServer]] | None = None
        self.found: list[FoundServer] = []

        self.status_label = QLabel(IDLE, self)
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName("Model servers found")
        self.find_button = QPushButton(find_text, self)
        self.find_button.setAccessibleName("Find model servers on this computer")
        self.find_button.setAutoDefault(False)
        self.find_button.clicked.connect(self._find_or_stop)
        self._find_text = find_text
        self.server_list = QListWidget(self)
        self.server_list.setAccessibleName("Model servers on this computer")
        self.server_list.setWordWrap(True)
        self.server_list.setMaximumHeight(self.fontMetrics().lineSpacing() * 7)
        self.server_list.currentRowChanged.connect(self._show_models)
        self.server_list.hide()
        self.model_box = QComboBox(self)
        self.model_box.setAccessibleName("Model on that server")
        self.use_button = QPushButton(use_text, self)
        self.use_button.setAccessibleName("Use this server and model")
        self.use_button.setAutoDefault(False)
        self.use_button.clicked.connect(self._use)
        for widget in (self.model_box, self.use_button):
            widget.hide()

        buttons = QHBoxLayout()
        buttons.addWidget(self.find_button)
        buttons.addWidget(self.model_box, 1)
        buttons.addWidget(self.use_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.status_label)
        layout.addWidget(self.server_list)
        layout.addLayout(buttons)

    # --- searching -------------------------------------------------------------------------
    def search(self) -> None:
        """Look on a worker thread; the button stops the search meanwhile."""
        if self._task is not None and not self._task.done:
            return
        self.status_label.setText(SEARCHING)
        self.find_button.setText("&Stop")
        self.find_button.setAccessibleName("Stop looking")
        finder = self._finder
        self._task = Task(
            self,
            op=lambda progress: finder(lambda: progress.cancelled),
            success=self._show,
            failure=self._failed,
            name="find model servers",
        ).run()

    def _find_or_stop(self) -> None:
        if self._task is not None and not self._task.done:
            self._task.cancel()
            self._ready()
            self.status_label.setText(IDLE)
            return
        self.search()

    def _ready(self) -> None:
        self.find_button.setText(self._find_text)
        self.find_button.setAccessibleName("Find model servers on this computer")

    def _failed(self, error: Exception) -> None:
        self._ready()
        if not isinstance(error, TaskCancelled):
            self.status_label.setText(FAILED)
        self.searched.emit()

    def _show(self, found: list[FoundServer]) -> None:
        self._ready()
        self.found = found
        self.server_list.clear()
        usable = [s for s in found if s.usable]
        if not found:
            self.status_label.setText(NONE_FOUND)
        elif usable:
            names = ", ".join(dict.fromkeys(s.name for s in usable))
            self.status_label.setText(f"Found {names}. Choose a server and a model, then use it.")
        else:
            self.status_label.setText("Found a server, but it cannot be used yet: see below.")
        for server in found:
            item = QListWidgetItem(server.describe(), self.server_list)
            item.setToolTip(server.describe())
            if not server.usable:  # listed for what it says; not selectable
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsSelectable)
        self.server_list.setVisible(bool(found))
        first = next((n for n, s in enumerate(found) if s.usable), -1)
        self.server_list.setCurrentRow(first)
        self._show_models(first)
        self.searched.emit()

    def _show_models(self, row: int) -> None:
        server = self.found[row] if 0 <= row < len(self.found) else None
        self.model_box.clear()
        usable = server is not None and server.usable
        if server is not None and usable:
            self.model_box.addItems(list(server.models))
        self.model_box.setVisible(usable)
        self.use_button.setVisible(usable)
        self.use_button.setEnabled(usable)

    def selected(self) -> tuple[FoundServer, str] | None:
        row = self.server_list.currentRow()
        if not 0 <= row < len(self.found) or not self.found[row].usable:
            return None
        return self.found[row], self.model_box.currentText()

    def _use(self) -> None:
        picked = self.selected()
        if picked is None:
            return
        server, model = picked
        self.chosen.emit(server.wire, server.url, model)
        self.status_label.setText(f"Coach now uses {model} on {server.name} ({server.url}).")
