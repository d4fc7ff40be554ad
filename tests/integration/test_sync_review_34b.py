"""Second review of issue 34's signed sync: the sync key in the keyring, refused files
read again and again, many unknown computers, and what the learner is told."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import keyring
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from fakes.keyring_backend import FileKeyring
from sync_devices import KEY, Device

from coach_gui.adapters.secrets import SERVICE, SYNC_SIGNING_KEY, KeyringSyncKey
from coach_gui.domain.digests import canonical_text
from coach_gui.domain.sync_pairing import KEY_FILE, key_file_bytes

START = datetime(2026, 11, 2, 19, 0, tzinfo=UTC)
GOOD = "It is slow because each step is slight and acts on inherited variation."


@pytest.fixture
def computers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[tuple[Device, Device]]:
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        laptop = Device(tmp_path, "laptop", gemini.url, monkeypatch, capsys, clock=START)
        desktop = Device(tmp_path, "desktop", gemini.url, monkeypatch, capsys, clock=START)
        yield laptop, desktop


def _keyring(device: Device) -> dict[str, str]:
    return dict(json.loads((device.base / "keyring.json").read_text(encoding="utf-8")))


# --- 1. the sync key is never replaced -------------------------------------------------


def test_a_sync_key_coach_cannot_read_is_kept_and_sync_says_what_to_do(
    computers: tuple[Device, Device],
) -> None:
    laptop, _ = computers
    laptop.ok("sync")
    keys = _keyring(laptop)
    keys[f"{SERVICE}/{SYNC_SIGNING_KEY}"] = "not-a-key"  # a restore gone wrong, an edit
    (laptop.base / "keyring.json").write_text(json.dumps(keys), encoding="utf-8")
    code, _, err = laptop.coach("sync")
    assert code == 2, err
    assert "cannot read" in err and "keyring app" in err
    assert "Traceback" not in err and "ValueError" not in err
    assert _keyring(laptop)[f"{SERVICE}/{SYNC_SIGNING_KEY}"] == "not-a-key"  # not replaced


class _LateWriter(FileKeyring):
    """The file keyring, with another Coach process storing its own new sync key just
    after this one stored its: the keyring ends up holding the other one."""

    def __init__(self) -> None:
        super().__init__()
        other = Ed25519PrivateKey.generate()
        self.other = other.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption()).hex()

    def set_password(self, service: str, username: str, password: str) -> None:
        super().set_password(service, username, password)
        if username == SYNC_SIGNING_KEY:
            super().set_password(service, username, self.other)


def test_two_processes_making_the_sync_key_at_once_both_sign_with_the_one_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COACH_TEST_KEYRING", str(tmp_path / "keys.json"))
    previous = keyring.get_keyring()
    racing = _LateWriter()
    keyring.set_keyring(racing)
    try:
        first = KeyringSyncKey()
        signed = first.sign(b"segment")
        later = KeyringSyncKey()  # the next run, or the other process
        assert first.public_key() == later.public_key()
        later_key = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(racing.other))
        later_key.public_key().verify(signed, b"segment")  # raises if signed by another key
    finally:
        keyring.set_keyring(previous)


# --- 2. refused files: a lower cap, and not read again while unchanged -----------------


def _resigned_by_a_stranger(segment: Path) -> tuple[str, bytes]:
    """The segment with its signature replaced by one of a key nobody paired."""
    lines = segment.read_bytes().decode("utf-8").split("\n")[:-2]
    body = "\n".join(lines) + "\n"
    sha = hashlib.sha256(body.encode()).hexdigest()
    signature = base64.b64encode(Ed25519PrivateKey.generate().sign(body.encode())).decode()
    trailer = canonical_text(
        {"trailer": {"count": len(lines) - 1, "sha256": sha, "signature": signature}}
    )
    return segment.name, (body + trailer + "\n").encode()


def _refused(report: dict[str, Any]) -> dict[str, str]:
    return {item["file"]: item["reason"] for item in report["refused"]}


def test_a_refused_file_is_not_read_again_until_it_changes(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    laptop.pair_with(desktop)
    desktop.practise([GOOD])
    desktop.ok("sync")
    (genuine,) = (desktop.shared / desktop.device_id).glob("*.jsonl")
    name, data = _resigned_by_a_stranger(genuine)
    planted = laptop.shared / desktop.device_id / name
    planted.write_bytes(data)
    first = _refused(laptop.ok("sync"))[name]
    assert "paired" in first
    # Other bytes of the same size under the same time: were it read, it would be said
    # to be damaged; it is not read, and is listed as before.
    when = planted.stat()
    planted.write_bytes(data.replace(b"because", b"BECAUSE", 1))
    os.utime(planted, ns=(when.st_atime_ns, when.st_mtime_ns))
    report = laptop.ok("sync")
    assert _refused(report)[name] == first and report["records_in"] == 0
    # Changed (a new time): read again.
    os.utime(planted, ns=(when.st_atime_ns, when.st_mtime_ns + 1_000_000_000))
    report = laptop.ok("sync")
    assert name not in _refused(report)
    assert any(i["file"] == name and "damaged" in i["reason"] for i in report["ignored"])


def test_a_file_far_larger_than_a_segment_is_refused_unread(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    laptop.pair_with(desktop)
    name = "00000001-0123456789abcdef.jsonl"
    with open(laptop.shared / desktop.device_id / name, "wb") as planted:
        planted.truncate(33 * 1024 * 1024)  # sparse: 33 MB said, nothing on disk
    code, report, err = laptop.coach("sync", "--json")
    assert code == 0, err
    assert "larger than any segment (32 MB)" in _refused(report)[name]


# --- 3. many folders named like computers --------------------------------------------


def test_only_so_many_unknown_computers_are_looked_at_and_the_rest_are_listed(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    desktop.ok("sync")
    (laptop.shared / desktop.device_id).mkdir()
    (laptop.shared / desktop.device_id / KEY_FILE).write_bytes(
        (desktop.shared / desktop.device_id / KEY_FILE).read_bytes()
    )
    for n in range(64 + 10):  # planted by anyone who can write there
        device_id = f"{n:032x}"
        folder = laptop.shared / device_id
        folder.mkdir()
        key = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
        (folder / KEY_FILE).write_bytes(key_file_bytes(device_id, f"planted {n}", key))
    code, report, err = laptop.coach("sync", "--json")
    assert code == 0, err
    assert len(report["waiting"]) == 64
    skipped = [i for i in report["ignored"] if "not looked at" in i["reason"]]
    assert len(skipped) == 11  # of the 75, the desktop's among them (sorted last)
    assert desktop.device_id in {i["file"] for i in skipped}
    assert "remove the folders" in skipped[0]["reason"]
    # The learner's own computer among those not looked at can still be paired.
    code, report, err = laptop.coach("sync", "--trust", desktop.fingerprint, "--json")
    assert code == 0, err
    assert desktop.device_id in {p["device_id"] for p in report["paired"]}


# --- 4. no parser's words reach the learner --------------------------------------------


def test_a_signed_file_that_is_no_segment_is_said_so_in_plain_words(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    laptop.pair_with(desktop)
    body = canonical_text({"format": "coach-sync", "version": "two"}) + "\n"
    sha = hashlib.sha256(body.encode()).hexdigest()
    signature = base64.b64encode(desktop.sign(body.encode())).decode()
    trailer = canonical_text({"trailer": {"count": 0, "sha256": sha, "signature": signature}})
    name = f"00000001-{sha[:16]}.jsonl"
    (laptop.shared / desktop.device_id / name).write_bytes((body + trailer + "\n").encode())
    code, _, err = laptop.coach("sync")
    assert code == 0, err
    (line,) = [line for line in err.splitlines() if name in line]
    assert "not what Coach writes in a sync segment" in line
    for word in ("validation", "pydantic", "Field required", "input_value", "errors.pydantic"):
        assert word not in line


def test_an_unreadable_sync_identity_is_said_without_the_parsers_words(
    computers: tuple[Device, Device],
) -> None:
    laptop, _ = computers
    laptop.ok("sync")
    (laptop.home / "sync-device.json").write_text('{"device_id": ', encoding="utf-8")
    code, _, err = laptop.coach("sync")
    assert code == 2 and "sync identity" in err and "remove the file" in err
    assert "Expecting" not in err and "char " not in err and "Traceback" not in err


# --- 5. a forgotten computer is said to be forgotten ----------------------------------


def test_a_forgotten_computer_is_said_to_be_forgotten_not_from_before_pairing(
    computers: tuple[Device, Device],
) -> None:
    laptop, desktop = computers
    laptop.pair_with(desktop)
    desktop.practise([GOOD])
    desktop.ok("sync")
    for segment in (desktop.shared / desktop.device_id).glob("*.jsonl"):  # the sync tool
        (laptop.shared / desktop.device_id / segment.name).write_bytes(segment.read_bytes())
    assert laptop.ok("sync")["records_in"] > 0
    laptop.ok("sync", "--forget", desktop.fingerprint)
    code, report, err = laptop.coach("sync", "--json")
    assert code == 0, err
    (waiting,) = report["waiting"]
    assert waiting["forgotten"] is True
    code, _, err = laptop.coach("sync")
    assert "You forgot it here" in err
    assert "before computers were paired" not in err
