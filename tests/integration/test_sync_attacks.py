"""A held-out corpus of attacks on the sync folder (issue 34, ADR 0033). Whoever can write
into the learner's shared folder (a Dropbox or Syncthing peer, another program) tries to
add history that verifies, or to jam sync. Nothing from a computer the learner did not pair
is imported; the paired computer's segments still flow; no attack stops sync or makes it
exit 2; `coach verify` stays ok and names the computer the records came from."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from sync_devices import KEY, Device

from coach_gui.domain.digests import canonical_text
from coach_gui.domain.sync_pairing import KEY_FILE, key_file_bytes

START = datetime(2026, 11, 2, 19, 0, tzinfo=UTC)
GOOD = "It is slow because each step is slight and acts on inherited variation."
WRONG = "No idea at all."


@pytest.fixture
def computers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[tuple[Device, Device, Device]]:
    """The learner's laptop and desktop, paired; and mallory, a Coach of someone else's
    whose judge passes everything."""
    with (
        FakeGemini(api_keys={KEY}) as gemini,
        FakeGemini(api_keys={KEY}) as lenient,
    ):
        gemini.reply_for = passes_items_whose_answer_contains("because")
        lenient.reply_for = passes_items_whose_answer_contains("")
        laptop = Device(tmp_path, "laptop", gemini.url, monkeypatch, capsys, clock=START)
        desktop = Device(tmp_path, "desktop", gemini.url, monkeypatch, capsys, clock=START)
        mallory = Device(tmp_path, "mallory", lenient.url, monkeypatch, capsys, clock=START)
        laptop.pair_with(desktop)
        yield laptop, desktop, mallory


def _segments(device: Device) -> list[Path]:
    return sorted((device.shared / device.device_id).glob("*.jsonl"))


def _sessions(device: Device) -> int:
    return len(device.ok("sessions", "--limit", "0")["sessions"])


def _place(target: Device, device_id: str, name: str, data: bytes) -> Path:
    folder = target.shared / device_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    return folder / name


def _remade(path: Path, *, signer: Any, device_id: str | None = None) -> tuple[str, bytes]:
    """The segment at `path`, its header made to claim `device_id` (if given), signed by
    `signer` (a key or a Device): (its file name, its bytes)."""
    lines = path.read_bytes().decode("utf-8").split("\n")[:-2]
    header = json.loads(lines[0])
    if device_id is not None:
        header["device_id"] = device_id
    body = "\n".join([canonical_text(header), *lines[1:]]) + "\n"
    sha = hashlib.sha256(body.encode()).hexdigest()
    signature = base64.b64encode(signer.sign(body.encode())).decode()
    count = len(lines) - 1
    trailer = canonical_text({"trailer": {"count": count, "sha256": sha, "signature": signature}})
    return f"{header['sequence']:08d}-{sha[:16]}.jsonl", (body + trailer + "\n").encode()


def _sync(device: Device) -> dict[str, Any]:
    code, report, err = device.coach("sync", "--json")
    assert code in (0, 1) and "Traceback" not in err, (code, err)
    return report  # type: ignore[no-any-return]


def _verified(device: Device) -> dict[str, Any]:
    report = device.ok("verify")
    assert report["ok"], report
    return report  # type: ignore[no-any-return]


def test_a_forged_computer_waits_to_be_paired_and_nothing_of_it_is_imported(
    computers: tuple[Device, Device, Device],
) -> None:
    laptop, _, mallory = computers
    mallory.practise([WRONG, WRONG])  # "passed" by a judge that passes everything
    mallory.ok("sync")
    shutil.copytree(mallory.shared / mallory.device_id, laptop.shared / mallory.device_id)
    report = _sync(laptop)
    assert report["records_in"] == 0 and _sessions(laptop) == 0
    (waiting,) = report["waiting"]
    assert waiting["device_id"] == mallory.device_id
    assert waiting["fingerprint"] == mallory.fingerprint and not waiting["synced_before"]
    code, _, err = laptop.coach("sync")
    assert code == 0 and f"coach sync --trust {mallory.fingerprint}" in err
    assert _verified(laptop)["imported_from"] == []


def test_segments_claiming_to_be_this_computer_or_its_paired_one_are_refused(
    computers: tuple[Device, Device, Device],
) -> None:
    laptop, desktop, mallory = computers
    mallory.practise([WRONG])
    mallory.ok("sync")
    (theirs,) = _segments(mallory)
    # As this computer itself, in its own folder; as the paired desktop, in its folder.
    name, data = _remade(theirs, signer=mallory, device_id=laptop.device_id)
    _place(laptop, laptop.device_id, name, data)
    name2, data2 = _remade(theirs, signer=mallory, device_id=desktop.device_id)
    _place(laptop, desktop.device_id, name2, data2)
    # Re-signed with a key nobody paired, the records unchanged.
    stranger = Ed25519PrivateKey.generate()
    name3, data3 = _remade(theirs, signer=stranger, device_id=desktop.device_id)
    _place(laptop, desktop.device_id, name3, data3)
    report = _sync(laptop)
    assert report["records_in"] == 0 and _sessions(laptop) == 0
    refused = {item["file"]: item["reason"] for item in report["refused"]}
    assert "this computer's key" in refused[name]
    assert "paired" in refused[name2] and "paired" in refused[name3]
    # Nothing of it travels on either: this computer's next segment is its own number.
    laptop.practise([GOOD])
    written = laptop.ok("sync")["segments_written"]
    assert written and written[0].startswith("00000001-")
    _verified(laptop)


def test_the_paired_computer_flows_and_edited_or_replayed_segments_of_it_do_not(
    computers: tuple[Device, Device, Device],
) -> None:
    laptop, desktop, _ = computers
    desktop.practise([GOOD, WRONG])
    desktop.ok("sync")
    (genuine,) = _segments(desktop)
    data = genuine.read_bytes()
    # Edited after signing, the digest made whole again, the signature kept.
    lines = data.decode().split("\n")[:-2]
    edited_body = "\n".join(lines).replace("No idea at all.", "No idea at all!") + "\n"
    sha = hashlib.sha256(edited_body.encode()).hexdigest()
    old_trailer = json.loads(data.decode().split("\n")[-2])["trailer"]
    trailer = canonical_text(
        {"trailer": {**old_trailer, "sha256": sha, "count": old_trailer["count"]}}
    )
    edited_name = f"{genuine.name[:8]}-{sha[:16]}.jsonl"
    _place(laptop, desktop.device_id, edited_name, (edited_body + trailer + "\n").encode())
    # A replay under a later number (its content says 1).
    _place(laptop, desktop.device_id, "00000002-" + genuine.name[9:], data)
    report = _sync(laptop)
    assert report["records_in"] == 0
    assert edited_name in {item["file"] for item in report["refused"]}
    # The genuine one arrives: it goes in, and again a copy of it changes nothing.
    _place(laptop, desktop.device_id, genuine.name, data)
    report = _sync(laptop)
    assert report["segments_imported"] == [genuine.name] and report["records_in"] > 0
    assert _sync(laptop)["records_in"] == 0
    verify = _verified(laptop)
    (source,) = verify["imported_from"]
    assert source["device_id"] == desktop.device_id and source["paired"]
    assert source["fingerprint"] == desktop.fingerprint and source["records"] > 0
    session = laptop.ok("sessions", "--limit", "0")["sessions"][0]["session_id"]
    code, text, _ = laptop.coach("verify", session)
    assert code == 0 and f"from the computer {desktop.device_name}" in text


def test_nothing_in_the_folder_jams_sync(computers: tuple[Device, Device, Device]) -> None:
    laptop, desktop, _ = computers
    desktop.practise([GOOD])
    desktop.ok("sync")
    (genuine,) = _segments(desktop)
    theirs = laptop.shared / desktop.device_id
    own = laptop.shared / laptop.device_id
    theirs.mkdir(exist_ok=True)
    (theirs / "00000005-0000000000000000.jsonl").mkdir()  # a folder named as a segment
    (theirs / "00000006-0000000000000000.jsonl").symlink_to("/dev/zero")
    os.mkfifo(theirs / "00000007-0000000000000000.jsonl")
    (own / "99999999-0000000000000000.jsonl").write_bytes(b"")  # the number trap
    (theirs / "000000001-0000000000000000.jsonl").write_bytes(b"")  # 9 digits: not a name
    shutil.copyfile(genuine, theirs / genuine.name)
    laptop.practise([GOOD])
    code, report, err = laptop.coach("sync", "--json")
    assert code == 0 and "Traceback" not in err
    assert report["segments_imported"] == [genuine.name] and report["records_in"] > 0
    refused = {item["file"]: item["reason"] for item in report["refused"]}
    assert "folder" in refused["00000005-0000000000000000.jsonl"]
    assert "link" in refused["00000006-0000000000000000.jsonl"]
    assert "not an ordinary file" in refused["00000007-0000000000000000.jsonl"]
    (written,) = report["segments_written"]
    assert written.startswith("00000001-")  # never 100000000: the desktop reads it
    shutil.copyfile(own / written, desktop.shared / laptop.device_id / written)
    assert desktop.ok("sync")["segments_imported"] == [written]
    _verified(laptop)
    _verified(desktop)


def test_this_computers_folder_as_a_link_is_refused_and_nothing_is_written_outside(
    computers: tuple[Device, Device, Device], tmp_path: Path
) -> None:
    laptop, _, _ = computers
    outside = tmp_path / "outside"
    outside.mkdir()
    own = laptop.shared / laptop.device_id
    shutil.rmtree(own)
    own.symlink_to(outside)
    laptop.practise([GOOD])
    code, report, err = laptop.coach("sync", "--json")
    assert code == 1 and "Traceback" not in err  # said, not a crash and not exit 2
    assert "link" in report["rejected"][0]["reason"] and report["segments_written"] == []
    assert list(outside.iterdir()) == []


def test_escape_codes_in_a_computer_name_are_printed_escaped(
    computers: tuple[Device, Device, Device],
) -> None:
    laptop, _, mallory = computers
    evil = "\x1b]0;pwned\x07\x1b[2J\u202eevil"
    folder = laptop.shared / mallory.device_id
    folder.mkdir()
    (folder / KEY_FILE).write_bytes(key_file_bytes(mallory.device_id, evil, mallory.public_key()))
    code, text, err = laptop.coach("sync")
    assert code == 0
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in text and raw not in err
    assert "\\x1b]0;pwned\\x07" in err
    report = _sync(laptop)
    assert "\x1b" not in json.dumps(report, ensure_ascii=False)


def test_an_install_that_synced_before_pairing_pairs_once_and_keeps_what_came(
    computers: tuple[Device, Device, Device],
) -> None:
    laptop, desktop, _ = computers
    desktop.practise([GOOD])
    desktop.ok("sync")
    (genuine,) = _segments(desktop)
    _place(laptop, desktop.device_id, genuine.name, genuine.read_bytes())
    assert _sync(laptop)["records_in"] > 0
    # The learner forgets the desktop (as an install from before pairing has it).
    code, _, err = laptop.coach("sync", "--forget", desktop.fingerprint)
    assert code == 0 and "forgot" in err
    report = _sync(laptop)
    (waiting,) = report["waiting"]
    assert waiting["synced_before"] and _sessions(laptop) == 1  # nothing lost
    code, _, err = laptop.coach("sync")
    # (Forgotten here, it is said to be forgotten, not to predate pairing: second review.)
    assert "You forgot it here: what came from it before stays" in err
    source = _verified(laptop)["imported_from"][0]
    assert not source["paired"] and source["records"] > 0
    # Paired again: the new segments flow.
    desktop.later(hours=1)
    desktop.practise([GOOD])
    desktop.ok("sync")
    for path in _segments(desktop):
        _place(laptop, desktop.device_id, path.name, path.read_bytes())
    assert (
        laptop.ok("sync", "--trust", desktop.fingerprint.lower().replace("-", ""))["records_in"] > 0
    )
    assert _sessions(laptop) == 2 and _verified(laptop)["imported_from"][0]["paired"]


def test_a_pairing_slipped_into_the_journal_fails_verify(
    computers: tuple[Device, Device, Device],
) -> None:
    import sqlite3

    from coach_gui.domain.sync_pairing import Pairing

    laptop, _, mallory = computers
    forged = Pairing(
        mallory.device_id, "mallory", mallory.public_key().hex(), "trust", START.isoformat()
    ).sealed()
    conn = sqlite3.connect(laptop.home / "journal.sqlite3")
    with conn:
        conn.execute(
            "INSERT INTO sync_pairings VALUES (?, ?, ?, ?, ?, ?)",
            (forged.id, *forged.fields().values()),
        )
    conn.close()
    code, report, _ = laptop.coach("verify", "--json")
    assert code == 1 and report["first_failure"]["id"] == forged.id


def test_every_later_sync_is_unhurried_by_the_attacks(
    computers: tuple[Device, Device, Device],
) -> None:
    # The same jams left in place for a week of evenings: sync goes on each time.
    laptop, desktop, _ = computers
    theirs = laptop.shared / desktop.device_id
    theirs.mkdir(exist_ok=True)
    os.mkfifo(theirs / "00000003-0000000000000000.jsonl")
    (theirs / "00000004-0000000000000000.jsonl").mkdir()
    for day in range(3):
        desktop.later(days=1)
        desktop.practise([GOOD])
        desktop.ok("sync")
        for path in _segments(desktop):
            if not (theirs / path.name).exists():
                shutil.copyfile(path, theirs / path.name)
        report = _sync(laptop)
        assert report["records_in"] > 0, day
    assert _sessions(laptop) == 3
    _verified(laptop)
    assert START + timedelta(days=3) <= desktop.clock
