"""Issue 20 acceptance: two and three computers with their own COACH_HOMEs practise the
same notes and sync through copies of one folder moved by a simulated sync tool (files
copied one at a time in random order, some only in part). After every round each
computer's views and `coach verify` agree, nothing is lost or written twice, and no
computer ever writes another's folder."""

from __future__ import annotations

import sqlite3
import unicodedata
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from sync_devices import (
    ASSERTIONS,
    KEY,
    Device,
    SyncTool,
    folder_digests,
    others_unchanged,
    paired,
)

START = datetime(2026, 11, 2, 19, 0, tzinfo=UTC)
GOOD = "It is slow because each step is slight and acts on inherited variation."


@pytest.fixture
def gemini() -> Iterator[FakeGemini]:
    with FakeGemini(api_keys={KEY}) as server:
        server.reply_for = passes_items_whose_answer_contains("because")
        yield server


@pytest.fixture
def make_device(
    tmp_path: Path,
    gemini: FakeGemini,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Any:
    made: list[Device] = []

    def make(name: str, clock: datetime = START) -> Device:
        # The learner pairs each new computer with the ones set up before (issue 34).
        device = Device(tmp_path, name, gemini.url, monkeypatch, capsys, clock=clock)
        return paired(made, device)

    return make


def sync_all(devices: list[Device]) -> list[dict[str, Any]]:
    """Each computer syncs in turn, never touching another's folder."""
    reports = []
    for device in devices:
        before = folder_digests(device.shared)
        reports.append(device.ok("sync"))
        others_unchanged(device, before)
    return reports


def _diff(first: Any, other: Any, where: str = "") -> str:
    """Where two JSON values first differ (a readable failure)."""
    if isinstance(first, dict) and isinstance(other, dict):
        for key in sorted(set(first) | set(other)):
            if first.get(key) != other.get(key):
                return _diff(first.get(key), other.get(key), f"{where}.{key}")
    if isinstance(first, list) and isinstance(other, list) and len(first) == len(other):
        for n, (a, b) in enumerate(zip(first, other, strict=True)):
            if a != b:
                return _diff(a, b, f"{where}[{n}]")
    return f"{where}: {first!r} != {other!r}"


def agree(devices: list[Device]) -> dict[str, Any]:
    now = max(d.clock for d in devices)
    seen = [d.views(now) for d in devices]
    for device, views in zip(devices[1:], seen[1:], strict=True):
        for view in views:
            assert views[view] == seen[0][view], f"{device.name}'s {view} differs: " + _diff(
                seen[0][view], views[view]
            )
    assert seen[0]["verify"]["ok"], seen[0]["verify"]
    return seen[0]


def test_two_devices_practise_and_converge(make_device: Any) -> None:
    laptop, desktop = make_device("laptop"), make_device("desktop")
    a = laptop.practise([GOOD, "No idea."])
    b = desktop.practise(["Because of time.", "Not sure."], judge="off")
    sync_all([laptop, desktop])
    tool = SyncTool([laptop, desktop], seed=1)
    tool.settle()
    sync_all([laptop, desktop])
    views = agree([laptop, desktop])
    ids = [s["session_id"] for s in views["sessions"]["sessions"]]
    assert sorted(ids) == sorted([a["session_id"], b["session_id"]])


def _sessions(device: Device) -> list[dict[str, Any]]:
    return device.ok("sessions", "--limit", "0")["sessions"]  # type: ignore[no-any-return]


def test_three_devices_practising_between_torn_and_shuffled_copies_agree_after_each_round(
    make_device: Any,
) -> None:
    devices = [make_device("laptop"), make_device("desktop"), make_device("tablet")]
    tool = SyncTool(devices, seed=20)
    practised: list[str] = []
    for round_number in range(3):
        for n, device in enumerate(devices):
            answer = GOOD if (round_number + n) % 2 else "No idea."
            judge = "off" if n == 2 else "on"
            practised.append(device.practise([answer, "Not sure."], judge=judge)["session_id"])
        sync_all(devices)
        tool.round(partial=0.5)  # half the copies stop part-way
        for report in sync_all(devices):  # a torn segment is left for later, never an error
            assert report["ok"] and report["rejected"] == []
        for device in devices:
            assert device.ok("verify")["ok"]
        tool.settle()
        sync_all(devices)
        views = agree(devices)
        ids = [s["session_id"] for s in views["sessions"]["sessions"]]
        assert sorted(ids) == sorted(practised)  # nothing lost, nothing twice
        assert views["verify"]["log_size"] == len(practised)
    # Far ahead everything is due: the memory was replayed from every computer's verdicts
    # (one review of each assertion per judged session, six of them; the tablet's answers
    # wait for a judge).
    far = devices[0].clock.replace(year=2036)
    for device in devices:
        (note,) = device.views(far)["today"]["notes"]
        assert [a["reviews"] for a in note["assertions"]] == [6, 6]


def test_the_same_note_the_same_evening_on_both_replays_one_memory(make_device: Any) -> None:
    laptop, desktop = make_device("laptop"), make_device("desktop")
    laptop.practise(["No idea.", "Not sure."])  # both assertions missed on the laptop
    desktop.practise([GOOD, GOOD])  # and explained on the desktop, minutes later
    sync_all([laptop, desktop])
    SyncTool([laptop, desktop], seed=2).settle()
    sync_all([laptop, desktop])
    views = agree([laptop, desktop])
    assert len(views["sessions"]["sessions"]) == 2
    far = laptop.clock.replace(year=2036)
    due = laptop.views(far)["today"]["notes"]
    (note,) = due
    assert [a["reviews"] for a in note["assertions"]] == [2, 2]  # one per session


def test_clocks_hours_apart_merge_in_time_order(make_device: Any) -> None:
    from datetime import timedelta

    laptop = make_device("laptop")
    desktop = make_device("desktop", clock=START + timedelta(hours=9))  # nine hours ahead
    for _ in range(2):
        laptop.practise(["No idea.", "Not sure."])
        desktop.practise([GOOD, GOOD])
        sync_all([laptop, desktop])
        SyncTool([laptop, desktop], seed=3).settle()
        sync_all([laptop, desktop])
        agree([laptop, desktop])
    started = [s["started_at"] for s in _sessions(laptop)]
    assert started == sorted(started, reverse=True)  # by the times recorded, newest first


def _own(device: Device) -> Path:
    return device.shared / device.device_id


def _copy(source: Device, target: Device, name: str, *, cut: int | None = None) -> Path:
    data = (_own(source) / name).read_bytes()
    dest = target.shared / source.device_id / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data if cut is None else data[:cut])
    return dest


def test_segments_out_of_order_twice_and_torn(make_device: Any) -> None:
    laptop, desktop = make_device("laptop"), make_device("desktop")
    laptop.practise(["Because of time.", "No idea."], judge="off")  # judged later
    laptop.ok("sync")
    laptop.ok("judge-pending")
    laptop.ok("sync")
    first, second = sorted(p.name for p in _own(laptop).glob("*.jsonl"))

    _copy(laptop, desktop, second)  # the later segment arrives first
    report = desktop.ok("sync")
    assert report["records_in"] == 0
    assert [i["file"] for i in report["ignored"]] == [second]
    assert "not here yet" in report["ignored"][0]["reason"]

    size = (_own(laptop) / first).stat().st_size
    _copy(laptop, desktop, first, cut=size // 2)  # the earlier one half copied
    report = desktop.ok("sync")
    assert report["records_in"] == 0
    assert {i["file"]: i["reason"] for i in report["ignored"]}[first].startswith("not complete")

    _copy(laptop, desktop, first)  # complete now: both go in, in order
    report = desktop.ok("sync")
    assert sorted(report["segments_imported"]) == [first, second]
    assert report["ignored"] == [] and report["records_in"] > 0

    _copy(laptop, desktop, first)  # copied again by the sync tool: nothing changes
    dup = desktop.shared / laptop.device_id / f"{first[:-6]}.sync-conflict-1.jsonl"
    dup.write_bytes((_own(laptop) / first).read_bytes())  # a sync tool's conflict copy
    report = desktop.ok("sync")
    assert report["records_in"] == 0 and report["segments_imported"] == []
    assert [i["file"] for i in report["ignored"]] == [dup.name]
    views = agree([laptop, desktop])
    (session,) = views["sessions"]["sessions"]
    assert session["pending"] == 0  # the verdicts and their binding travelled


def test_an_answer_judged_later_on_the_other_device_travels_back(make_device: Any) -> None:
    laptop, desktop = make_device("laptop"), make_device("desktop")
    practised = laptop.practise([GOOD, "No idea."], judge="off")
    tool = SyncTool([laptop, desktop], seed=4)
    sync_all([laptop, desktop])
    tool.settle()
    sync_all([laptop, desktop])
    (row,) = _sessions(desktop)
    assert row["session_id"] == practised["session_id"] and row["pending"] == 2
    judged = desktop.ok("judge-pending")
    assert [j["verdict"] for j in judged["judged"]] == ["pass", "fail"]
    sync_all([desktop, laptop])
    tool.settle()
    sync_all([laptop, desktop])
    views = agree([laptop, desktop])
    (row,) = views["sessions"]["sessions"]
    assert row["pending"] == 0 and row["passed"] == 1
    assert laptop.ok("judge-pending")["judged"] == []  # nothing left to judge here
    assert [g["answer"] for g in views["gaps"]["gaps"]] == ["No idea.", "No idea."]
    assert len(views["gaps"]["open"]) == 2  # both key points missed by that answer


def test_a_device_that_restores_a_backup_gets_its_records_back_and_reuses_no_number(
    make_device: Any,
) -> None:
    laptop, desktop = make_device("laptop"), make_device("desktop")
    tool = SyncTool([laptop, desktop], seed=5)
    kept = laptop.practise([GOOD, "No idea."])
    laptop.ok("sync")
    backup = laptop.ok("backup")["path"]
    lost = laptop.practise(["No idea.", GOOD])
    laptop.ok("sync")
    assert laptop.ok("restore", backup)["restored_from"] == backup
    ids = [s["session_id"] for s in _sessions(laptop)]
    assert ids == [kept["session_id"]]  # the backup holds only the first session
    report = laptop.ok("sync")
    assert report["records_in"] > 0 and report["segments_written"] == []
    ids = {s["session_id"] for s in _sessions(laptop)}
    assert ids == {kept["session_id"], lost["session_id"]}  # back from its own folder
    later = laptop.practise([GOOD, GOOD])
    (written,) = laptop.ok("sync")["segments_written"]
    assert written.startswith("00000003-")  # after the two it wrote before the restore
    tool.settle()
    sync_all([desktop, laptop])
    views = agree([laptop, desktop])
    assert len(views["sessions"]["sessions"]) == 3
    assert later["session_id"] in {s["session_id"] for s in views["sessions"]["sessions"]}


def test_a_removed_device_leaves_its_records_and_breaks_nothing(make_device: Any) -> None:
    import shutil

    devices = [make_device("laptop"), make_device("desktop"), make_device("old")]
    tool = SyncTool(devices, seed=6)
    for device in devices:
        device.practise([GOOD, "No idea."])
    sync_all(devices)
    tool.settle()
    sync_all(devices)
    before = agree(devices)
    old = devices.pop()
    for device in devices:  # the old computer's folder is deleted everywhere
        shutil.rmtree(device.shared / old.device_id)
    shutil.rmtree(old.base)
    for device in devices:
        device.practise(["No idea.", GOOD])
    reports = sync_all(devices)
    assert all(r["ok"] for r in reports)
    SyncTool(devices, seed=7).settle()
    sync_all(devices)
    after = agree(devices)
    ids = {s["session_id"] for s in after["sessions"]["sessions"]}
    assert {s["session_id"] for s in before["sessions"]["sessions"]} < ids
    assert len(ids) == 5


def test_sync_off_or_a_missing_folder_is_a_plain_message(make_device: Any) -> None:
    import json as json_module

    laptop = make_device("laptop")
    settings = json_module.loads(laptop.config.read_text())
    settings["sync"]["folder"] = str(laptop.base / "not-there")
    laptop.config.write_text(json_module.dumps(settings))
    code, _, err = laptop.coach("sync")
    assert code == 2 and "is not there" in err and "Settings › Sync" in err
    settings["sync"]["folder"] = None
    laptop.config.write_text(json_module.dumps(settings))
    code, _, err = laptop.coach("sync", "--json")
    assert code == 2 and "Sync is off" in err and "sync.folder" not in err
    settings["sync"]["folder"] = "relative/folder"
    laptop.config.write_text(json_module.dumps(settings))
    code, _, err = laptop.coach("sync")
    assert code == 2 and "full path" in err


def test_coach_sync_says_in_words_who_synced_and_what_moved(make_device: Any) -> None:
    laptop, desktop = make_device("laptop"), make_device("desktop")
    code, text, _ = laptop.coach("sync")
    assert code == 0 and "no other computer has synced into this folder yet" in text
    laptop.practise([GOOD, "No idea."])
    code, text, _ = laptop.coach("sync")
    assert code == 0 and "records in 1 segment\n" in text
    SyncTool([laptop, desktop], seed=8).settle()
    code, text, err = desktop.coach("sync")
    assert code == 0 and text.startswith("this device: ") and err == ""
    assert f"({desktop.device_id[:8]})" in text.splitlines()[0]
    assert f"({laptop.device_id[:8]}): 1 segment, " in text and "last written 2026-11-02" in text


def test_the_learners_schedule_decisions_travel_and_every_device_schedules_alike(
    make_device: Any,
) -> None:
    """Issue 19's records: a hold, an undo (and a redo) and a scheduler decision made on one
    computer reach the other, which schedules the same (ADR 0026)."""
    from coach_gui.bootstrap import build_context
    from coach_gui.operations.app import note_catalogue
    from coach_gui.operations.practice import open_practice
    from coach_gui.operations.today import today_with_plans

    laptop, desktop = make_device("laptop"), make_device("desktop")
    laptop.practise([GOOD, "No idea."])
    desktop.practise(["Because of time.", "Not sure."], judge="off")
    laptop.later(days=30)
    laptop._enter()
    context = build_context()  # a session started from Today: its decision is stored
    try:
        lookup, entries = note_catalogue(context)
        _today, plans = today_with_plans(context, lookup, entries)
        opened = open_practice(context, plans[0].note, context.practice_settings(),
                               plan=plans[0].plan)  # fmt: skip
        assert opened is not None
        opened.close()
    finally:
        context.close()
    laptop.later(minutes=5)
    assert laptop.ok("schedule", "undo")["done"] is True
    laptop.later(minutes=1)
    assert laptop.ok("schedule", "redo")["done"] is True
    laptop.later(minutes=1)
    undone = laptop.ok("schedule", "undo")  # the laptop's one review: undone in the end
    assert undone["done"] is True
    desktop.later(days=30, minutes=10)
    desktop.ok("schedule", "bury", "natural-selection", "--assertion", "2")
    for _ in range(2):
        sync_all([laptop, desktop])
        SyncTool([laptop, desktop], seed=7).settle()
    sync_all([laptop, desktop])
    views = agree([laptop, desktop])
    assert [h["kind"] for h in views["today"]["held"]] == ["buried"]
    listed = {s["session_id"] for s in views["sessions"]["sessions"]}
    assert undone["session_id"] in listed  # undone, yet kept in the history everywhere
    for device in (laptop, desktop):
        with sqlite3.connect(device.home / "journal.sqlite3") as conn:
            counts = {
                table: conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                for table in ("review_changes", "schedule_holds", "scheduler_decisions")
            }
        assert counts == {"review_changes": 3, "schedule_holds": 1, "scheduler_decisions": 1}
    stats = [d.ok("stats") for d in (laptop, desktop)]
    assert stats[0]["reviews"] == stats[1]["reviews"] and stats[0]["counts"] == stats[1]["counts"]


def test_a_note_without_an_id_at_another_path_on_each_computer_has_one_history(
    make_device: Any,
) -> None:
    """A plain Obsidian note carries no id, and each computer keeps its vault elsewhere
    (here under its own home): Coach's id for it must not depend on the vault's path, or
    the two computers' sessions of it would be two notes' worth of history."""
    laptop, desktop = make_device("laptop"), make_device("desktop")
    assert laptop.vault != desktop.vault and laptop.vault.name == desktop.vault.name
    folder = "Biologie/Évolution"
    raw = (
        "---\ntags: [biology]\ncreated: 2026-10-01\ncore_assertions:\n"
        + "".join(f"  - {a}\n" for a in ASSERTIONS)
        + "---\n## What it is\n\nDarwin's mechanism.\n\n## Example\n\nFinches.\n"
    ).encode()
    names = {}
    for device, form in ((laptop, "NFC"), (desktop, "NFD")):  # a folder made on HFS+: NFD
        rel = unicodedata.normalize(form, folder) + "/Sélection naturelle.md"
        (device.vault / rel).parent.mkdir(parents=True)
        (device.vault / rel).write_bytes(raw)
        names[device.name] = rel
    a = laptop.practise([GOOD, "No idea."], note=names["laptop"])
    b = desktop.practise(["Because of time.", "Not sure."], note=names["desktop"])
    sync_all([laptop, desktop])
    SyncTool([laptop, desktop], seed=3).settle()
    sync_all([laptop, desktop])
    views = agree([laptop, desktop])
    sessions = views["sessions"]["sessions"]
    assert sorted(s["session_id"] for s in sessions) == sorted([a["session_id"], b["session_id"]])
    (note_id,) = {s["note_id"] for s in sessions}  # one note, both sessions
    assert [n["note_id"] for n in views["today"]["notes"]] == [note_id]


def test_a_learners_correction_travels_and_both_computers_count_it(make_device: Any) -> None:
    """Issue 36: a key point corrected on the laptop counts on the desktop too: the same
    open gaps, Today and history on both, and both verify."""
    laptop, desktop = make_device("laptop"), make_device("desktop")
    done = laptop.practise(["No idea."])
    judged = next(i for i in done["items"] if i["assessments"])
    missed = [n + 1 for n, a in enumerate(judged["assessments"]) if a["status"] != "explained"]
    assert missed  # the fake judge found key points missing
    before = {g["key_point"] for g in laptop.ok("gaps")["open"]}
    laptop.later(minutes=2)
    corrected = laptop.ok("correct", judged["attempt_id"], str(missed[0]), "explained")
    assert corrected["in_force"] is True
    assert {g["key_point"] for g in laptop.ok("gaps")["open"]} == before - {missed[0]}
    for _ in range(2):
        sync_all([laptop, desktop])
        SyncTool([laptop, desktop], seed=3).settle()
    sync_all([laptop, desktop])
    views = agree([laptop, desktop])
    assert {g["key_point"] for g in views["gaps"]["open"]} == before - {missed[0]}
    for device in (laptop, desktop):
        with sqlite3.connect(device.home / "journal.sqlite3") as conn:
            (count,) = conn.execute("SELECT count(*) FROM learner_corrections").fetchone()
        assert count == 1


def test_a_history_imported_from_anki_travels_and_both_computers_count_it(
    make_device: Any, tmp_path: Path
) -> None:
    """Issue 37: review histories imported on the laptop reach the desktop through sync
    (the notes through the learner's own vault sync), and both replay them the same way
    and verify."""
    import shutil

    pytest.importorskip("anki")
    from anki_packages import make_packages

    packages = make_packages(tmp_path / "anki")
    laptop, desktop = make_device("laptop"), make_device("desktop")
    imported = laptop.ok("import", str(packages.current))
    assert imported["histories"] == 3
    for created in imported["created"]:  # the learner's vault sync carries the files
        target = desktop.vault / created["file"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(laptop.vault / created["file"], target)
    for _ in range(2):
        sync_all([laptop, desktop])
        SyncTool([laptop, desktop], seed=3).settle()
    sync_all([laptop, desktop])
    agree([laptop, desktop])
    for device in (laptop, desktop):
        with sqlite3.connect(device.home / "journal.sqlite3") as conn:
            (count,) = conn.execute("SELECT count(*) FROM imported_reviews").fetchone()
        assert count == 3
