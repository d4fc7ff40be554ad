"""Issue 20: importing a long history (many segments) reads and checks the next segments
in a second process while one is stored, and stores a few segments per transaction. What
goes in, and what is refused and why, is the same with the helper process and without
it, when a segment between good ones is forged or waits for another computer's records,
when a value would be stored otherwise than it came, and when the helper process dies."""

from __future__ import annotations

import base64
import gc
import hashlib
import itertools
import json
import logging
import multiprocessing
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from sync_devices import KEY, Device, paired

import coach_gui.services.practice as practice
import coach_gui.services.sync as sync_service
from coach_gui.adapters.journal import sync_merge
from coach_gui.adapters.journal.database import Journal
from coach_gui.adapters.journal.sync import SqliteSyncJournal
from coach_gui.adapters.sync_folder import SyncFolder
from coach_gui.domain.digests import canonical_text
from coach_gui.domain.errors import JournalError
from coach_gui.domain.sync import SegmentOutcome, parse_segment
from coach_gui.domain.sync_pairing import Pairing
from coach_gui.services.sync import check_sessions

START = datetime(2026, 11, 2, 19, 0, tzinfo=UTC)
GOOD = "It is slow because each step is slight and acts on inherited variation."


@pytest.fixture
def make_device(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Iterator[Callable[..., Device]]:
    with FakeGemini(api_keys={KEY}) as gemini:
        gemini.reply_for = passes_items_whose_answer_contains("because")

        made: list[Device] = []

        def make(name: str, device_id: str | None = None) -> Device:
            device = Device(tmp_path, name, gemini.url, monkeypatch, capsys, clock=START)
            if device_id is not None:  # before its first sync: its folder's place in the list
                (device.home / "sync-device.json").write_text(
                    json.dumps({"device_id": device_id, "name": name}) + "\n", encoding="utf-8"
                )
            return paired(made, device)  # the learner pairs it with those before (issue 34)

        yield make


class HelperSpy:
    """Counts the helper processes sync starts and the segments it gives them (the real
    process pool still does the work)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, cores: int) -> None:
        self.pools = 0
        self.submitted = 0
        real = sync_service._helper_pool
        monkeypatch.setattr(sync_service, "_cores", lambda: cores)

        def counted() -> Any:
            pool = real()
            if pool is not None:
                self.pools += 1
                submit = pool.submit

                def counting(*args: Any, **kwargs: Any) -> Any:
                    self.submitted += 1
                    return submit(*args, **kwargs)

                pool.submit = counting  # type: ignore[method-assign]
            return pool

        monkeypatch.setattr(sync_service, "_helper_pool", counted)


class Logged(logging.Handler):
    """What sync logs while it is attached (the app's log file gets the same lines)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.messages: list[str] = []
        self._logger = logging.getLogger("coach_gui.services.sync")

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())

    def __enter__(self) -> Logged:
        self._logger.addHandler(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._logger.removeHandler(self)


def helper_pool(initializer: Callable[..., object], *args: object) -> ProcessPoolExecutor:
    """A helper process that runs `initializer(*args)` before it reads any segment."""
    return ProcessPoolExecutor(
        max_workers=1,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=initializer,
        initargs=args,
    )


def hanging_pool() -> ProcessPoolExecutor:
    """A helper whose process never gets to the segments (it sleeps two minutes first)."""
    return helper_pool(time.sleep, 120)


def slow_pool() -> ProcessPoolExecutor:
    """A helper whose process takes three seconds to start."""
    return helper_pool(time.sleep, 3)


def no_helper_left() -> None:
    """Every helper process has gone (a stopped one within ten seconds)."""
    deadline = time.monotonic() + 10
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert multiprocessing.active_children() == []


def answer_changed(record: dict[str, Any]) -> None:
    """A forgery: every answer in the segment says something else."""
    if record["kind"] == "attempt":
        record["row"]["answer"] = "I knew it all along."


def evenings(device: Device, count: int) -> list[Path]:
    """`count` evenings of practice, each synced: one segment each, in order."""
    for n in range(count):
        device.practise([GOOD if n % 2 else "Because of time.", "No idea."])
        device.later(days=1)
        device.ok("sync")
    return sorted((device.shared / device.device_id).glob("*.jsonl"))


def copy_in(target: Device, source: Device, files: list[Path]) -> None:
    folder = target.shared / source.device_id
    folder.mkdir(parents=True, exist_ok=True)
    for path in files:
        shutil.copyfile(path, folder / path.name)


def forged(
    path: Path, change: Callable[[dict[str, Any]], None], *, escaped: str = "", by: Device
) -> tuple[str, bytes]:
    """The segment with its records changed by `change`, made whole again (trailer and
    name recomputed, signed with the key of `by`, the paired computer it came from: a
    Coach there that misbehaves), so only the record checks can tell: (file name, bytes).
    `escaped`: a JSON escape written where `change` put the text "ESCAPED"."""
    lines = path.read_bytes().decode("utf-8").split("\n")[:-2]
    records = [json.loads(line) for line in lines[1:]]
    for record in records:
        change(record)
    body = "\n".join([lines[0], *(canonical_text(r) for r in records)]) + "\n"
    body = body.replace("ESCAPED", escaped) if escaped else body
    sha = hashlib.sha256(body.encode()).hexdigest()
    signature = base64.b64encode(by.sign(body.encode())).decode()
    trailer = canonical_text(
        {"trailer": {"count": len(records), "sha256": sha, "signature": signature}}
    )
    return f"{path.name[:8]}-{sha[:16]}.jsonl", (body + trailer + "\n").encode()


def count(device: Device, table: str) -> int:
    with sqlite3.connect(device.home / "journal.sqlite3") as conn:
        return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])


def seen(device: Device) -> dict[str, Any]:
    """What the learner sees of the history, to compare two computers."""
    sessions = device.ok("sessions", "--limit", "0")["sessions"]
    verify = device.ok("verify")
    return {
        "sessions": sorted((s["session_id"], s["passed"], s["pending"]) for s in sessions),
        "gaps": device.ok("gaps")["open"],
        "verify": (verify["ok"], verify["checked"], verify["first_failure"]),
    }


def test_a_long_history_goes_in_the_same_with_the_helper_process_and_without(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 4)
    assert len(files) == 4

    tablet = make_device("tablet")
    copy_in(tablet, laptop, files)
    spy = HelperSpy(monkeypatch, cores=2)
    assert gc.isenabled()
    with Logged() as logged:
        with_helper = tablet.ok("sync")
    assert gc.isenabled()  # paused during the long import only
    assert spy.pools == 1 and spy.submitted == 3  # the first is read here, while it starts
    # The helper read those this process did not take back while it would have waited.
    (read,) = [m for m in logged.messages if m.startswith("a helper process read")]
    assert re.fullmatch(r"a helper process read [123] of 4 segments", read), read
    assert not any("without its helper process" in m for m in logged.messages)

    desktop = make_device("desktop")
    copy_in(desktop, laptop, files)
    alone = HelperSpy(monkeypatch, cores=1)  # one core: no second process
    without = desktop.ok("sync")
    assert alone.pools == 0

    for report in (with_helper, without):
        assert sorted(report["segments_imported"]) == [p.name for p in files]
        assert report["rejected"] == [] and report["ignored"] == []
    assert with_helper["records_in"] == without["records_in"] > 0
    assert seen(tablet) == seen(desktop) == seen(laptop)
    assert seen(tablet)["verify"][0] is True


@pytest.mark.parametrize("cores", [2, 1], ids=["helper", "no-helper"])
def test_a_forged_segment_between_good_ones_is_refused_alone(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 4)

    name, data = forged(files[1], answer_changed, by=laptop)
    desktop = make_device("desktop")
    copy_in(desktop, laptop, [files[0], files[2], files[3]])
    (desktop.shared / laptop.device_id / name).write_bytes(data)
    HelperSpy(monkeypatch, cores=cores)
    code, report, err = desktop.coach("sync", "--json")

    assert code == 1 and "was not imported" in err
    (rejected,) = report["rejected"]
    assert rejected["file"] == name and "does not check out: digest mismatch" in rejected["reason"]
    assert sorted(report["segments_imported"]) == [files[0].name, files[2].name, files[3].name]
    assert count(desktop, "sessions") == 3
    assert desktop.ok("verify")["ok"]
    assert count(desktop, "sync_segments") == 3  # the forged one is tried again next time


@pytest.mark.parametrize("cores", [2, 1], ids=["helper", "no-helper"])
def test_a_segment_that_waits_for_another_computer_leaves_the_rest_in(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    # The desktop's folder is listed before the laptop's: its second segment (answers of
    # the laptop's session, judged on the desktop) comes before the session it judged.
    laptop = make_device("laptop", "f" * 32)
    desktop = make_device("desktop", "0" * 32)
    laptop.practise([GOOD, "No idea."], judge="off")
    laptop.ok("sync")
    copy_in(desktop, laptop, sorted((laptop.shared / laptop.device_id).glob("*.jsonl")))
    desktop.ok("sync")
    desktop.practise(["Because of time.", "Not sure."])
    desktop.ok("sync")  # its own session
    assert [j["verdict"] for j in desktop.ok("judge-pending")["judged"]] == ["pass", "fail"]
    desktop.ok("sync")  # the laptop's answers, judged here
    own = sorted((desktop.shared / desktop.device_id).glob("*.jsonl"))
    assert len(own) == 2

    tablet = make_device("tablet")
    copy_in(tablet, desktop, own)
    copy_in(tablet, laptop, sorted((laptop.shared / laptop.device_id).glob("*.jsonl")))
    HelperSpy(monkeypatch, cores=cores)
    report = tablet.ok("sync")

    assert len(report["segments_imported"]) == 3 and report["ignored"] == []
    assert report["rejected"] == [] and report["conflicts"] == []
    assert seen(tablet) == seen(desktop)
    pending = {s[0]: s[2] for s in seen(tablet)["sessions"]}
    assert sorted(pending.values()) == [0, 0]  # the judged-later verdicts are bound there


def test_values_stored_otherwise_than_they_came_are_checked_as_stored(
    make_device: Callable[..., Device],
) -> None:
    laptop = make_device("laptop")
    (first,) = evenings(laptop, 1)

    def position_as_text(record: dict[str, Any]) -> None:
        if record["kind"] == "challenge":  # an integer column keeps "1" as the number 1
            record["row"]["position"] = str(record["row"]["position"])

    def answer_as_number(record: dict[str, Any]) -> None:
        if record["kind"] == "attempt":  # a text column keeps 12345 as the text "12345"
            record["row"]["answer"] = 12345

    desktop = make_device("desktop")
    folder = desktop.shared / laptop.device_id
    folder.mkdir(parents=True, exist_ok=True)
    name, data = forged(first, answer_as_number, by=laptop)
    (folder / name).write_bytes(data)
    code, report, _ = desktop.coach("sync", "--json")
    assert code == 1 and "does not check out: digest mismatch" in report["rejected"][0]["reason"]
    (folder / name).unlink()

    name, data = forged(first, position_as_text, by=laptop)
    (folder / name).write_bytes(data)
    report = desktop.ok("sync")  # stored as the numbers they were: the same records
    assert report["segments_imported"] == [name] and report["rejected"] == []
    assert desktop.ok("verify")["ok"]
    assert seen(desktop)["sessions"] == seen(laptop)["sessions"]


def test_a_helper_process_that_dies_leaves_the_import_to_this_one(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 3)
    desktop = make_device("desktop")
    copy_in(desktop, laptop, files)

    def dying() -> ProcessPoolExecutor:  # its process exits before it reads anything
        return helper_pool(os._exit, 3)

    monkeypatch.setattr(sync_service, "_cores", lambda: 2)
    monkeypatch.setattr(sync_service, "_helper_pool", dying)
    with Logged() as logged:
        report = desktop.ok("sync")
    assert sorted(report["segments_imported"]) == [p.name for p in files]
    assert any("without its helper process" in m for m in logged.messages)
    assert seen(desktop) == seen(laptop)


def test_a_helper_process_that_hangs_is_stopped_and_the_import_goes_on_here(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 3)
    desktop = make_device("desktop")
    copy_in(desktop, laptop, files)

    monkeypatch.setattr(sync_service, "_cores", lambda: 2)
    monkeypatch.setattr(sync_service, "_helper_pool", hanging_pool)
    monkeypatch.setattr(sync_service, "_HELPER_SECONDS", 1.0)
    began = time.monotonic()
    report = desktop.ok("sync")
    assert sorted(report["segments_imported"]) == [p.name for p in files]
    assert time.monotonic() - began < 60  # it did not wait for the helper's two minutes
    no_helper_left()  # the hung process was stopped
    assert seen(desktop) == seen(laptop)


class Keys:
    """The trace log's signing key, in memory."""

    key = ("test-key", b"k" * 32)

    def signing_key(self) -> tuple[str, bytes]:
        return self.key

    def existing_key(self) -> tuple[str, bytes] | None:
        return self.key

    def has_key(self) -> bool:
        return True


def test_a_segment_refused_inside_a_batch_takes_none_of_the_batch_with_it(
    make_device: Callable[..., Device], tmp_path: Path
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 3)

    name, data = forged(files[1], answer_changed, by=laptop)
    device = laptop.device_id
    segments = [
        parse_segment(
            files[0].read_bytes(),
            device_id=device,
            file_name=files[0].name,
            public_key=laptop.public_key(),
        ),
        parse_segment(data, device_id=device, file_name=name, public_key=laptop.public_key()),
        parse_segment(
            files[2].read_bytes(),
            device_id=device,
            file_name=files[2].name,
            public_key=laptop.public_key(),
        ),
    ]
    now = "2026-11-10T19:00:00.000000+00:00"
    with Journal.open(tmp_path / "other.sqlite3", keys=Keys()) as journal:
        sync = SqliteSyncJournal(journal, "a" * 32)
        with sync.importing():  # one transaction for all three, none committed early
            outcomes = [
                sync.import_segment(s, now, check_sessions)  # type: ignore[arg-type]
                for s in segments
            ]
            assert journal.counts()["sessions"] == 0  # (a reader sees nothing yet)
        assert [o.status for o in outcomes] == ["imported", "rejected", "imported"]
        assert "digest mismatch" in (outcomes[1].reason or "")
        counts = journal.counts()
        assert counts["sessions"] == 2 and counts["sync_segments"] == 2
        with journal.read() as conn:
            kept = {str(r[0]) for r in conn.execute("SELECT file_name FROM sync_segments")}
        assert kept == {files[0].name, files[2].name}


@pytest.mark.parametrize("again", ["refused", "otherwise"])
def test_a_batch_that_does_not_go_in_again_the_same_way_is_taken_back_whole(
    make_device: Callable[..., Device],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    again: str,
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 2)

    name, data = forged(files[1], answer_changed, by=laptop)
    device = laptop.device_id
    good = parse_segment(
        files[0].read_bytes(),
        device_id=device,
        file_name=files[0].name,
        public_key=laptop.public_key(),
    )
    bad = parse_segment(data, device_id=device, file_name=name, public_key=laptop.public_key())
    checks = {"n": 0}
    real = sync_merge.Merge._check
    real_result = sync_merge.Merge.result

    def changed_meanwhile(self: sync_merge.Merge, *args: Any) -> None:
        checks["n"] += 1  # the third check is the good segment's, stored again: as if
        if checks["n"] == 3 and again == "refused":  # another Coach had written to the
            raise sync_merge.Stop(SegmentOutcome("waiting", reason="not here yet"))  # journal
        real(self, *args)

    def counted_otherwise(self: sync_merge.Merge) -> SegmentOutcome:
        outcome = real_result(self)  # ... or it went in, but not as it did before
        return SegmentOutcome("duplicate") if checks["n"] == 3 else outcome

    monkeypatch.setattr(sync_merge.Merge, "_check", changed_meanwhile)
    monkeypatch.setattr(sync_merge.Merge, "result", counted_otherwise)
    now = "2026-11-10T19:00:00.000000+00:00"
    with Journal.open(tmp_path / "other.sqlite3", keys=Keys()) as journal:
        sync = SqliteSyncJournal(journal, "a" * 32)
        with pytest.raises(JournalError, match="sync again"), sync.importing():
            assert sync.import_segment(good, now, check_sessions).status == "imported"  # type: ignore[arg-type]
            sync.import_segment(bad, now, check_sessions)  # type: ignore[arg-type]
        counts = journal.counts()  # nothing of either went in, not half of one
        assert counts["sessions"] == counts["attempts"] == counts["sealed_traces"] == 0
        assert counts["trace_log"] == counts["sync_segments"] == counts["sync_records"] == 0
        with journal.write() as conn:
            assert conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL again
            assert conn.execute("PRAGMA cache_size").fetchone()[0] == -2000


def test_a_row_that_names_its_session_by_a_number_is_checked_as_stored(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # A session id of digits only; a forged extra challenge names it as the number,
    # which SQLite stores as that session's id text: the check must see it there too.
    laptop = make_device("laptop")
    ids = itertools.count(1)
    monkeypatch.setattr(practice, "new_id", lambda: f"9{next(ids):015d}")
    (segment,) = evenings(laptop, 1)
    extra: dict[str, Any] = {}

    def add_challenge(record: dict[str, Any]) -> None:
        if record["kind"] == "challenge" and not extra:
            row = dict(record["row"], id="abcdef0123", position=99, text="Never sealed.")
            extra.update(kind="challenge", id="abcdef0123", row=row)
            row["session_id"] = int(row["session_id"])

    forged(segment, add_challenge, by=laptop)  # (finds the row to copy)
    lines = segment.read_bytes().decode("utf-8").split("\n")[:-2]
    path = tmp_path / segment.name  # (forged() keeps the sequence of the name it is given)
    path.write_text("\n".join([*lines, canonical_text(extra), "trailer", ""]), encoding="utf-8")
    name, data = forged(path, lambda record: None, by=laptop)  # made whole: trailer and name
    desktop = make_device("desktop")
    folder = desktop.shared / laptop.device_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    code, report, _ = desktop.coach("sync", "--json")
    assert code == 1 and report["segments_imported"] == []
    assert "abcdef0123 does not check out" in report["rejected"][0]["reason"]
    assert count(desktop, "sessions") == 0 and desktop.ok("verify")["ok"]


@pytest.mark.parametrize(
    ("kind", "column", "value"),
    [("attempt", "answer", "ESCAPED"), ("challenge", "position", 2**70)],
    ids=["lone-surrogate", "huge-number"],
)
def test_a_value_no_column_can_hold_refuses_its_segment_and_the_sync_goes_on(
    make_device: Callable[..., Device], kind: str, column: str, value: Any
) -> None:
    laptop = make_device("laptop")
    first, second = evenings(laptop, 2)

    def unstorable(record: dict[str, Any]) -> None:
        if record["kind"] == kind:
            record["row"][column] = value

    name, data = forged(first, unstorable, escaped="\\ud800", by=laptop)  # a lone surrogate
    desktop = make_device("desktop")
    copy_in(desktop, laptop, [second])
    (desktop.shared / laptop.device_id / name).write_bytes(data)
    code, report, err = desktop.coach("sync", "--json")
    assert code == 1 and "Traceback" not in err
    (rejected,) = report["rejected"]
    assert rejected["file"] == name and "no journal column holds" in rejected["reason"]
    assert report["segments_imported"] == [second.name] and desktop.ok("verify")["ok"]


class OwnKey:
    """A computer's sync key held in memory (the `SyncKey` port)."""

    def __init__(self) -> None:
        self._key = Ed25519PrivateKey.generate()

    def public_key(self) -> bytes:
        return self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)


def test_closing_the_window_stops_an_import_waiting_for_a_hung_helper_at_once(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 3)
    monkeypatch.setattr(sync_service, "_helper_pool", hanging_pool)  # two minutes a segment
    now = "2026-11-10T19:00:00.000000+00:00"
    with Journal.open(tmp_path / "other.sqlite3", keys=Keys()) as journal:
        folder = SyncFolder(laptop.shared, "b" * 32)
        sync = SqliteSyncJournal(journal, "b" * 32)
        closing = {"now": False}

        def stop() -> bool:  # the window closes once the first file is in
            closing["now"] = closing["now"] or journal.counts()["sync_segments"] > 0
            return closing["now"]

        began = time.monotonic()
        sync.record_pairing(
            Pairing(laptop.device_id, "laptop", laptop.public_key().hex(), "trust", now)
        )
        report = sync_service.sync_now(
            folder, sync, OwnKey(), device_name="desktop", location="", now=lambda: now,
            stop=stop, helper=True,
        )  # fmt: skip
        assert time.monotonic() - began < 30  # not the helper's two minutes
        assert report.segments_imported == [files[0].name]  # what went in stays in
        assert journal.counts()["sessions"] == 1
    no_helper_left()  # the hung helper was stopped too


def test_values_nested_deeper_than_coach_writes_refuse_their_file_and_the_sync_goes_on(
    make_device: Callable[..., Device],
) -> None:
    laptop = make_device("laptop")
    first, second, third = evenings(laptop, 3)
    deep = "[" * 1500 + "]" * 1500  # valid JSON, and SQLite's json_valid takes it

    def deep_gaps(record: dict[str, Any]) -> None:
        if record["kind"] == "verdict":
            record["row"]["gaps"] = deep

    name, data = forged(first, deep_gaps, by=laptop)
    desktop = make_device("desktop")
    folder = desktop.shared / laptop.device_id
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data)
    shutil.copyfile(second, folder / second.name)
    # A file named as a segment whose last line is nested 5,000 deep: not a trailer.
    (folder / third.name).write_bytes(b"{}\n" + b"[" * 5000 + b"]" * 5000 + b"\n")
    code, report, err = desktop.coach("sync", "--json")
    assert code == 1 and "Traceback" not in err
    (rejected,) = report["rejected"]
    assert rejected["file"] == name
    assert report["segments_imported"] == [second.name]
    assert [i["file"] for i in report["ignored"]] == [third.name]
    assert desktop.ok("verify")["ok"]


def test_a_commit_that_fails_while_waiting_for_the_helper_stops_the_sync(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 3)
    desktop = make_device("desktop")
    copy_in(desktop, laptop, files)
    monkeypatch.setattr(sync_service, "_helper_pool", hanging_pool)
    monkeypatch.setattr(sync_service, "_cores", lambda: 2)

    real = SqliteSyncJournal.settle

    def disk_full(self: SqliteSyncJournal, now: bool = False) -> None:
        if not now:  # the commit made while it waits for the (hung) helper
            raise JournalError("The disk is full; free some space and try again.")
        real(self, now)

    monkeypatch.setattr(SqliteSyncJournal, "settle", disk_full)
    began = time.monotonic()
    code, _, err = desktop.coach("sync", "--json")
    assert time.monotonic() - began < 60  # at the first wait, not after the helper's
    assert code != 0 and "The disk is full" in err and "Traceback" not in err
    no_helper_left()


def test_while_the_helper_is_slow_this_process_reads_the_furthest_file_itself_in_order(
    make_device: Callable[..., Device], monkeypatch: pytest.MonkeyPatch
) -> None:
    laptop = make_device("laptop")
    files = evenings(laptop, 4)
    desktop = make_device("desktop")
    copy_in(desktop, laptop, files)
    monkeypatch.setattr(sync_service, "_helper_pool", slow_pool)
    monkeypatch.setattr(sync_service, "_cores", lambda: 2)
    with Logged() as logged:
        report = desktop.ok("sync")
    # The first is read here; the pool holds the next two for its process, which is
    # still starting; the fourth it has not handed over is taken back and read here.
    assert "a helper process read 2 of 4 segments" in logged.messages
    assert report["segments_imported"] == [p.name for p in files]  # in their order
    assert seen(desktop) == seen(laptop)
