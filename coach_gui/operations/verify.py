"""`coach verify`: recompute every id and chain in the journal, eval runs and the signed
trace log included (DESIGN §6, ADR 0015); a failing record another device sent is named
with that device (ADR 0027)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from coach_gui.domain.sync import device_label, shown
from coach_gui.domain.sync_pairing import paired
from coach_gui.operations.app import VerifyPorts
from coach_gui.services.verify import LogSummary as LogSummary  # re-exported for the faces
from coach_gui.services.verify import VerifyReport, verify
from coach_gui.services.verify import VerifyTargetNotFound as VerifyTargetNotFound  # re-exported


def verify_journal(
    app: VerifyPorts,
    target_id: str | None = None,
    *,
    on_progress: Callable[[int, int], None] | None,
) -> VerifyReport:
    """The whole journal, or one trace, session or eval run; raises VerifyTargetNotFound."""
    report = verify(
        app.traces(),
        target_id,
        on_progress=on_progress,
        evals=app.eval_journal(),
        keys=app.signing_keys(),
    )
    report = dataclasses.replace(report, sources=tuple(sources(app)))
    if target_id is not None:
        came = app.record_origin(target_id)
        if came is not None:
            report = dataclasses.replace(report, source=device_label(came[1], came[0]))
    failure = report.first_failure
    origin = None if failure is None else app.record_origin(failure.id)
    if failure is None or origin is None:
        return report
    named = dataclasses.replace(failure, device=device_label(origin[1], origin[0]))
    return dataclasses.replace(report, first_failure=named)


def sources(app: VerifyPorts) -> list[dict[str, Any]]:
    """Each computer records came from through sync: how many, the pairing in force, and
    how many came since it was made (only those were checked against its key: records
    from before pairing existed, or from under an earlier pairing, are kept and said to
    be so; issue 34 review)."""
    current = paired(app.sync_pairings())
    found: list[dict[str, Any]] = []
    for device_id, name, by_time in app.sync_sources():
        pairing = current.get(device_id)
        since = (
            0
            if pairing is None
            else sum(n for at, n in by_time.items() if at >= pairing.created_at)
        )
        found.append(
            {
                "device_id": device_id,
                "name": shown(name),
                "records": sum(by_time.values()),
                "paired": pairing is not None,
                "fingerprint": None if pairing is None else pairing.fingerprint,
                "records_since_pairing": since,
            }
        )
    return found
