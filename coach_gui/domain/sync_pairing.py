"""Paired computers and signed segments (issue 34, docs/adr/0033-paired-computers.md).

Each computer has an Ed25519 key pair; it signs every segment it writes (the signature
sits in the segment's trailer, over every byte before it) and puts its public key in its
folder (`device-key.json`). A computer imports only from the computers the learner paired
here: a pairing is a sealed record holding the public key the learner accepted after
comparing its fingerprint with the one the other computer shows. Pure: no I/O.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from coach_gui.domain.digests import content_id

KEY_FILE = "device-key.json"  # a computer's public key, in its own folder
KEY_FORMAT = "coach-sync-key"
KEY_FILE_LIMIT = 4096  # bytes: a key file is about 200
PUBLIC_KEY_BYTES = 32
_FINGERPRINT_GROUPS = 5  # of 4 base32 characters: 100 bits of SHA-256
_HEX = re.compile(r"^[0-9a-f]+$")


def fingerprint(public_key: bytes) -> str:
    """What the learner compares on both computers: the first 20 base32 characters of the
    public key's SHA-256, in groups of four (e.g. ``K3QF-2MZA-7YHD-RW4C-PB6N``)."""
    text = base64.b32encode(hashlib.sha256(public_key).digest()).decode("ascii")
    return "-".join(text[i : i + 4] for i in range(0, 4 * _FINGERPRINT_GROUPS, 4))


def normalised_fingerprint(text: str) -> str:
    """A fingerprint as the learner may type it (lower case, spaces, no dashes) in the
    form `fingerprint` gives."""
    letters = re.sub(r"[\s\-]", "", text).upper()
    return "-".join(letters[i : i + 4] for i in range(0, len(letters), 4))


def signature_valid(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """Whether `signature` is `public_key`'s Ed25519 signature of exactly `data`."""
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class DeviceKey:
    """A computer's public key as its folder announces it (anyone may have written it:
    only the learner's comparison of fingerprints makes it trusted)."""

    device_id: str
    name: str
    public_key: bytes

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


def key_file_bytes(device_id: str, name: str, public_key: bytes) -> bytes:
    text = json.dumps(
        {
            "format": KEY_FORMAT,
            "device_id": device_id,
            "name": name,
            "public_key": public_key.hex(),
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return (text + "\n").encode("utf-8")


def parse_key_file(data: bytes, device_id: str) -> DeviceKey | str:
    """The key a computer's folder announces, or why it cannot be read."""
    if len(data) > KEY_FILE_LIMIT:
        return "its key file is far larger than a key file"
    try:
        raw = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return "its key file is not one Coach wrote"
    if not isinstance(raw, dict) or raw.get("format") != KEY_FORMAT:
        return "its key file is not one Coach wrote"
    key, name = raw.get("public_key"), raw.get("name")
    if raw.get("device_id") != device_id:
        return "its key file names another computer"
    if not isinstance(key, str) or len(key) != 2 * PUBLIC_KEY_BYTES or not _HEX.fullmatch(key):
        return "its key file holds no key"
    if not isinstance(name, str):
        name = "a computer"
    # What is not Unicode (a lone surrogate, "\ud800" in the JSON) as its escape: the name
    # is stored and hashed as UTF-8 when the computer is paired (issue 34 review).
    name = name[:200].encode("utf-8", "backslashreplace").decode("utf-8")
    return DeviceKey(device_id, name, bytes.fromhex(key))


Action = Literal["trust", "forget"]


@dataclass(frozen=True)
class Pairing:
    """A sealed record: the learner paired (`trust`) or forgot (`forget`) a computer."""

    device_id: str
    name: str
    public_key: str  # hex
    action: Action
    created_at: str
    id: str = ""

    @property
    def fingerprint(self) -> str:
        return fingerprint(bytes.fromhex(self.public_key))

    def fields(self) -> dict[str, str]:
        return {
            "device_id": self.device_id,
            "name": self.name,
            "public_key": self.public_key,
            "action": self.action,
            "created_at": self.created_at,
        }

    def sealed(self) -> Pairing:
        return Pairing(**self.fields(), id=pairing_id(self))  # type: ignore[arg-type]


def pairing_id(pairing: Pairing) -> str:
    return content_id("sync_pairing", pairing.fields())


def paired(history: Iterable[Pairing]) -> dict[str, Pairing]:
    """device id -> its pairing in force, from every pairing record in the order made:
    the last record for a computer decides (a `forget` ends its pairing)."""
    current: dict[str, Pairing] = {}
    for record in history:
        if record.action == "trust":
            current[record.device_id] = record
        else:
            current.pop(record.device_id, None)
    return current


@dataclass(frozen=True)
class Waiting:
    """A computer whose folder appeared in the sync folder and that the learner has not
    paired: nothing of it is imported until they do."""

    device_id: str
    name: str
    fingerprint: str
    synced_before: bool  # records came from it before pairing existed (kept)
    forgotten: bool = False  # it was paired here, and the learner forgot it

    def to_json(self) -> dict[str, object]:
        return {
            "device_id": self.device_id,
            "name": self.name,
            "fingerprint": self.fingerprint,
            "synced_before": self.synced_before,
            "forgotten": self.forgotten,
        }


def matching(candidates: Iterable[DeviceKey], wanted: str) -> list[DeviceKey]:
    """The keys whose fingerprint is `wanted` (as typed), or whose device id it is."""
    form = normalised_fingerprint(wanted)
    text = wanted.strip().lower()
    return [k for k in candidates if k.fingerprint == form or k.device_id == text]
