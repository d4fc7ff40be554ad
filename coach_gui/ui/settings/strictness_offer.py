"""The judge's strictness, offered once (issue 36, DESIGN §4): when the learner's corrections
lean one way, say so once and offer the strictness that would have agreed with them more
often. Nothing changes without their yes.

    offer = StrictnessOffer(cases.schedule, config_owner, window)
    offer.check()   # after a correction: the agreement is counted on a worker
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QObject, QSettings, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from coach_gui.ui.kit.tasks import Task
from coach_gui.ui.kit.window_state import window_settings

if TYPE_CHECKING:
    from coach_gui.domain.agreement import Agreement, Suggestion
    from coach_gui.ui.settings.config_owner import ConfigOwner

SAID = "judge/strictnessSuggested"  # the suggestions said so far, "standard->lenient,…"


class CountsAgreement(Protocol):
    def judge_agreement(self) -> list[Agreement]: ...


class StrictnessOffer(QObject):
    said = Signal(object)  # Suggestion, once it has been said (whatever the answer)

    def __init__(
        self,
        schedule: CountsAgreement,
        owner: ConfigOwner,
        parent: QWidget,
        *,
        store: Callable[[], QSettings] = window_settings,
    ) -> None:
        super().__init__(parent)
        self._schedule = schedule
        self._owner = owner
        self._parent = parent
        self._store = store
        self._task: Task[list[Agreement]] | None = None

    def check(self) -> None:
        """Count the agreement (on a worker) and say the suggestion if it is new."""
        if self._task is not None:  # the running count sees the correction too
            return
        schedule = self._schedule
        self._task = Task(
            self._parent,
            op=lambda _p: schedule.judge_agreement(),
            success=self._counted,
            failure=lambda _error: self._done(),  # a suggestion can wait for the next one
            name="count judge agreement",
        ).run()

    def _done(self) -> None:
        self._task = None

    def _counted(self, rows: list[Agreement]) -> None:
        from coach_gui.domain.agreement import suggestion

        self._done()
        found = suggestion(rows, self._owner.config.judge.strictness)
        if found is None:
            return
        store = self._store()
        said = str(store.value(SAID, "") or "").split(",")
        key = f"{found.current}->{found.suggested}"
        if key in said:
            return
        store.setValue(SAID, ",".join([*filter(None, said), key]))
        store.sync()
        self._ask(found)

    def _ask(self, found: Suggestion) -> None:
        box = QMessageBox(self._parent)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("The judge's strictness — Coach")
        box.setText("Your corrections lean one way.")
        box.setInformativeText(
            f"{found.finding} You can change it later in Settings › Judge; nothing changes "
            "unless you say so."
        )
        use = box.addButton(f"Use {found.suggested} strictness", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(f"Keep {found.current}", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(use)
        self.said.emit(found)
        box.exec()
        chosen = box.clickedButton()
        box.deleteLater()
        if chosen is use:
            self._owner.update({"judge.strictness": found.suggested}, what="strictness")
