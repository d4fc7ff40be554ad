"""The main window: note list on the left, the open note on the right.

It opens in two steps, so it is on screen before the rest of Coach is loaded (issue 16):
`MainWindow()` builds the frame the first paint shows — menus, toolbar, the note list with
its search box (typing works at once), the status bar — from Qt and a few light modules;
`show_kept(listing)` lists the notes as Coach last listed them, searchable, before a note
file is read (issue 38, ADR 0036); `attach(cases)` then adds what needs the use cases (the
editor, the other views, the privacy switches) and starts loading the notes, which correct
the list in place. `MainWindow(cases)` does both at once; the window is given the use cases
(`operations.cases.UseCases`) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QAction, QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QLabel,
    QMainWindow,
    QMenu,
    QSplitter,
    QStackedWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from coach_gui.ui.kit import window_state
from coach_gui.ui.kit.eliding_label import ElidingLabel
from coach_gui.ui.kit.tasks import Lane, Task, wait_for_writes
from coach_gui.ui.notes.note_list import NoteListPane, count_text
from coach_gui.ui.shell.first_paint import FirstPaint
from coach_gui.ui.shell.main_actions import build_main_actions
from coach_gui.ui.shell.view_switcher import ViewSwitcher

if TYPE_CHECKING:
    from coach_gui.domain.deleted_notes import DeletedNote, RestoredNote
    from coach_gui.domain.note_search import KeptListing
    from coach_gui.domain.notes import (
        Note,
        NoteEntry,
    )
    from coach_gui.operations.anki_import import ImportReport
    from coach_gui.operations.cases import UseCases
    from coach_gui.ui.exchange.export_task import Exporter
    from coach_gui.ui.exchange.import_dialog import ImportDialog
    from coach_gui.ui.notes.note_editor import NoteEditor
    from coach_gui.ui.notes.notes_listing import NotesListing
    from coach_gui.ui.notes.window_undo import WindowUndo
    from coach_gui.ui.practice.practice_pane import PracticePane
    from coach_gui.ui.settings.config_owner import ConfigOwner
    from coach_gui.ui.settings.privacy_controls import PrivacyControls
    from coach_gui.ui.shell.main_views import MainViews


WRITES_WAIT_MS = 10_000  # a note, config or key write: milliseconds, unless a disk stalls
OPENING_TEXT = "Opening your notes…"
KEPT_PAINT_FALLBACK_MS = 200  # the kept list not painted (a minimised window): go on anyway


class MainWindow(QMainWindow):
    notes_listed = Signal()  # each time a load of the knowledge base is on screen
    notes_shown = Signal()  # once: the notes first on screen, kept or read (searchable)
    search_ready = Signal()  # each time the search index has caught up with the notes
    attached = Signal()  # the use cases are in: every view and action works

    cases: UseCases
    editor: NoteEditor
    listing: NotesListing  # the notes as last listed, from `attach` on
    views: MainViews
    practice: PracticePane
    privacy: PrivacyControls
    window_undo: WindowUndo  # Ctrl+Z, Edit › Undo / Redo, and undoing a delete
    toolbar: QToolBar  # set by build_main_actions
    toolbar_anchor: QAction  # the privacy switches go before it
    schedule_menu: QMenu  # set by build_main_actions; Today adds its actions

    def __init__(self, cases: UseCases | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._may_close = False
        self._load_started = False  # the first load starts once the window is on screen
        self._attached = False
        self._when_attached: list[Callable[[], None]] = []  # keys pressed while opening
        self._when_listed: list[Callable[[], None]] = []
        self._listed_once = False
        self._shown_once = False
        self._picks_kept = False  # the kept listing's picks are the list's own until attach
        self._exporter: Exporter | None = None
        self.import_dialog: ImportDialog | None = None
        self.setWindowTitle("Coach")
        self.setAccessibleName("Coach")

        self.note_list = NoteListPane(self)
        self._editor_slot = QWidget(self)  # the editor takes its place in `attach`
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.addWidget(self.note_list)
        self.splitter.addWidget(self._editor_slot)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([300, 800])
        self.splitter.setChildrenCollapsible(False)
        self.stack = QStackedWidget(self)  # notes, practice, sent, sessions (Ctrl+1-4)
        self.stack.setObjectName("mainViews")
        self.stack.addWidget(self.splitter)

        # The folder gives way first when the status bar is short of room: it is in full in
        # its tooltip and in Help > Where my data lives; the privacy line keeps every word.
        self.where_label = ElidingLabel(OPENING_TEXT, self)
        self.where_label.setAccessibleName("Knowledge base folder")
        self.where_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.count_label = QLabel(self)
        self.count_label.setAccessibleName("Number of notes")
        self.statusBar().addWidget(self.where_label, 1)
        self.statusBar().addPermanentWidget(self.count_label)
        self.menu_actions = build_main_actions(self)
        central = QWidget(self)
        self.view_switcher = ViewSwitcher(self.menu_actions.views(), central)
        views = QVBoxLayout(central)  # the views' tabs, over the view shown
        views.setContentsMargins(0, 0, 0, 0)
        views.setSpacing(0)
        views.addWidget(self.view_switcher)
        views.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.menu_actions.save.setEnabled(False)
        self.menu_actions.delete.setEnabled(False)
        self.menu_actions.judge_pending.setEnabled(False)  # JudgePendingAction enables it
        self.note_list.show_loading()
        window_state.restore_window(self, self.splitter)
        self.setTabOrder(self.note_list.search_box, self.note_list.view)
        if cases is not None:
            self.attach(cases)

    def attach(self, cases: UseCases) -> None:
        """The use cases are built: add the editor, the other views and the privacy
        switches, run what was asked for meanwhile, and load the notes once on screen."""
        from coach_gui.operations.vocabulary import short_path
        from coach_gui.ui.kit.alt_keys import guard_alt_letters  # after the first paint
        from coach_gui.ui.notes.note_editor import NoteEditor
        from coach_gui.ui.notes.notes_listing import NotesListing
        from coach_gui.ui.notes.window_undo import WindowUndo
        from coach_gui.ui.settings.privacy_controls import PrivacyControls
        from coach_gui.ui.shell.main_views import MainViews

        self.cases = cases
        self.listing = NotesListing(self, self)
        self.listing.search_ready.connect(self.search_ready)
        guard_alt_letters()  # Alt+letter of a disabled button never types the letter
        self.editor = NoteEditor(cases.notes.store, self)
        self.editor.set_new_notes_folder(lambda: self.cases.settings.config.kb.new_notes_folder)
        self.splitter.replaceWidget(1, self.editor)
        self._editor_slot.deleteLater()
        self.views = MainViews(self, self.stack, self.splitter)
        self.practice = self.views.practice

        self.where_label.setText(f"Notes in {short_path(cases.notes.location)}")
        self.where_label.setToolTip(cases.notes.location)
        from coach_gui.ui.settings.config_owner import ConfigOwner

        # The one holder and writer of the settings in this window (ADR 0030).
        self.config_owner = ConfigOwner(cases.settings, self)
        self.privacy = PrivacyControls(self.config_owner, self)
        self.toolbar.insertActions(self.toolbar_anchor, self.privacy.actions())
        self.toolbar.insertSeparator(self.toolbar_anchor)
        status = self.statusBar()
        # After the folder (the one normal widget), before the count: as the frame had them.
        status.insertPermanentWidget(1, self.privacy.status_label())
        status.insertPermanentWidget(2, self.views.tier1_status)
        from coach_gui.ui.shell.sync_status import SyncStatus

        self.sync_status = SyncStatus(cases.sync, self)  # hidden while sync is off
        status.insertPermanentWidget(3, self.sync_status)
        self.sync_status.imported.connect(lambda report: self.views.broadcast(report.changes))
        self._follow_settings(self.config_owner)
        from coach_gui.ui.settings.strictness_offer import StrictnessOffer

        # Corrections leaning one way: said once, with the strictness that would have agreed.
        self.strictness_offer = StrictnessOffer(cases.schedule, self.config_owner, self)
        self.window_undo = WindowUndo(self)  # its Undo button goes first, after the folder

        self._update_actions()
        if self._picks_kept:  # from now on a pick opens the note (once the files are read)
            self.note_list.current_note_changed.disconnect(self.note_list.select_note)
            self.note_list.note_chosen.disconnect(self.note_list.select_note)
        self.note_list.current_note_changed.connect(self._on_note_picked)
        self.note_list.note_chosen.connect(self._on_note_chosen)
        self.editor.body_tabs.note_link_activated.connect(self._on_note_link)
        self.editor.dirty_changed.connect(self._on_dirty_changed)
        self.editor.title_changed.connect(self._update_title)
        self.editor.saved.connect(self._on_note_saved)
        window_state.restore_editor(self.editor.splitter, self.editor.body_tabs)
        self.setTabOrder(self.note_list.view, self.editor.title_edit)
        self._attached = True
        self.attached.emit()
        if self.isVisible():
            self._start_loading()
        waiting, self._when_attached = self._when_attached, []
        for run in waiting:  # after the loads are queued: a dialog opened here holds none up
            QTimer.singleShot(0, self, run)

    def show_kept(self, kept: KeptListing, then: Callable[[], None]) -> None:
        """List the notes as Coach last listed them, searchable at once, while the rest of
        Coach opens, and run `then` (which loads the rest) once the list is on screen, so
        it cannot hold the list up. The files are read once the use cases are in and the
        list corrected in place (ADR 0036)."""
        from coach_gui.operations.vocabulary import short_path  # loaded with the frame

        if self._shown_once:  # the files were read already
            then()
            return
        note_list = self.note_list
        note_list.select_note(window_state.last_note_id() or "")
        # A row picked now is the one opened once the files are read.
        note_list.current_note_changed.connect(note_list.select_note)
        note_list.note_chosen.connect(note_list.select_note)
        self._picks_kept = True
        note_list.set_notes(kept.entries)
        note_list.set_index(kept.index)
        note_list.set_broken(kept.broken)
        self.count_label.setText(count_text(len(kept.entries), len(kept.broken)))
        self.where_label.setText(f"Notes in {short_path(kept.location)}")
        self.where_label.setToolTip(kept.location)
        # The rows are painted in the view's viewport; no rows: the placeholder says why.
        current = note_list.stack.currentWidget() or note_list
        shown = note_list.view.viewport() if current is note_list.view else current

        def painted() -> None:
            self._notes_shown()
            then()

        FirstPaint(shown, painted, fallback_ms=KEPT_PAINT_FALLBACK_MS)

    def _notes_shown(self) -> None:
        if not self._shown_once:
            self._shown_once = True
            self.notes_shown.emit()

    @property
    def is_attached(self) -> bool:
        return self._attached

    def when_attached(self, run: Callable[[], None]) -> None:
        """Run `run` now, or once the use cases are in (a key pressed while opening)."""
        if self._attached:
            run()
        else:
            self._when_attached.append(run)

    def after_first_paint(self, run: Callable[[], None]) -> None:
        """Run `run` once the frame is painted (on screen), at the next turn of the event
        loop: what it loads then never holds up the first paint. Within a second anyway,
        should the window not be painted (started minimised, say)."""
        FirstPaint(self, run)

    def when_listed(self, run: Callable[[], None]) -> None:
        """Run `run` now, or once the notes are first on screen (Ctrl+P while opening)."""
        if self._listed_once:
            run()
        else:
            self._when_listed.append(run)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self._attached:
            self._start_loading()

    def _start_loading(self) -> None:
        if not self._load_started:
            self._load_started = True
            # After the first frame: on 2 cores a loading thread slows the first paint.
            # The kept listing on screen stays there while the files are read (ADR 0036).
            quietly = self._shown_once
            QTimer.singleShot(0, lambda: self.listing.load(quietly=quietly))
            QTimer.singleShot(0, self.views.tier1_status.refresh)
            QTimer.singleShot(0, self._recover_sessions)
            QTimer.singleShot(0, self.read_key_status)  # the status line's words depend on it
            QTimer.singleShot(0, self.sync_status.run)  # what the other computers did

    def _recover_sessions(self) -> None:
        """Seal sessions a crash left open (as interrupted, every submitted answer kept)."""

        def done(trace_ids: list[str]) -> None:
            if trace_ids:
                count = len(trace_ids)
                self.statusBar().showMessage(
                    f"{count} practice session{'s' if count > 1 else ''} left open when Coach "
                    "last stopped were closed; every answer you submitted is kept.",
                    10_000,
                )

        practice = self.cases.practice
        Task(
            self,
            op=lambda _progress: practice.recover(),
            success=done,
            lane=Lane.WRITER,
            name="recover-sessions",
        ).run()

    def read_key_status(self) -> None:
        """Whether a Gemini key is stored (on a worker: the keyring may be slow to answer),
        so the status line never says answers go to Gemini when none can. Only while the
        judge is on and is Gemini: otherwise the words do not depend on it, and a locked
        keyring is not asked to unlock for nothing."""
        judge = self.cases.settings.config.judge
        if not judge.enabled or judge.local:
            return
        keys = self.cases.keys
        Task(
            self,
            op=lambda _progress: keys.status(),
            success=self.privacy.set_key_status,
            name="key status",
        ).run()

    def _update_actions(self) -> None:
        self.menu_actions.save.setEnabled(self.editor.has_note() and self.editor.is_dirty())
        self.menu_actions.delete.setEnabled(self.editor.has_note())
        # Until the first listing a note is still on its way: Ctrl+P waits for it.
        self.menu_actions.practise.setEnabled(self.editor.has_note() or not self._listed_once)

    def listed(self) -> None:
        """A listing of the notes is on screen: the actions follow it, and what waited for
        the first one (Ctrl+P while opening) runs."""
        self._update_actions()
        self._notes_shown()
        self.notes_listed.emit()
        if not self._listed_once:
            self._listed_once = True
            waiting, self._when_listed = self._when_listed, []
            for run in waiting:
                run()

    def _update_title(self, *_args: object) -> None:
        title = self.editor.display_title() if self.editor.has_note() else ""
        self.setWindowTitle(f"{title}[*] — Coach" if title else "Coach")
        self.setWindowModified(self.editor.is_dirty())

    def _on_dirty_changed(self, _dirty: bool) -> None:
        self._update_title()
        self._update_actions()

    def open_notes_folder(self) -> None:
        """File › Open notes folder…: the learner's own vault instead of this one."""
        from coach_gui.ui.settings.notes_folder import NotesFolderChooser

        self.guard_unsaved(
            NotesFolderChooser(
                self, self.cases.notes, self.config_owner, self._notes_folder_changed
            ).choose
        )

    # --- Anki in and out (issue 37) -------------------------------------------------
    def import_notes(self, path: Path | None = None) -> None:
        """File › Import from Anki or CSV…: choose the file, then its preview."""
        from PySide6.QtWidgets import QFileDialog

        from coach_gui.ui.exchange.import_dialog import ImportDialog

        if path is None:
            chosen, _filter = QFileDialog.getOpenFileName(
                self, "Import from Anki or CSV", str(Path.home()),
                "Anki packages and CSV (*.apkg *.colpkg *.csv *.tsv *.txt);;All files (*)",
            )  # fmt: skip
            if not chosen:
                return
            path = Path(chosen)
        dialog = self.import_dialog = ImportDialog(self.cases.imports, path, self)
        dialog.imported.connect(self._imported)
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()

    def _imported(self, report: ImportReport) -> None:
        if report.created:  # new files: listed at once, not when the watcher wakes
            self.listing.load(quietly=True)
        self.views.broadcast(report.changes)

    @property
    def exporter(self) -> Exporter:
        """File › Export to Anki… / Export as CSV…"""
        if self._exporter is None:
            from coach_gui.ui.exchange.export_task import Exporter

            bar = self.statusBar()
            self._exporter = Exporter(
                self.cases.exports, self, say=lambda text: bar.showMessage(text, 15_000)
            )
        return self._exporter

    def _notes_folder_changed(self) -> None:
        from coach_gui.operations.vocabulary import short_path

        self.listing.forget()
        self.window_undo.forget_deletes()
        self.editor.set_store(self.cases.notes.store)
        self.editor.show_note(None)
        location = self.cases.notes.location
        self.where_label.setText(f"Notes in {short_path(location)}")
        self.where_label.setToolTip(location)
        self.listing.load()
        self.listing.watch(location)
        self.statusBar().showMessage(f"Notes from {short_path(location)}", 6000)

    # --- switching notes -----------------------------------------------------------
    def guard_unsaved(
        self, proceed: Callable[[], None], cancelled: Callable[[], None] | None = None
    ) -> None:
        """Run `proceed` once unsaved edits are saved or discarded; ask first."""
        if not (self.editor.has_note() and self.editor.is_dirty()):
            proceed()
            return
        from coach_gui.ui.kit.confirmations import UnsavedChoice, ask_about_unsaved

        choice = ask_about_unsaved(self, self.editor.display_title())
        if choice is UnsavedChoice.SAVE:
            if not self.editor.save(then=proceed) and cancelled:
                cancelled()  # the note cannot be saved as it is (no title)
        elif choice is UnsavedChoice.DISCARD:
            proceed()
        elif cancelled is not None:
            cancelled()

    def notes(self) -> list[Note]:
        """The notes as last loaded (the gap board's note picker)."""
        return self.listing.notes()

    def note_entries(self) -> list[NoteEntry]:
        """Every note as last loaded, as a list of its own (a worker may read it)."""
        return self.listing.note_entries()

    def entry_for(self, note_id: str | None) -> NoteEntry | None:
        return self.listing.entry_for(note_id)

    def _on_note_link(self, name: str) -> None:
        """A `[[link]]` clicked in the preview: open that note (unsaved edits guarded)."""
        entry = self.listing.note_named(name)
        if entry is None:
            self.statusBar().showMessage(
                f"No note is called “{name}” yet; create it with Ctrl+N.", 6000
            )
            return
        self._on_note_picked(entry.note.id)

    def _on_note_picked(self, note_id: str) -> None:
        current = self.editor.current_note_id() or ""

        def stay() -> None:
            self.note_list.select_note(current)

        self.guard_unsaved(lambda: self.open_note(note_id), cancelled=stay)

    def _on_note_chosen(self, note_id: str) -> None:
        """Enter in the search: that note, open, with the cursor in its title."""

        def go_to_it() -> None:
            if self.editor.current_note_id() != note_id:
                self.open_note(note_id)
            if self.editor.current_note_id() == note_id:
                self.editor.title_edit.setFocus(Qt.FocusReason.OtherFocusReason)

        current = self.editor.current_note_id() or ""
        if note_id == current:
            go_to_it()
            return

        def stay() -> None:
            self.note_list.select_note(current)

        self.guard_unsaved(go_to_it, cancelled=stay)

    def open_note(self, note_id: str) -> None:
        if not self._listed_once:  # a kept row: the first listing opens the one selected
            self.note_list.select_note(note_id)
            return
        entry = self.listing.entry_for(note_id)
        self.note_list.select_note(note_id if entry else "")
        self.editor.show_note(entry)
        self._update_actions()

    def new_note(self) -> None:
        def start() -> None:
            if self.stack.currentWidget() is not self.splitter:  # Ctrl+N from another view
                self.views.show_notes()
            self.note_list.select_note("")
            self.editor.new_note()
            self._update_actions()

        self.guard_unsaved(start)

    def save_note(self) -> None:
        if self.editor.has_note():
            self.editor.save()

    def _on_note_saved(self, entry: NoteEntry) -> None:
        self.listing.entries[entry.note.id] = entry
        self.note_list.select_note(entry.note.id)
        self.listing.show_all()
        self._update_actions()
        self.statusBar().showMessage(f"Saved “{entry.note.title}” to {entry.file_name}", 5000)

    def delete_note(self) -> None:
        from coach_gui.ui.kit.confirmations import confirm_delete, confirm_discard_new

        editor, note_id = self.editor, self.editor.current_note_id()
        if note_id is None:
            return
        if editor.file_name() is None:  # never saved: nothing on disk to move
            if not editor.is_dirty() or confirm_discard_new(self, editor.display_title()):
                editor.show_note(None)
                self._update_actions()
            return
        trash = getattr(self.cases.notes.store, "trash_location", "the trash folder")
        if not confirm_delete(self, editor.display_title(), editor.file_name() or "", trash):
            return
        store = self.cases.notes.store
        Task(
            self,
            op=lambda _p: store.delete(note_id),
            success=lambda gone: self._on_deleted(note_id, gone),
            lane=Lane.WRITER,
            name="delete note",
        ).run()

    def _on_deleted(self, note_id: str, gone: DeletedNote) -> None:
        entry = self.listing.entries.pop(note_id, None)
        if self.editor.current_note_id() == note_id:
            self.editor.show_note(None)
        self.note_list.select_note("")
        self.listing.show_count()
        self._update_actions()
        name = entry.file_name if entry else "The note"
        where = gone.where if gone.where.startswith("the ") else f"the trash ({gone.where})"
        self.statusBar().showMessage(f"Moved {name} to {where}", 15_000)
        self.listing.show_all()
        self.window_undo.note_deleted(gone)
        self.note_list.view.setFocus()  # where Ctrl+Z undoes the delete

    def show_restored(self, restored: RestoredNote) -> None:
        """A deleted note is back on disk: list it, select it and open it. A note listed
        under its id meanwhile has one of its own now: it is listed so, and if it is the
        open note the editor keeps its edits under its new id — before any question about
        them, so saving them writes to its own file."""
        entry = restored.entry
        note_id = entry.note.id
        entries = self.listing.entries
        held = entries.get(note_id)
        for moved in restored.new_ids:
            if entries.get(moved.old_id, moved.entry).file_name == moved.entry.file_name:
                entries.pop(moved.old_id, None)
            entries[moved.entry.note.id] = moved.entry
            self.editor.take_new_id(moved.old_id, moved.entry)
        editor = self.editor
        stale = editor.current_note_id() == note_id and editor.file_name() != entry.file_name
        if stale and not editor.is_dirty():
            # Another file still under the restored note's id: closed, the restored note
            # opens instead (with edits it stays; the store never saves it over that note).
            editor.show_note(None)
        entries[note_id] = entry
        self.listing.show_all()
        if self.stack.currentWidget() is not self.splitter:
            self.views.show_notes()
        current = self.editor.current_note_id() or ""

        def stay() -> None:
            self.note_list.select_note(current)

        self.guard_unsaved(lambda: self.open_note(note_id), cancelled=stay)
        self.note_list.view.setFocus()
        self.statusBar().showMessage(f"Restored “{entry.note.title}” to {entry.file_name}", 8000)
        if restored.new_ids or (held is not None and held.file_name != entry.file_name):
            self.listing.load(quietly=True)  # another file had its id meanwhile: its own id

    # --- other windows -------------------------------------------------------------
    def focus_search(self) -> None:
        """Ctrl+F: works from the first paint (the list fills in when the notes arrive),
        and from every view (it shows the notes)."""
        if self._attached and self.stack.currentWidget() is not self.splitter:
            self.views.show_notes()
        self.note_list.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.note_list.search_box.selectAll()

    def open_settings(self) -> None:
        from coach_gui.ui.settings.settings_dialog import SettingsDialog

        cases = self.cases
        dialog = SettingsDialog(
            self.config_owner,
            self,
            keys=cases.keys,
            fingerprint=self.sync_status.fingerprint,
            server_finder=cases.practice.local_server.find,
        )

        def another_folder() -> None:
            from coach_gui.ui.settings.notes_folder import NotesFolderChooser

            def switched() -> None:
                self._notes_folder_changed()
                dialog.use_notes_folder()

            chooser = NotesFolderChooser(dialog, cases.notes, self.config_owner, switched)
            self.guard_unsaved(chooser.choose)

        dialog.folder_button.clicked.connect(another_folder)
        if dialog.key_section is not None:  # a key saved or removed there: the status line
            dialog.key_section.status_loaded.connect(self.privacy.set_key_status)
        if dialog.exec() == SettingsDialog.DialogCode.Accepted:
            # As before issue 35, Save also checks again what may have changed outside
            # Coach meanwhile: the local model, the key, the other computers.
            self.views.tier1_status.refresh()  # (no second check while one runs)
            self.read_key_status()
            self.sync_status.run()
            self.statusBar().showMessage(f"Settings saved to {cases.settings.config_path}", 5000)

    def _follow_settings(self, owner: ConfigOwner) -> None:
        """What shows a setting follows it, however it changed (Settings, a toolbar switch,
        a write that failed and put it back); the next session and judge request read the
        settings in effect, which the owner keeps."""
        from coach_gui.domain.changes import SCHEDULE_CHANGED

        views = self.views
        owner.follow(lambda c: c.schedule, lambda _s: views.broadcast(SCHEDULE_CHANGED))
        owner.follow(
            lambda c: (c.judge.base_url, c.judge.local),
            lambda where: views.sent.set_endpoint(where[0], local=where[1]),
        )
        owner.follow(lambda c: c.tier1, lambda tier1: views.tier1_status.set_model(tier1.model))
        owner.follow(lambda c: c.judge.enabled, views.judge_pending.set_judge_enabled)
        owner.follow(lambda c: c.judge.enabled, views.practice.view.judge_switched)
        # Switched on, or to Gemini: is there a key to send with? (`coach key set`)
        owner.follow(
            lambda c: (c.judge.enabled, c.judge.provider), lambda _j: self.read_key_status()
        )

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self._attached:  # closed while opening: nothing is open or unsaved yet
            event.accept()
            return
        if not self._may_close and not self.practice.confirm_leave("Close Coach without it?"):
            event.ignore()
            return
        if not self._may_close and self.editor.has_note() and self.editor.is_dirty():
            event.ignore()

            def close_now() -> None:
                self._may_close = True
                self.close()

            self.guard_unsaved(close_now)
            return
        if self.import_dialog is not None and self.import_dialog.applying:
            self.import_dialog.stop()  # the note being written, its history, then it ends
        kept = self.editor.current_note_id() if self.editor.file_name() else None
        window_state.remember_layout(
            self, self.splitter, self.editor.splitter, self.editor.body_tabs, kept or ""
        )
        self.views.remember()
        self.views.close()
        self.listing.stop_watching()
        wait_for_writes(WRITES_WAIT_MS)  # a save still being written finishes before we go
        event.accept()
