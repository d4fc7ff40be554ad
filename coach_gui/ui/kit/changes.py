"""How the window's views take a changes record (DESIGN §2): the one stale cycle they share.

A view names the changes it shows (`reads_again_on`); given one of them it reads again now
if it is on screen, else it marks itself stale and reads again when next shown. Views that
read on every showing (Sessions, the gap board) only need the first half."""

from __future__ import annotations

from typing import ClassVar, Protocol

from coach_gui.domain.changes import Changes


class TakesChanges(Protocol):
    def take_changes(self, changes: Changes) -> None: ...


class _View(Protocol):
    reads_again_on: ClassVar[Changes]
    _stale: bool

    def isVisible(self) -> bool: ...

    def refresh(self) -> None: ...

    def mark_stale(self) -> None: ...


class StaleUntilShown:
    """Mixed into a view that reads itself in `refresh()` and, in its `showEvent`, reads
    again when `_stale` (Today, Statistics, Judge consistency)."""

    reads_again_on: ClassVar[Changes]
    _stale: bool

    def take_changes(self: _View, changes: Changes) -> None:
        if changes.touches(self.reads_again_on):
            self.mark_stale()

    def mark_stale(self: _View) -> None:
        """Read again now if shown, else when next shown (so Start never practises from
        an old list)."""
        self._stale = True
        if self.isVisible():
            self.refresh()
