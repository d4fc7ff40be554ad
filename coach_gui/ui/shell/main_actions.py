"""The main window's actions, menus (with mnemonics) and toolbar, in one place, so the
Help > Keyboard shortcuts list is built from the same actions the menus show."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QSizePolicy, QStyle, QWidget

from coach_gui.ui.review.judge_pending_action import pending_action

UNDO_REVIEW_KEYS, REDO_REVIEW_KEYS = "Ctrl+Alt+Z", "Ctrl+Alt+Shift+Z"

if TYPE_CHECKING:
    from coach_gui.ui.shell.main_window import MainWindow


@dataclass(frozen=True)
class MainActions:
    new: QAction
    save: QAction
    delete: QAction
    deleted_notes: QAction
    undo: QAction
    redo: QAction
    undo_review: QAction
    redo_review: QAction
    practise: QAction
    show_today: QAction
    show_notes: QAction
    show_practice: QAction
    show_sent: QAction
    show_sessions: QAction
    show_evals: QAction
    show_stats: QAction
    judge_pending: QAction
    fit_schedule: QAction  # the Statistics view's button triggers it too
    reload: QAction
    open_folder: QAction
    import_notes: QAction
    export_anki: QAction
    export_csv: QAction
    settings: QAction
    quit: QAction
    find: QAction
    shortcuts: QAction
    locations: QAction
    privacy_summary: QAction
    welcome: QAction
    about: QAction

    def with_shortcuts(self) -> list[QAction]:
        return [a for a in vars(self).values() if not a.shortcut().isEmpty()]

    def views(self) -> list[QAction]:
        """The view switch's actions, in the order of their tabs and shortcuts."""
        return [self.show_today, self.show_notes, self.show_practice, self.show_sent,
                self.show_sessions, self.show_evals, self.show_stats]  # fmt: skip


def _help() -> ModuleType:
    from coach_gui.ui.shell import help_dialogs  # only when Help is used: start-up stays short

    return help_dialogs


def _optimizer() -> ModuleType:
    from coach_gui.ui.schedule import optimizer_dialog

    return optimizer_dialog


def _welcome() -> ModuleType:
    from coach_gui.ui.shell import welcome

    return welcome


def _action(
    window: MainWindow,
    text: str,
    slot: Callable[[], object],
    keys: str = "",
    icon: QStyle.StandardPixmap | None = None,
) -> QAction:
    action = QAction(text, window)
    if keys:
        action.setShortcut(QKeySequence(keys))
        action.setToolTip(f"{text.replace('&', '').rstrip('…')} ({keys})")
    if icon is not None:
        action.setIcon(window.style().standardIcon(icon))
    action.triggered.connect(lambda _checked=False: slot())
    return action


def _show_deleted_notes(window: MainWindow) -> None:
    window.window_undo.show_deleted_notes()


def build_main_actions(window: MainWindow) -> MainActions:
    """Built with the window's frame, before the use cases exist (the first paint shows
    the menus and the toolbar): a slot that needs the use cases runs once the window has them
    (`when_attached`), and *Practise* once the notes are listed (`when_listed`), so a key
    pressed while Coach opens is kept, not lost."""
    actions = _make_actions(window)
    views_shown = _view_actions(window, actions)
    _build_menus(window, actions, views_shown)
    _build_toolbar(window, actions)
    return actions


def _make_actions(window: MainWindow) -> MainActions:
    """Every action of the menus and the toolbar, with its keys and its status tip."""
    pix = QStyle.StandardPixmap
    attached, listed = window.when_attached, window.when_listed

    def shows(name: str) -> Callable[[], None]:
        return lambda: attached(lambda: getattr(window.views, name)())

    actions = MainActions(
        new=_action(window, "&New note", lambda: attached(window.new_note), "Ctrl+N",
                    pix.SP_FileIcon),
        save=_action(window, "&Save", lambda: attached(window.save_note), "Ctrl+S",
                     pix.SP_DialogSaveButton),
        delete=_action(window, "&Delete note…", lambda: attached(window.delete_note), "",
                       pix.SP_TrashIcon),
        deleted_notes=_action(window, "D&eleted notes…",
                              lambda: attached(lambda: _show_deleted_notes(window))),
        undo=_action(window, "&Undo", lambda: attached(lambda: window.window_undo.undo()),
                     "Ctrl+Z"),
        redo=_action(window, "&Redo", lambda: attached(lambda: window.window_undo.redo()),
                     "Ctrl+Shift+Z"),
        # Not Ctrl+Z: that undoes edits of the open note's assertions (Edit › Undo).
        undo_review=_action(window, "&Undo review",
                            lambda: attached(lambda: window.views.review_undo.undo()),
                            UNDO_REVIEW_KEYS),
        redo_review=_action(window, "Re&do review",
                            lambda: attached(lambda: window.views.review_undo.redo()),
                            REDO_REVIEW_KEYS),
        practise=_action(
            window, "&Practise note", lambda: listed(lambda: window.views.practise_open_note()),
            "Ctrl+P", pix.SP_MediaPlay,
        ),
        show_today=_action(window, "Show t&oday", shows("show_today"), "Ctrl+0"),
        show_notes=_action(window, "Sho&w notes", shows("show_notes"), "Ctrl+1"),
        show_practice=_action(window, "Show pr&actice", shows("show_practice"), "Ctrl+2"),
        show_sent=_action(window, "Show sent to j&udge", shows("show_sent"), "Ctrl+3"),
        show_sessions=_action(window, "Show sess&ions", shows("show_sessions"), "Ctrl+4"),
        show_evals=_action(window, "Show judge &consistency", shows("show_evals"), "Ctrl+5"),
        show_stats=_action(window, "S&how statistics", shows("show_stats"), "Ctrl+6"),
        judge_pending=pending_action(window),  # JudgePendingAction runs it, once attached
        fit_schedule=_action(
            window, "&Fit schedule to my history…",
            lambda: attached(
                lambda: _optimizer().show_optimizer(
                    window, window.cases.schedule,
                    lambda applied: window.views.broadcast(applied.changes),
                )
            ),
            "Ctrl+Shift+O",
        ),
        reload=_action(window, "&Reload notes", lambda: attached(lambda: window.listing.reload()),
                       "F5",
                       pix.SP_BrowserReload),
        open_folder=_action(
            window, "Open notes &folder…", lambda: attached(window.open_notes_folder), "Ctrl+O",
            pix.SP_DirOpenIcon,
        ),
        import_notes=_action(window, "I&mport from Anki or CSV…",
                             lambda: attached(lambda: window.import_notes())),
        export_anki=_action(window, "E&xport to Anki…",
                            lambda: attached(lambda: window.exporter.ask("anki"))),
        export_csv=_action(window, "Export as CS&V…",
                           lambda: attached(lambda: window.exporter.ask("csv"))),
        settings=_action(window, "Se&ttings…", lambda: attached(window.open_settings), "Ctrl+,"),
        quit=_action(window, "&Quit", window.close, "Ctrl+Q"),
        find=_action(window, "&Find note", window.focus_search, "Ctrl+F"),
        shortcuts=_action(
            window, "&Keyboard shortcuts",
            lambda: attached(lambda: _help().show_shortcuts(
                window, [*window.menu_actions.with_shortcuts(), *window.privacy.actions()])),
            "F1",
        ),
        locations=_action(
            window,
            "&Where my data lives…",
            lambda: attached(
                lambda: _help().show_data_locations(
                    window, window.cases.settings.places(), window.sync_status.fingerprint
                )
            ),
        ),
        privacy_summary=_action(
            window,
            "&Privacy summary…",
            lambda: attached(lambda: _help().show_privacy_summary(window, window.privacy)),
        ),
        welcome=_action(
            window, "W&elcome…", lambda: attached(lambda: _welcome().show_welcome(window))
        ),
        about=_action(window, "&About Coach", lambda: _help().show_about(window)),
    )  # fmt: skip
    actions.practise.setStatusTip("Practise the open note: challenges, your answers, the judge")
    actions.redo.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    actions.import_notes.setStatusTip(
        "New notes from an Anki deck or a CSV file, with their review history: a preview first"
    )
    actions.export_anki.setStatusTip("Every key point a card, with its history, for Anki")
    actions.export_csv.setStatusTip("Every key point a row, for a spreadsheet or another tool")
    actions.deleted_notes.setStatusTip("Notes Coach moved to a trash: put one back where it was")
    actions.fit_schedule.setStatusTip(
        "Fit the schedule's settings to your own reviews; nothing changes until you apply them"
    )
    return actions


def _view_actions(window: MainWindow, actions: MainActions) -> list[QAction]:
    """Show today, notes, practice…: one checked at a time, with their tab names."""
    views = QActionGroup(window)  # exactly one view is shown
    views_shown = actions.views()
    for view in views_shown:
        view.setCheckable(True)
        views.addAction(view)
    actions.show_notes.setChecked(True)
    actions.show_notes.setIconText("Notes")
    actions.show_practice.setIconText("Practice")
    actions.show_sent.setIconText("Sent to judge")
    actions.show_sent.setStatusTip("Every request sent to the judge, exactly as it was sent")
    actions.show_sessions.setIconText("Sessions")
    actions.show_sessions.setStatusTip("Your practice sessions, their gaps and your progress")
    actions.show_today.setIconText("Today")
    actions.show_today.setStatusTip("What to practise today: core assertions due, open gaps first")
    actions.show_evals.setIconText("Consistency")
    actions.show_evals.setStatusTip(
        "Judge your answers again with and without core assertions: is the judge consistent?"
    )
    actions.show_stats.setIconText("Statistics")
    actions.show_stats.setStatusTip(
        "Reviews per day over the year, true retention, leeches and each key point's reviews"
    )
    return views_shown


def _build_menus(window: MainWindow, actions: MainActions, views_shown: list[QAction]) -> None:
    """File, Edit, Schedule and Help."""
    menus = window.menuBar()
    file_menu = menus.addMenu("&File")
    file_menu.addActions([actions.new, actions.save, actions.delete, actions.deleted_notes])
    file_menu.addSeparator()
    file_menu.addActions([actions.practise, *views_shown])
    file_menu.addAction(actions.judge_pending)
    file_menu.addSeparator()
    file_menu.addActions([actions.reload, actions.open_folder])
    file_menu.addSeparator()
    file_menu.addActions([actions.import_notes, actions.export_anki, actions.export_csv])
    file_menu.addSeparator()
    file_menu.addAction(actions.settings)
    file_menu.addSeparator()
    file_menu.addAction(actions.quit)
    edit_menu = menus.addMenu("&Edit")
    edit_menu.addActions([actions.undo, actions.redo])
    edit_menu.addSeparator()
    edit_menu.addAction(actions.find)
    # What Today schedules: the last review taken back or counted again; Today's own
    # Suspend, Bury, Resume and Edit note join it once Today is built (MainViews.today).
    schedule_menu = menus.addMenu("Sched&ule")
    schedule_menu.addActions([actions.undo_review, actions.redo_review])
    actions.undo_review.setEnabled(False)  # ReviewUndo says when there is one
    actions.redo_review.setEnabled(False)
    actions.undo_review.setStatusTip(
        "Take back the last review: its key points are scheduled as before it; your answers "
        "and the judge's verdicts stay in the history"
    )
    actions.redo_review.setStatusTip("Count the review you undid last again")
    schedule_menu.addSeparator()
    schedule_menu.addAction(actions.fit_schedule)  # the optimizer (ADR 0028)
    window.schedule_menu = schedule_menu
    help_menu = menus.addMenu("&Help")
    help_menu.addActions(
        [actions.shortcuts, actions.locations, actions.privacy_summary, actions.welcome]
    )
    help_menu.addSeparator()
    help_menu.addAction(actions.about)


def _build_toolbar(window: MainWindow, actions: MainActions) -> None:
    """New, Save and Practise; the privacy switches join before its spacer."""
    toolbar = window.addToolBar("Note")
    toolbar.setObjectName("noteToolbar")  # saveState needs a name
    toolbar.setAccessibleName("Note actions")
    toolbar.setMovable(False)
    toolbar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    # Delete (rare) and Reload (F5) stay in the File menu. The views have a row of tabs of
    # their own (ViewSwitcher): beside these buttons they went behind the » chevron.
    toolbar.addActions([actions.new, actions.save])
    toolbar.addSeparator()
    toolbar.addAction(actions.practise)
    toolbar.addSeparator()
    # The privacy switches (judge on/off, send core assertions) go here once the config is
    # read (`MainWindow.attach`), before the spacer that ends the toolbar.
    spacer = QWidget(toolbar)
    spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    window.toolbar_anchor = toolbar.addWidget(spacer)
    window.toolbar = toolbar
