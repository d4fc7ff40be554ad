"""Settings: edits coach.config.json, validated as you type, saved in the background."""

from __future__ import annotations

from collections.abc import Callable
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

from coach_gui.config import Config
from coach_gui.domain.errors import ConfigError
from coach_gui.domain.sync import SYNC_FOLDER_HOLDS
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.screen_fit import fit_on_screen, screen_room
from coach_gui.ui.kit.theme import warning_colour
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.key_settings import GeminiKeySection
from coach_gui.ui.settings.server_finder import Finder, ServerFinder
from coach_gui.ui.settings.settings_rows import (
    GROUPS,
    Choice,
    Row,
    Seconds,
    Slot,
    Switch,
    Text,
    Whole,
)

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

    # One field per row of the table (settings_rows), made as the rows are built.
    tier1_server: QComboBox
    ollama_url: QLineEdit
    tier1_model: QLineEdit
    connect_timeout: QDoubleSpinBox
    read_timeout: QDoubleSpinBox
    challenges_per_session: QSpinBox
    follow_ups: QCheckBox
    desired_retention: QDoubleSpinBox
    new_per_day: QSpinBox
    new_order: QComboBox
    leech_lapses: QSpinBox
    judge_provider: QComboBox
    local_judge_model: QLineEdit
    local_judge_timeout: QDoubleSpinBox
    judge_enabled: QCheckBox
    include_assertions: QCheckBox
    review_payloads: QCheckBox
    judge_model: QLineEdit
    judge_timeout: QDoubleSpinBox
    max_shared_words: QSpinBox
    max_containment: QDoubleSpinBox
    shingle_words: QSpinBox
    sync_folder: QLineEdit

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
        self._slots: dict[str, Callable[[QFormLayout], None]] = {
            "notes folder": self._notes_folder_slot,
            "server finder": self._server_finder_slot,
            "judge endpoint": self._judge_endpoint_slot,
            "gemini key": self._key_slot,
            "sync folder": self._sync_folder_slot,
        }

        self._finder, self._keys, self._fingerprint = server_finder, keys, fingerprint
        for group in GROUPS:  # the table of rows (settings_rows), in order
            form = self._group(group.title)
            for row in group.rows:
                if isinstance(row, Slot):
                    self._slots[row.name](form)
                else:
                    self._row(form, row)
        self.judge_provider.currentIndexChanged.connect(self._show_provider)
        where = self._footer(path)
        self._lay_out(where)
        self._show(config)
        for _label, field, _ in self._fields.values():
            self._connect(field)
        self._fit_height()
        if self.key_section is not None:  # its messages come and go: make room for them
            self.key_section.content_changed.connect(lambda: QTimer.singleShot(0, self._fit_height))

    # --- what the table leaves to the dialog (settings_rows.Slot) ------------------------
    def _notes_folder_slot(self, notes: QFormLayout) -> None:
        """Where the notes are read from, and another folder."""
        self.notes_folder = QLabel(_folder_text(self.config), self)
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

    def _server_finder_slot(self, tier1: QFormLayout) -> None:
        """Find a local server already running, and fill the three fields above in."""
        self.server_finder: ServerFinder | None = None
        if self._finder is not None:
            self.server_finder = ServerFinder(
                self._finder, self, find_text="Find servers", use_text="Use this server"
            )
            self.server_finder.chosen.connect(self.use_server)
            tier1.addRow(self.server_finder)

    def _judge_endpoint_slot(self, judge: QFormLayout) -> None:
        """Where requests go: set in the file only (judge.baseUrl), shown here (issue 21)."""
        self.judge_endpoint = QLabel(self)
        self.judge_endpoint.setWordWrap(True)
        self.judge_endpoint.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.judge_endpoint.setAccessibleName("Judge endpoint")
        self.judge_endpoint.setAccessibleDescription(
            "Where judge requests go; it can be changed only in the settings file"
        )
        judge.addRow("Endpoint:", self.judge_endpoint)

    def _key_slot(self, _judge: QFormLayout) -> None:
        """The Gemini key: it lives in the OS keyring, saved on its own (a column's box)."""
        self.key_section: GeminiKeySection | None = None
        if self._keys is not None:
            self.key_section = GeminiKeySection(self._keys, self)

    def _sync_folder_slot(self, sync: QFormLayout) -> None:
        """Choosing the sync folder, what sync puts there, and this computer's fingerprint
        once it has synced (what the other computers show when they ask to pair it)."""
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
        if self._fingerprint:
            self.fingerprint_label = QLabel(
                f"This computer's fingerprint: <b>{self._fingerprint}</b>. Your other "
                "computers show it when they ask to pair this one.",
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

    def _row(self, form: QFormLayout, row: Row) -> None:
        """One row of the table: its field (kept as the dialog's `row.attr`), its label,
        and what it means under it."""
        kind = row.kind
        means = kind.means if isinstance(kind, Seconds) else row.means
        field: _Field
        if isinstance(kind, Switch):
            field = QCheckBox(row.label, self)
        elif isinstance(kind, Text):
            field = QLineEdit(self)
        elif isinstance(kind, Choice):
            field = QComboBox(self)
            for value, label in kind.options:
                field.addItem(label, value)
        elif isinstance(kind, Whole):
            field = QSpinBox(self)
            field.setRange(kind.low, kind.high)
            if kind.suffix:
                field.setSuffix(kind.suffix)
        elif isinstance(kind, Seconds):
            field = QDoubleSpinBox(self)
            field.setRange(kind.low, kind.high)
            field.setDecimals(1)
            field.setSuffix(" s")
        else:
            field = QDoubleSpinBox(self)
            field.setRange(kind.low, kind.high)
            field.setDecimals(kind.decimals)
            field.setSingleStep(kind.step)
        setattr(self, row.attr, field)
        self._add(form, row.key, row.label, field, means)
        if isinstance(field, QLineEdit) and isinstance(kind, Text) and kind.placeholder:
            field.setPlaceholderText(kind.placeholder)
        if row.name is not None:
            field.setAccessibleName(row.name)
        if isinstance(kind, Switch):
            note = QLabel(means + ".", self)  # privacy choices are explained, not hidden
            note.setWordWrap(True)
            note.setEnabled(False)
            note.setContentsMargins(24, 0, 0, 4)
            form.addRow(note)
        if row.reason is not None:
            self._reason(form, row.key, row.reason.means, row.reason.problem)

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
