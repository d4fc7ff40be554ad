"""What every command that opens the journal does first: seal the sessions a crash left
open (`operations.practice.recover`), and say so."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from coach_gui.commands.output import say

if TYPE_CHECKING:
    from coach_gui.bootstrap import AppContext, House
    from coach_gui.operations.app import PracticePorts


def recover(context: PracticePorts) -> list[str]:
    """Seal sessions left open by a crash (as interrupted); returns their trace ids."""
    from coach_gui.operations.practice import recover as seal_left_open

    sealed = seal_left_open(context)
    if len(sealed) == 1:
        say("coach: a session left open when Coach stopped unexpectedly was sealed as "
            "interrupted; every answer submitted in it is kept.")  # fmt: skip
    elif sealed:
        say(f"coach: {len(sealed)} sessions left open when Coach stopped unexpectedly were "
            "sealed as interrupted; every answer submitted in them is kept.")  # fmt: skip
    return sealed


@contextmanager
def opened_journal(house: House, *, seed: bool = True) -> Iterator[AppContext]:
    """The app's context for a command that reads the journal: built from the config,
    with sessions a crash left open sealed first, and closed afterwards."""
    context = house.app(seed=seed)
    try:
        recover(context)
        yield context
    finally:
        context.close()
