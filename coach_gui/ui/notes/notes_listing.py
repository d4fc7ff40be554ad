"""The notes as last listed, and keeping them listed: loading the notes folder (F5, or
quietly when another program changed it), following the folder's changes, the count on the
status line, the search index, and the links the preview resolves. The window shows what
it lists; `MainWindow` asks it for a note by id.

    listing = NotesListing(host)         # the window's parts it works on
    listing.load()                       # on a worker; the list stays usable meanwhile
    listing.entry_for(note_id)
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import shiboken6
from PySide6.QtCore import QObject, Signal

from coach_gui.domain.changes import NOTES_LISTED
from coach_gui.ui.kit import window_state
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.kit.tasks import Task, to_gui_thread

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

    from coach_gui.domain.changes import Changes
    from coach_gui.domain.notes import (
        BrokenNote,
        KnowledgeBaseSnapshot,
        LinkTargets,
        Note,
        NoteEntry,
        NoteSearchIndex,
    )
    from coach_gui.operations.cases import UseCases
    from coach_gui.services.ports.notes import VaultWatch
    from coach_gui.ui.notes.note_editor import NoteEditor
    from coach_gui.ui.notes.note_list import NoteListPane


class ListingViews(Protocol):
    """The views the listing tells: at the first listing, which to open on; at every
    other, that the notes were listed again."""

    def restore(self) -> None: ...

    def broadcast(self, changes: Changes, *, source: object = None) -> None: ...


class ListingHost(Protocol):
    """What the listing shows the notes on (the main window's parts)."""

    @property
    def cases(self) -> UseCases: ...

    @property
    def editor(self) -> NoteEditor: ...

    @property
    def note_list(self) -> NoteListPane: ...

    @property
    def views(self) -> ListingViews: ...

    @property
    def count_label(self) -> QLabel: ...

    def statusBar(self) -> QStatusBar: ...

    def listed(self) -> None: ...  # a listing is on screen: actions, waiting keys

    def guard_unsaved(self, proceed: Callable[[], None]) -> None: ...


class NotesListing(QObject):
    search_ready = Signal()  # each time the search index has caught up with the notes

    def __init__(self, host: ListingHost, parent: QWidget) -> None:
        super().__init__(parent)
        self._host = host
        self._widget = parent  # owns the listing's tasks, and its messages open over it
        self.entries: dict[str, NoteEntry] = {}
        self._links: LinkTargets | None = None
        self._watcher: VaultWatch | None = None  # from the first listing on
        self.loading = False  # a load of the notes is under way
        self._load_again: str | None = None  # "quiet" or "loud": load again after this one
        self._fresh_again = False  # and read every file then (F5 while loading)
        self._index_task: Task[NoteSearchIndex[NoteEntry]] | None = None
        self._broken: tuple[BrokenNote, ...] = ()
        self._location = ""  # of the notes listed now
        self._first = True

    # --- the notes as last listed -------------------------------------------------------
    def notes(self) -> list[Note]:
        """The notes as last loaded (the gap board's note picker)."""
        return [entry.note for entry in self.entries.values()]

    def note_entries(self) -> list[NoteEntry]:
        """Every note as last loaded, as a list of its own (a worker may read it)."""
        return list(self.entries.values())

    def entry_for(self, note_id: str | None) -> NoteEntry | None:
        return self.entries.get(note_id or "")

    def note_named(self, name: str) -> NoteEntry | None:
        """The note a `[[link]]` names, if there is one."""
        return self._links.note(name) if self._links is not None else None

    def forget(self) -> None:
        """Another notes folder: nothing of this one stays listed or watched."""
        self.stop_watching()
        self.entries, self._first, self._broken, self._location = {}, False, (), ""
        self._host.note_list.set_notes(())

    # --- loading ------------------------------------------------------------------------
    def load(self, *, quietly: bool = False, fresh: bool = False) -> None:
        """(Re)read the knowledge base. `quietly`: another program changed it, or the kept
        listing is on screen; the list stays on screen meanwhile and the open note's
        unsaved edits are never touched. `fresh` (F5): every file is read again, none
        taken from what the store kept of it."""
        if self.loading:  # once this load is on screen; F5 (not quiet) wins over quiet
            self._load_again = "loud" if not quietly or self._load_again == "loud" else "quiet"
            self._fresh_again = self._fresh_again or fresh
            return
        self.loading = True
        if not quietly:
            self._host.note_list.show_loading()
        store = self._host.cases.notes.store
        Task(
            self._widget,
            op=lambda _p: store.load(fresh=fresh),
            success=lambda snapshot: self._loaded(snapshot, quietly=quietly),
            failure=self._failed,
            name="load notes",
        ).run()

    def reload(self) -> None:
        """F5: read the folder again, every file, once unsaved edits are saved or
        discarded."""
        self._host.guard_unsaved(lambda: self.load(fresh=True))

    def _loaded(self, snapshot: KnowledgeBaseSnapshot, *, quietly: bool = False) -> None:
        host = self._host
        editor, note_list = host.editor, host.note_list
        self.loading = False
        self.entries = {entry.note.id: entry for entry in snapshot.notes}
        first = self._first
        if first:
            if not editor.has_note():  # reopen the note open when Coach last closed
                # or the one picked in the kept listing meanwhile (ADR 0036)
                last = note_list.current_note_id() or window_state.last_note_id()
                if last in self.entries:
                    editor.show_note(self.entries[last])
            host.views.restore()
            self.watch(snapshot.location)
        elif editor.file_name() is not None:  # a reload: the open note as on disk
            self._show_open_note_as_on_disk(quietly)
        self._first = False
        self._link_preview(snapshot)
        note_list.select_note(editor.current_note_id() or "")
        note_list.set_notes(snapshot.notes)
        note_list.set_broken(snapshot.broken)
        self._broken, self._location = snapshot.broken, snapshot.location
        self.show_count()
        host.listed()
        if not first:  # the views showing notes read the new listing (Today's counts)
            host.views.broadcast(NOTES_LISTED)
        self.rebuild_index()  # folding 10,000 notes takes a while: list them first
        if self._load_again is not None:  # more changed while this load ran, or F5
            again, self._load_again = self._load_again, None
            fresh, self._fresh_again = self._fresh_again, False
            self.load(quietly=again == "quiet", fresh=fresh)

    def _failed(self, error: Exception) -> None:
        self.loading, self._load_again, self._fresh_again = False, None, False
        self._host.note_list.show_loading(
            "The notes could not be loaded.\nSee the message, then press F5."
        )
        show_failure(self._widget, error)

    def _show_open_note_as_on_disk(self, quietly: bool) -> None:
        editor, status = self._host.editor, self._host.statusBar()
        entry = self.entries.get(editor.current_note_id() or "")
        if not quietly:  # F5, after the unsaved-edits guard: the file as it is now
            editor.show_note(entry)
            return
        if entry is not None and entry.note == editor.loaded_note():
            return  # another file changed, or this one only in what Coach does not show
        if editor.is_dirty():
            editor.mark_changed_elsewhere(gone=entry is None)
        elif entry is None:
            title = editor.display_title()
            editor.show_note(None)
            status.showMessage(f"“{title}” was moved or deleted by another program.", 8000)
        else:
            editor.show_note(entry)
            status.showMessage(
                f"“{entry.note.title}” was changed by another program; showing it as it is now.",
                6000,
            )

    # --- following the folder -----------------------------------------------------------
    def watch(self, location: str) -> None:
        """Follow changes other programs make to the notes folder (from the first load)."""
        if self._watcher is not None or not Path(location).is_dir():
            return
        notes = self._host.cases.notes
        store = notes.store
        listing = weakref.ref(self)

        def report(paths: frozenset[str]) -> None:  # on the watcher's thread
            # It holds no widget and emits on none: a watcher that outlives its window
            # (stopping waits a second at most) must not free or signal the window.
            if store.changed_elsewhere(paths):  # Coach's own saves are no news
                to_gui_thread(_changed_elsewhere, listing)

        # watchfiles is imported here, after the first listing, not at start-up
        self._watcher = notes.watch(Path(location), report)

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    # --- what shows the listing ---------------------------------------------------------
    def show_count(self) -> None:
        from coach_gui.ui.notes.note_list import count_text

        self._host.count_label.setText(count_text(len(self.entries), len(self._broken)))

    def show_all(self) -> None:
        """The list again from the entries (after a save, a delete or a restore)."""
        from coach_gui.domain.notes import ordered

        self._host.note_list.set_notes(ordered(self.entries.values()))
        self.rebuild_index()  # titles, tags and text all feed the search
        self.show_count()

    def rebuild_index(self) -> None:
        """The search index of the notes listed now, built on a worker and kept with the
        listing for the next start."""
        if self._index_task is not None:
            self._index_task.cancel()
        entries = tuple(self.entries.values())
        notes, location, broken = self._host.cases.notes, self._location, self._broken
        self._index_task = Task(
            self._widget,
            op=lambda p: notes.search_index(
                location, entries, broken, still_wanted=lambda: not p.cancelled
            ),
            success=self._index_ready,
            name="index notes",
        ).run()

    def _index_ready(self, index: NoteSearchIndex[NoteEntry]) -> None:
        self._host.note_list.set_index(index)
        self.search_ready.emit()

    def _link_preview(self, snapshot: KnowledgeBaseSnapshot) -> None:
        """Let the preview resolve `[[links]]` and `![[embeds]]` against this snapshot
        (dict look-ups: the preview renders on this thread)."""
        from coach_gui.domain.notes import LinkTargets

        links = self._links = LinkTargets(snapshot)
        self._host.editor.body_tabs.set_vault(
            links.note_id, links.attachment_path, links.embedded_body, root=links.root
        )


def _changed_elsewhere(listing: weakref.ref[NotesListing]) -> None:
    """GUI thread: the watcher's news, for the listing if it is still there."""
    shown = listing()
    if shown is not None and shiboken6.isValid(shown):
        shown.load(quietly=True)
