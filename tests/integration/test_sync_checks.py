"""Issue 20: what another computer sends is checked as strictly as a local write, a bad
segment goes in not at all, `coach verify` names the computer a failing record came from,
and two computers' ratings of one answer end the same on both."""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from sync_devices import KEY, Device, SyncTool

from coach_gui.domain.digests import canonical_text

START = datetime(2026, 11, 2, 19, 0, tzinfo=UTC)
GOOD = "It is slow because each step is slight and acts on inherited variation."


@pytest.fixture
def pair(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[tuple[Device, Device]]:
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")
        laptop = Device(tmp_path, "laptop", gemini.url, monkeypatch, capsys, clock=START)
        desktop = Device(
            tmp_path, "desktop", gemini.url, monkeypatch, capsys, clock=START + timedelta(hours=3)
        )
        desktop.pair_with(laptop)
        yield laptop, desktop


def _own_segment(device: Device) -> Path:
    (path,) = sorted((device.shared / device.device_id).glob("*.jsonl"))
    return path


def _forged(path: Path, change: Any, by: Device) -> bytes:
    """The segment with one record changed by `change(record)`, made whole again: the
    trailer's digest recomputed and signed with the key of `by`, the paired computer it
    came from (a Coach there that misbehaves), so only the record checks can tell."""
    lines = path.read_bytes().decode("utf-8").split("\n")[:-2]
    records = [json.loads(line) for line in lines[1:]]
    for record in records:
        change(record)
    body = "\n".join([lines[0], *(canonical_text(r) for r in records)]) + "\n"
    sha = hashlib.sha256(body.encode()).hexdigest()
    signature = base64.b64encode(by.sign(body.encode())).decode()
    trailer = canonical_text(
        {"trailer": {"count": len(records), "sha256": sha, "signature": signature}}
    )
    return (body + trailer + "\n").encode()


def _deliver(source: Device, target: Device, data: bytes, sequence: int = 1) -> Path:
    sha = hashlib.sha256(data[: data.rstrip(b"\n").rfind(b"\n") + 1]).hexdigest()
    dest = target.shared / source.device_id / f"{sequence:08d}-{sha[:16]}.jsonl"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    return dest


def _count(device: Device, table: str) -> int:
    with sqlite3.connect(device.home / "journal.sqlite3") as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


@pytest.mark.parametrize(
    ("kind", "field", "value", "expected"),
    [
        ("attempt", "answer", "I knew it.", "does not check out: digest mismatch"),  # sealed
        ("verdict", "feedback", "Perfect.", "does not check out: digest mismatch"),  # its id
        ("outbox", "response", "{}", "does not check out: digest mismatch"),  # sealed
        ("trace", "body", "{}", "does not check out: digest mismatch"),
        ("session", "sealed_trace_id", None, "an unsealed session never travels"),
        ("attempt", "unknown_column", "x", "newer Coach"),
    ],
)
def test_a_segment_with_a_changed_record_goes_in_not_at_all(
    pair: tuple[Device, Device], kind: str, field: str, value: Any, expected: str
) -> None:
    laptop, desktop = pair
    laptop.practise([GOOD, "No idea."])
    laptop.ok("sync")

    def change(record: dict[str, Any]) -> None:
        if record["kind"] == kind:
            record["row"][field] = value

    _deliver(laptop, desktop, _forged(_own_segment(laptop), change, laptop))
    code, report, err = desktop.coach("sync", "--json")
    assert code == 1
    (rejected,) = report["rejected"]
    assert expected in rejected["reason"] and laptop.device_id[:8] in rejected["device"]
    assert report["records_in"] == 0 and _count(desktop, "sessions") == 0
    assert _count(desktop, "attempts") == 0 and "was not imported" in err
    assert desktop.ok("verify")["ok"]


def test_verify_names_the_device_a_failing_record_came_from(
    pair: tuple[Device, Device],
) -> None:
    laptop, desktop = pair
    laptop.practise([GOOD, "No idea."])
    desktop.practise(["No idea.", "Because it takes long."])
    laptop.ok("sync")
    desktop.ok("sync")
    SyncTool([laptop, desktop], seed=1).settle()
    desktop.ok("sync")
    assert desktop.ok("verify")["ok"]
    with sqlite3.connect(desktop.home / "journal.sqlite3") as conn:
        for (name,) in conn.execute("SELECT name FROM sqlite_schema WHERE type = 'trigger'"):
            conn.execute(f'DROP TRIGGER "{name}"')
        (changed,) = conn.execute(
            "UPDATE attempts SET answer = 'Changed.' WHERE answer = ? RETURNING id", (GOOD,)
        ).fetchone()
    code, report, _ = desktop.coach("verify", "--json")
    assert code == 1
    failure = report["first_failure"]
    assert failure["id"] == changed and failure["reason"] == "digest mismatch"
    assert laptop.device_id[:8] in failure["device"]  # the laptop's answer
    with sqlite3.connect(desktop.home / "journal.sqlite3") as conn:  # and one made here
        conn.execute("UPDATE attempts SET answer = ? WHERE id = ?", (GOOD, changed))
        (own,) = conn.execute(
            "UPDATE attempts SET answer = 'Mine.' WHERE answer = 'Because it takes long.'"
            " RETURNING id"
        ).fetchone()
    code, report, _ = desktop.coach("verify", "--json")
    assert code == 1 and report["first_failure"] == {"id": own, "reason": "digest mismatch"}
    with sqlite3.connect(desktop.home / "journal.sqlite3") as conn:
        conn.execute("UPDATE attempts SET answer = 'Because it takes long.' WHERE id = ?", (own,))
        conn.execute("UPDATE attempts SET answer = 'Changed.' WHERE id = ?", (changed,))
    code, text, _ = desktop.coach("verify")
    assert f"came from the device {failure['device']}" in text


def _rate(device: Device, rating: int) -> None:
    """The learner rates their unjudged answer on `device` (the window's Rate buttons)."""
    from coach_gui.bootstrap import build_context

    device.coach("sessions")  # points the environment at this computer
    context = build_context(seed=False)
    try:
        (session_id,) = context.traces().session_ids()
        (records,) = context.traces().records_for([session_id])
        note = next(e.note for e in context.notes.load().notes if e.note.id == "note1")
        context.scheduler().rate_unjudged(records.attempts[0], note, rating)
    finally:
        context.close()


def _ratings(device: Device) -> list[tuple[int, str]]:
    with sqlite3.connect(device.home / "journal.sqlite3") as conn:
        return conn.execute("SELECT rating, created_at FROM self_ratings ORDER BY 2").fetchall()


def test_two_ratings_of_one_answer_end_the_same_on_both(pair: tuple[Device, Device]) -> None:
    laptop, desktop = pair
    tool = SyncTool([laptop, desktop], seed=2)
    laptop.practise(["Because of time.", "No idea."], judge="off")

    def sync() -> None:
        laptop.ok("sync")
        desktop.ok("sync")
        tool.settle()
        laptop.ok("sync")
        desktop.ok("sync")

    sync()
    _rate(laptop, 2)  # hard, on the laptop
    _rate(desktop, 3)  # good, on the desktop, whose clock is three hours ahead
    sync()
    assert {r for r, _ in _ratings(laptop)} == {3} and _ratings(laptop) == _ratings(desktop)
    _rate(laptop, 4)  # the laptop rates again: later than the rating it replaces
    sync()
    assert {r for r, _ in _ratings(laptop)} == {4} and _ratings(laptop) == _ratings(desktop)
    now = desktop.clock + timedelta(days=1)
    assert laptop.views(now)["today"] == desktop.views(now)["today"]


def test_a_sync_stopped_between_segments_keeps_what_went_in(
    pair: tuple[Device, Device],
) -> None:
    from coach_gui.bootstrap import build_context
    from coach_gui.operations.sync import sync

    laptop, desktop = pair
    for answer in (GOOD, "No idea."):  # two evenings: two segments
        laptop.practise([answer, "Not sure."])
        laptop.ok("sync")
    desktop.ok("sync")  # (desktop's own folder, and its identity)
    SyncTool([laptop, desktop], seed=3).settle()
    asked = [0]

    def quitting() -> bool:  # the window closes once the first segment is in
        asked[0] += 1
        return asked[0] > 1

    desktop.coach("sessions")  # this computer's environment
    context = build_context(seed=False)
    try:
        report = sync(context, stop=quitting)
    finally:
        context.close()
    assert len(report.segments_imported) == 1 and report.segments_written == []
    assert len(desktop.ok("sessions")["sessions"]) == 1 and desktop.ok("verify")["ok"]
    rest = desktop.ok("sync")  # the next sync brings the rest
    assert len(rest["segments_imported"]) == 1 and len(desktop.ok("sessions")["sessions"]) == 2


def test_a_bad_segment_among_good_ones_goes_in_not_at_all_and_the_good_ones_stay(
    pair: tuple[Device, Device],
) -> None:
    """Segments are committed several at a time: one that does not check out is taken
    back alone, before or after the ones that do."""
    laptop, desktop = pair
    for answer in (GOOD, "No idea.", "Not sure."):  # three evenings: three segments
        laptop.practise([answer])
        laptop.ok("sync")
    first, middle, last = sorted((laptop.shared / laptop.device_id).glob("*.jsonl"))

    def change(record: dict[str, Any]) -> None:
        if record["kind"] == "attempt":
            record["row"]["answer"] = "I knew it."

    _deliver(laptop, desktop, first.read_bytes(), sequence=1)
    forged = _deliver(laptop, desktop, _forged(middle, change, laptop), sequence=2)
    _deliver(laptop, desktop, last.read_bytes(), sequence=3)
    code, report, _ = desktop.coach("sync", "--json")
    assert code == 1
    (rejected,) = report["rejected"]
    assert rejected["file"] == forged.name and "digest mismatch" in rejected["reason"]
    assert len(report["segments_imported"]) == 2 and report["records_in"] > 0
    assert _count(desktop, "sessions") == 2 and _count(desktop, "attempts") == 2
    with sqlite3.connect(desktop.home / "journal.sqlite3") as conn:
        answers = {row[0] for row in conn.execute("SELECT answer FROM attempts")}
    assert answers == {GOOD, "Not sure."}
    assert desktop.ok("verify")["ok"]
