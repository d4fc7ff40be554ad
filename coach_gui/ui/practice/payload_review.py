"""*Review what will be sent* (setting `judge.reviewPayloads`): before each judge request the
learner sees the exact payload and chooses Send or Don't send.

The worker thread asks through a `ReviewGate` (a signal to the GUI thread) and waits for the
answer; no widget is touched off the GUI thread. The dialog shows the very payload object
the judging service built, so what is shown is what is sent.
"""

from __future__ import annotations

import json
import threading
import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from coach_gui.domain.judge_errors import JudgeError
from coach_gui.ui.kit.tasks import to_gui_thread

if TYPE_CHECKING:
    from collections.abc import Callable

    from coach_gui.domain.tier2 import Tier2Payload
    from coach_gui.domain.verdicts import JudgeResponse
    from coach_gui.services.ports.judge import Judge

    # (payload, the model that would grade it) -> None: send it; else why it was not.
    _Review = Callable[[Tier2Payload, str | None], str | None]

CHOSE_NOT_TO_SEND = "you chose not to send it, so nothing left this computer"
SESSION_ENDED = "the session ended before you chose to send it, so nothing left this computer"


class PayloadWithheld(JudgeError):
    """The learner did not let this payload go; the answer stays unjudged."""

    reason_code = "not_sent"

    def __init__(self, why: str) -> None:
        super().__init__(
            f"Not sent to the judge: {why}. Your answer is kept unjudged; you can have it "
            "judged later."
        )


class ReviewedJudge:
    """The `Judge` port, with the learner's say before each payload leaves."""

    def __init__(self, judge: Judge, review: _Review) -> None:
        self._judge = judge
        self._review = review

    def judge(self, payload: Tier2Payload) -> JudgeResponse:
        # The judge this payload would go to, named by the judge itself: Settings may have
        # chosen another one mid-session (issue 22), and the learner must see which.
        model = getattr(self._judge, "judge_model", None)
        withheld = self._review(payload, model if isinstance(model, str) else None)
        if withheld is not None:
            raise PayloadWithheld(withheld)
        return self._judge.judge(payload)

    @property
    def on_progress(self) -> Callable[[int], None] | None:
        return getattr(self._judge, "on_progress", None)

    @on_progress.setter
    def on_progress(self, callback: Callable[[int], None] | None) -> None:
        """Pass a progress callback on to the judge behind, when it streams."""
        if hasattr(self._judge, "on_progress"):
            self._judge.on_progress = callback

    def cancel(self) -> None:
        """Pass a stop on to the judge behind, when it can stop (the local model's)."""
        stop = getattr(self._judge, "cancel", None)
        if callable(stop):
            stop()


@dataclass(eq=False)
class PendingReview:
    """One payload waiting for the learner's choice."""

    payload: Tier2Payload
    model: str
    decided: threading.Event = field(default_factory=threading.Event)
    withheld: str | None = None  # why it was not sent; None: send it

    def decide(self, send: bool, why: str = CHOSE_NOT_TO_SEND) -> None:
        if not self.decided.is_set():  # the first answer counts
            self.withheld = None if send else why
            self.decided.set()


class ReviewGate(QObject):
    """One session's gate. Create it on the GUI thread; `review` runs on the worker."""

    asked = Signal(object)  # a PendingReview, delivered on the GUI thread

    def __init__(self, model: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._model = model
        self._lock = threading.Lock()
        self._waiting: list[PendingReview] = []
        self._open = True

    def review(self, payload: Tier2Payload, model: str | None = None) -> str | None:
        """Worker thread: wait for the learner. None to send, else why it was not sent.
        `model`: the judge's own name for itself (else the one the session began with)."""
        pending = PendingReview(payload, model or self._model)
        with self._lock:
            if not self._open:
                return SESSION_ENDED
            self._waiting.append(pending)
        # Not `self.asked.emit` here: the gate may be deleted with its session meanwhile.
        try:
            to_gui_thread(_ask, weakref.ref(self), pending)
        except RuntimeError:  # the app is gone: nobody to ask
            pending.decide(False, SESSION_ENDED)
        pending.decided.wait()
        with self._lock:
            self._waiting.remove(pending)
        return pending.withheld

    def close(self) -> None:
        """The session ended: nothing waiting, or asked later, is sent."""
        with self._lock:
            self._open = False
            waiting = list(self._waiting)
        for pending in waiting:
            pending.decide(False, SESSION_ENDED)


def _ask(gate: weakref.ref[ReviewGate], pending: PendingReview) -> None:
    """GUI thread: ask the learner, unless the gate's session is gone (then not sent)."""
    if pending.decided.is_set():  # the session ended meanwhile (`ReviewGate.close`)
        return
    asking = gate()
    if asking is None or not shiboken6.isValid(asking):
        pending.decide(False, SESSION_ENDED)
    else:
        asking.asked.emit(pending)


def shown_text(payload: Tier2Payload) -> str:
    """The payload as the learner reads it: the same JSON the outbox keeps, indented."""
    return json.dumps(payload.to_json_dict(), indent=2, ensure_ascii=False)


class PayloadReviewDialog(QDialog):
    def __init__(self, pending: PendingReview, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.pending = pending
        payload = pending.payload
        self.setWindowTitle("Review what will be sent — Coach")
        self.setAccessibleName("Review what will be sent")
        parts = "the challenge and your answer"
        if payload.carries_assertions:
            parts = "the challenge, your answer and your note's core assertions"
        judge = (
            f"the judge on this computer ({pending.model.removeprefix('local:')})"
            if pending.model.startswith("local:")
            else f"the Gemini judge ({pending.model})"
        )
        intro = QLabel(
            f"Coach is about to send this to {judge}: {parts}, "
            "exactly as shown. Nothing else leaves this computer; Coach only adds its fixed "
            "grading instructions around it.",
            self,
        )
        intro.setWordWrap(True)
        intro.setAccessibleName("What will be sent")
        switch = QLabel(
            "Core assertions are included (Send core assertions to the judge is on)."
            if payload.carries_assertions
            else "Core assertions are not included (Send core assertions to the judge is off).",
            self,
        )
        switch.setWordWrap(True)
        switch.setAccessibleName("Core assertions")
        self.payload_view = QPlainTextEdit(shown_text(payload), self)
        self.payload_view.setReadOnly(True)
        self.payload_view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.payload_view.setAccessibleName("The payload")
        self.payload_view.setAccessibleDescription("Exactly what will be sent to the judge")
        buttons = QDialogButtonBox(self)
        role = QDialogButtonBox.ButtonRole
        self.send_button = buttons.addButton("&Send", role.AcceptRole)
        self.send_button.setAccessibleName("Send to the judge")
        self.dont_send_button = buttons.addButton("&Don't send", role.RejectRole)
        self.dont_send_button.setAccessibleName("Don't send")
        self.dont_send_button.setAccessibleDescription("Keep the answer unjudged; send nothing")
        self.dont_send_button.setDefault(True)  # the safe answer is the default
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        self.accepted.connect(lambda: pending.decide(True))
        self.rejected.connect(lambda: pending.decide(False))  # Don't send, Esc, or closed
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(switch)
        layout.addWidget(self.payload_view, 1)
        layout.addWidget(buttons)
        self.resize(620, 460)
