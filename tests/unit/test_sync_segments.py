"""Issue 20: a segment file reads back only whole and only where its device wrote it; a
cut anywhere leaves it for later; the rating merge picks the same rating whichever
computer merges."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from coach_gui.domain.sync import (
    Segment,
    SegmentHeader,
    SyncRecord,
    Unreadable,
    newer_rating,
    parse_segment,
    segment_bytes,
)

KEY = Ed25519PrivateKey.generate()  # the writing computer's sync key
PUBLIC = KEY.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
DEVICE = "ab" * 16
OTHER = "cd" * 16


def _segment(records: int = 3) -> tuple[bytes, Segment]:
    header = SegmentHeader(
        format="coach-sync",
        version=1,
        device_id=DEVICE,
        device_name="laptop",
        sequence=7,
        created_at="2026-11-02T19:00:00+00:00",
    )
    rows = [
        SyncRecord("attempt", f"{n:064x}", {"id": f"{n:064x}", "answer": "Ça va — 多分", "n": n})
        for n in range(records)
    ]
    return segment_bytes(header, rows, KEY.sign)


def test_a_whole_segment_reads_back_as_written() -> None:
    data, written = _segment()
    read = parse_segment(data, device_id=DEVICE, file_name=written.name, public_key=PUBLIC)
    assert read == written
    assert written.name.startswith("00000007-") and written.digest[:16] in written.name


def test_a_segment_cut_anywhere_is_left_for_later() -> None:
    data, written = _segment()
    for cut in range(len(data)):
        found = parse_segment(
            data[:cut], device_id=DEVICE, file_name=written.name, public_key=PUBLIC
        )
        assert isinstance(found, Unreadable) and not found.complete, cut


def test_a_segment_in_another_folder_or_under_another_name_is_refused() -> None:
    data, written = _segment()
    moved = parse_segment(data, device_id=OTHER, file_name=written.name, public_key=PUBLIC)
    assert isinstance(moved, Unreadable) and "another device" in moved.reason
    renamed = parse_segment(
        data, device_id=DEVICE, file_name="00000008-" + written.name[9:], public_key=PUBLIC
    )
    assert isinstance(renamed, Unreadable) and renamed.complete


def test_a_changed_byte_is_refused() -> None:
    data, written = _segment()
    changed = data.replace("Ça va".encode(), b"Ca va", 1)
    found = parse_segment(changed, device_id=DEVICE, file_name=written.name, public_key=PUBLIC)
    assert isinstance(found, Unreadable) and found.complete and "damaged" in found.reason


def test_text_travels_byte_for_byte_even_when_not_in_nfc() -> None:
    typed = "cafe\u0301 — re\u0301sume\u0301"  # as macOS keyboards give it (NFD)
    header = SegmentHeader(
        format="coach-sync", version=1, device_id=DEVICE, device_name="mac",
        sequence=1, created_at="2026-11-02T19:00:00+00:00",
    )  # fmt: skip
    data, written = segment_bytes(
        header, [SyncRecord("attempt", "a" * 64, {"answer": typed})], KEY.sign
    )
    read = parse_segment(data, device_id=DEVICE, file_name=written.name, public_key=PUBLIC)
    assert isinstance(read, Segment) and read.records[0].row["answer"] == typed
    assert typed.encode() in data


def test_the_later_rating_wins_and_a_tie_goes_the_same_way_on_every_computer() -> None:
    base = {"attempt_id": "a", "note_id": "n", "assertion_digest": "d", "assertion": "x"}
    early = {**base, "rating": 4, "created_at": "2026-11-02T19:00:00+00:00"}
    late = {**base, "rating": 1, "created_at": "2026-11-02T22:00:00+00:00"}
    assert newer_rating(late, early) and not newer_rating(early, late)
    tie = {**early, "rating": 2}
    assert newer_rating(tie, early) != newer_rating(early, tie)  # exactly one wins
