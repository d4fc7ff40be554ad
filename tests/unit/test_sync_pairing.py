"""Paired computers, pure (issue 34, ADR 0033): fingerprints, key files, signatures, which
pairing is in force, and names shown safely."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from coach_gui.domain.sync import device_label, shown
from coach_gui.domain.sync_pairing import (
    DeviceKey,
    Pairing,
    fingerprint,
    key_file_bytes,
    matching,
    normalised_fingerprint,
    paired,
    parse_key_file,
    signature_valid,
)

DEVICE = "ab" * 16


def _key() -> tuple[Ed25519PrivateKey, bytes]:
    private = Ed25519PrivateKey.generate()
    return private, private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def test_a_fingerprint_is_short_stable_and_typed_any_way() -> None:
    _, public = _key()
    shown_there = fingerprint(public)
    assert len(shown_there) == 24 and shown_there.count("-") == 4
    assert fingerprint(public) == shown_there
    assert normalised_fingerprint(shown_there.lower().replace("-", " ")) == shown_there
    assert fingerprint(_key()[1]) != shown_there


def test_a_signature_holds_for_exactly_the_bytes_and_the_key() -> None:
    private, public = _key()
    signature = private.sign(b"segment body")
    assert signature_valid(public, signature, b"segment body")
    assert not signature_valid(public, signature, b"segment body!")
    assert not signature_valid(_key()[1], signature, b"segment body")
    assert not signature_valid(public, b"short", b"segment body")


def test_a_key_file_reads_back_and_anything_else_says_why() -> None:
    _, public = _key()
    data = key_file_bytes(DEVICE, "laptop", public)
    key = parse_key_file(data, DEVICE)
    assert key == DeviceKey(DEVICE, "laptop", public)
    assert "another computer" in str(parse_key_file(data, "cd" * 16))
    assert "not one Coach wrote" in str(parse_key_file(b"[" * 3000, DEVICE))
    assert "larger" in str(parse_key_file(b" " * 5000, DEVICE))


def test_the_last_pairing_record_of_a_computer_decides() -> None:
    _, public = _key()
    trust = Pairing(DEVICE, "laptop", public.hex(), "trust", "2026-11-02T19:00:00+00:00")
    forget = Pairing(DEVICE, "laptop", public.hex(), "forget", "2026-11-03T19:00:00+00:00")
    assert paired([trust]) == {DEVICE: trust}
    assert paired([trust, forget]) == {}
    assert paired([trust, forget, trust]) == {DEVICE: trust}
    assert trust.sealed().id and trust.sealed().id != forget.sealed().id


def test_a_computer_is_found_by_its_fingerprint_or_its_id_only() -> None:
    _, public = _key()
    key = DeviceKey(DEVICE, "laptop", public)
    assert matching([key], fingerprint(public).lower()) == [key]
    assert matching([key], DEVICE.upper()) == [key]
    assert matching([key], fingerprint(_key()[1])) == []


def test_names_from_the_folder_are_shown_with_their_control_characters_escaped() -> None:
    assert shown("a\x1b[2Jb\x07") == "a\\x1b[2Jb\\x07"
    assert shown("\u202eevil") == "\\u202eevil"
    assert shown("bad\udcff") == "bad\\xff"
    assert shown("Café — 多分 🙂") == "Café — 多分 🙂"
    assert device_label("\x1b]0;x\x07", DEVICE) == f"\\x1b]0;x\\x07 ({DEVICE[:8]})"
