"""The main window's views — Today, notes, practice, what was sent to the judge, sessions
(with the gap board) and judge consistency: Practise (the open note), Practise these gaps,
practising today's due notes in turn, switching between them, the Tier 1 indicator, and
which view to open on next time.

The practice view is remembered only while a session is in progress when Coach closes;
otherwise Coach opens on Today once there is a practice history, else on the notes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QStackedWidget, QWidget

from coach_gui.domain.changes import (
    Changes,
)
from coach_gui.ui.kit import tasks, window_state
from coach_gui.ui.practice.correct_key_point import KeyPointCorrector
from coach_gui.ui.practice.practice_pane import QUIT_WAIT_MS, PracticePane
from coach_gui.ui.practice.tier1_status import Tier1StatusIndicator
from coach_gui.ui.review.gap_board import GapBoard
from coach_gui.ui.review.judge_pending_action import JudgePendingAction
from coach_gui.ui.review.sent_to_judge import SentToJudgeView
from coach_gui.ui.review.sessions_view import SessionsView
from coach_gui.ui.schedule.review_undo import ReviewUndo

if TYPE_CHECKING:
    from coach_gui.domain.notes import Note
    from coach_gui.operations.practice import SessionEnded
    from coach_gui.operations.today import DuePractice
    from coach_gui.services.review import OpenGap
    from coach_gui.services.scheduler import Today
    from coach_gui.services.sealing import JudgePendingReport
    from coach_gui.ui.kit.changes import TakesChanges
    from coach_gui.ui.review.eval_view import EvalView
    from coach_gui.ui.schedule.stats_view import StatsView
    from coach_gui.ui.schedule.today_view import TodayView
    from coach_gui.ui.shell.main_window import MainWindow

LAST_VIEW = "mainWindow/lastView"  # "practice" while a session was in progress, else "notes"
LAST_PRACTISED = "mainWindow/lastPractisedNote"
CHECK_WAIT_MS = 250  # closing waits this long at most for the window's reads on their way


class MainViews:
    def __init__(self, window: MainWindow, stack: QStackedWidget, notes: QWidget) -> None:
        """`stack` already shows `notes` (the window's first paint); the other views join it."""
        self.window = window
        self.notes = notes
        cases = window.cases
        self.practice = PracticePane(cases.practice, window)
        self.stack = stack
        self.sent = SentToJudgeView(cases.review.sent_to_judge, window)  # on a worker
        judge = cases.settings.config.judge
        self.sent.set_endpoint(judge.base_url, local=judge.local)
        self.stack.addWidget(self.practice)
        self.stack.addWidget(self.sent)
        self.gap_board = GapBoard(cases.review.gap_board, window.notes, window)  # on a worker
        self.gap_board.practise_requested.connect(self.practise_gaps)
        self.sessions = SessionsView(cases.review, self.gap_board, window)
        # A key point corrected where a past verdict is shown (issue 36).
        detail, board = self.sessions.detail, self.gap_board
        from_detail = KeyPointCorrector(cases.review, detail, say=detail.say)
        from_board = KeyPointCorrector(cases.review, board, say=board.message.setText)
        for corrector in (from_detail, from_board):
            corrector.corrected.connect(lambda done: self._corrected(done.changes))
        detail.set_corrector(from_detail.correct)
        board.set_corrector(from_board.correct)
        self.judge_pending = JudgePendingAction(
            cases.practice, window, window.menu_actions.judge_pending
        )
        self.judge_pending.finished.connect(self._after_judging)
        self.sessions.toolbar.addAction(self.judge_pending.action)
        self.stack.addWidget(self.sessions)
        # Today and Judge consistency are built when first needed (Today: after the first
        # load of the notes), so their imports do not slow the window's first paint.
        self._today: TodayView | None = None
        self._evals: EvalView | None = None
        self._stats: StatsView | None = None
        self._due: list[DuePractice] = []  # due notes still to practise, from Today's Start
        self._choose_start_view = False
        self.practice.session_finished.connect(self._after_session)
        # (the thread's only changes are corrections; the pane shows its own already)
        self.practice.changed.connect(lambda made: self._corrected(made, source=self.practice))
        self.practice.next_due_requested.connect(self._practise_next_due)
        self.tier1_status = Tier1StatusIndicator.for_server(cases.practice.local_server, window)
        self.practice.tier1_offline.connect(lambda _why: self.tier1_status.refresh())
        self.practice.model_downloaded.connect(lambda _model: self.tier1_status.refresh())
        self.practice.set_settings_opener(window.open_settings)
        self.practice.add_assertions_requested.connect(self._add_assertions)
        actions = window.menu_actions
        self.review_undo = ReviewUndo(
            window, cases.schedule, actions.undo_review, actions.redo_review
        )
        self.review_undo.changed.connect(
            lambda done: self.broadcast(done.changes, source=self.review_undo)
        )
        window.schedule_menu.aboutToShow.connect(lambda: self.today)  # its actions join

    @property
    def today(self) -> TodayView:
        if self._today is None:
            from coach_gui.ui.schedule.today_view import TodayView

            window = self.window
            self._today = TodayView(
                window.cases.schedule, self._current_note, window, catalogue=window.note_entries
            )
            self._today.start_requested.connect(self.practise_due)
            self._today.loaded.connect(self._on_today_loaded)
            self._today.edit_requested.connect(self.edit_note)
            # Held back or resumed: Today reads itself again, Statistics counts the held.
            self._today.held.connect(
                lambda record: self.broadcast(record.changes, source=self._today)
            )
            self.stack.addWidget(self._today)
            window.schedule_menu.addSeparator()
            window.schedule_menu.addActions(self._today.actions_on_current())
        return self._today

    @property
    def evals(self) -> EvalView:
        if self._evals is None:
            from coach_gui.ui.review.eval_view import EvalView

            self._evals = EvalView(self.window.cases.evals, self.window)
            self.stack.addWidget(self._evals)
        return self._evals

    @property
    def stats(self) -> StatsView:
        if self._stats is None:
            from coach_gui.ui.schedule.stats_view import StatsView

            window = self.window
            self._stats = StatsView(
                window.cases.schedule, self._current_note, window.note_entries, window
            )
            self._stats.open_note_requested.connect(self.edit_note)
            self._stats.fit_requested.connect(window.menu_actions.fit_schedule.trigger)
            self.stack.addWidget(self._stats)
        return self._stats

    def _corrected(self, changes: Changes, *, source: object = None) -> None:
        """A key point corrected (in the thread, the session detail or the gap board): the
        views take it, and the strictness may be worth offering (said once)."""
        self.broadcast(changes, source=source)
        self.window.strictness_offer.check()

    def broadcast(self, changes: Changes, *, source: object = None) -> None:
        """Something changed (DESIGN §2): each view, built so far, but the one it came from
        reads again now if shown, else when next shown; sessions and verdicts made here go
        to the other computers. E.g. the notes listed again (another folder, F5, another
        program): Today and Statistics never count the notes of a folder no longer open."""
        takers: list[TakesChanges | None] = [
            self._today,
            self._stats,
            self._evals,
            self.sessions,
            self.gap_board,
            self.review_undo,
            self.window.sync_status,
        ]
        for taker in takers:
            if taker is not None and taker is not source:
                taker.take_changes(changes)

    def edit_note(self, note_id: str, index: int) -> None:
        """That note, open in the editor on the notes view (unsaved edits of another note
        are guarded), with its key point `index` selected: from Today or Statistics, to
        reword it."""
        window = self.window

        def edit() -> None:
            if window.editor.current_note_id() != note_id:
                window.open_note(note_id)
            if window.editor.current_note_id() != note_id:
                window.statusBar().showMessage("That note is no longer in your notes.", 6000)
                return
            self.show_notes()
            if window.editor.current_note_id() == note_id:
                assertions = window.editor.assertions.list
                if 0 <= index < assertions.count():
                    assertions.setCurrentRow(index)  # the key point to reword
                assertions.setFocus()

        window.guard_unsaved(edit)

    def _current_note(self, note_id: str) -> Note | None:
        """The note as it is now; Today calls it on a worker (the entries dict is swapped
        whole on each load, never changed in place)."""
        entry = self.window.entry_for(note_id)
        return entry.note if entry is not None else None

    def _after_judging(self, report: JudgePendingReport) -> None:
        """Say what was judged and what stays pending (and why), on the Sessions view."""
        from coach_gui.ui.review.judge_pending_action import report_text

        self.sessions.show_notice(report_text(report))
        self.broadcast(report.changes)
        if self.stack.currentWidget() is not self.sessions:
            self.show_sessions()  # (showing it reads the sessions again)

    @property
    def on_practice(self) -> bool:
        return self.stack.currentWidget() is self.practice

    def show_today(self) -> None:
        self.stack.setCurrentWidget(self.today)
        self.window.menu_actions.show_today.setChecked(True)
        self.today.tree.setFocus()

    def show_stats(self) -> None:
        self.stack.setCurrentWidget(self.stats)
        self.window.menu_actions.show_stats.setChecked(True)
        self.stats.take_focus()

    def show_evals(self) -> None:
        self.stack.setCurrentWidget(self.evals)
        self.window.menu_actions.show_evals.setChecked(True)
        self.evals.sessions.setFocus()

    def practise_due(self, due: list[DuePractice]) -> None:
        """Today's *Start*: practise the due notes in turn; each session targets the note's
        due assertions and seals the scheduler's decision with it (DESIGN §6)."""
        if not due:
            return
        first = due[0]
        pane = self.practice
        if pane.active and not pane.confirm_leave(f"Practise “{first.note.title}” instead?"):
            return
        self._due = list(due[1:])
        self.show_practice()
        pane.start(first.note, plan=first.plan)

    def _after_session(self, summary: SessionEnded) -> None:
        """A session ended: name the next due note on its summary, let Today know, and
        offer to take its review back."""
        self.practice.set_next_due(self._due[0].note.title if self._due else None)
        self.broadcast(summary.changes, source=self.review_undo)
        self.review_undo.check(offer_session=summary.session_id)  # and offer to take it back

    def _practise_next_due(self) -> None:
        if self._due:
            self.practise_due(self._due)

    def _on_today_loaded(self, today: Today) -> None:
        """At start, once: open on Today when there is a history to schedule from, unless
        the learner has already moved on from the notes."""
        if not self._choose_start_view:
            return
        self._choose_start_view = False
        # New notes alone are no history: a new learner starts on the notes (and Welcome).
        has_history = (
            bool(today.notes) or bool(today.held) or any(count for _day, count in today.forecast)
        )
        untouched = self.stack.currentWidget() is self.notes and not self.window.editor.is_dirty()
        if has_history and untouched:
            self.show_today()

    def _add_assertions(self, note_id: str) -> None:
        """From practice on a note without assertions: that note, in the editor, with a
        new assertion to write (unsaved edits of another note are guarded)."""
        window = self.window

        def edit() -> None:
            if window.editor.current_note_id() != note_id:
                window.open_note(note_id)
            self.show_notes()
            if window.editor.current_note_id() == note_id:
                window.editor.assertions.add_assertion()

        window.guard_unsaved(edit)

    def show_notes(self) -> None:
        self.stack.setCurrentWidget(self.notes)
        self.window.menu_actions.show_notes.setChecked(True)
        self.window.note_list.view.setFocus()

    def show_sent(self) -> None:
        self.stack.setCurrentWidget(self.sent)
        self.window.menu_actions.show_sent.setChecked(True)
        self.sent.take_focus()

    def show_sessions(self) -> None:
        """Sessions, with the gap board showing the note open in the editor."""
        self.gap_board.select_note(self.window.editor.current_note_id())
        self.stack.setCurrentWidget(self.sessions)
        self.window.menu_actions.show_sessions.setChecked(True)
        self.sessions.table.setFocus()

    def practise_gaps(self, note: Note, gaps: list[OpenGap]) -> None:
        """*Practise these gaps*: a session whose challenges target the gaps' assertions;
        the gap ids and the decision are sealed with it (DESIGN §6)."""
        from coach_gui.domain.practice import plan_gap_practice

        pane = self.practice
        if pane.active and not pane.confirm_leave(f"Practise the gaps of “{note.title}” instead?"):
            return
        targets = tuple(gap.assertion_index for gap in gaps)
        plan = plan_gap_practice(
            note, targets, tuple(g.gap_id for g in gaps), self.window.cases.schedule.now()
        )
        self.show_practice()
        pane.start(note, plan=plan)

    def show_practice(self) -> None:
        self.stack.setCurrentWidget(self.practice)
        self.window.menu_actions.show_practice.setChecked(True)
        self.practice.take_focus()

    def practise_open_note(self) -> None:
        """Practise the note open in the editor, once its unsaved edits are saved (or
        discarded: the last saved version is practised)."""
        window = self.window
        if not window.editor.has_note():
            window.statusBar().showMessage("Open a note first, then choose Practise.", 5000)
            return
        window.guard_unsaved(self._practise_saved_note)

    def _practise_saved_note(self) -> None:
        window, pane = self.window, self.practice
        entry = (
            window.entry_for(window.editor.current_note_id()) if window.editor.file_name() else None
        )
        if entry is None:
            window.statusBar().showMessage(
                "Save the new note first (Ctrl+S), then practise it.", 8000
            )
            return
        if pane.active and pane.note is not None and pane.note.id == entry.note.id:
            self.show_practice()  # already practising it: go back to the session
            return
        if pane.active and not pane.confirm_leave(f"Practise “{entry.note.title}” without it?"):
            return
        self.show_practice()
        pane.start(entry.note)

    def remember(self) -> None:
        """On close (before the session is ended): which view to open on next time."""
        pane = self.practice
        in_session = self.on_practice and pane.active and pane.note is not None
        settings = window_state.window_settings()
        settings.setValue(LAST_VIEW, "practice" if in_session else "notes")
        settings.setValue(LAST_PRACTISED, pane.note.id if in_session and pane.note else "")
        settings.sync()

    def close(self) -> None:
        """The window closes: end the session (every submitted answer is already saved),
        waiting for its seal only briefly. A stream in flight is cancelled; the window's
        reads on their way (a Tier 1 check, Today) get a moment to end; a judge call still
        on its way is left to `tasks.quiesce` and, should it not end at once, the session
        is sealed as interrupted at the next start (ADR 0012)."""
        self.practice.shutdown(QUIT_WAIT_MS)
        if tasks.pending_tasks():  # a Tier 1 check, Today's load, the key's state: milliseconds
            tasks.wait_for_all(CHECK_WAIT_MS)

    def restore(self) -> None:
        """After the first load: back to the practice view if a session was in progress."""
        settings = window_state.window_settings()
        if settings.value(LAST_VIEW, "notes") != "practice":
            self._choose_start_view = True
            self.today.refresh()  # on a worker; Today is shown when it says there is history
            self.review_undo.check()
            return
        self.review_undo.check()
        entry = self.window.entry_for(str(settings.value(LAST_PRACTISED, "")))
        if entry is not None:
            self.practice.offer(entry.note)
            self.show_practice()
