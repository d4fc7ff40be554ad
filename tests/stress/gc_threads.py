"""Count the cyclic garbage collector's runs by the thread they ran on (ADR 0029: in a Qt
app every one must run on the GUI thread)."""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator


@contextlib.contextmanager
def collections_by_thread() -> Iterator[dict[str, int]]:
    """Inside the block, count each collection's start: under "gui" when it ran on the
    thread that entered the block (the GUI thread, for the callers), else "elsewhere"."""
    gui = threading.get_ident()
    seen = {"gui": 0, "elsewhere": 0}

    def counted(phase: str, _info: dict[str, int]) -> None:
        if phase == "start":
            seen["gui" if threading.get_ident() == gui else "elsewhere"] += 1

    gc.callbacks.append(counted)
    try:
        yield seen
    finally:
        gc.callbacks.remove(counted)
