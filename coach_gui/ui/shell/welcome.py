"""The first-run welcome: what stays on this computer and what may be sent, whether Ollama
is ready (and the model download if it is not), the two privacy switches, and the Gemini
key. Every part is optional and Coach works with none of it; Esc or *Skip* closes it, and
Help > Welcome… opens it again.

    show_welcome(window)  # window: the MainWindow; its privacy switches are reused
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from coach_gui.config import Config
from coach_gui.domain.errors import ConfigError
from coach_gui.operations.tier1 import Tier1State, Tier1Status
from coach_gui.ui.kit.screen_fit import fit_on_screen
from coach_gui.ui.practice.tier1_status import Tier1StatusIndicator
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.key_settings import GeminiKeySection
from coach_gui.ui.settings.server_finder import ServerFinder

if TYPE_CHECKING:
    from coach_gui.operations.cases import UseCases
    from coach_gui.ui.settings.privacy_controls import PrivacyControls
    from coach_gui.ui.shell.main_window import MainWindow

INTRO = (
    "<h2>Welcome to Coach</h2>"
    "<p>Coach helps you remember what you read. You keep a note for each idea, with the "
    "few <i>core assertions</i> it makes; Coach asks you questions about it, and checks "
    "which assertions your answers explain.</p>"
    "<p>Nothing below is required: skip it now (Esc) and open it again from the Help "
    "menu (Welcome…).</p>"
)
TIER1_READY = "Ready: challenges are written on this computer by {model}."
TIER1_MISSING = (
    "Ollama is running, but the model {model} is not downloaded yet. Until it is, practice "
    "uses built-in challenges. The download is a few GB."
)
TIER1_UNREACHABLE = (
    "Ollama is not running here, so practice uses built-in challenges. To have questions "
    "written for each note, install Ollama from ollama.com, start it, then check again."
)


def tier1_text(status: Tier1Status) -> str:
    if status.state is Tier1State.READY:
        return TIER1_READY.format(model=status.model)
    if status.state is Tier1State.MODEL_MISSING:
        return TIER1_MISSING.format(model=status.model)
    if status.state is Tier1State.UNREACHABLE:
        return f"{TIER1_UNREACHABLE}\n({status.detail})" if status.detail else TIER1_UNREACHABLE
    return "Checking whether Ollama is running on this computer…"


class SwitchBox(QCheckBox):
    """A check box that flips `action` (so the toolbar, the config file and the status bar
    follow, exactly as for the toolbar switch) and shows its state. Slots are methods, so
    Qt disconnects them when the welcome closes."""

    def __init__(self, action: QAction, text: str, parent: QWidget) -> None:
        super().__init__(text, parent)
        self._action = action
        self.setAccessibleName(text.replace("&", ""))
        self.clicked.connect(self._flip)
        action.changed.connect(self._show)
        self._show()

    def _show(self) -> None:
        self.setChecked(self._action.isChecked())
        self.setEnabled(self._action.isEnabled())
        self.setToolTip(self._action.toolTip())
        self.setAccessibleDescription(self._action.toolTip())

    def _flip(self, checked: bool) -> None:
        if checked != self._action.isChecked():
            self._action.trigger()
        self._show()


class WelcomeDialog(QDialog):
    model_downloaded = Signal(str)  # Ollama now has the model
    server_saved = Signal(object)  # the Config saved after a found server was chosen

    def __init__(
        self,
        cases: UseCases,
        privacy: PrivacyControls,
        parent: QWidget | None = None,
        *,
        owner: ConfigOwner | None = None,
    ) -> None:
        super().__init__(parent)
        self.cases = cases
        self.privacy = privacy
        # The window's one writer of the config (ADR 0030); a Welcome on its own gets one.
        self._owner = owner if owner is not None else ConfigOwner(cases.settings, self)
        self.setWindowTitle("Welcome to Coach")
        self.setObjectName("welcomeDialog")
        self.setAccessibleName("Welcome to Coach")

        intro = QLabel(INTRO, self)
        intro.setWordWrap(True)
        intro.setAccessibleName("Welcome")
        self.privacy_label = QLabel(privacy.summary_html(), self)
        self.privacy_label.setWordWrap(True)
        self.privacy_label.setAccessibleName("What stays on this computer and what may be sent")
        privacy.config_changed.connect(self._show_privacy)
        privacy.key_changed.connect(self._show_privacy)  # no key: nothing is sent yet

        tier1 = self._tier1_group(cases)
        judge = self._judge_group(cases, privacy)
        notes = self._notes_group()

        body = QWidget(self)
        body_layout = QVBoxLayout(body)
        for widget in (intro, notes, self.privacy_label, tier1, judge):
            body_layout.addWidget(widget)
        body_layout.addStretch(1)
        scroll = QScrollArea(self)
        scroll.setWidget(body)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)

        buttons = QDialogButtonBox(self)
        self.skip_button = buttons.addButton("&Skip", QDialogButtonBox.ButtonRole.RejectRole)
        self.skip_button.setAccessibleName("Skip the welcome")
        self.start_button = buttons.addButton(
            "Start &using Coach", QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.start_button.setAccessibleName("Start using Coach")
        self.start_button.setDefault(True)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(scroll)
        layout.addWidget(buttons)
        fit_on_screen(self, QSize(660, 720))  # shorter screens (1.5x, 2x): the body scrolls
        self.tier1_indicator.refresh()

    def _tier1_group(self, cases: UseCases) -> QGroupBox:
        """Questions written here: the local model's state, Check again, Download, and
        finding a server already running."""
        # Tier 1: the same check as the status bar's indicator, run on a worker thread.
        tier1 = QGroupBox("Questions written on this computer (a local model)", self)
        tier1.setAccessibleName("Ollama")
        server = cases.practice.local_server
        self.tier1_indicator = Tier1StatusIndicator.for_server(server, tier1)
        self.tier1_indicator.hide()  # its state is told in words below
        self.tier1_label = QLabel(tier1_text(self.tier1_indicator.status), tier1)
        self.tier1_label.setWordWrap(True)
        self.tier1_label.setAccessibleName("Ollama status")
        self.check_button = QPushButton("&Check again", tier1)
        self.check_button.setAccessibleName("Check Ollama again")
        self.check_button.setAutoDefault(False)
        self.check_button.clicked.connect(self.tier1_indicator.refresh)
        self.download_button = QPushButton("&Download model…", tier1)
        self.download_button.setAccessibleName("Download the model")
        self.download_button.setAccessibleDescription("Ask Ollama to download the model")
        self.download_button.setAutoDefault(False)
        self.download_button.clicked.connect(self.download_model)
        self.download_button.hide()
        self.tier1_indicator.status_changed.connect(self._show_tier1)
        tier1_buttons = QHBoxLayout()
        tier1_buttons.addWidget(self.check_button)
        tier1_buttons.addWidget(self.download_button)
        tier1_buttons.addStretch(1)
        # Or another server already running here (LM Studio, llama.cpp, Jan…): issue 31.
        self.server_finder = ServerFinder(server.find, tier1)
        self.server_finder.chosen.connect(self.use_server)
        tier1_layout = QVBoxLayout(tier1)
        tier1_layout.addWidget(self.tier1_label)
        tier1_layout.addLayout(tier1_buttons)
        tier1_layout.addWidget(self.server_finder)
        return tier1

    def _judge_group(self, cases: UseCases, privacy: PrivacyControls) -> QGroupBox:
        """Grading: the toolbar's own switches and the Gemini key (or the local judge)."""
        # Tier 2: the toolbar's own switches, so all three places agree at once.
        local = cases.settings.config.judge.local
        judge = QGroupBox(
            "Grading on this computer (Ollama)" if local else "Grading by Google Gemini (optional)",
            self,
        )
        judge.setAccessibleName("Judge")
        self.judge_box = SwitchBox(
            privacy.judge_action,
            "&Judge answers on this computer" if local else "&Judge answers with Gemini",
            judge,
        )
        self.assertions_box = SwitchBox(
            privacy.assertions_action, "Send core &assertions to the judge", judge
        )
        self.key_section = GeminiKeySection(cases.keys, judge)
        self.key_section.status_loaded.connect(privacy.set_key_status)  # a key saved here
        judge_layout = QVBoxLayout(judge)
        judge_layout.addWidget(self.judge_box)
        judge_layout.addWidget(self.assertions_box)
        judge_layout.addWidget(self.key_section)
        if local:  # no key is needed: the model runs here (Settings chooses the judge)
            self.key_section.hide()
            self.local_judge_label = QLabel(
                f"{cases.settings.config.judge.local_model} grades your answers on this computer; "
                "nothing is sent anywhere. Choose the judge in Settings.",
                judge,
            )
            self.local_judge_label.setWordWrap(True)
            judge_layout.addWidget(self.local_judge_label)
        return judge

    def _notes_group(self) -> QGroupBox:
        """Your notes: the sample set, or the learner's own folder."""
        # Your notes: the sample set, or the learner's own vault (issue 14).
        notes = QGroupBox("Your notes", self)
        notes.setAccessibleName("Your notes")
        self.notes_label = QLabel(notes)
        self.notes_label.setWordWrap(True)
        self.notes_label.setAccessibleName("Notes folder")
        self.folder_button = QPushButton("&Open a folder…", notes)
        self.folder_button.setAccessibleName("Open a notes folder")
        self.folder_button.setAccessibleDescription(
            "Use your own Obsidian vault or folder of Markdown notes"
        )
        self.folder_button.setAutoDefault(False)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder_button)
        folder_row.addStretch(1)
        notes_layout = QVBoxLayout(notes)
        notes_layout.addWidget(self.notes_label)
        notes_layout.addLayout(folder_row)
        self.show_notes_folder()
        return notes

    def show_notes_folder(self) -> None:
        own = self.cases.settings.config.kb.path
        where = self.cases.notes.location
        if own:
            text = f"Coach reads your notes in {where}, and writes only what you change there."
        else:
            text = (
                f"Coach starts with a few sample notes ({where}). Already keep notes in "
                "Obsidian, Logseq or another folder of Markdown files? Open it: Coach reads it "
                "as it is, titles notes without a title by their file name, and writes only "
                "what you change."
            )
        self.notes_label.setText(text)

    def _show_privacy(self, *_changed: object) -> None:
        self.privacy_label.setText(self.privacy.summary_html())

    def _show_tier1(self, status: Tier1Status) -> None:
        text = tier1_text(status)
        self.tier1_label.setText(text)
        self.tier1_label.setAccessibleDescription(text)
        self.download_button.setVisible(status.state is Tier1State.MODEL_MISSING)

    def use_server(self, wire: str, url: str, model: str) -> None:
        """Save the chosen server and model through the config's one writer, then check
        it again as the status bar does."""
        path = self._owner.path

        def not_saved(_error: Exception) -> None:
            self.server_finder.status_label.setText(
                f"The choice could not be saved to {path}: check that its folder can be "
                "written, then choose again."
            )

        try:
            self._owner.update(
                {"tier1.server": wire, "tier1.ollamaUrl": url, "tier1.model": model},
                done=self._server_saved,
                failed=not_saved,
                what="server",
            )
        except ConfigError:  # (a found server is on loopback; nothing was changed)
            self.server_finder.status_label.setText(
                "Coach cannot use that server: choose another, or type its address in Settings."
            )

    def _server_saved(self, config: Config) -> None:
        self.tier1_indicator.set_model(config.tier1.model)  # and check again
        self.server_saved.emit(config)

    def download_model(self) -> None:
        from coach_gui.ui.practice.model_download import ModelDownloadDialog

        dialog = ModelDownloadDialog.for_server(self.cases.practice.local_server, self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.downloaded.connect(self.model_downloaded)
        dialog.downloaded.connect(self._after_download)
        dialog.open()

    def _after_download(self, _model: str) -> None:
        self.tier1_indicator.refresh()


def show_welcome(window: MainWindow) -> WelcomeDialog:
    """Open the welcome over the main window (Help > Welcome…, and once on first run)."""
    dialog = WelcomeDialog(window.cases, window.privacy, window, owner=window.config_owner)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.model_downloaded.connect(window.views.tier1_status.refresh)
    # (A server chosen here reaches the status line through the owner: the window follows
    # tier1 settings, ADR 0035.)
    dialog.folder_button.clicked.connect(window.open_notes_folder)
    window.notes_listed.connect(dialog.show_notes_folder)
    dialog.open()
    return dialog
