"""The *Gemini API key* section of Settings: store, remove and test the key in the OS
keyring. The key is typed into a masked field, handed to the keyring on a worker, and
never shown, logged or put back into any widget (DESIGN §1.7).

    section = GeminiKeySection(cases.keys)  # the use case (operations/keys)
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QApplication,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from coach_gui.domain.errors import CoachError
from coach_gui.domain.judge_errors import (
    JudgeAccessDenied,
    JudgeKeyInvalid,
    JudgeModelNotFound,
    JudgeNetworkDown,
    JudgeQuotaExceeded,
    JudgeRedirected,
    JudgeServerError,
    JudgeTimeout,
    MalformedVerdict,
)
from coach_gui.ui.kit.failures import learner_message
from coach_gui.ui.kit.tasks import Lane, Task
from coach_gui.ui.kit.theme import warning_colour

if TYPE_CHECKING:  # types only: importing the Gemini adapter loads google.genai
    from coach_gui.domain.connections import ConnectionCheck, KeyStatus
    from coach_gui.operations.keys import Keys

log = logging.getLogger(__name__)

CHECKING_TEXT = "Checking the OS keyring…"
KEEPING_TEXT = (
    "The key is kept in your OS keyring, never in a file. It goes only to Google, in a "
    "request header, when the judge grades answers or you test the connection."
)
# Backend names people know, for the keyring backends they are likely to have.
_FRIENDLY_BACKENDS = {
    "SecretService.Keyring": "the Secret Service keyring (GNOME Keyring)",
    "libsecret.Keyring": "the Secret Service keyring (libsecret)",
    "kwallet.DBusKeyring": "KWallet",
    "macOS.Keyring": "the macOS Keychain",
    "Windows.WinVaultKeyring": "Windows Credential Manager",
}


def backend_label(backend: str) -> str:
    """The keyring as people know it; never a class name (`coach key status` has that)."""
    return _FRIENDLY_BACKENDS.get(backend, "your OS keyring")


def status_text(status: KeyStatus) -> str:
    """What the section says about the stored key; never the key itself."""
    if not status.usable:
        return status.detail  # KeyringUnavailable's message: why, and what to install
    where = backend_label(status.backend)
    if status.has_key:
        return f"A key is stored in {where}."
    return (
        f"No key stored (keyring: {where}). Paste a key from Google AI Studio and choose Save key."
    )


def connection_failure_text(error: BaseException) -> str:
    """Why *Test connection* failed, in a plain sentence: no answer was judged, so the
    judge's usual "your answers are kept" is not said; what came back (a web page from a
    Wi-Fi sign-in or a proxy, say) is never shown."""
    if isinstance(error, JudgeKeyInvalid):
        return (
            "Gemini did not accept this key. Paste a key from Google AI Studio, choose Save "
            "key, then test again."
        )
    if isinstance(error, JudgeAccessDenied):
        return (
            "The key was refused for the Gemini API. Check that the Gemini API is enabled "
            "for the key's project in Google AI Studio, or store another key."
        )
    if isinstance(error, JudgeModelNotFound):
        return (
            f"The key works, but the Gemini model “{error.model}” is not available to it. "
            "Choose another Gemini model in Settings, then test again."
        )
    if isinstance(error, JudgeQuotaExceeded):
        return (
            "The key works, but its Gemini quota is used up for now. Wait a minute and test again."
        )
    if isinstance(error, (JudgeNetworkDown, JudgeTimeout)):
        return "Coach could not reach Gemini. Check the internet connection, then test again."
    if isinstance(error, (MalformedVerdict, JudgeRedirected)):
        return (
            "Something other than Gemini answered (a Wi-Fi sign-in page or a proxy, "
            "perhaps), so the key could not be checked. Sign in to the network or check the "
            "judge's address, then test again."
        )
    if isinstance(error, JudgeServerError):
        return "Gemini had a problem answering. Try the test again in a few minutes."
    if isinstance(error, CoachError):
        return learner_message(error)
    return "The test could not be run because of a problem inside Coach; the log file says what."


class _KeyField(QLineEdit):
    """Enter here stores the key; it must not also press the dialog's default button."""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        super().keyPressEvent(event)
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            event.accept()


class GeminiKeySection(QGroupBox):
    """The key through `keys` (operations/keys.Keys, on a worker); *Test connection* is
    shown only when the keys can test it (`keys.can_test`: the judge from the saved
    settings and the stored key)."""

    status_loaded = Signal(object)  # KeyStatus, after each read of the keyring
    key_saved = Signal()
    key_removed = Signal(bool)  # False when there was no key to remove
    connection_tested = Signal(bool)  # True when the key and model work
    content_changed = Signal()  # a message appeared or changed: the host may need to grow

    def __init__(
        self,
        keys: Keys,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__("Gemini API key", parent)
        self.setAccessibleName("Gemini API key")
        self._keys = keys
        self._status: KeyStatus | None = None
        self._busy = False
        self._focus_back: QWidget | None = None

        self.status_label = QLabel(CHECKING_TEXT, self)
        self.status_label.setWordWrap(True)
        self.status_label.setAccessibleName("Stored key")
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.key_field = _KeyField(self)
        self.key_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_field.setPlaceholderText("Paste a new key to store it")
        self.key_field.setAccessibleName("New Gemini API key")
        self.key_field.setAccessibleDescription(
            "Masked. The stored key is never shown; paste a new one to replace it"
        )
        self.key_field.setToolTip("The key is masked; the stored key is never shown here")
        self.key_field.textChanged.connect(self._update_buttons)
        self.key_field.returnPressed.connect(self.save_key)
        self.key_label = QLabel("API &key", self)
        self.key_label.setBuddy(self.key_field)

        self.save_button = self._button("Sa&ve key", "Store the pasted key in the OS keyring")
        self.save_button.clicked.connect(self.save_key)
        self.remove_button = self._button("Remove ke&y", "Delete the key from the OS keyring")
        self.remove_button.clicked.connect(self.remove_key)
        self.test_button = self._button(
            "Test co&nnection",
            "Ask Gemini, with the stored key and the saved judge settings, whether the key "
            "and model work. No notes or answers are sent",
        )
        self.test_button.clicked.connect(self.test_connection)
        self.test_button.setVisible(keys.can_test)

        self.result_label = QLabel(self)
        self.result_label.setWordWrap(True)
        self.result_label.setAccessibleName("Connection test result")
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result_label.hide()
        keeping = QLabel(KEEPING_TEXT, self)
        keeping.setWordWrap(True)
        keeping.setEnabled(False)
        keeping.setAccessibleName("Where the key is kept")

        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.remove_button)
        buttons.addWidget(self.test_button)
        buttons.addStretch(1)
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.addRow(self.status_label)
        form.addRow(self.key_label, self.key_field)
        form.addRow(buttons)
        form.addRow(self.result_label)
        form.addRow(keeping)
        self._update_buttons()
        self.refresh_status()

    def _button(self, text: str, help_text: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setAutoDefault(False)  # Enter in the dialog saves the settings, not the key
        button.setAccessibleName(text.replace("&", ""))
        button.setAccessibleDescription(help_text)
        button.setToolTip(help_text)
        return button

    def labels(self) -> list[QLabel]:
        """The field labels, so a dialog can line them up with its own."""
        return [self.key_label]

    # --- state ---------------------------------------------------------------------
    def _update_buttons(self, *_args: object) -> None:
        status, busy = self._status, self._busy
        usable = status is not None and status.usable
        has_key = usable and status is not None and status.has_key
        self.key_field.setEnabled(usable and not busy)
        self.key_label.setEnabled(usable)
        self.save_button.setEnabled(usable and not busy and bool(self.key_field.text().strip()))
        self.remove_button.setEnabled(has_key and not busy)
        self.test_button.setEnabled(has_key and not busy)

    def _set_busy(self, busy: bool) -> None:
        """Buttons are disabled while the keyring or Gemini works; keyboard focus, pushed
        away by that, comes back to the button that was pressed (or to the key field)."""
        if busy:
            focused = QApplication.focusWidget()
            inside = focused is not None and self.isAncestorOf(focused)
            self._focus_back = focused if inside else None
        self._busy = busy
        self._update_buttons()
        back = self._focus_back
        if busy or back is None or not shiboken6.isValid(back):
            return
        self._focus_back = None
        for widget in (back, self.key_field):
            if widget.isEnabled():
                widget.setFocus(Qt.FocusReason.OtherFocusReason)
                return

    def _show_result(self, text: str, *, problem: bool) -> None:
        colour = warning_colour(self.palette()) if problem else ""
        self.result_label.setStyleSheet(f"color: {colour};" if colour else "")
        self.result_label.setText(text)
        self.result_label.setAccessibleDescription(text)
        self.result_label.show()
        self.content_changed.emit()

    def refresh_status(self) -> None:
        """Read which keyring is in use and whether a key is stored (on a worker)."""
        keys = self._keys
        Task(self, op=lambda _p: keys.status(), success=self._on_status, name="key status").run()

    def _on_status(self, status: KeyStatus) -> None:
        self._status = status
        text = status_text(status)
        colour = "" if status.usable else f"color: {warning_colour(self.palette())};"
        self.status_label.setStyleSheet(colour)
        self.status_label.setText(text)
        self.status_label.setAccessibleDescription(text)
        self._update_buttons()
        self.content_changed.emit()
        self.status_loaded.emit(status)

    # --- actions -------------------------------------------------------------------
    def save_key(self) -> None:
        key = self.key_field.text()
        if not self.save_button.isEnabled() or not key.strip():
            return
        keys = self._keys
        self._set_busy(True)
        Task(
            self,
            op=lambda _p: keys.store(key),
            success=lambda _none: self._on_saved(),
            failure=self._on_failed,
            lane=Lane.WRITER,
            name="save key",
        ).run()

    def _on_saved(self) -> None:
        self.key_field.clear()  # the key lives in the keyring now, not in this widget
        self._set_busy(False)
        self._show_result("Key saved in the OS keyring.", problem=False)
        self.key_saved.emit()
        self.refresh_status()

    def remove_key(self) -> None:
        keys = self._keys
        self._set_busy(True)
        Task(
            self,
            op=lambda _p: keys.clear(),
            success=self._on_removed,
            failure=self._on_failed,
            lane=Lane.WRITER,
            name="remove key",
        ).run()

    def _on_removed(self, removed: bool) -> None:
        self._set_busy(False)
        text = "Key removed from the OS keyring." if removed else "There was no key to remove."
        self._show_result(text + " The judge cannot grade answers until a key is stored.",
                          problem=False)  # fmt: skip
        self.key_removed.emit(removed)
        self.refresh_status()

    def test_connection(self) -> None:
        keys = self._keys
        if not keys.can_test:
            return
        self._set_busy(True)
        self._show_result("Testing the connection to Gemini…", problem=False)
        Task(
            self,
            op=lambda _p: keys.test_connection(),
            success=self._on_tested,
            failure=self._on_test_failed,
            name="test judge connection",
        ).run()

    def _on_tested(self, check: ConnectionCheck) -> None:
        self._set_busy(False)
        model = "" if check.model in check.detail else f"model {check.model}, "
        self._show_result(
            f"Connected: {check.detail} ({model}{check.latency_ms:,} ms).", problem=False
        )
        self.connection_tested.emit(True)

    def _on_test_failed(self, error: Exception) -> None:
        self._set_busy(False)
        if isinstance(error, CoachError):
            log.info("connection test failed: %s", error)  # our words: never the key
        else:
            log.error("connection test: %s", type(error).__name__)  # no text: it may hold a key
        self._show_result(connection_failure_text(error), problem=True)
        self.connection_tested.emit(False)

    def _on_failed(self, error: Exception) -> None:
        self._set_busy(False)
        self._report(error)
        self.refresh_status()

    def _report(self, error: Exception) -> None:
        if not isinstance(error, CoachError):
            log.error("key settings: %s", type(error).__name__)  # no text: it may hold a key
        self._show_result(learner_message(error), problem=True)
