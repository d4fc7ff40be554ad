"""The strictness offered once (issue 36, DESIGN §4): when the learner's corrections lean one
way, the window says so once and offers the strictness that would have agreed more often;
the setting changes only on their yes, and is written to their settings file."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget
from pytestqt.qtbot import QtBot

from coach_gui.config import Config, load_config
from coach_gui.domain.agreement import Agreement
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.strictness_offer import StrictnessOffer

WAIT_MS = 10_000


class Counted:
    """The judge–learner agreement as counted (what `cases.schedule` gives)."""

    def __init__(self, too_strict: int, too_lenient: int) -> None:
        self.rows = [Agreement("cloud", "gemini-2.5-flash", "standard", "2026-11", 40,
                               too_strict + too_lenient, too_strict, too_lenient)]  # fmt: skip
        self.calls = 0

    def judge_agreement(self) -> list[Agreement]:
        self.calls += 1
        return self.rows


def _offer(qtbot: QtBot, tmp_path: Path, counted: Counted) -> tuple[StrictnessOffer, Path]:
    path = tmp_path / "coach.config.json"
    path.write_text(json.dumps(Config().model_dump(by_alias=True, mode="json")), "utf-8")
    parent = QWidget()
    qtbot.addWidget(parent)
    owner = ConfigOwner.of(load_config(path), path, parent)
    ini = str(tmp_path / "window.ini")
    offer = StrictnessOffer(
        counted, owner, parent, store=lambda: QSettings(ini, QSettings.Format.IniFormat)
    )
    return offer, path


def _answer(label: str, seen: list[str]) -> None:
    box = QApplication.activeModalWidget()
    assert isinstance(box, QMessageBox)
    seen.append(box.informativeText())
    (button,) = [b for b in box.buttons() if b.text().startswith(label)]
    button.click()


def test_said_once_and_applied_only_on_yes(qtbot: QtBot, tmp_path: Path) -> None:
    counted = Counted(too_strict=6, too_lenient=1)
    offer, path = _offer(qtbot, tmp_path, counted)
    seen: list[str] = []
    QTimer.singleShot(50, lambda: _answer("Keep standard", seen))
    with qtbot.waitSignal(offer.said, timeout=WAIT_MS):
        offer.check()
    qtbot.waitUntil(lambda: bool(seen), timeout=WAIT_MS)
    assert "you marked 6 key points explained that the judge did not count" in seen[0]
    assert "Lenient strictness would have agreed with you more often" in seen[0]
    assert load_config(path).judge.strictness == "standard"  # "no" changes nothing

    # More corrections the same way: not said again, even by a new window.
    again, _ = _offer(qtbot, tmp_path, counted)
    for each in (offer, again):
        with qtbot.assertNotEmitted(each.said, wait=300):
            each.check()
            qtbot.waitUntil(lambda shown=each: shown._task is None, timeout=WAIT_MS)
    assert counted.calls == 3


def test_yes_changes_the_strictness_and_writes_it(qtbot: QtBot, tmp_path: Path) -> None:
    offer, path = _offer(qtbot, tmp_path, Counted(too_strict=0, too_lenient=5))
    seen: list[str] = []
    QTimer.singleShot(50, lambda: _answer("Use strict strictness", seen))
    with qtbot.waitSignal(offer.said, timeout=WAIT_MS):
        offer.check()
    qtbot.waitUntil(lambda: load_config(path).judge.strictness == "strict", timeout=WAIT_MS)
    assert "not explained that the judge counted" in seen[0]


def test_nothing_said_while_corrections_do_not_lean_one_way(qtbot: QtBot, tmp_path: Path) -> None:
    offer, _path = _offer(qtbot, tmp_path, Counted(too_strict=4, too_lenient=3))
    with qtbot.assertNotEmitted(offer.said, wait=300):
        offer.check()
        qtbot.waitUntil(lambda: offer._task is None, timeout=WAIT_MS)
