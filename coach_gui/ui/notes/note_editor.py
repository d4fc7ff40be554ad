"""The right pane: one note's title, source, tags, core assertions and Markdown body."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pydantic import ValidationError
from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.errors import NoteConflict, NoteError
from coach_gui.domain.notes import Note, NoteEntry, new_note_id
from coach_gui.ui.kit.tasks import Lane, Task
from coach_gui.ui.kit.theme import warning_colour
from coach_gui.ui.markdown.markdown_body import MarkdownBody
from coach_gui.ui.notes.assertion_list import AssertionListEditor

if TYPE_CHECKING:
    from coach_gui.services.ports.notes import NoteStore

EMPTY_STATE = "No note open.\n\nSelect a note on the left, or press Ctrl+N to write a new one."


@dataclass(frozen=True)
class _FormState:
    """What the widgets show, read back from them; equal states mean nothing changed."""

    title: str
    source: str
    tags: str
    assertions: tuple[str, ...]
    body: str


def parse_tags(text: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in text.split(",") if t.strip())


class NoteEditor(QWidget):
    saved = Signal(object)  # NoteEntry, after the file is written
    dirty_changed = Signal(bool)
    title_changed = Signal(str)

    def __init__(self, store: NoteStore, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._note: Note | None = None  # as last loaded or saved; None for a new note
        self._note_id: str | None = None
        self._file_name: str | None = None  # None for a note not saved yet
        self._new_folder = ""  # where a new note is created (the open note's folder)
        self._changed_elsewhere = False  # its file changed on disk under unsaved edits
        self._new_notes_folder: Callable[[], str | None] = lambda: None  # kb.newNotesFolder
        self._baseline: _FormState | None = None
        self._dirty = False
        self._saving = False
        self._loading = False

        self.empty_label = QLabel(EMPTY_STATE, self)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setWordWrap(True)
        self.empty_label.setEnabled(False)
        self.empty_label.setAccessibleName("No note open")

        self.title_edit = QLineEdit(self)
        self.title_edit.setPlaceholderText("Title")
        title_font = QFont(self.title_edit.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.5)  # scales with the OS font
        title_font.setWeight(QFont.Weight.DemiBold)
        self.title_edit.setFont(title_font)
        self.title_edit.setFrame(False)
        heading = self.title_edit.palette()  # reads as a heading, edits like a field
        heading.setColor(QPalette.ColorRole.Base, heading.color(QPalette.ColorRole.Window))
        self.title_edit.setPalette(heading)
        self.title_edit.setAccessibleName("Note title")
        self.title_edit.setAccessibleDescription("The note's title; every note needs one")

        self.problem_label = QLabel(self)
        self.problem_label.setWordWrap(True)
        self.problem_label.setAccessibleName("Problem with this note")
        self.problem_label.setStyleSheet(f"color: {warning_colour(self.palette())};")
        self.problem_label.hide()

        self.file_label = QLabel(self)
        self.file_label.setEnabled(False)
        self.file_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.file_label.setAccessibleName("Note file")

        self.source_edit = QLineEdit(self)
        self.source_edit.setPlaceholderText("Book, chapter or page this note distils")
        self.source_edit.setAccessibleName("Source")
        self.source_edit.setAccessibleDescription("Where the ideas in this note come from")
        self.tags_edit = QLineEdit(self)
        self.tags_edit.setPlaceholderText("Comma-separated, e.g. memory, habits")
        self.tags_edit.setAccessibleName("Tags")
        self.tags_edit.setAccessibleDescription("Tags separated by commas")
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        source_label = QLabel("S&ource", self)
        source_label.setBuddy(self.source_edit)
        tags_label = QLabel("Ta&gs", self)
        tags_label.setBuddy(self.tags_edit)
        form.addRow(source_label, self.source_edit)
        form.addRow(tags_label, self.tags_edit)

        self.assertions = AssertionListEditor(self)
        assertions_box = QGroupBox("Core assertions", self)
        assertions_box.setAccessibleName("Core assertions")
        QVBoxLayout(assertions_box).addWidget(self.assertions)

        self.body_tabs = MarkdownBody(self)
        self.body_edit, self.preview = self.body_tabs.edit, self.body_tabs.preview

        self.splitter = QSplitter(Qt.Orientation.Vertical, self)
        self.splitter.addWidget(assertions_box)
        self.splitter.addWidget(self.body_tabs)
        self.splitter.setStretchFactor(0, 2)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setSizes([240, 360])

        self.form_page = form_page = QWidget(self)
        page = QVBoxLayout(form_page)
        page.setContentsMargins(12, 6, 12, 6)
        page.addWidget(self.title_edit)
        page.addWidget(self.problem_label)
        page.addWidget(self.file_label)
        page.addLayout(form)
        page.addWidget(self.splitter, 1)
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty_label)
        self.stack.addWidget(form_page)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.stack)

        for signal in (
            self.title_edit.textChanged,
            self.source_edit.textChanged,
            self.tags_edit.textChanged,
            self.body_edit.textChanged,
            self.assertions.changed,
        ):
            signal.connect(self._on_edited)
        self.setTabOrder(self.title_edit, self.source_edit)
        self.setTabOrder(self.source_edit, self.tags_edit)
        self.setTabOrder(self.tags_edit, self.assertions.list)
        self.setTabOrder(self.assertions.list, self.body_tabs)

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:  # the OS switched light/dark
            self.problem_label.setStyleSheet(f"color: {warning_colour(self.palette())};")

    # --- what is open --------------------------------------------------------------
    def has_note(self) -> bool:
        return self._baseline is not None

    def is_dirty(self) -> bool:
        return self._dirty

    def is_saving(self) -> bool:
        return self._saving

    def current_note_id(self) -> str | None:
        """The open note's id (a new note has one before its first save)."""
        return self._note_id

    def file_name(self) -> str | None:
        return self._file_name

    def display_title(self) -> str:
        return self.title_edit.text().strip() or "Untitled note"

    def show_note(self, entry: NoteEntry | None) -> None:
        """Open `entry` (None: the empty state). The caller has already guarded edits."""
        if entry is None:
            self._note, self._note_id, self._file_name, self._baseline = None, None, None, None
            self.stack.setCurrentWidget(self.empty_label)
            self._set_dirty(False)
            self.title_changed.emit("")
            return
        self._fill(entry.note, entry.file_name)

    def take_new_id(self, old_id: str, entry: NoteEntry) -> bool:
        """The open note's file is listed under a new id now (a restored note took its
        old one back): keep the form and its edits, under the new id. False when the open
        note is not that file."""
        if self._note_id != old_id or self._file_name != entry.file_name:
            return False
        self._note_id = entry.note.id
        if self._note is not None:
            self._note = self._note.model_copy(update={"id": entry.note.id})
        return True

    def set_store(self, store: NoteStore) -> None:
        """Save into this store from now on (another notes folder was opened)."""
        self._store = store

    def set_new_notes_folder(self, folder: Callable[[], str | None]) -> None:
        """Where new notes go (read when one is started), instead of the open note's folder."""
        self._new_notes_folder = folder

    def new_note(self) -> None:
        """Open a blank note; it gets its file, named after its title, when first saved,
        in the folder of the note that was open (the vault's top when none was)."""
        opened = self._file_name or ""
        configured = self._new_notes_folder()
        if configured is not None:  # kb.newNotesFolder: one place for every new note
            self._new_folder = configured
        else:
            self._new_folder = opened.rsplit("/", 1)[0] if "/" in opened else ""
        self._fill(None, None)
        self.title_edit.setFocus()

    def _fill(self, note: Note | None, file_name: str | None) -> None:
        self._loading = True
        self._changed_elsewhere = False
        try:
            self._note, self._file_name = note, file_name
            self._note_id = note.id if note else new_note_id()
            self.title_edit.setText(note.title if note else "")
            self.source_edit.setText(note.source if note else "")
            self.tags_edit.setText(", ".join(note.tags) if note else "")
            self.assertions.set_assertions(note.core_assertions if note else ())
            self.body_tabs.set_text(note.body if note else "")
        finally:
            self._loading = False
        self._baseline = self._form_state()
        self.problem_label.hide()
        self.file_label.setText(
            f"{file_name}" if file_name else "New note, not saved yet (Ctrl+S saves it)"
        )
        self.stack.setCurrentWidget(self.form_page)
        self._set_dirty(False)
        self.title_changed.emit(self.display_title())

    # --- editing -------------------------------------------------------------------
    def _form_state(self) -> _FormState:
        return _FormState(
            title=self.title_edit.text(),
            source=self.source_edit.text(),
            tags=self.tags_edit.text(),
            assertions=self.assertions.assertions(),
            body=self.body_tabs.text(),  # exactly as typed (no Qt plain-text folding)
        )

    def _on_edited(self) -> None:
        if self._loading or self._baseline is None:
            return
        if self.title_edit.text().strip():
            self.problem_label.hide()
        self._set_dirty(self._form_state() != self._baseline)
        self.title_changed.emit(self.display_title())

    def _set_dirty(self, dirty: bool) -> None:
        if dirty != self._dirty:
            self._dirty = dirty
            self.dirty_changed.emit(dirty)

    def note_from_form(self) -> Note:
        """The note as the form shows it. Fields left as loaded keep their exact text, so
        saving an unchanged field never rewrites it. NoteError says what to fix."""
        state, base, old = self._form_state(), self._baseline, self._note
        if base is None:
            raise NoteError("No note is open.")
        if not state.title.strip():
            raise NoteError("A note needs a title: type one above, then save (Ctrl+S).")
        try:
            if old is None:
                return Note(
                    id=self._note_id or new_note_id(),
                    title=state.title.strip(),
                    source=state.source.strip(),
                    tags=parse_tags(state.tags),
                    core_assertions=state.assertions,
                    body=state.body,
                )
            return Note(
                id=old.id,
                title=old.title if state.title == base.title else state.title.strip(),
                source=old.source if state.source == base.source else state.source.strip(),
                tags=old.tags if state.tags == base.tags else parse_tags(state.tags),
                aliases=old.aliases,  # not in the form: kept as the file has them
                core_assertions=state.assertions,
                body=old.body if state.body == base.body else state.body,
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            field = str(first["loc"][0]) if first["loc"] else "note"
            message = str(first["msg"]).removeprefix("Value error, ")  # pydantic's wording
            raise NoteError(f"The {field.replace('_', ' ')} is not valid: {message}.") from None

    def show_problem(self, text: str) -> None:
        self.problem_label.setText(text)
        self.problem_label.show()

    def save(self, then: Callable[[], None] | None = None) -> bool:
        """Write the note in the background; `then` runs once it is on disk. False (and
        an inline message) when the form cannot be saved as it is."""
        if self._saving or not self.has_note():
            return False
        try:
            note = self.note_from_form()
        except NoteError as exc:
            self.show_problem(str(exc))
            self.title_edit.setFocus()
            return False
        self._saving = True
        at_save = self._form_state()
        store = self._store
        folder = self._new_folder if self._note is None else ""
        opened_from = self._file_name  # the store refuses if its id is another file's now
        elsewhere = self._changed_elsewhere

        def write(_progress: object) -> tuple[NoteEntry, bool]:
            """Save; when another program changed the file too, keep both (ADR 0016):
            theirs stays in the file, the learner's edit becomes a note beside it."""
            if not elsewhere:
                try:
                    return store.save(note, folder=folder, file_name=opened_from), False
                except NoteConflict:
                    pass
            return store.save_copy(note, file_name=opened_from), True

        Task(
            self,
            op=write,
            success=lambda saved: self._on_saved(saved[0], at_save, then, kept_both=saved[1]),
            failure=self._on_save_failed,
            lane=Lane.WRITER,
            name="save note",
        ).run()
        return True

    def loaded_note(self) -> Note | None:
        """The note as last loaded or saved (not the form's edits)."""
        return self._note

    def mark_changed_elsewhere(self, gone: bool = False) -> None:
        """Another program changed (or, `gone`, moved or deleted) the open note's file
        while it has unsaved edits here: say so; saving will keep both versions."""
        self._changed_elsewhere = True
        what = "moved or deleted" if gone else "changed"
        self.show_problem(
            f"Another program {what} “{self.display_title()}” while you were editing it. "
            "Your edits are still here; saving (Ctrl+S) keeps both: the file stays as the "
            "other program left it, and yours is saved beside it as a note of its own."
        )

    def _on_saved(
        self,
        entry: NoteEntry,
        at_save: _FormState,
        then: Callable[[], None] | None,
        *,
        kept_both: bool = False,
    ) -> None:
        self._saving = False
        self._changed_elsewhere = False
        if kept_both:  # the copy is the note open now: show it as it was saved
            other = self._file_name or "the file"
            self._fill(entry.note, entry.file_name)
            self.show_problem(
                f"Both versions are kept: {other} as the other program left it, and your "
                f"edit as {entry.file_name} (open now)."
            )
            self.saved.emit(entry)
            if then is not None:
                then()
            return
        self._note, self._file_name, self._note_id = entry.note, entry.file_name, entry.note.id
        self._baseline = at_save  # typing that happened during the save stays unsaved
        self.file_label.setText(entry.file_name)
        self._set_dirty(self._form_state() != at_save)
        self.title_changed.emit(self.display_title())
        self.saved.emit(entry)
        if then is not None:
            then()

    def _on_save_failed(self, error: Exception) -> None:
        from coach_gui.ui.kit.failures import show_failure

        self._saving = False
        show_failure(self, error)
