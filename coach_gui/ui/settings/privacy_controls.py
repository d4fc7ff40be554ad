"""The privacy switches for the toolbar (judge on/off, send core assertions) and the
status-bar line that says what leaves this computer (DESIGN §1.2, §1.8), and the privacy
summary the Welcome shows, in words that agree with both switches and with whether a
Gemini key is stored (without one nothing is sent, whatever the switch says).

    privacy = PrivacyControls(window.config_owner, window)
    toolbar.addActions(privacy.actions())
    window.statusBar().addPermanentWidget(privacy.status_label())
    privacy.set_key_status(status)  # the keyring's KeyStatus, read on a worker

A toggle takes effect at once (`config_changed`) and the window's ConfigOwner writes it to
coach.config.json on the WRITER lane; if the write fails, the toggle goes back to what is
on disk and the learner is told why.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QLabel, QWidget

from coach_gui.config import Config
from coach_gui.domain.errors import ConfigError
from coach_gui.ui.kit.failures import show_failure
from coach_gui.ui.settings.config_owner import ConfigOwner

if TYPE_CHECKING:
    from coach_gui.domain.connections import KeyStatus

JUDGE_KEYS = "Ctrl+Shift+J"
ASSERTIONS_KEYS = "Ctrl+Shift+A"

OFFLINE_TEXT = "Offline: nothing leaves this computer"
WITH_ASSERTIONS_TEXT = "Judge on: challenge + answer + core assertions are sent to Gemini"
WITHOUT_ASSERTIONS_TEXT = "Judge on: challenge + answer only are sent to Gemini"
NO_KEY_TEXT = "No Gemini key yet: answers are kept unjudged until a key is set"
LOCAL_TEXT = "Judged on this computer: nothing leaves"
_NEVER = "Never the note's text, title, tags, source or file name."


def waiting_for_key(config: Config, key_stored: bool | None) -> bool:
    """The judge is on and is Gemini, but no key is stored: nothing can be sent. The judge
    on this computer needs no key (ADR 0022); `None`: not known yet (the keyring is read
    on a worker), so the switches alone are told."""
    return config.judge.enabled and not config.judge.local and key_stored is False


def status_text(config: Config, key_stored: bool | None = None) -> str:
    """The status-bar line for `config`: what leaves this computer."""
    if not config.judge.enabled:
        return OFFLINE_TEXT
    if config.judge.local:
        return LOCAL_TEXT
    if waiting_for_key(config, key_stored):
        return NO_KEY_TEXT
    return WITH_ASSERTIONS_TEXT if config.judge.include_assertions else WITHOUT_ASSERTIONS_TEXT


def judge_switch_text(config: Config) -> str:
    """The judge switch's menu text: who grades."""
    if config.judge.local:
        return "&Judge answers on this computer"
    return "&Judge answers with Gemini"


def _sent(config: Config) -> str:
    extra = " and the note's core assertions" if config.judge.include_assertions else ""
    return f"each challenge, your answer{extra}"


def judge_tooltip(config: Config, key_stored: bool | None = None) -> str:
    if waiting_for_key(config, key_stored):
        return (
            "Judge on, but no Gemini key is stored, so nothing is sent: your answers are "
            "kept unjudged and can be judged later. Set a key in Settings, or choose the "
            f"judge on this computer there, which needs none ({JUDGE_KEYS} switches the "
            "judge off)."
        )
    if config.judge.local:
        model = config.judge.local_model
        if config.judge.enabled:
            return (
                f"Judge on: {model}, a model on this computer (Ollama), grades {_sent(config)}; "
                f"nothing leaves this computer. Switch off to keep answers unjudged "
                f"({JUDGE_KEYS})."
            )
        return (
            "Judge off: your answers are kept and can be judged later. Switch on to have "
            f"{model}, a model on this computer, grade them; nothing leaves ({JUDGE_KEYS})."
        )
    if config.judge.enabled:
        return (
            f"Judge on: {_sent(config)} go to Google Gemini to be graded. {_NEVER} "
            f"Switch off to keep everything on this computer ({JUDGE_KEYS})."
        )
    return (
        "Judge off: nothing leaves this computer; your answers are kept and can be judged "
        f"later. Switch on to send {_sent(config)} to Google Gemini ({JUDGE_KEYS})."
    )


def assertions_tooltip(config: Config) -> str:
    if config.judge.local and config.judge.enabled:
        state = "on" if config.judge.include_assertions else "off"
        return (
            f"{state.capitalize()}: the judge on this computer gets each challenge and your "
            f"answer{' and the note' + chr(8217) + 's core assertions' if state == 'on' else ''}"
            f"; nothing leaves this computer either way ({ASSERTIONS_KEYS})."
        )
    if not config.judge.enabled:
        state = "on" if config.judge.include_assertions else "off"
        return (
            f"The judge is off, so nothing is sent. This switch ({state}) chooses whether the "
            "note's core assertions go with each challenge and answer once the judge is on."
        )
    if config.judge.include_assertions:
        return (
            "On: the judge gets each challenge, your answer and the note's core assertions, "
            f"so it can name the ones your answer misses. {_NEVER} Switch off to send only "
            f"the challenge and your answer ({ASSERTIONS_KEYS})."
        )
    return (
        "Off: the judge gets only each challenge and your answer, not the note's core "
        f"assertions. {_NEVER} Switch on to let it name the assertions your answer misses "
        f"({ASSERTIONS_KEYS})."
    )


def privacy_summary_html(config: Config, key_stored: bool | None = None) -> str:
    """What stays on this computer and what may be sent, in plain words that agree with
    the switches as they are now (and with a missing key), ending with the status line."""
    now = f"<p><b>Now:</b> {html.escape(status_text(config, key_stored))}.</p>"
    if config.judge.local:
        return (
            "<p><b>Nothing leaves this computer.</b> Your notes, your answers, your practice "
            "history and verdicts, your settings and the log stay here. Challenges are "
            "written here, and your answers are graded here too, by "
            f"{html.escape(config.judge.local_model)} running in Ollama on this computer. "
            "What the judge gets (each challenge, your answer and, with <i>Send core "
            "assertions</i> on, the note's core assertions) is listed in the <i>Sent to "
            "judge</i> view, marked as judged on this computer.</p>" + now
        )
    stays = (
        "<p><b>Stays on this computer, always:</b> your notes, your answers, your practice "
        "history and verdicts, your settings and the log. Challenges are written here too, "
        "by a model running in Ollama on this computer.</p>"
    )
    what = "each challenge and your answer go to Google Gemini to be graded"
    listed = (
        f"{_NEVER} Every request sent is listed, exactly as sent, in the <i>Sent to "
        "judge</i> view.</p>"
    )
    if not config.judge.enabled:
        sent = (
            f"<p><b>May be sent, only if you switch the judge on:</b> {what}. The note's "
            "core assertions go with them only if you also switch on <i>Send core "
            f"assertions</i>. {listed}"
        )
    elif waiting_for_key(config, key_stored):
        sent = (
            "<p><b>Sent once you set a Gemini key:</b> the judge is on, but no key is "
            "stored, so nothing is sent and your answers are kept unjudged; you can have "
            f"them judged later. With a key, {what}, with the note's core assertions while "
            f"<i>Send core assertions</i> is on. {listed}"
        )
    else:
        with_them = (
            "with the note's core assertions, because <i>Send core assertions</i> is on"
            if config.judge.include_assertions
            else "without the note's core assertions, because <i>Send core assertions</i> is off"
        )
        sent = (
            f"<p><b>Sent each time an answer is judged (the judge is on):</b> {what}, "
            f"{with_them}. Switch the judge off and nothing is sent. {listed}"
        )
    return stays + sent + now


class PrivacyControls(QObject):
    """Two checkable actions and a status label over `judge.enabled` and
    `judge.includeAssertions`, as the window's `ConfigOwner` holds them: a switch asks the
    owner for the change, and the switches follow every change the owner makes (Settings
    too). They keep no config of their own (ADR 0030)."""

    config_changed = Signal(object)  # Config: the switches changed (or went back)
    saved = Signal(object)  # Config: now in coach.config.json, with no write still pending
    key_changed = Signal()  # whether a Gemini key is stored is known, or changed

    def __init__(self, owner: ConfigOwner, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._owner = owner
        self.key_stored: bool | None = None  # a Gemini key in the keyring; None: not read yet

        self.judge_action = QAction("&Judge answers with Gemini", self)
        self.judge_action.setObjectName("judgeSwitch")
        self.judge_action.setCheckable(True)
        self.judge_action.setShortcut(QKeySequence(JUDGE_KEYS))
        self.assertions_action = QAction("Send core &assertions to the judge", self)
        self.assertions_action.setObjectName("assertionsSwitch")
        self.assertions_action.setCheckable(True)
        self.assertions_action.setShortcut(QKeySequence(ASSERTIONS_KEYS))
        # `triggered` fires only for the learner's clicks and keys, not for setChecked.
        self.judge_action.triggered.connect(
            lambda checked: self._switch("judge.enabled", bool(checked))
        )
        self.assertions_action.triggered.connect(
            lambda checked: self._switch("judge.includeAssertions", bool(checked))
        )

        widget_parent = parent if isinstance(parent, QWidget) else None
        self._label = QLabel(widget_parent)
        self._label.setObjectName("privacyStatus")
        self._label.setAccessibleName("What leaves this computer")
        self._show(owner.config)
        owner.changed.connect(self._follow)
        owner.saved.connect(self.saved)

    @property
    def config(self) -> Config:
        """The config in effect (the owner's): what the switches show."""
        return self._owner.config

    # --- API for the main window ---------------------------------------------------
    def actions(self) -> list[QAction]:
        return [self.judge_action, self.assertions_action]

    def status_label(self) -> QLabel:
        return self._label

    def set_key_status(self, status: KeyStatus) -> None:
        """What the keyring said (read on a worker): with no usable key the judge on
        Gemini sends nothing, and the status line says so."""
        stored = status.usable and status.has_key
        if stored != self.key_stored:
            self.key_stored = stored
            self._show(self.config)
            self.key_changed.emit()

    def summary_html(self) -> str:
        """The privacy summary for the switches and the key as they are now."""
        return privacy_summary_html(self.config, self.key_stored)

    # --- switching -----------------------------------------------------------------
    def _follow(self, config: Config) -> None:
        self._show(config)
        self.config_changed.emit(config)

    def _switch(self, key: str, value: bool) -> None:
        try:
            # At once (switching off must not wait on a disk); written in the background.
            self._owner.update({key: value}, failed=self._on_save_failed, what="switch")
        except ConfigError as error:  # the rest of the config is bad: nothing to save
            self._show(self.config)
            show_failure(self._dialog_parent(), error)

    @property
    def saving(self) -> bool:
        """True while a switch is being written to coach.config.json."""
        return self._owner.writing

    def _on_save_failed(self, error: Exception) -> None:
        show_failure(self._dialog_parent(), error)  # the owner put the switch back

    def _dialog_parent(self) -> QWidget | None:
        parent = self.parent()
        if isinstance(parent, QWidget):
            return parent
        return self._label.window() if self._label.parentWidget() is not None else None

    # --- showing -------------------------------------------------------------------
    def _show(self, config: Config) -> None:
        judge = config.judge
        self.judge_action.setText(judge_switch_text(config))
        self.judge_action.setChecked(judge.enabled)
        self.assertions_action.setChecked(judge.include_assertions)
        self.assertions_action.setEnabled(judge.enabled)
        # Toolbar text says the state in words: a pressed-looking button is easy to miss.
        self.judge_action.setIconText("Judge: on" if judge.enabled else "Judge: off")
        switch = "on" if judge.include_assertions else "off"  # the switch; the label: effect
        self.assertions_action.setIconText(f"Send core assertions: {switch}")
        for action, tip in (
            (self.judge_action, judge_tooltip(config, self.key_stored)),
            (self.assertions_action, assertions_tooltip(config)),
        ):
            action.setToolTip(tip)
            action.setStatusTip(tip)
            action.setWhatsThis(tip)
        text = status_text(config, self.key_stored)
        self._label.setText(text)
        self._label.setToolTip(judge_tooltip(config, self.key_stored))
        self._label.setAccessibleDescription(text)
