"""*Today*: the notes whose core assertions are due for practice (open gaps first, then the
most overdue), then the new notes the daily limit brings in, then what the learner held
back; a 14-day forecast, and *Start*, which hands the due notes and then the new ones, in
order and each with its scheduling decision, to whoever runs practice (the main window).

On the list's current item: *Suspend* (until resumed), *Bury until tomorrow*, *Resume*, and
*Edit note* (a key point missed again and again is worth rewording) — in the list's
context menu, by their keys, and in the window's Schedule menu.

Loading replays any new history into the memory cache, so it runs on a background task,
never on the GUI thread; a hold is written on the writer lane.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QAction, QBrush, QColor, QHideEvent, QKeySequence, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QStackedWidget,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.changes import Changes
from coach_gui.domain.memory import RATING_NAMES
from coach_gui.domain.schedule_control import NEW_ORDER_WORDS, HoldAction
from coach_gui.operations.today import DuePractice
from coach_gui.operations.vocabulary import counted, day_and_clock, long_day
from coach_gui.ui.charts.forecast_chart import ForecastChart
from coach_gui.ui.kit.buttons import button
from coach_gui.ui.kit.changes import StaleUntilShown
from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.key_shortcuts import shortcut
from coach_gui.ui.kit.refresh_key import RefreshOnF5
from coach_gui.ui.kit.tasks import Lane, Task
from coach_gui.ui.kit.theme import warning_colour
from coach_gui.ui.schedule.schedule_read import ScheduleRead

if TYPE_CHECKING:
    from coach_gui.domain.notes import Note, NoteEntry
    from coach_gui.domain.schedule_control import Hold, ScheduleHold
    from coach_gui.operations.cases import Schedule
    from coach_gui.services.ports.notes import NoteLookup
    from coach_gui.services.scheduler import DueAssertion, DueNote, NewNotes, Today

HOW_IT_WORKS = (
    "Each core assertion you practise gets its own schedule: the ones you miss come back "
    "soon, the ones you explain come back later and later."
)
EMPTY_TEXT = (
    "Nothing due in the next 14 days. Practise a note to start its schedule.\n\n" + HOW_IT_WORKS
)
NO_KEY_POINTS_TEXT = (
    "Nothing to practise yet: no note has core assertions. Open a note, add the few key "
    "points it makes (Alt+A in the editor), and Today brings it in as a new note.\n\n"
    + HOW_IT_WORKS
)
WHERE_THE_LIMIT_IS = "Change the limit in Settings › Practice (Ctrl+,)."
# The keys of the actions on the list's current item (F1 lists them, on Today).
SUSPEND_KEYS, BURY_KEYS, RESUME_KEYS, EDIT_KEYS = "Ctrl+J", "Ctrl+B", "Ctrl+R", "Ctrl+E"
# As the gap board and the end of a session say it.
_GAP_WORDS = {"wrong": "wrong", "unexplained": "not explained"}
_NOTE_GAP_WORDS = {"wrong": "a key point wrong", "unexplained": "a key point not explained"}
_KIND = Qt.ItemDataRole.UserRole + 1  # what a row is (below); UserRole holds the note id
_PAYLOAD = Qt.ItemDataRole.UserRole + 2  # its DueAssertion, NewNote or Hold
DUE_NOTE, DUE_POINT, NEW_HEADER, NEW_NOTE, HELD_HEADER, HELD = (
    "due", "point", "new-header", "new", "held-header", "held",
)  # fmt: skip


def _s(count: int) -> str:
    return "s" if count != 1 else ""


def next_due(today: Today) -> str | None:
    """When the next key points fall due, once nothing is due today ("3 key points
    tomorrow"); None when nothing falls due in the forecast's days."""
    for offset, (day, count) in enumerate(today.forecast):
        if offset == 0 or not count:
            continue
        when = date.fromisoformat(day)
        said = "tomorrow" if offset == 1 else f"on {long_day(when)}"
        return f"{count} key point{_s(count)} {said}"
    return None


def order_words(new: NewNotes) -> str:
    """The order of new notes as Settings names it, short ("oldest first")."""
    words = NEW_ORDER_WORDS[new.order].split(" (")[0]
    return words[:1].lower() + words[1:]


def new_words(new: NewNotes) -> str:
    """Today's new notes in a line: "New today: 3 of 5 — 40 more waiting"."""
    offered, more = len(new.notes), new.waiting - len(new.notes)
    text = f"New today: {offered} of {new.limit}"
    if new.begun_today:
        text += f" ({new.begun_today} already begun)"
    return text + (f" — {more} more waiting" if more else "")


def limit_text(new: NewNotes | None) -> str | None:
    """Why no new note is offered though some wait, and where to change it; None when
    new notes are offered or none wait."""
    if new is None or new.notes or not new.waiting:
        return None
    waiting = f"{new.waiting} wait{'s' if new.waiting == 1 else ''}"
    if new.limit == 0:
        return (
            f"New notes are off: your daily limit is 0; {waiting} to be begun. "
            + WHERE_THE_LIMIT_IS
        )
    return (
        f"You have begun {new.begun_today} new note{_s(new.begun_today)} today, your daily "
        f"limit; {waiting} for tomorrow. " + WHERE_THE_LIMIT_IS
    )


def nothing_due_text(today: Today | None) -> str:
    """Today's empty page: when the next review is, why no new note is offered (and where
    to change it), or how a schedule starts."""
    upcoming = next_due(today) if today is not None else None
    limit = limit_text(today.new) if today is not None else None
    if upcoming is None and limit is None:
        if today is not None and _nothing_to_begin(today):
            return NO_KEY_POINTS_TEXT
        return EMPTY_TEXT
    text = "Nothing due today." + (f" Next: {upcoming}." if upcoming else "")
    return text + (f"\n\n{limit}" if limit else "") + f"\n\n{HOW_IT_WORKS}"


def _nothing_to_begin(today: Today) -> bool:
    """No note has key points to begin, and nothing was ever scheduled or held."""
    fresh = today.new is not None and not today.new.waiting
    return fresh and not any(count for _day, count in today.forecast) and not today.held


def times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


def leech_words(assertion: DueAssertion) -> str:
    return f"missed {times(assertion.memory.lapses)} — consider rewording it"


def held_words(hold: Hold, now: str) -> str:
    """Suspended, or buried until tomorrow (the learner's next day, from `now`)."""
    if hold.suspended or hold.until is None:
        return "suspended"
    ends = datetime.fromisoformat(hold.until).astimezone()
    day = (ends - timedelta(microseconds=1)).date()  # a burial ends at a midnight
    if day == datetime.fromisoformat(now).astimezone().date():
        return "buried until tomorrow"
    return f"buried until {long_day(ends)}"


@dataclass(frozen=True)
class Target:
    """What an action on the current row acts on: a note, or one of its key points."""

    note: Note
    kind: str
    assertion: str | None = None  # the key point's text; None: the whole note
    index: int = -1  # the key point's place in the note now (-1: none)
    hold: Hold | None = None

    def named(self) -> str:
        if self.assertion is None:
            return f"“{self.note.title}”"
        number = f" {self.index + 1}" if self.index >= 0 else ""
        return f"key point{number} of “{self.note.title}”"


class TodayView(QWidget, StaleUntilShown):
    """`start_requested(list[DuePractice])`: practise these notes in turn (Start, or one
    note activated). `loaded(Today)`: fresh data is on screen. `edit_requested(note id,
    key point index or -1)`: open that note to change it. `held(ScheduleHold)`: a hold
    was recorded."""

    # Practice, a verdict, a rating, a hold, new parameters or other notes: what is due.
    reads_again_on = Changes(notes=True, sessions=True, verdicts=True, reviews=True, schedule=True)

    start_requested = Signal(object)
    loaded = Signal(object)
    edit_requested = Signal(str, int)
    held = Signal(object)  # a ScheduleHold was recorded: its changes go out

    def __init__(
        self,
        schedule: Schedule,
        notes: NoteLookup,
        parent: QWidget | None = None,
        *,
        catalogue: Callable[[], Sequence[NoteEntry]] | None = None,
    ):
        """`notes` finds a note by id as it is now (None when gone); it is called on a
        worker thread, so it must not touch widgets (a dict's `get` is ideal). `catalogue`
        lists every note (on this thread: its list is handed to the worker), so Today can
        bring in new ones; without it Today lists due notes only."""
        super().__init__(parent)
        self.schedule = schedule
        self._notes = notes
        self._catalogue = catalogue
        self._writing = False
        self.today: Today | None = None
        self._stale = False
        self.practice: list[DuePractice] = []
        self.setObjectName("todayView")
        self.setAccessibleName("Today")
        self._build()
        self.read: ScheduleRead[tuple[Today, list[DuePractice]]] = ScheduleRead(
            self, self.summary_label, self.refresh_button, shown=self._on_loaded,
            failed="Could not read what is due", name="load today",
        )  # fmt: skip

    def _build(self) -> None:
        self.title_label = QLabel("Today", self)
        font = self.title_label.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title_label.setFont(font)
        self.title_label.setAccessibleName("Today")
        self.summary_label = QLabel("Loading…", self)
        self.summary_label.setAccessibleName("What is due")
        self.summary_label.setWordWrap(True)
        self.start_button = button(
            self, "&Start", "Start practising",
            "Practise the due notes in turn, starting with open gaps, then the new notes "
            "(Ctrl+Enter)",
        )  # fmt: skip
        self.refresh_button = button(self, "&Refresh", "Refresh", "Read what is due again (F5)")
        header = QHBoxLayout()
        header.addWidget(self.title_label)
        header.addWidget(self.summary_label, 1)
        header.addWidget(self.refresh_button)
        header.addWidget(self.start_button)
        self.notice_label = QLabel(self)
        self.notice_label.setWordWrap(True)
        self.notice_label.setAccessibleName("What changed")
        self.notice_label.hide()

        self.tree = QTreeWidget(self)
        self.tree.setObjectName("todayTree")
        self.tree.setHeaderLabels(["Note / core assertion", "Due", "Interval", "Last rating"])
        self.tree.setAccessibleName("Due notes")
        self.tree.setAccessibleDescription(
            "Notes with core assertions due, open gaps first, then new notes, then what you "
            "held back; expand a note to see them. Enter practises the selected note; the "
            "menu key offers suspend, bury, resume and edit."
        )
        self.tree.setRootIsDecorated(True)
        columns = self.tree.header()
        columns.setStretchLastSection(False)
        columns.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, 4):
            columns.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setUniformRowHeights(True)
        self.tree.itemActivated.connect(self._on_activated)
        self.tree.currentItemChanged.connect(lambda *_: self.update_actions())
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._context_menu)
        self.empty_label = QLabel(EMPTY_TEXT, self)
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_label.setAccessibleName("Nothing due")
        self.pages = QStackedWidget(self)
        self.pages.addWidget(self.tree)
        self.pages.addWidget(self.empty_label)
        self.chart = ForecastChart(self)

        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addWidget(self.notice_label)
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.chart)
        self.start_button.clicked.connect(self.start)
        self.refresh_button.clicked.connect(self.refresh)
        context = Qt.ShortcutContext.WidgetWithChildrenShortcut
        for keys in ("Ctrl+Return", "Ctrl+Enter"):
            shortcut(keys, self, self.start, context)
        RefreshOnF5(self, self.refresh)

        self.suspend_action = self._action("&Suspend", SUSPEND_KEYS, lambda: self.hold("suspend"))
        self.bury_action = self._action("&Bury until tomorrow", BURY_KEYS,
                                        lambda: self.hold("bury"))  # fmt: skip
        self.resume_action = self._action("&Resume", RESUME_KEYS, lambda: self.hold("resume"))
        self.edit_action = self._action("&Edit note", EDIT_KEYS, self.edit_current)
        QWidget.setTabOrder(self.refresh_button, self.start_button)
        QWidget.setTabOrder(self.start_button, self.tree)
        QWidget.setTabOrder(self.tree, self.chart)
        self._show(None, [])

    def _action(self, text: str, keys: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self)
        action.setShortcut(QKeySequence(keys))
        action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        action.triggered.connect(lambda _checked=False: slot())
        self.addAction(action)
        return action

    def actions_on_current(self) -> list[QAction]:
        """Suspend, Bury, Resume and Edit note, for the window's Schedule menu."""
        return [self.suspend_action, self.bury_action, self.resume_action, self.edit_action]

    # --- loading ------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Read what is due again, in the background (a load still running is dropped)."""
        self._stale = False
        schedule, notes = self.schedule, self._notes
        # A snapshot, taken here: the window changes its notes on this thread.
        catalogue = list(self._catalogue()) if self._catalogue is not None else None
        self.read.start(lambda: schedule.today(notes, catalogue))

    def _on_loaded(self, result: tuple[Today, list[DuePractice]]) -> None:
        today, practice = result
        self._show(today, practice)
        self.loaded.emit(today)

    def _show(self, today: Today | None, practice: list[DuePractice]) -> None:
        kept = self._row_key(self.tree.currentItem())
        self.today, self.practice = today, practice
        self.tree.clear()
        notes = today.notes if today is not None else []
        for due in notes:
            self.tree.addTopLevelItem(self._note_item(due))
        first = self.tree.topLevelItem(0)
        if first is not None:
            first.setExpanded(True)
        new = today.new if today is not None else None
        sections = []
        if new is not None and (new.notes or new.waiting):
            sections.append(self._new_section(new))
        if today is not None and today.held:
            sections.append(self._held_section(today.held, today.now))
        for section in sections:
            self.tree.addTopLevelItem(section)
            section.setExpanded(True)  # (only once in the tree)
        current = self._find_row(kept) or self._first_row()
        if current is not None:
            self.tree.setCurrentItem(current)
        listed = bool(notes) or bool(new and new.notes) or bool(today and today.held)
        self.empty_label.setText(nothing_due_text(today))
        self.pages.setCurrentWidget(self.tree if listed else self.empty_label)
        self.start_button.setEnabled(bool(practice))
        self.chart.set_days(today.forecast if today is not None else [])
        if today is not None:
            self.summary_label.setText(self._summary(today))
        self.update_actions()

    @staticmethod
    def _summary(today: Today) -> str:
        new = today.new
        if not today.notes:
            upcoming = next_due(today)
            text = f"Nothing due today. Next: {upcoming}." if upcoming else "Nothing due."
            if new is not None and new.notes:
                text = ("Nothing due today." if upcoming else "Nothing due.") + (
                    f" {new_words(new)}."
                )
            elif limit_text(new) is not None:
                text += " Daily limit of new notes reached."
        else:
            overdue = sum(n.overdue for n in today.notes)
            late = f", {overdue} overdue" if overdue else ""
            count = len(today.notes)
            points = f"{today.due} core assertion{_s(today.due)}"
            text = f"{count} note{_s(count)} due: {points}{late}."
            if new is not None and new.notes:
                text += f" {new_words(new)}."
        leeches = len(today.leeches)
        if leeches:
            text += f" {leeches} key point{_s(leeches)} flagged: consider rewording."
        if today.held:
            text += f" {len(today.held)} held back."
        return text

    def _note_item(self, due: DueNote) -> QTreeWidgetItem:
        count = len(due.assertions)
        label = f"{due.note.title} — {count} due"
        label += f", {due.overdue} overdue" if due.overdue else ""
        label += f" · {_NOTE_GAP_WORDS[due.open_gap]}" if due.open_gap else ""
        leeches = sum(a.leech for a in due.assertions)
        label += f" · {leeches} to reword" if leeches else ""
        first = due.assertions[0]
        item = QTreeWidgetItem(
            [label, "now" if first.ahead else day_and_clock(first.memory.due), "", ""]
        )
        self._mark(item, due.note.id, DUE_NOTE)
        item.setToolTip(0, label)
        warning = QBrush(QColor(warning_colour(self.palette())))
        for assertion in due.assertions:
            memory = assertion.memory
            # The gap first: a long key point is cut at the end, never its gap.
            gap = f"({_GAP_WORDS[memory.gap]}) " if memory.gap else ""
            leech = f"[{leech_words(assertion)}] " if assertion.leech else ""
            text = f"{assertion.index + 1}. {gap}{leech}{memory.text}"
            # An open gap is due now, whenever FSRS would have it (ADR 0023).
            when = "now" if assertion.ahead else day_and_clock(memory.due)
            child = QTreeWidgetItem([
                text, when, f"{assertion.interval_days:g} d",
                RATING_NAMES[memory.last_rating],
            ])  # fmt: skip
            self._mark(child, due.note.id, DUE_POINT, assertion)
            tip = (
                f"{memory.text}\nStability {memory.stability:.1f} days · "
                f"{counted(memory.reviews, 'review')}"
            )
            if assertion.leech:
                tip += (
                    f"\nMissed {times(memory.lapses)}: consider rewording it. "
                    f"{EDIT_KEYS} opens the note."
                )
                child.setForeground(0, warning)
            child.setToolTip(0, tip)
            item.addChild(child)
        return item

    def _section(self, label: str, kind: str, description: str) -> QTreeWidgetItem:
        item = QTreeWidgetItem([label, "", "", ""])
        self._mark(item, "", kind)
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        item.setToolTip(0, description)
        return item

    def _new_section(self, new: NewNotes) -> QTreeWidgetItem:
        limit = limit_text(new)
        label = new_words(new).replace("New today", "New notes today", 1)
        label += f" · {order_words(new)}" if new.notes else ""
        if limit is not None:
            label = f"New notes — {limit}"
        item = self._section(
            label,
            NEW_HEADER,
            f"Notes you have not practised yet, {order_words(new)}: up to {new.limit} a day. "
            + WHERE_THE_LIMIT_IS,
        )
        for offered in new.notes:
            count = len(offered.note.core_assertions)
            child = QTreeWidgetItem(
                [f"{offered.rank}. {offered.note.title} — {count} key point{_s(count)}", "new",
                 "", ""]
            )  # fmt: skip
            self._mark(child, offered.note.id, NEW_NOTE, offered)
            child.setToolTip(0, f"Not practised yet: {count} key point{_s(count)} to begin")
            item.addChild(child)
        return item

    def _held_section(self, held: Sequence[Hold], now: str) -> QTreeWidgetItem:
        item = self._section(
            f"Held back — {len(held)} (Resume: {RESUME_KEYS})",
            HELD_HEADER,
            "Suspended until you resume them, or buried until tomorrow",
        )
        for hold in held:
            note = self._notes(hold.note_id)
            title = note.title if note is not None else hold.note_id
            what = title
            if hold.digest is not None:
                index = self._index_in(note, hold.text)
                number = f"{index + 1}. " if index >= 0 else ""
                what = f"{title}: {number}{hold.text or 'a key point'}"
            child = QTreeWidgetItem([what, held_words(hold, now), "", ""])
            self._mark(child, hold.note_id, HELD, hold)
            child.setToolTip(
                0, f"{what}\n{held_words(hold, now)} · since {day_and_clock(hold.since)}"
            )
            item.addChild(child)
        return item

    @staticmethod
    def _index_in(note: Note | None, text: str | None) -> int:
        if note is None or text is None or text not in note.core_assertions:
            return -1
        return note.core_assertions.index(text)

    @staticmethod
    def _mark(item: QTreeWidgetItem, note_id: str, kind: str, payload: object = None) -> None:
        item.setData(0, Qt.ItemDataRole.UserRole, note_id)
        item.setData(0, _KIND, kind)
        item.setData(0, _PAYLOAD, payload)

    # --- rows ---------------------------------------------------------------------------------
    @staticmethod
    def _row_key(item: QTreeWidgetItem | None) -> tuple[str, str, str] | None:
        if item is None:
            return None
        payload = item.data(0, _PAYLOAD)
        digest = str(
            getattr(payload, "digest", None)
            or getattr(getattr(payload, "memory", None), "digest", "")
        )
        return (str(item.data(0, _KIND)), str(item.data(0, Qt.ItemDataRole.UserRole)), digest)

    def rows(self) -> list[QTreeWidgetItem]:
        """Every row, in the order shown (sections, then their rows)."""
        found: list[QTreeWidgetItem] = []
        for n in range(self.tree.topLevelItemCount()):
            top = self.tree.topLevelItem(n)
            assert top is not None
            found.append(top)
            for c in range(top.childCount()):
                child = top.child(c)
                assert child is not None
                found.append(child)
        return found

    def _find_row(self, key: tuple[str, str, str] | None) -> QTreeWidgetItem | None:
        if key is None:
            return None
        return next((row for row in self.rows() if self._row_key(row) == key), None)

    def _first_row(self) -> QTreeWidgetItem | None:
        """The first due note, else the first new note, else the first row."""
        rows = self.rows()
        for kind in (DUE_NOTE, NEW_NOTE):
            found = next((r for r in rows if r.data(0, _KIND) == kind), None)
            if found is not None:
                return found
        return rows[0] if rows else None

    @staticmethod
    def kind_of(item: QTreeWidgetItem | None) -> str | None:
        return None if item is None else str(item.data(0, _KIND))

    def target(self, item: QTreeWidgetItem | None = None) -> Target | None:
        """What the actions act on: the current row's note or key point (None: a heading)."""
        item = item if item is not None else self.tree.currentItem()
        kind = self.kind_of(item)
        if item is None or kind in (None, NEW_HEADER, HELD_HEADER):
            return None
        note = self._notes(str(item.data(0, Qt.ItemDataRole.UserRole)))
        if note is None:
            return None
        payload = item.data(0, _PAYLOAD)
        if kind == DUE_POINT:
            return Target(note, kind, payload.memory.text, payload.index)
        if kind == HELD:
            hold: Hold = payload
            if hold.digest is None:
                return Target(note, kind, hold=hold)
            return Target(note, kind, hold.text, self._index_in(note, hold.text), hold)
        return Target(note, kind)

    # --- suspend, bury, resume, edit ----------------------------------------------------------
    def update_actions(self) -> None:
        target = self.target() if self.isVisible() else None
        free = target is not None and not self._writing
        holding = free and target is not None and target.kind != HELD
        names = target.named() if target is not None else ""
        for action, verb, on in (
            (self.suspend_action, "&Suspend", holding),
            (self.bury_action, "&Bury", holding),
            (self.resume_action, "&Resume", free and target is not None and target.kind == HELD),
        ):
            action.setEnabled(on)
            text = f"{verb} {names}" if on else verb
            action.setText(text + (" until tomorrow" if action is self.bury_action else ""))
        self.edit_action.setEnabled(target is not None)
        leech = target is not None and target.kind == DUE_POINT and self._is_leech()
        self.edit_action.setText(
            "&Edit note to reword this key point" if leech
            else f"&Edit note {f'“{target.note.title}”' if target else ''}".rstrip()
        )  # fmt: skip

    def _is_leech(self) -> bool:
        item = self.tree.currentItem()
        payload = item.data(0, _PAYLOAD) if item is not None else None
        return bool(getattr(payload, "leech", False))

    def hold(self, action: HoldAction) -> None:
        """Suspend, bury or resume the current row's note or key point (written on the
        writer lane), then read Today again."""
        target = self.target()
        if target is None or self._writing:
            return
        if (action == "resume") != (target.kind == HELD):
            return
        schedule, note, assertion = self.schedule, target.note, target.assertion
        self._writing = True
        self.update_actions()
        Task(
            self,
            op=lambda _p: schedule.hold(note, action, assertion=assertion),
            success=lambda record: self._held(target, record),
            failure=self._hold_failed,
            lane=Lane.WRITER,
            name="hold back",
        ).run()

    def _held(self, target: Target, record: ScheduleHold) -> None:
        self._writing = False
        what = target.named()
        if record.action == "suspend":
            text = (
                f"Suspended {what}: Today leaves it out until you resume it "
                f"(Held back, {RESUME_KEYS})."
            )
        elif record.action == "bury":
            text = f"Buried {what} until tomorrow: it is back in Today then, when due."
        else:
            text = f"Resumed {what}: Today lists it again when it is due."
        self.show_notice(text)
        self.held.emit(record)
        self.refresh()

    def _hold_failed(self, error: Exception) -> None:
        self._writing = False
        self.update_actions()
        self.show_notice(f"Could not change the schedule: {learner_message(error)}")

    def show_notice(self, text: str) -> None:
        self.notice_label.setText(text)
        self.notice_label.setAccessibleDescription(text)
        self.notice_label.show()

    def edit_current(self) -> None:
        """Open the current row's note (at its key point) to change it."""
        target = self.target()
        if target is not None:
            self.edit_requested.emit(target.note.id, target.index)

    def _context_menu(self, where: QPoint) -> None:
        item = self.tree.itemAt(where) or self.tree.currentItem()
        if item is None:
            return
        self.tree.setCurrentItem(item)
        menu = QMenu(self.tree)
        menu.setAccessibleName("What to do with this row")
        menu.addActions(self.actions_on_current())
        menu.exec(self.tree.viewport().mapToGlobal(where))

    # --- starting -----------------------------------------------------------------------------
    def start(self) -> None:
        """Ctrl+Enter: practise every due note in turn, in the order shown, then the new ones."""
        if self.practice:
            self.start_requested.emit(list(self.practice))

    def _on_activated(self, item: QTreeWidgetItem) -> None:
        kind = self.kind_of(item)
        if kind == NEW_HEADER:
            new = self.today.new if self.today is not None else None
            fresh = {n.note.id for n in new.notes} if new is not None else set()
            chosen = [p for p in self.practice if p.note.id in fresh]
        elif kind in (HELD_HEADER, HELD):
            return
        else:
            top = item.parent() or item
            note_id = top.data(0, Qt.ItemDataRole.UserRole) if kind != NEW_NOTE else (
                item.data(0, Qt.ItemDataRole.UserRole)
            )  # fmt: skip
            chosen = [p for p in self.practice if p.note.id == note_id]
        if chosen:
            self.start_requested.emit(chosen)

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.update_actions()
        if (self.today is None and not self.read.reading) or self._stale:
            self.refresh()  # first shown, or out of date

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.update_actions()
