"""Review of issue 34's signed sync: attacks the first corpus did not try."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from sync_devices import KEY, Device

from coach_gui.domain.sync_pairing import KEY_FILE, key_file_bytes

START = datetime(2026, 11, 2, 19, 0, tzinfo=UTC)
GOOD = "It is slow because each step is slight and acts on inherited variation."
OTHER = "ffffffffffffffffffffffffffffffff"


@pytest.fixture
def computers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[tuple[Device, Device]]:
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        laptop = Device(tmp_path, "laptop", gemini.url, monkeypatch, capsys, clock=START)
        desktop = Device(tmp_path, "desktop", gemini.url, monkeypatch, capsys, clock=START)
        yield laptop, desktop


def _announce(target: Device, folder: str, device_id: str, name: str, key: bytes) -> None:
    where = target.shared / folder
    where.mkdir(parents=True, exist_ok=True)
    (where / KEY_FILE).write_bytes(key_file_bytes(device_id, name, key))


def test_a_folder_named_like_the_key_file_in_this_computers_folder_does_not_stop_sync(
    computers: tuple[Device, Device],
) -> None:
    laptop, _ = computers
    laptop.ok("sync")
    own = laptop.shared / laptop.device_id
    (own / KEY_FILE).unlink()
    (own / KEY_FILE).mkdir()
    laptop.practise([GOOD])
    code, report, err = laptop.coach("sync", "--json")
    assert code == 0 and "Traceback" not in err, err
    assert report["segments_written"]  # its history still travels, signed
    assert any(item["file"] == KEY_FILE for item in report["refused"])


def test_a_copy_of_a_computers_key_file_in_another_folder_does_not_block_pairing_it(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    key = desktop.public_key()
    _announce(laptop, desktop.device_id, desktop.device_id, desktop.device_name, key)
    _announce(laptop, OTHER, OTHER, desktop.device_name, key)  # a clone, by anyone
    code, data, err = laptop.coach("sync", "--trust", desktop.fingerprint, "--json")
    assert code == 0, err
    assert not data["waiting"]
    assert desktop.device_id in {p["device_id"] for p in data["paired"]}


def test_a_computer_folder_whose_name_ends_in_a_newline_is_not_a_computer(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    odd = desktop.device_id + "\n"
    _announce(laptop, odd, odd, desktop.device_name, desktop.public_key())
    code, data, err = laptop.coach("sync", "--json")
    assert code == 0, err
    assert not data["waiting"]
    code, _, err = laptop.coach("sync", "--trust", desktop.fingerprint)
    assert code == 2 and "Traceback" not in err  # nothing to pair: said, not crashed


def test_a_key_file_whose_key_ends_in_a_newline_does_not_crash_sync(
    computers: tuple[Device, Device],
) -> None:
    laptop, _ = computers
    folder = laptop.shared / OTHER
    folder.mkdir(parents=True)
    text = key_file_bytes(OTHER, "mallory", bytes(32)).decode()
    (folder / KEY_FILE).write_text(text.replace("0" * 64, "0" * 63 + "\\n"), encoding="utf-8")
    code, data, err = laptop.coach("sync", "--json")
    assert code == 0 and "Traceback" not in err, err
    assert not data["waiting"]
    assert any(item["file"] == KEY_FILE for item in data["refused"])


def test_forgetting_a_fingerprint_forgets_every_folder_paired_with_it(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    key = desktop.public_key()
    _announce(laptop, desktop.device_id, desktop.device_id, desktop.device_name, key)
    _announce(laptop, OTHER, OTHER, desktop.device_name, key)
    laptop.ok("sync", "--trust", desktop.fingerprint)
    data = laptop.ok("sync", "--forget", desktop.fingerprint)
    assert data["paired"] == []
    assert {w["device_id"] for w in data["waiting"]} == {desktop.device_id, OTHER}


def test_verify_does_not_put_records_imported_before_a_pairing_under_its_fingerprint(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    laptop.pair_with(desktop)
    desktop.practise([GOOD])
    desktop.ok("sync")
    for path in (desktop.shared / desktop.device_id).glob("*.jsonl"):
        (laptop.shared / desktop.device_id / path.name).write_bytes(path.read_bytes())
    before = laptop.ok("sync")["records_in"]
    assert before > 0
    # Forgotten (as an install from before pairing has it), then paired: what came in
    # before this pairing was not checked against its key, and verify must not say it was.
    laptop.later(minutes=1)
    laptop.ok("sync", "--forget", desktop.fingerprint)
    laptop.later(minutes=1)
    laptop.ok("sync", "--trust", desktop.fingerprint)
    (source,) = laptop.ok("verify")["imported_from"]
    assert source["paired"] and source["records"] == before
    assert source["records_since_pairing"] == 0
    code, text, _ = laptop.coach("verify")
    assert code == 0 and "paired here, fingerprint" not in text
    assert f"{before} before it was paired here" in text


def test_a_computer_is_paired_by_the_fingerprint_compared_never_by_its_id(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    # Someone put their own key in the desktop's folder before the learner paired it:
    # pairing by the id the folder shows would pair that key without any comparison.
    forged = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    _announce(laptop, desktop.device_id, desktop.device_id, desktop.device_name, forged)
    code, _, err = laptop.coach("sync", "--trust", desktop.device_id)
    assert code == 2 and "fingerprint" in err
    assert laptop.ok("sync")["paired"] == []


def test_this_computers_folder_swapped_for_a_link_after_its_check_gets_nothing_written(
    computers: tuple[Device, Device], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from coach_gui.adapters.sync_folder import SyncFolder

    laptop, _ = computers
    laptop.ok("sync")
    outside = tmp_path / "outside"
    outside.mkdir()
    own = laptop.shared / laptop.device_id
    checked = SyncFolder.check

    def then_swapped(folder: SyncFolder) -> str | None:  # another program, just after
        problem = checked(folder)
        if folder.device_id == laptop.device_id and not own.is_symlink():
            own.rename(tmp_path / "moved-away")
            own.symlink_to(outside)
        return problem

    monkeypatch.setattr(SyncFolder, "check", then_swapped)
    laptop.practise([GOOD])
    _, _, err = laptop.coach("sync", "--json")
    assert "Traceback" not in err and "None" not in err
    assert "became a link" in err
    assert list(outside.iterdir()) == []


def test_a_name_that_is_not_unicode_in_a_key_file_does_not_stop_pairing(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    folder = laptop.shared / desktop.device_id
    folder.mkdir(parents=True)
    text = key_file_bytes(desktop.device_id, "desk", desktop.public_key()).decode()
    (folder / KEY_FILE).write_text(text.replace('"desk"', '"desk\\ud800\\u001b[2J"'))
    code, data, err = laptop.coach("sync", "--trust", desktop.fingerprint, "--json")
    assert code == 0 and "Traceback" not in err, err
    assert [p["device_id"] for p in data["paired"]] == [desktop.device_id]
    assert "\\ud800" in data["paired"][0]["name"]
