"""Changes made to the knowledge base by other programs (Obsidian, `git pull`, sync),
reported within a second (issue 14), with `watchfiles` (inotify, FSEvents, ReadDirectoryChanges
underneath; polling where none works).

One daemon thread per watched folder; `on_change` is called on that thread with the
'/'-separated paths that changed (hidden folders and Coach's own temp files left out).
`stop()` ends it within a step (50 ms) and never raises.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path

import watchfiles

from coach_gui.files import is_own_temp_file

log = logging.getLogger(__name__)

DEBOUNCE_MS = 250  # a burst (a `git pull`, a sync) arrives as one report
_STEP_MS = 50


class VaultWatcher:
    def __init__(
        self,
        folder: Path,
        on_change: Callable[[frozenset[str]], None],
        *,
        debounce_ms: int = DEBOUNCE_MS,
        force_polling: bool | None = None,
    ) -> None:
        self._folder = folder
        self._top = os.path.realpath(folder)
        self._on_change = on_change
        self._debounce_ms = debounce_ms
        self._force_polling = force_polling
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="coach-vault-watch", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 1.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _relative(self, path: str) -> str | None:
        real = os.path.realpath(path) if not path.startswith(self._top) else path
        if not real.startswith(self._top + os.sep):
            return None
        return real[len(self._top) + 1 :].replace(os.sep, "/")

    def _wanted(self, _change: watchfiles.Change, path: str) -> bool:
        rel = self._relative(path)
        if rel is None:
            return False
        parts = rel.split("/")
        if any(part.startswith(".") for part in parts):  # .obsidian, .git, temp files
            return False
        return not is_own_temp_file(parts[-1])

    def _run(self) -> None:
        try:
            for changes in watchfiles.watch(
                self._top,
                watch_filter=self._wanted,
                debounce=self._debounce_ms,
                step=_STEP_MS,
                stop_event=self._stop,
                rust_timeout=1000,
                yield_on_timeout=False,
                raise_interrupt=False,
                force_polling=self._force_polling,
                ignore_permission_denied=True,
            ):
                paths = frozenset(p for p in (self._relative(path) for _, path in changes) if p)
                if paths and not self._stop.is_set():
                    self._on_change(paths)
        except Exception as error:  # the folder went away, a watch limit: say so, go on
            log.warning("the notes folder is no longer watched: %s", type(error).__name__)
