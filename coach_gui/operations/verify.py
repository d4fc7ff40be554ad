"""`coach verify`: recompute every id and chain in the journal, eval runs and the signed
trace log included (DESIGN §6, ADR 0015)."""

from __future__ import annotations

from collections.abc import Callable

from coach_gui.operations.app import App
from coach_gui.services.verify import VerifyReport, verify


def verify_journal(
    app: App, target_id: str | None = None, *, on_progress: Callable[[int, int], None] | None
) -> VerifyReport:
    """The whole journal, or one trace, session or eval run; raises VerifyTargetNotFound."""
    return verify(
        app.traces(),
        target_id,
        on_progress=on_progress,
        evals=app.eval_journal(),
        keys=app.signing_keys(),
    )
