"""Settings: edits coach.config.json, validated as you type, saved in the background."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from coach_gui.config import SETTING_NAMES, Config
from coach_gui.domain.errors import ConfigError
from coach_gui.domain.schedule_control import NEW_ORDER_WORDS
from coach_gui.domain.sync import SYNC_FOLDER_HOLDS
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.screen_fit import fit_on_screen, screen_room
from coach_gui.ui.kit.theme import warning_colour
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.key_settings import GeminiKeySection
from coach_gui.ui.settings.server_finder import Finder, ServerFinder

if TYPE_CHECKING:
    from coach_gui.operations.keys import Keys

_Field = QLineEdit | QCheckBox | QSpinBox | QDoubleSpinBox | QComboBox


class _Reason:
    """The line under a field that says what its value means and, when it cannot be used,
    why, in the learner's words (never the config key)."""

    def __init__(self, label: QLabel, means: str, problem: str) -> None:
        self.label, self.means, self.problem = label, means, problem


# A text field whose empty value means "off" (null in the settings file).
_EMPTY_IS_OFF = {"sync.folder"}
SYNC_EXPLAINED = (
    "Coach writes your sealed practice there, in a folder of this computer's own, signed "
    "with this computer's key. It reads what your other computers wrote and "
    "merges it, but only from computers you paired here (it asks, showing a fingerprint to "
    "compare). It leaves this computer only through your sync tool. " + SYNC_FOLDER_HOLDS
)


def _folder_text(config: Config) -> str:
    if config.kb.path:
        return f"Your notes are read from {config.kb.path}."
    return "Coach's sample notes, in its own folder. Open your vault to use your own notes."


class SettingsDialog(QDialog):
    """`config` holds the saved settings once the dialog is accepted. With `keys` the
    dialog has a *Gemini API key* section, which can test the connection when the keys
    can (they build the judge from the saved settings). `fingerprint`:
    this computer's sync fingerprint once it has synced, shown under Sync (issue 34)."""

    def __init__(
        self,
        owner: ConfigOwner,
        parent: QWidget | None = None,
        *,
        keys: Keys | None = None,
        fingerprint: str | None = None,
        server_finder: Finder | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings — Coach")
        self.setAccessibleName("Settings")
        self._owner = owner
        config = self.config = owner.config  # as the form shows it
        path = owner.path
        self._fields: dict[str, tuple[QLabel | None, _Field, str]] = {}
        self._reasons: dict[str, _Reason] = {}
        self._pending: Config | None = config
        self._boxes: list[QGroupBox] = []

        self._notes_group(config)
        self._tier1_group(server_finder)
        self._practice_group()
        self._judge_group(keys)
        self._no_quote_group()
        self._sync_group(fingerprint)
        where = self._footer(path)
        self._lay_out(where)
        self._show(config)
        for _label, field, _ in self._fields.values():
            self._connect(field)
        self._fit_height()
        if self.key_section is not None:  # its messages come and go: make room for them
            self.key_section.content_changed.connect(lambda: QTimer.singleShot(0, self._fit_height))

    def _notes_group(self, config: Config) -> None:
        """Notes: where the notes are read from, and another folder."""
        notes = self._group("Notes (your knowledge base)")
        self.notes_folder = QLabel(_folder_text(config), self)
        self.notes_folder.setWordWrap(True)
        self.notes_folder.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.notes_folder.setAccessibleName("Notes folder")
        self.folder_button = QPushButton("O&pen another folder…", self)
        self.folder_button.setAccessibleName("Open another notes folder")
        self.folder_button.setAccessibleDescription(
            "Use your own vault or folder of Markdown notes; it is read first, then you decide"
        )
        self.folder_button.setAutoDefault(False)
        folder_row = QHBoxLayout()
        folder_row.addWidget(self.folder_button)
        folder_row.addStretch(1)
        notes.addRow(self.notes_folder)  # a whole row: a long path wraps, never clips
        notes.addRow(folder_row)

    def _tier1_group(self, server_finder: Finder | None) -> None:
        """The local model: its server, address and model, and finding one running."""
        tier1 = self._group("Local model (Tier 1, on this computer)")
        # Its wire format (issue 31): Ollama's own API, or OpenAI's, which LM Studio,
        # llama.cpp's llama-server, Jan, vLLM and GPT4All serve. No Alt letter: none is free.
        self.tier1_server = self._choice(
            tier1,
            "tier1.server",
            "Local model server",
            (("ollama", "Ollama"),
             ("openai", "OpenAI-compatible (LM Studio, llama.cpp, Jan, vLLM, GPT4All)")),
            "Which kind of server writes the challenges (and grades, with the judge on this "
            "computer)",
        )  # fmt: skip
        self.ollama_url = self._text(
            tier1,
            "tier1.ollamaUrl",
            "L&ocal server address",
            "Where the model server listens; it must be on this computer",
        )
        self.tier1_model = self._text(
            tier1,
            "tier1.model",
            "&Model",
            "The model that writes challenges, e.g. llama3.2:3b",
        )
        self.server_finder: ServerFinder | None = None
        if server_finder is not None:  # find one already running, and fill the three in
            self.server_finder = ServerFinder(
                server_finder, self, find_text="Find servers", use_text="Use this server"
            )
            self.server_finder.chosen.connect(self.use_server)
            tier1.addRow(self.server_finder)
        # Five fields have no Alt+letter (this one; Order of new notes and Flag a key point
        # after, under Practice; Longest shared run and Most overlap allowed): the dialog
        # has more controls than letters, and each letter is one control's (Tab reaches
        # these). The daily limit of new notes took Longest shared run's L.
        self.connect_timeout = self._seconds(
            tier1, "tier1.connectTimeoutSeconds", "Connect timeout", 0.5, 60
        )
        self.read_timeout = self._seconds(
            tier1, "tier1.readTimeoutSeconds", "&Read timeout", 1, 3600
        )

    def _practice_group(self) -> None:
        """Practice: challenges, follow-ups, new notes a day, retention and the rest."""
        practice = self._group("Practice")
        self.challenges_per_session = QSpinBox(self)
        self.challenges_per_session.setRange(1, 20)
        self._add(
            practice,
            "tier1.challengesPerSession",
            "C&hallenges per session",
            self.challenges_per_session,
            "How many challenges each practice session asks",
        )
        self._reason(
            practice,
            "tier1.challengesPerSession",
            "From 1 to 20, not counting follow-ups; the next session you start uses it.",
            "Type a whole number from 1 to 20.",
        )
        self.follow_ups = self._check(
            practice,
            "tier1.followUps",
            "Ask a &follow-up on each answer",
            "On: after each answer the local model asks one more question about it. Off: "
            "straight on to the next challenge",
        )
        self.desired_retention = QDoubleSpinBox(self)
        self.desired_retention.setRange(0.70, 0.99)
        self.desired_retention.setDecimals(2)
        self.desired_retention.setSingleStep(0.01)
        self._add(
            practice,
            "schedule.desiredRetention",
            "Desired r&etention",
            self.desired_retention,
            "How likely you should still recall a key point when it comes due again",
        )
        self._reason(
            practice,
            "schedule.desiredRetention",
            "Between 0.70 and 0.99: the chance you still recall a key point when it comes "
            "due. Higher means more reviews.",
            "Type a number between 0.70 and 0.99 (0.90 is the default). Higher means more reviews.",
        )
        self.new_per_day = QSpinBox(self)
        self.new_per_day.setRange(0, 500)
        self.new_per_day.setSuffix(" a day")
        self._add(
            practice,
            "schedule.newPerDay",
            "Daily &limit of new notes",
            self.new_per_day,
            "How many notes you have not practised yet Today brings in each day",
        )
        self._reason(
            practice,
            "schedule.newPerDay",
            "From 0 to 500 notes you have not practised yet, brought into Today each day; "
            "0 brings in none. Today follows it as soon as you save.",
            "Type a whole number from 0 to 500 (5 is the default).",
        )
        self.new_order = self._choice(
            practice,
            "schedule.newOrder",
            "Order of new notes",
            tuple(NEW_ORDER_WORDS.items()),
            "Which of the notes you have not practised yet Today brings in first",
        )
        self._reason(
            practice,
            "schedule.newOrder",
            "Which notes you have not practised yet come first; the daily limit above says "
            "how many.",
            "Choose one of the orders in the list.",
        )
        self.leech_lapses = QSpinBox(self)
        self.leech_lapses.setRange(1, 100)
        self.leech_lapses.setSuffix(" misses")
        self._add(
            practice,
            "schedule.leechLapses",
            "Flag a key point after",
            self.leech_lapses,
            "A key point you have missed this many times is flagged in Today",
        )
        self.leech_lapses.setAccessibleName(SETTING_NAMES["schedule.leechLapses"])
        self._reason(
            practice,
            "schedule.leechLapses",
            "From 1 to 100: a key point missed this many times is flagged in Today, so you "
            "can reword it (missing it again and again often means it is unclear).",
            "Type a whole number from 1 to 100 (4 is the default).",
        )

    def _judge_group(self, keys: Keys | None) -> None:
        """The judge: who grades, its model, the endpoint, and the Gemini key."""
        judge = self._group("Judge (Tier 2)")
        self.judge_provider = self._choice(
            judge,
            "judge.provider",
            "&Who grades",
            (("gemini", "Google Gemini"), ("local", "This computer (Ollama)")),
            "Google Gemini: the judge runs at Google and gets what the switches below allow. "
            "This computer: a model in Ollama grades; slower, but nothing leaves",
        )
        self.local_judge_model = self._text(
            judge,
            "judge.localModel",
            "Local j&udge model",
            "The Ollama model that grades when the judge runs on this computer, e.g. qwen2.5:7b",
        )
        self.local_judge_timeout = self._seconds(
            judge, "judge.localTimeoutSeconds", "Local judge t&ime limit", 1, 3600
        )
        self.judge_enabled = self._check(
            judge,
            "judge.enabled",
            "&Judge answers",
            "Off: nothing is judged; answers are kept and can be judged later",
        )
        self.include_assertions = self._check(
            judge,
            "judge.includeAssertions",
            "Send core &assertions to the judge",
            "On: the judge gets each challenge, your answer and the note's core assertions. "
            "Off: only the challenge and your answer. Never the note's text, title or tags",
        )
        self.review_payloads = self._check(
            judge,
            "judge.reviewPayloads",
            "Review each payload &before it is sent",
            "Shows exactly what would go to the judge and waits for Send or Don't send",
        )
        self.judge_model = self._text(
            judge, "judge.model", "&Gemini model", "The Gemini model that grades answers"
        )
        self.judge_timeout = self._seconds(judge, "judge.timeoutSeconds", "Gemini &timeout", 1, 600)
        self.judge_provider.currentIndexChanged.connect(self._show_provider)
        # Where requests go: set in the file only (judge.baseUrl), shown here (issue 21).
        self.judge_endpoint = QLabel(self)
        self.judge_endpoint.setWordWrap(True)
        self.judge_endpoint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.judge_endpoint.setAccessibleName("Judge endpoint")
        self.judge_endpoint.setAccessibleDescription(
            "Where judge requests go; it can be changed only in the settings file"
        )
        judge.addRow("Endpoint:", self.judge_endpoint)
        # The key is not a setting in the file: it lives in the OS keyring, saved on its own.
        self.key_section: GeminiKeySection | None = None
        if keys is not None:
            self.key_section = GeminiKeySection(keys, self)

    def _no_quote_group(self) -> None:
        """The no-quote check: how much of the note a challenge may share."""
        no_quote = self._group("No-quote check (challenges must not quote your note)")
        self.max_shared_words = QSpinBox(self)
        self.max_shared_words.setRange(2, 50)
        self.max_shared_words.setSuffix(" words")
        self._add(
            no_quote,
            "noQuote.maxSharedWords",
            "Longest shared run",
            self.max_shared_words,
            "A challenge sharing this many words in a row with the note is rejected",
        )
        self.max_containment = QDoubleSpinBox(self)
        self.max_containment.setRange(0.05, 1.0)
        self.max_containment.setSingleStep(0.05)
        self.max_containment.setDecimals(2)
        self._add(
            no_quote,
            "noQuote.maxContainment",
            "Most overlap allowed",
            self.max_containment,
            "Share of a challenge's word groups that may also appear in the note (0–1)",
        )
        self.shingle_words = QSpinBox(self)
        self.shingle_words.setRange(1, 10)
        self.shingle_words.setSuffix(" words")
        self._add(
            no_quote,
            "noQuote.shingleWords",
            "Word group si&ze",
            self.shingle_words,
            "How many words in a row make one word group for the overlap measure",
        )

    def _sync_group(self, fingerprint: str | None) -> None:
        """Sync: the folder, and this computer's fingerprint once it has synced."""
        sync = self._group("Sync (your other computers)")
        self.sync_folder = self._text(
            sync,
            "sync.folder",
            "Sync folder",
            "A folder your own sync tool carries to your other computers; empty: sync is off",
        )
        self.sync_folder.setPlaceholderText("Off: nothing is synced")
        self.sync_button = QPushButton("Choose sync folder…", self)
        self.sync_button.setAccessibleName("Choose the sync folder")
        self.sync_button.setAccessibleDescription(
            "A folder that Syncthing, Dropbox, iCloud Drive, Obsidian Sync or git carries"
        )
        self.sync_button.setAutoDefault(False)
        self.sync_button.clicked.connect(self._choose_sync_folder)
        sync_row = QHBoxLayout()
        sync_row.addWidget(self.sync_button)
        sync_row.addStretch(1)
        sync.addRow(sync_row)
        sync_note = QLabel(SYNC_EXPLAINED, self)
        sync_note.setWordWrap(True)
        sync_note.setEnabled(False)
        sync_note.setAccessibleName("What sync puts there")
        sync.addRow(sync_note)
        self.fingerprint_label: QLabel | None = None
        if fingerprint:  # what the other computers show when they ask to pair this one
            self.fingerprint_label = QLabel(
                f"This computer's fingerprint: <b>{fingerprint}</b>. Your other computers "
                "show it when they ask to pair this one.",
                self,
            )
            self.fingerprint_label.setWordWrap(True)
            self.fingerprint_label.setTextInteractionFlags(
                Qt.TextInteractionFlag.TextSelectableByMouse
            )
            self.fingerprint_label.setAccessibleName("This computer's fingerprint")
            sync.addRow(self.fingerprint_label)

    def _footer(self, path: Path) -> QLabel:
        """The problem line, where the file is, and the buttons; returns where the file is."""
        self.problem_label = QLabel(self)
        self.problem_label.setWordWrap(True)
        self.problem_label.setStyleSheet(f"color: {warning_colour(self.palette())};")
        self.problem_label.setAccessibleName("Problem with these settings")
        self.problem_label.hide()
        where = QLabel(f"Saved in {path}", self)
        where.setEnabled(False)
        where.setWordWrap(True)
        where.setAccessibleName("Settings file location")

        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults,
            self,
        )
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("&Save")
        self.ok_button.setAccessibleName("Save settings")
        cancel = self.buttons.button(QDialogButtonBox.StandardButton.Cancel)
        cancel.setText("&Cancel")
        cancel.setAccessibleName("Cancel")
        defaults = self.buttons.button(QDialogButtonBox.StandardButton.RestoreDefaults)
        defaults.setText("Restore &defaults")
        defaults.setAccessibleName("Restore default settings")
        defaults.setAccessibleDescription("Fills in the default values; nothing is saved yet")
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        defaults.clicked.connect(lambda: self._show(Config()))
        return where

    def _lay_out(self, where: QLabel) -> None:
        """Two columns of groups that scroll, the footer below, one label column."""
        # Two columns, local on the left and the judge on the right: one column of five
        # groups is taller than a 768-pixel laptop screen.
        notes_box, tier1_box, practice_box, judge_box, no_quote_box, sync_box = self._boxes
        self._columns = columns = QBoxLayout(QBoxLayout.Direction.LeftToRight)  # see resizeEvent
        left = [notes_box, practice_box, tier1_box, no_quote_box]
        for boxes in (left, [judge_box, self.key_section, sync_box]):
            column = QVBoxLayout()
            for box in filter(None, boxes):
                box.setMinimumWidth(self.fontMetrics().averageCharWidth() * 70)  # for notes
                column.addWidget(box)
            column.addStretch(1)
            columns.addLayout(column, 1)
        # The fields scroll when the screen is shorter than all of them (a 1.5x laptop
        # screen); the problem, the file and the buttons below them stay in view.
        self._fields_box = QWidget(self)
        self._fields_box.setLayout(columns)
        self._fields_scroll = fields = QScrollArea(self)
        fields.setWidget(self._fields_box)
        fields.setWidgetResizable(True)
        fields.setFrameShape(QScrollArea.Shape.NoFrame)
        fields.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes through the fields inside
        layout = QVBoxLayout(self)
        layout.addWidget(fields, 1)
        layout.addWidget(self.problem_label)
        layout.addWidget(where)
        layout.addWidget(self.buttons)

        labels = [label for label, _field, _name in self._fields.values() if label is not None]
        if self.key_section is not None:
            labels += self.key_section.labels()
        width = max(label.sizeHint().width() for label in labels)
        for label in labels:  # one label column across the three groups
            label.setMinimumWidth(width)

    def resizeEvent(self, event: QResizeEvent) -> None:
        """The two columns side by side when there is room for both, else one above the
        other (a screen 768 pixels wide at 1.5x): the fields scroll down, not sideways."""
        super().resizeEvent(event)
        columns = self._columns
        items = (columns.itemAt(n) for n in range(columns.count()))
        both = sum(item.minimumSize().width() for item in items if item is not None)
        both += columns.spacing() * (columns.count() - 1)
        scroll = self._fields_scroll
        room = scroll.width() - scroll.verticalScrollBar().sizeHint().width()
        wanted = (
            QBoxLayout.Direction.LeftToRight if room >= both else QBoxLayout.Direction.TopToBottom
        )
        if columns.direction() != wanted:
            columns.setDirection(wanted)

    def _fit_height(self) -> None:
        """Tall enough for every field and its wrapped text (a window's own size ignores
        text's height for width), as far as the screen has room; beyond it they scroll."""
        layout, fields, scroll = self.layout(), self._fields_box, self._fields_scroll
        assert layout is not None
        layout.activate()
        margins = layout.contentsMargins()
        beside = margins.left() + margins.right() + scroll.verticalScrollBar().sizeHint().width()
        width = self.width() if self.isVisible() else fields.sizeHint().width() + beside
        content = fields.heightForWidth(width - beside)
        others = layout.totalSizeHint().height() - scroll.sizeHint().height()
        wanted = QSize(width, (content if content >= 0 else fields.sizeHint().height()) + others)
        if not self.isVisible():
            fit_on_screen(self, wanted)
        elif wanted.height() > self.height():  # only taller: the learner chose the width
            room = screen_room(self)
            height = min(wanted.height(), room.height()) if room else wanted.height()
            self.resize(self.width(), max(height, self.height()))

    # --- building ------------------------------------------------------------------
    def _group(self, title: str) -> QFormLayout:
        box = QGroupBox(title, self)
        box.setAccessibleName(title)
        self._boxes.append(box)
        form = QFormLayout(box)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        return form

    def _add(self, form: QFormLayout, key: str, text: str, field: _Field, help_text: str) -> None:
        field.setAccessibleName(text.replace("&", ""))
        field.setAccessibleDescription(help_text)
        field.setToolTip(help_text)
        if isinstance(field, QCheckBox):
            field.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)  # hit area
            form.addRow(field)
            self._fields[key] = (None, field, text.replace("&", ""))
            return
        label = QLabel(text, self)
        label.setBuddy(field)
        form.addRow(label, field)
        self._fields[key] = (label, field, text.replace("&", ""))

    def _text(self, form: QFormLayout, key: str, text: str, help_text: str) -> QLineEdit:
        field = QLineEdit(self)
        self._add(form, key, text, field, help_text)
        return field

    def _choice(
        self,
        form: QFormLayout,
        key: str,
        text: str,
        options: tuple[tuple[str, str], ...],
        help_text: str,
    ) -> QComboBox:
        field = QComboBox(self)
        for value, label in options:
            field.addItem(label, value)
        self._add(form, key, text, field, help_text)
        return field

    def _seconds(
        self, form: QFormLayout, key: str, text: str, low: float, high: float
    ) -> QDoubleSpinBox:
        field = QDoubleSpinBox(self)
        field.setRange(low, high)
        field.setDecimals(1)
        field.setSuffix(" s")
        self._add(form, key, text, field, f"Seconds to wait before giving up ({low:g}–{high:g})")
        return field

    def _check(self, form: QFormLayout, key: str, text: str, help_text: str) -> QCheckBox:
        field = QCheckBox(text, self)
        self._add(form, key, text, field, help_text)
        note = QLabel(help_text + ".", self)  # privacy choices are explained, not hidden
        note.setWordWrap(True)
        note.setEnabled(False)
        note.setContentsMargins(24, 0, 0, 4)
        form.addRow(note)
        return field

    def _reason(self, form: QFormLayout, key: str, means: str, problem: str) -> None:
        """Under the field of `key`, what its value means; `problem` replaces it, in the
        warning colour, while the value typed cannot be used."""
        label = QLabel(means, self)
        label.setWordWrap(True)
        label.setAccessibleName(f"About {self._fields[key][2]}")
        label.setContentsMargins(24, 0, 0, 4)  # a whole row, as a switch's note: fewer lines
        label.setEnabled(False)  # read as a note, until it says what is wrong
        form.addRow(label)
        self._reasons[key] = _Reason(label, means, problem)

    def _connect(self, field: _Field) -> None:
        if isinstance(field, QAbstractSpinBox):  # its own signals wait for a whole number
            field.lineEdit().textChanged.connect(self._validate)
        if isinstance(field, QLineEdit):
            field.textChanged.connect(self._validate)
        elif isinstance(field, QCheckBox):
            field.toggled.connect(self._validate)
        elif isinstance(field, QComboBox):
            field.currentIndexChanged.connect(self._validate)
        else:
            field.valueChanged.connect(self._validate)

    def _choose_sync_folder(self) -> None:
        start = self.sync_folder.text().strip() or str(Path.home())
        chosen = QFileDialog.getExistingDirectory(self, "Choose the sync folder", start)
        if chosen:
            self.sync_folder.setText(chosen)

    def _show_provider(self, *_args: object) -> None:
        """Only the chosen judge's own settings can be edited."""
        local = self.judge_provider.currentData() == "local"
        for field in (self.local_judge_model, self.local_judge_timeout):
            field.setEnabled(local)
        for field in (self.judge_model, self.judge_timeout):
            field.setEnabled(not local)
        judge = self.config.judge.model_copy(update={"provider": "local" if local else "gemini"})
        endpoint = judge.endpoint()
        if not local and judge.base_url is not None:
            endpoint += "  (not Google's default; set in the settings file)"
        self.judge_endpoint.setText(endpoint)
        if self.key_section is not None:
            self.key_section.setEnabled(not local)

    # --- values --------------------------------------------------------------------
    def use_server(self, wire: str, url: str, model: str) -> None:
        """Fill in a found server; saved with the rest on OK."""
        self.tier1_server.setCurrentIndex(max(self.tier1_server.findData(wire), 0))
        self.ollama_url.setText(url)
        self.tier1_model.setText(model)

    def use_notes_folder(self) -> None:
        """The notes folder was changed (and saved) from here: show it; OK keeps it (it
        saves only what was changed in this dialog)."""
        self.notes_folder.setText(_folder_text(self._owner.config))

    def _show(self, config: Config) -> None:
        data = config.to_json_dict()
        for key, (_label, field, _name) in self._fields.items():
            section, _, name = key.partition(".")
            value = data[section][name]
            if isinstance(field, QLineEdit):
                field.setText("" if value is None else str(value))
            elif isinstance(field, QCheckBox):
                field.setChecked(bool(value))
            elif isinstance(field, QComboBox):
                field.setCurrentIndex(max(field.findData(value), 0))
            elif isinstance(field, QSpinBox):
                field.setValue(int(value))
            else:
                field.setValue(float(value))
        self._show_provider()
        self._validate()

    def _changes(self) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        for key, (_label, field, _name) in self._fields.items():
            if isinstance(field, QLineEdit):
                changes[key] = field.text().strip()
                if key in _EMPTY_IS_OFF and not changes[key]:
                    changes[key] = None
            elif isinstance(field, QCheckBox):
                changes[key] = field.isChecked()
            elif isinstance(field, QComboBox):
                changes[key] = field.currentData()
            else:
                changes[key] = field.value()
        return changes

    def _half_typed(self) -> tuple[str, str] | None:
        """(key, why) of the first number typed that its field cannot take as it is."""
        for key, (_label, field, _name) in self._fields.items():
            if not isinstance(field, QAbstractSpinBox) or field.hasAcceptableInput():
                continue
            reason = self._reasons.get(key)
            if reason is not None:
                return key, reason.problem
            if isinstance(field, QSpinBox):
                low, high = str(field.minimum()), str(field.maximum())
            else:
                assert isinstance(field, QDoubleSpinBox)
                low, high = (
                    field.textFromValue(field.minimum()),
                    field.textFromValue(field.maximum()),
                )
            return key, f"type a number from {low} to {high}"
        return None

    def _validate(self, *_args: object) -> None:
        for label, _field, _name in self._fields.values():
            if label is not None:
                label.setStyleSheet("")
        for reason in self._reasons.values():
            reason.label.setText(reason.means)
            reason.label.setStyleSheet("")
            reason.label.setEnabled(False)
        problem = self._half_typed()
        if problem is None:
            try:
                self._pending = self.config.with_changes(self._changes())
            except ConfigError as exc:
                key = exc.key or ""
                known = self._reasons.get(key)  # in the field's own words, not the schema's
                problem = (key, known.problem if known is not None else exc.detail)
        if problem is None:
            self.problem_label.hide()
        else:
            self._pending = None
            self._show_problem(*problem)
        self.ok_button.setEnabled(self._pending is not None)
        QTimer.singleShot(0, self._fit_height)  # the problem line may have appeared

    def _show_problem(self, key: str, detail: str) -> None:
        """Beside the field when it has a note of its own, and at the bottom, why Save waits."""
        warning = f"color: {warning_colour(self.palette())};"
        known = self._fields.get(key)
        label, name = (known[0], known[2]) if known else (None, "This setting")
        if label is not None:
            label.setStyleSheet(warning)
        reason = self._reasons.get(key)
        if reason is not None:
            reason.label.setText(detail)
            reason.label.setStyleSheet(warning)
            reason.label.setEnabled(True)
            detail = detail[:1].lower() + detail[1:]
        self.problem_label.setText(f"{name}: {detail}")
        self.problem_label.setAccessibleDescription(self.problem_label.text())
        self.problem_label.show()

    def _save(self) -> None:
        pending = self._pending
        if pending is None:
            return
        # Only what was changed here, onto the settings as they are now: the window's one
        # owner writes them, so nothing changed elsewhere meanwhile is written back stale.
        before, after = self.config.to_json_dict(), pending.to_json_dict()
        changes: dict[str, Any] = {}
        for key in self._fields:
            section, _, name = key.partition(".")
            if after[section][name] != before[section][name]:
                changes[key] = after[section][name]
        self.ok_button.setEnabled(False)
        try:
            self._owner.update(
                changes, done=self._saved, failed=self._save_failed, what="change in Settings"
            )
        except ConfigError as error:
            self._save_failed(error)

    def _saved(self, config: Config) -> None:
        self.config = config
        self.accept()

    def _save_failed(self, error: Exception) -> None:
        self.ok_button.setEnabled(True)
        show_failure(self, error)
