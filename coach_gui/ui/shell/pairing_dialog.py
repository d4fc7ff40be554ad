"""The window's question when a new computer's folder appears in the sync folder (issue
34, ADR 0033): pair it? Nothing of it is imported until the learner says yes, having
compared the fingerprint shown here with the one the other computer shows. "Not now" is
the default: an unknown computer's history never comes in by a stray Enter."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QVBoxLayout, QWidget

from coach_gui.domain.sync import device_label
from coach_gui.domain.sync_pairing import Waiting
from coach_gui.ui.kit.button_keys import with_mnemonics


def _fingerprint_label(text: str, name: str) -> QLabel:
    label = QLabel(text)
    font = QFont("monospace")
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setPointSizeF(font.pointSizeF() * 1.4)
    font.setBold(True)
    label.setFont(font)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setAccessibleName(name)
    return label


class PairingDialog(QDialog):
    """Pair `waiting` with this computer (whose fingerprint is `own`)? Accepted: pair."""

    def __init__(self, waiting: Waiting, own: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.waiting = waiting
        self.setWindowTitle("Pair a computer?")
        self.setAccessibleName("Pair a computer")
        layout = QVBoxLayout(self)
        label = device_label(waiting.name, waiting.device_id)
        heading = QLabel(
            f"<b>A computer called {_html(label)} put its history in your sync folder.</b>"
        )
        heading.setWordWrap(True)
        layout.addWidget(heading)
        intro = (
            "Nothing of it comes in until you pair it here. Pair it only if it is one of "
            "yours and it shows this fingerprint (Help › Where my data lives, or "
            "\u201ccoach sync\u201d there):"
        )
        if waiting.forgotten:
            intro = (
                "You forgot this computer here: what came from it before stays, and nothing "
                "more comes in until you pair it again. Pair it only if it is yours and it "
                "shows this fingerprint (Help › Where my data lives, or \u201ccoach sync\u201d "
                "there):"
            )
        elif waiting.synced_before:
            intro = (
                "It synced with this computer before Coach paired computers: what came "
                "from it stays. Pair it once to go on; check first that it shows this "
                "fingerprint (Help › Where my data lives, or \u201ccoach sync\u201d there):"
            )
        text = QLabel(intro)
        text.setWordWrap(True)
        layout.addWidget(text)
        self.fingerprint = _fingerprint_label(waiting.fingerprint, "Its fingerprint")
        layout.addWidget(self.fingerprint)
        mine = QLabel(
            f"That computer asks you the same about this one, whose fingerprint is "
            f"<b>{_html(own)}</b>. If the fingerprints differ, or you do not know the "
            "computer, choose Not now: someone else can write into a shared folder."
        )
        mine.setWordWrap(True)
        layout.addWidget(mine)
        buttons = QDialogButtonBox()
        self.pair_button = buttons.addButton("&Pair", QDialogButtonBox.ButtonRole.AcceptRole)
        self.later_button = buttons.addButton("&Not now", QDialogButtonBox.ButtonRole.RejectRole)
        with_mnemonics(buttons)
        self.pair_button.setAutoDefault(False)  # Enter never pairs: it means Not now
        self.later_button.setAutoDefault(True)
        self.later_button.setDefault(True)
        self.later_button.setFocus()
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setMinimumWidth(480)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
