"""`coach verify`: recompute every id and chain in the journal, eval runs and the signed
trace log included (DESIGN §6, ADR 0015); a failing record another device sent is named
with that device (ADR 0027)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from coach_gui.domain.sync import device_label
from coach_gui.operations.app import App
from coach_gui.services.verify import VerifyReport, verify


def verify_journal(
    app: App, target_id: str | None = None, *, on_progress: Callable[[int, int], None] | None
) -> VerifyReport:
    """The whole journal, or one trace, session or eval run; raises VerifyTargetNotFound."""
    report = verify(
        app.traces(),
        target_id,
        on_progress=on_progress,
        evals=app.eval_journal(),
        keys=app.signing_keys(),
    )
    failure = report.first_failure
    origin = None if failure is None else app.record_origin(failure.id)
    if failure is None or origin is None:
        return report
    named = dataclasses.replace(failure, device=device_label(origin[1], origin[0]))
    return dataclasses.replace(report, first_failure=named)
