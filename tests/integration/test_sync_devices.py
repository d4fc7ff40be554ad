"""Issue 20 acceptance: two and three computers with their own COACH_HOMEs practise the
same notes and sync through copies of one folder moved by a simulated sync tool (files
copied one at a time in random order, some only in part). After every round each
computer's views and `coach verify` agree, nothing is lost or written twice, and no
computer ever writes another's folder."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fakes.gemini_server import FakeGemini, passes_items_whose_answer_contains
from sync_devices import KEY, Device, SyncTool, folder_digests, others_unchanged

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
    def make(name: str, clock: datetime = START) -> Device:
        return Device(tmp_path, name, gemini.url, monkeypatch, capsys, clock=clock)

    return make


def sync_all(devices: list[Device]) -> list[dict[str, Any]]:
    """Each computer syncs in turn, never touching another's folder."""
    reports = []
    for device in devices:
        before = folder_digests(device.shared)
        reports.append(device.ok("sync"))
        others_unchanged(device, before)
    return reports


def agree(devices: list[Device]) -> dict[str, Any]:
    now = max(d.clock for d in devices)
    seen = [d.views(now) for d in devices]
    for device, views in zip(devices[1:], seen[1:], strict=True):
        for view in views:
            assert views[view] == seen[0][view], f"{device.name}'s {view} differs"
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
