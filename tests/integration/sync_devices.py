"""Simulated computers for the sync tests (issue 20): each has its own COACH_HOME, config,
keyring and clock, and its own copy of the learner's sync folder; a "sync tool" moves
files between the copies one at a time, in random order, sometimes only part of a file.
Every `coach` command runs in-process through `coach_gui.cli.main`, as a learner's would."""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import socket
import sqlite3
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from coach_gui.cli import main

KEY = "test-key"
ASSERTIONS = ["Selection acts only on inherited variation.", "Large change takes a long time."]
NOTE = {"id": "note1", "title": "Natural selection", "core_assertions": ASSERTIONS}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Device:
    """One computer: its data folder, settings, keyring, clock and sync folder copy."""

    def __init__(
        self,
        root: Path,
        name: str,
        gemini_url: str,
        monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str],
        *,
        clock: datetime,
    ) -> None:
        self.name = name
        self.base = root / name
        self.home = self.base / "home"
        self.shared = self.base / "Sync" / "coach"  # what the sync tool carries
        self.shared.mkdir(parents=True)
        self.clock = clock
        self._monkeypatch = monkeypatch
        self._capsys = capsys
        notes = self.home / "notes"
        notes.mkdir(parents=True)
        (notes / "natural-selection.md").write_text(
            "---\n" + yaml.safe_dump(NOTE) + "---\nBody of the note.\n", encoding="utf-8"
        )
        self.config = self.base / "coach.config.json"
        self.config.write_text(
            json.dumps(
                {
                    "kb": {"path": str(notes)},
                    "tier1": {"ollamaUrl": f"http://127.0.0.1:{_free_port()}"},
                    "judge": {"baseUrl": gemini_url, "maxRetries": 0},
                    "sync": {"folder": str(self.shared)},
                }
            ),
            encoding="utf-8",
        )
        self._enter()
        self._monkeypatch.setattr("sys.stdin", io.StringIO(KEY + "\n"))
        assert main(["key", "set"]) == 0

    def _enter(self) -> None:
        env = self._monkeypatch.setenv
        env("COACH_HOME", str(self.home))
        env("COACH_CONFIG", str(self.config))
        env("COACH_TEST_KEYRING", str(self.base / "keyring.json"))
        env("COACH_NOW", self.clock.isoformat())

    def coach(self, *argv: str) -> tuple[int, Any, str]:
        """Run `coach` on this computer; (exit code, parsed JSON or text, stderr)."""
        self._enter()
        self._capsys.readouterr()
        code = main(list(argv))
        out = self._capsys.readouterr()
        parsed = json.loads(out.out) if "--json" in argv and out.out else out.out
        return code, parsed, out.err

    def ok(self, *argv: str) -> Any:
        code, data, err = self.coach(*argv, "--json")
        assert code == 0, f"{self.name}: coach {' '.join(argv)} exited {code}: {err}"
        return data

    def later(self, **delta: float) -> None:
        self.clock += timedelta(**delta)

    @property
    def vault(self) -> Path:
        """The learner's notes on this computer (at a path of its own)."""
        return self.home / "notes"

    def practise(
        self, answers: list[str], *, judge: str = "on", note: str = "natural-selection"
    ) -> dict[str, Any]:
        path = self.base / "answers.json"
        path.write_text(json.dumps(answers), encoding="utf-8")
        self.later(minutes=5)
        data = self.ok("practice", note, "--answers", str(path), "--judge", judge)
        self.later(minutes=5)
        return data  # type: ignore[no-any-return]

    def public_key(self) -> bytes:
        """This computer's sync key (made in its keyring on first use)."""
        from coach_gui.adapters.secrets import KeyringSyncKey

        self._enter()
        return KeyringSyncKey().public_key()

    def sign(self, data: bytes) -> bytes:
        """`data` signed with this computer's sync key, as its Coach signs a segment."""
        from coach_gui.adapters.secrets import KeyringSyncKey

        self._enter()
        return KeyringSyncKey().sign(data)

    @property
    def fingerprint(self) -> str:
        from coach_gui.domain.sync_pairing import fingerprint

        return fingerprint(self.public_key())

    def pair_with(self, other: Device) -> None:
        """The learner pairs the two computers (issue 34): each one's key file reaches the
        other's folder (as the sync tool carries it), and on each `coach sync --trust`
        with the fingerprint the other shows."""
        from coach_gui.domain.sync_pairing import KEY_FILE, key_file_bytes

        for here, there in ((self, other), (other, self)):
            folder = here.shared / there.device_id
            folder.mkdir(parents=True, exist_ok=True)
            (folder / KEY_FILE).write_bytes(
                key_file_bytes(there.device_id, there.device_name, there.public_key())
            )
            code, data, err = here.coach("sync", "--trust", there.fingerprint, "--json")
            assert code == 0 and not data["waiting"], err

    @property
    def device_name(self) -> str:
        from coach_gui.adapters.sync_folder import device_identity

        return device_identity(self.home)[1]

    @property
    def device_id(self) -> str:
        from coach_gui.adapters.sync_folder import device_identity

        return device_identity(self.home)[0]  # made as Coach makes it, on first use

    def logged_schedule_records(self) -> int:
        """Entries of this journal's trace log that name a schedule record, not a trace."""
        conn = sqlite3.connect(self.home / "journal.sqlite3")
        try:
            (count,) = conn.execute(
                "SELECT count(*) FROM trace_log"
                " WHERE trace_id NOT IN (SELECT trace_id FROM sealed_traces)"
            ).fetchone()
        finally:
            conn.close()
        return int(count)

    def views(self, now: datetime) -> dict[str, Any]:
        """What the learner sees on this computer at `now`, to compare across computers."""
        saved, self.clock = self.clock, now
        try:
            verify = self.ok("verify")
            # Holds, undos and parameter sets are logged by the computer they were made on
            # only (issue 34), so the log and the checks count them there alone.
            own = self.logged_schedule_records()
            return {
                "sessions": self.ok("sessions", "--limit", "0"),
                # (COACH_NOW runs on with the process: the moment read differs by a hair)
                "today": {k: v for k, v in self.ok("today").items() if k != "now"},
                "gaps": self.ok("gaps"),
                "verify": {
                    "ok": verify["ok"],
                    "checked": verify["checked"] - own,
                    "first_failure": verify["first_failure"],
                    "log_size": verify["log"]["size"] - own,
                },
            }
        finally:
            self.clock = saved


def folder_digests(folder: Path) -> dict[str, str]:
    """Every file under `folder` with the SHA-256 of its bytes."""
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


class SyncTool:
    """Moves files between the computers' sync folders like a file-sync tool: one file
    at a time, in random order; `partial` of the copies stop part-way (a torn file the
    next round completes)."""

    def __init__(self, devices: list[Device], seed: int) -> None:
        self.devices = devices
        self.random = random.Random(seed)
        self.torn: set[Path] = set()  # copies still under way: never passed on

    def round(self, *, partial: float = 0.0) -> None:
        moves: list[tuple[Path, Path]] = []
        for source in self.devices:
            for path in source.shared.rglob("*"):
                if not path.is_file() or path.name.startswith(".") or path in self.torn:
                    continue
                rel = path.relative_to(source.shared)
                for target in self.devices:
                    if target is source:
                        continue
                    dest = target.shared / rel
                    if not dest.exists() or dest.stat().st_size < path.stat().st_size:
                        moves.append((path, dest))
        self.random.shuffle(moves)
        for path, dest in moves:
            data = path.read_bytes()
            if self.random.random() < partial:
                data = data[: self.random.randrange(1, len(data))]
                self.torn.add(dest)
            else:
                self.torn.discard(dest)
            dest.parent.mkdir(parents=True, exist_ok=True)
            dest.write_bytes(data)

    def settle(self) -> None:
        """Copy until every folder holds every file whole."""
        self.round()


def others_unchanged(device: Device, before: dict[str, str]) -> None:
    """No file in another device's folder changed while `device` ran (it writes only its
    own)."""
    after = folder_digests(device.shared)
    own = device.device_id
    for name, sha in before.items():
        if not name.startswith(own + os.sep):
            assert after.get(name) == sha, f"{device.name} changed {name}"
    for name in after:
        if name not in before:
            assert name.startswith(own + os.sep), f"{device.name} wrote {name}"


def paired(devices: list[Device], device: Device) -> Device:
    """`device`, paired with each of `devices` (the computers the learner set up before),
    then added to them."""
    for other in devices:
        device.pair_with(other)
    devices.append(device)
    return device
