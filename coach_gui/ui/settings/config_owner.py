"""The one owner of the settings in the window (ADR 0030).

Before it, the toolbar switches, Settings and the notes-folder chooser each kept a copy of
the config and wrote that copy back to coach.config.json; a switch flipped after choosing a
notes folder wrote its stale copy, `kb.path: null`, and the next start opened the sample
notes (issue 33). Now each of them asks the owner for a change of a few keys; the owner
applies it to the config as it is now, at once, and writes the whole file on the WRITER
lane, one write at a time (changes made meanwhile go into the next write).

    owner = ConfigOwner(cases.settings, window)  # reads and sets the config in effect
    owner.changed.connect(follow)               # every change, at once
    owner.follow(lambda c: c.judge.enabled, switch.setChecked)  # only what it shows
    owner.update({"judge.enabled": True}, failed=tell)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from PySide6.QtCore import QObject, Signal

from coach_gui.config import Config, save_config
from coach_gui.domain.errors import ConfigError
from coach_gui.ui.kit.tasks import Lane, Task

T = TypeVar("T")


class HoldsConfig(Protocol):
    """Where the config in effect lives (the settings use case: the live privacy
    switches are a view of it)."""

    config: Config

    @property
    def config_path(self) -> Path: ...


@dataclass
class _Held:
    """A config with no use cases around it (a dialog on its own, a command)."""

    config: Config
    config_path: Path


@dataclass
class _Waiter:
    done: Callable[[Config], None] | None
    failed: Callable[[Exception], None] | None
    what: str  # what goes back if the write fails, in the learner's word ("switch")


@dataclass
class _Write:
    config: Config
    waiters: list[_Waiter] = field(default_factory=list)


class ConfigOwner(QObject):
    """Holds the config in effect (through `holder`) and is the only writer of its file."""

    changed = Signal(object)  # Config: now in effect (a change, or one put back)
    saved = Signal(object)  # Config: now in coach.config.json, no write still pending

    def __init__(self, holder: HoldsConfig, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._holder = holder
        self._on_disk = holder.config  # what the file holds, as far as we know
        self._writing: _Write | None = None
        self._waiting: list[_Waiter] = []

    @classmethod
    def of(cls, config: Config, path: Path, parent: QObject | None = None) -> ConfigOwner:
        return cls(_Held(config, path), parent)

    @property
    def config(self) -> Config:
        return self._holder.config

    @property
    def path(self) -> Path:
        return self._holder.config_path

    @property
    def writing(self) -> bool:
        """True while a change is being written (or waits to be)."""
        return self._writing is not None or bool(self._waiting)

    def follow(self, pick: Callable[[Config], T], apply: Callable[[T], None]) -> None:
        """`apply(pick(config))` each time what `pick` reads changes — by Settings, a
        switch, or a write that failed and put it back (napari's evented settings): a
        widget follows the fields it shows, and nobody pushes a config to it."""
        last = [pick(self.config)]

        def changed(config: Config) -> None:
            value = pick(config)
            if value != last[0]:
                last[0] = value
                apply(value)

        self.changed.connect(changed)

    def update(
        self,
        changes: Mapping[str, Any],
        *,
        done: Callable[[Config], None] | None = None,
        failed: Callable[[Exception], None] | None = None,
        what: str = "change",
    ) -> Config:
        """Apply dotted-key `changes` to the config as it is now, at once, and write it.
        Raises ConfigError (nothing changed) when the result is not a valid config.
        `done` runs once the change is on disk; `failed`, if it could not be written, after
        the config went back to what the file holds."""
        config = self.config.with_changes(dict(changes))
        if config != self.config:
            self._holder.config = config
            self.changed.emit(config)
        self._waiting.append(_Waiter(done, failed, what))
        self._write_next()
        return config

    def _write_next(self) -> None:
        if self._writing is not None or not self._waiting:
            return
        if self.config == self._on_disk:  # nothing new to write: all waiters are served
            waiters, self._waiting = self._waiting, []
            for waiter in waiters:
                if waiter.done is not None:
                    waiter.done(self.config)
            self.saved.emit(self.config)
            return
        write = self._writing = _Write(self.config, self._waiting)
        self._waiting = []
        path = self.path
        Task(
            self,
            op=lambda _progress: save_config(write.config, path),
            success=lambda _path: self._written(write),
            failure=lambda error: self._not_written(write, error),
            lane=Lane.WRITER,
            name="save settings",
        ).run()

    def _written(self, write: _Write) -> None:
        self._writing = None
        self._on_disk = write.config
        for waiter in write.waiters:
            if waiter.done is not None:
                waiter.done(write.config)
        if self._waiting:
            self._write_next()
        elif self.config == self._on_disk:
            self.saved.emit(write.config)

    def _not_written(self, write: _Write, error: Exception) -> None:
        self._writing = None
        # The file was left as it was (atomic write): so is the config in effect, and the
        # changes queued behind this one, made on top of it, go too.
        waiters = write.waiters + self._waiting
        self._waiting = []
        if self.config != self._on_disk:
            self._holder.config = self._on_disk
            self.changed.emit(self._on_disk)
        for waiter in waiters:
            if waiter.failed is not None:
                waiter.failed(self._told(error, waiter.what))

    def _told(self, error: Exception, what: str) -> Exception:
        if not isinstance(error, OSError):
            return error
        return ConfigError(
            f"could not be saved ({error.strerror}), so the {what} was put back; "
            "check the folder is writable and try again",
            path=str(self.path),
        )
