"""What every command that opens the journal does first: seal the sessions a crash left
open, and say so."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coach_gui.commands.output import say

if TYPE_CHECKING:
    from coach_gui.bootstrap import AppContext


def recover(context: AppContext) -> list[str]:
    """Seal sessions left open by a crash (as interrupted); returns their trace ids."""
    sealed = context.recover()
    if len(sealed) == 1:
        say("coach: a session left open when Coach stopped unexpectedly was sealed as "
            "interrupted; every answer submitted in it is kept.")  # fmt: skip
    elif sealed:
        say(f"coach: {len(sealed)} sessions left open when Coach stopped unexpectedly were "
            "sealed as interrupted; every answer submitted in them is kept.")  # fmt: skip
    return sealed
