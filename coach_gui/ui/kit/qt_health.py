"""Whether the Qt binding keeps Python's reference counts (ADR 0011).

PySide6-Essentials 6.12.0 on CPython 3.11 drops one reference to `None` on every void
call and one to `True` on every `Signal.emit`. On CPython < 3.12 those objects are
mortal, so their counts reach zero within an evening and the process aborts with
`Fatal Python error: none_dealloc`. The dependency range keeps that binding out; this
probe is how the build, `coach --smoke --soak` and the tests prove it stayed out.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel

# A leaking binding lowers a count by one per call. Only a fall can kill the process; a
# sound binding moves the counts by a handful over plain calls, and *raises* None's a
# little when widgets holding Python connections are destroyed (PySide6 6.11.3: about 5
# per note switch, ADR 0011), which can never reach zero.
TOLERANCE = 64
_BATCH = 500  # small batches keep a leaking binding's counts far from zero while probed


@dataclass(frozen=True)
class Drift:
    calls: int
    none: int
    true: int

    @property
    def ok(self) -> bool:
        """Neither count fell: a binding that drops references would fall by `calls`."""
        return self.none >= -TOLERANCE and self.true >= -TOLERANCE

    @property
    def moot(self) -> bool:
        """On Python 3.12+ None and True are immortal: a drift cannot kill the process."""
        return sys.version_info >= (3, 12)

    def describe(self) -> str:
        moot = " (harmless: None and True are immortal on Python 3.12+)" if self.moot else ""
        return f"None moved {self.none:+,}, True moved {self.true:+,}{moot}"


_kept: list[object] = []  # references handed back to None/True while probing a bad binding


def settle() -> None:
    """Collect the garbage left from before a measurement: freed inside it, it would lower
    the counts by what it held (a long test suite leaves enough for a fall of over a
    hundred), which is not a binding dropping references. Once per measurement — a full
    collection per note switch would slow a soak of 2,000 by a minute."""
    gc.collect()


@contextmanager
def counting() -> Iterator[Callable[[], tuple[int, int]]]:
    """Measure how far the counts of None and True move inside the block; the callable
    gives (None, True) deltas so far. Used around whole soak runs, too."""
    before = sys.getrefcount(None), sys.getrefcount(True)
    yield lambda: (sys.getrefcount(None) - before[0], sys.getrefcount(True) - before[1])


class _Emitter(QObject):
    fired = Signal(int)


def probe(calls: int = 100_000) -> Drift:
    """`calls` void calls (QLabel.setText) and `calls` emits to a connected slot; how far
    None and True moved. Needs a QApplication. Survives a leaking binding: what it drops
    is handed back after each batch."""
    label = QLabel()
    emitter = _Emitter()
    received = [0]

    def slot(_value: int) -> None:
        received[0] += 1

    emitter.fired.connect(slot)
    none = true = 0
    done = 0
    try:
        while done < calls:
            n = min(_BATCH, calls - done)
            with counting() as delta:
                for _ in range(n):
                    label.setText("x")
                for _ in range(n):
                    emitter.fired.emit(1)
                moved = delta()
            none, true = none + moved[0], true + moved[1]
            hand_back(moved)
            done += n
    finally:
        emitter.fired.disconnect(slot)
        label.deleteLater()
    return Drift(calls, none, true)


def hand_back(moved: tuple[int, int]) -> None:
    """Give None and True back the references a leaking binding dropped (kept until exit)."""
    _kept.extend([None] * max(-moved[0], 0))
    _kept.extend([True] * max(-moved[1], 0))
