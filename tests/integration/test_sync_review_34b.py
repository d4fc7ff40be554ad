"""Second review of issue 34's signed sync: the sync key in the keyring, refused files
read again and again, many unknown computers, and what the learner is told."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import keyring
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from fakes.keyring_backend import FileKeyring
from sync_devices import KEY, Device

from coach_gui.adapters.secrets import SERVICE, SYNC_SIGNING_KEY, KeyringSyncKey

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
