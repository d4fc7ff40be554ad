"""Fitting the schedule to the learner's own history (issue 19, ADR 0028) — once, for the
window's dialog and `coach optimize` alike. A fit only reports; the parameters are used
only once the learner applies them, and "back to the defaults" is always one step."""

from __future__ import annotations

from coach_gui.domain.schedule_control import AppliedParameters
from coach_gui.operations.app import SchedulePorts
from coach_gui.operations.today import learners_day_offset
from coach_gui.services.optimizer import FitResult as FitResult  # re-exported for the faces
from coach_gui.services.optimizer import Fitted as Fitted  # re-exported for the faces
from coach_gui.services.optimizer import NotYet as NotYet  # re-exported for the faces
from coach_gui.services.optimizer import Progress, fit_parameters
from coach_gui.services.optimizer import fit_json as fit_json  # re-exported
from coach_gui.services.optimizer import not_yet_text as not_yet_text  # re-exported


def fit(app: SchedulePorts, progress: Progress | None = None) -> FitResult:
    """Fit FSRS to every counted review, in the learner's own days, and compare the fit
    with the parameters in use. Nothing is stored."""
    scheduler = app.scheduler()
    return fit_parameters(
        scheduler.review_histories(),
        scheduler.fsrs.parameters,
        desired_retention=scheduler.settings.desired_retention,
        now=app.clock.now(),
        utc_offset=learners_day_offset(),
        progress=progress,
    )


def fitted_in_force(app: SchedulePorts) -> bool:
    """The schedule runs on parameters fitted to the learner (not the defaults) now."""
    applied = app.scheduler().applied
    return applied is not None and applied.parameters is not None


def apply(app: SchedulePorts, result: Fitted) -> AppliedParameters:
    """The learner said yes: schedule with the fitted parameters from now on (every
    memory is replayed with them; every session's decision names them)."""
    return app.scheduler().apply_parameters(result.parameters, result.summary)


def reset(app: SchedulePorts) -> AppliedParameters:
    """Back to the `fsrs` package's default parameters (recorded; the fit stays in the
    history)."""
    return app.scheduler().apply_parameters(None, None)
