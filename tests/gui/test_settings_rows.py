"""Issue 35: Settings is built from a table of rows (ui/settings/settings_rows.py). Each
row's field shows the setting's value from the file, carries its label and what it means,
and a value changed in it is what Save writes under its key — for every row of the table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytestqt.qtbot import QtBot

from coach_gui.config import Config, load_config, save_config
from coach_gui.ui.kit import tasks
from coach_gui.ui.settings.config_owner import ConfigOwner
from coach_gui.ui.settings.settings_dialog import SettingsDialog
from coach_gui.ui.settings.settings_rows import (
    GROUPS,
    Choice,
    Decimal,
    Row,
    Seconds,
    Switch,
    Text,
    Whole,
)

TEXTS = {  # a valid value that is not the default, for each text row
    "tier1.ollamaUrl": "http://127.0.0.1:11500",
    "tier1.model": "qwen2.5:1.5b",
    "judge.localModel": "qwen2.5:3b",
    "judge.model": "gemini-2.5-pro",
}


def _rows() -> list[Row]:
    return [row for group in GROUPS for row in group.rows if isinstance(row, Row)]


def _in_file(config: Config, key: str) -> Any:
    section, _, name = key.partition(".")
    return config.to_json_dict()[section][name]


def _change(dialog: SettingsDialog, row: Row, was: Any, tmp_path: Path) -> Any:
    """Set another valid value in the row's field, as the learner would; return it."""
    field = getattr(dialog, row.attr)
    kind = row.kind
    if isinstance(kind, Switch):
        field.setChecked(not was)
        return not was
    if isinstance(kind, Choice):
        value = next(v for v, _label in kind.options if v != was)
        field.setCurrentIndex(field.findData(value))
        return value
    if isinstance(kind, Whole):
        value = kind.low if was != kind.low else kind.low + 1
        field.setValue(value)
        return value
    if isinstance(kind, Decimal | Seconds):
        value = round(kind.low + 1.0, 1) if kind.high >= kind.low + 1.0 else kind.high
        if value == was:
            value = kind.low
        field.setValue(value)
        return value
    assert isinstance(kind, Text)
    value = str(tmp_path / "sync") if row.key == "sync.folder" else TEXTS[row.key]
    field.setText(value)
    return value


def test_every_row_shows_its_setting_and_saves_what_is_changed_in_it(
    qtbot: QtBot, tmp_path: Path
) -> None:
    path = tmp_path / "coach.config.json"
    save_config(Config(), path)
    owner = ConfigOwner.of(load_config(path), path)
    dialog = SettingsDialog(owner)
    qtbot.addWidget(dialog)
    before = owner.config
    rows = _rows()
    assert len({row.key for row in rows}) == len(rows) == 24
    expected: dict[str, Any] = {}
    for row in rows:
        field = getattr(dialog, row.attr)
        assert field.toolTip(), row.key  # what it means, for the mouse and screen readers
        was = _in_file(before, row.key)
        if isinstance(row.kind, Switch):
            assert field.isChecked() == bool(was), row.key
        elif isinstance(row.kind, Choice):
            assert field.currentData() == was, row.key
        elif isinstance(row.kind, Text):
            assert field.text() == ("" if was is None else str(was)), row.key
        else:
            assert field.value() == was, row.key
        expected[row.key] = _change(dialog, row, was, tmp_path)
    assert not dialog.problem_label.isVisible(), dialog.problem_label.text()
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        dialog.ok_button.click()
    assert tasks.wait_for_writes(10_000)
    saved = load_config(path)
    got = {key: _in_file(saved, key) for key in expected}
    assert got == expected
