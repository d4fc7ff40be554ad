"""The use cases, as objects (DESIGN §2, issue 35): what the window may do, grouped by
feature — practice, review, notes, settings, keys, schedule, sync, evals, imports,
exports — each built by `bootstrap` with the ports it needs, typed on exactly those (the small port
sets of `operations.app`), so the type checker holds each to them. The window is given a
`UseCases` and nothing else: no app context to reach past them, no port it was not given.
(The schedule's, optimizer's, sync's, eval's and judging's modules are imported when first
used, as the window did before: opening the window does not need the FSRS optimizer or
multiprocessing.)
The terminal's commands call the same operations (`operations.practice`, `.review`, …)
with the ports `bootstrap.House` builds for them.

    cases = bootstrap.use_cases(context)
    cases.schedule.hold(note, HoldAction.SKIP_TODAY)   # what the window calls
    cases.close()                                      # at quit
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from coach_gui.operations import review as review_ops
from coach_gui.operations.anki_export import Exports
from coach_gui.operations.app import (
    EvalPorts,
    HasConfig,
    HasNotes,
    HasScheduler,
    JudgingPorts,
    PracticePorts,
    ReviewPorts,
    SchedulePorts,
    SyncPorts,
)
from coach_gui.operations.keys import Keys
from coach_gui.operations.practice import OpenedPractice, open_practice, recover
from coach_gui.operations.today import DuePractice, today_with_plans

if TYPE_CHECKING:
    from coach_gui.config import Config
    from coach_gui.domain.agreement import Agreement
    from coach_gui.domain.corrections import AnswerWords, Corrected, KeyPointStatus
    from coach_gui.domain.local_servers import FoundServer
    from coach_gui.domain.note_search import NoteSearchIndex
    from coach_gui.domain.notes import BrokenNote, KnowledgeBaseSnapshot, Note, NoteEntry
    from coach_gui.domain.practice import Attempt, GapPlan
    from coach_gui.domain.schedule_control import AppliedParameters, HoldAction, ScheduleHold
    from coach_gui.domain.session_records import SentRequest
    from coach_gui.domain.sync import SyncReport
    from coach_gui.domain.sync_pairing import Pairing
    from coach_gui.operations.anki_import import ImportPorts, ImportPreview, ImportReport
    from coach_gui.operations.evals import JudgedSession, PastRun
    from coach_gui.operations.practice import JudgeWrapper
    from coach_gui.operations.review import SessionDetailData, SessionRow
    from coach_gui.operations.schedule import KeyPoint
    from coach_gui.services.evals import EvalRun
    from coach_gui.services.judge_later import JudgePendingReport
    from coach_gui.services.optimizer import FitResult, Fitted, Progress
    from coach_gui.services.ports.notes import NoteLookup, NoteStore, VaultWatch
    from coach_gui.services.ports.practice import LocalModelServer
    from coach_gui.services.practice_settings import PracticeSettings
    from coach_gui.services.review import NoteGaps
    from coach_gui.services.scheduler import Today, UndoneReview
    from coach_gui.services.stats import Statistics, TimelineEntry


# --- the ports of each use case, beyond the operations' own sets --------------------------
class SettingsPorts(HasConfig, HasNotes, Protocol):
    """The config in effect, replaced whole by the window's one writer (ADR 0030)."""

    @property
    def config(self) -> Config: ...

    @config.setter
    def config(self, value: Config) -> None: ...

    @property
    def config_path(self) -> Path: ...

    @property
    def journal_path(self) -> Path: ...

    @property
    def log_file(self) -> Path: ...


class LocalServerPorts(HasConfig, Protocol):
    def ollama_client(self) -> LocalModelServer: ...

    def find_local_servers(
        self, cancelled: Callable[[], bool] = lambda: False
    ) -> list[FoundServer]: ...


class PracticeCasePorts(PracticePorts, JudgingPorts, HasScheduler, LocalServerPorts, Protocol):
    def practice_settings(self, *, judge_enabled: bool | None = None) -> PracticeSettings: ...


class NotesPorts(HasNotes, Protocol):
    def read_notes_folder(self, folder: Path) -> KnowledgeBaseSnapshot: ...

    def open_notes_folder(self, folder: Path) -> None: ...

    def keep_listing(
        self, location: str, index: NoteSearchIndex[NoteEntry], broken: Sequence[BrokenNote]
    ) -> None: ...

    def watch_vault(
        self, folder: Path, on_change: Callable[[frozenset[str]], None]
    ) -> VaultWatch: ...


# --- the use cases ------------------------------------------------------------------------
class LocalServer:
    """The model server on this computer: its client, the model the settings name, and
    which servers are running."""

    def __init__(self, ports: LocalServerPorts) -> None:
        self._ports = ports

    @property
    def model(self) -> str:
        return self._ports.config.tier1.model

    def client(self) -> LocalModelServer:
        """A client for the configured server (connects on first use)."""
        return self._ports.ollama_client()

    def find(self, cancelled: Callable[[], bool] = lambda: False) -> list[FoundServer]:
        """The model servers running on this computer, with their models (slow)."""
        return self._ports.find_local_servers(cancelled)


class Practice:
    """Sessions from opening to seal, answers kept unjudged and judged later, and the
    learner's own rating of an unjudged answer."""

    def __init__(self, ports: PracticeCasePorts) -> None:
        self._ports = ports
        self.local_server = LocalServer(ports)

    @property
    def config(self) -> Config:
        return self._ports.config

    def now(self) -> str:
        return self._ports.clock.now()

    def settings(self) -> PracticeSettings:
        """The session settings the config in effect gives."""
        return self._ports.practice_settings()

    def open(
        self,
        note: Note,
        settings: PracticeSettings,
        *,
        wrap_judge: JudgeWrapper | None = None,
        plan: GapPlan | None = None,
        abandoned: threading.Event | None = None,
    ) -> OpenedPractice | None:
        """A session on `note` with the window's live judge (it reads the switches at
        every request)."""
        return open_practice(
            self._ports, note, settings, live=True, wrap_judge=wrap_judge, plan=plan,
            abandoned=abandoned,
        )  # fmt: skip

    def recover(self) -> list[str]:
        """Seal the sessions a crash left open."""
        return recover(self._ports)

    def rate_unjudged(self, attempt: Attempt, note: Note, rating: int) -> None:
        self._ports.scheduler().rate_unjudged(attempt, note, rating)

    def correct(
        self, attempt_id: str, key_point: int, status: KeyPointStatus, note: str = ""
    ) -> Corrected:
        """The learner's word on key point `key_point` (0-based) of an answer's verdict
        (issue 36); CorrectionRefused says why it cannot be."""
        return self._ports.scheduler().correct(attempt_id, key_point, status, note)

    def pending_count(self) -> int:
        from coach_gui.operations.judging import pending_count

        return pending_count(self._ports)

    def judge_pending(
        self, progress: Progress | None, cancelled: threading.Event
    ) -> JudgePendingReport:
        """Seal what a crash left open, then judge every answer kept unjudged."""
        from coach_gui.operations.judging import judge_pending_answers

        recover(self._ports)
        return judge_pending_answers(self._ports, live=True, progress=progress, cancelled=cancelled)


class Review:
    """Sessions, their threads, gaps and what was sent to the judge."""

    def __init__(self, ports: ReviewPorts) -> None:
        self._ports = ports

    def page(self, offset: int) -> list[SessionRow]:
        return review_ops.load_page(self._ports.traces(), offset)

    def session_detail(self, session_id: str) -> SessionDetailData:
        return review_ops.load_session_detail(self._ports.traces(), session_id)

    def gap_board(self, note: Note) -> NoteGaps:
        return review_ops.gap_board(self._ports, note)

    def sent_to_judge(self) -> list[SentRequest]:
        return review_ops.sent_to_judge(self._ports)

    def answer_words(self, attempt_id: str) -> AnswerWords:
        """A judged answer's key points, the judge's word and the learner's on each (what
        correcting one from the session detail or the gap board shows)."""
        return self._ports.scheduler().answer_words(attempt_id)

    def correct(
        self, attempt_id: str, key_point: int, status: KeyPointStatus, note: str = ""
    ) -> Corrected:
        """The learner's word on key point `key_point` (0-based) of an answer's verdict
        (issue 36); CorrectionRefused says why it cannot be."""
        return self._ports.scheduler().correct(attempt_id, key_point, status, note)


class Notes:
    """The open notes folder: its store (notes are read and written through it), another
    folder read to be looked at, opened, and watched for changes made elsewhere."""

    def __init__(self, ports: NotesPorts) -> None:
        self._ports = ports

    @property
    def store(self) -> NoteStore:
        """The store of the notes folder open now (another after `open_folder`)."""
        return self._ports.notes

    @property
    def location(self) -> str:
        return self._ports.notes.location

    def read_folder(self, folder: Path) -> KnowledgeBaseSnapshot:
        """The notes in `folder`, read to be looked at: nothing is written there."""
        return self._ports.read_notes_folder(folder)

    def open_folder(self, folder: Path) -> None:
        """Make `folder` the notes folder (the settings' writer saves the choice)."""
        self._ports.open_notes_folder(folder)

    def watch(self, folder: Path, on_change: Callable[[frozenset[str]], None]) -> VaultWatch:
        return self._ports.watch_vault(folder, on_change)

    def search_index(
        self,
        location: str,
        entries: Sequence[NoteEntry],
        broken: Sequence[BrokenNote],
        still_wanted: Callable[[], bool] = lambda: True,
    ) -> NoteSearchIndex[NoteEntry]:
        """The search index of a listing of the notes folder `location` (folding every
        note: on a worker), kept with the listing so the next start lists them at once —
        unless a newer listing has taken its place meanwhile (`still_wanted`)."""
        from coach_gui.domain.note_search import NoteSearchIndex

        index = NoteSearchIndex(entries)
        if still_wanted():
            self._ports.keep_listing(location, index, broken)
        return index


@dataclass(frozen=True)
class Places:
    """Where the learner's data lives (Help › Where my data lives)."""

    notes: Path
    journal: Path
    config: Path
    log_file: Path
    sync: Path | None


class Settings:
    """The config in effect: read by every view, replaced whole by its one writer."""

    def __init__(self, ports: SettingsPorts) -> None:
        self._ports = ports

    @property
    def config(self) -> Config:
        return self._ports.config

    @config.setter
    def config(self, value: Config) -> None:
        self._ports.config = value

    @property
    def config_path(self) -> Path:
        return self._ports.config_path

    def places(self) -> Places:
        ports = self._ports
        return Places(
            Path(ports.notes.location), ports.journal_path, ports.config_path, ports.log_file,
            ports.config.sync.path(),
        )  # fmt: skip


class Schedule:
    """What is due, holds, a review taken back, statistics and the optimizer."""

    def __init__(self, ports: SchedulePorts) -> None:
        self._ports = ports

    def now(self) -> str:
        return self._ports.clock.now()

    def today(
        self, notes: NoteLookup, catalogue: Sequence[NoteEntry] | None
    ) -> tuple[Today, list[DuePractice]]:
        return today_with_plans(self._ports, notes, catalogue)

    def hold(self, note: Note, action: HoldAction, *, assertion: str | None = None) -> ScheduleHold:
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.hold(self._ports, note, action, assertion=assertion)

    def last_review(self) -> UndoneReview | None:
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.last_review(self._ports)

    def last_undone(self) -> UndoneReview | None:
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.last_undone(self._ports)

    def undo_last_review(self, expected_session: str | None = None) -> UndoneReview | None:
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.undo_last_review(self._ports, expected_session)

    def redo_review(self, expected_session: str | None = None) -> UndoneReview | None:
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.redo_review(self._ports, expected_session)

    def statistics(
        self, notes: NoteLookup, catalogue: Sequence[NoteEntry] | None = None
    ) -> Statistics:
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.statistics(self._ports, notes, catalogue)

    def judge_agreement(self) -> list[Agreement]:
        """The judge measured against its learner (slow on a long history: a worker's)."""
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.judge_agreement(self._ports)

    def key_points(self, notes: NoteLookup) -> list[KeyPoint]:
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.key_points(self._ports, notes)

    def timeline(self, note_id: str, digest: str) -> list[TimelineEntry]:
        from coach_gui.operations import schedule as schedule_ops

        return schedule_ops.timeline(self._ports, note_id, digest)

    def fit(self, progress: Progress | None = None) -> tuple[FitResult, bool]:
        """A fit of the learner's own parameters, and whether fitted ones are in force."""
        from coach_gui.operations import optimize as optimize_ops

        return optimize_ops.fit(self._ports, progress), optimize_ops.fitted_in_force(self._ports)

    def apply(self, result: Fitted) -> AppliedParameters:
        from coach_gui.operations import optimize as optimize_ops

        return optimize_ops.apply(self._ports, result)

    def reset(self) -> AppliedParameters:
        from coach_gui.operations import optimize as optimize_ops

        return optimize_ops.reset(self._ports)


class Imports:
    """An Anki package (.apkg, .colpkg) or a CSV into new notes with their review history
    (issue 37): a preview first, then the import with progress and cancel (a worker's:
    a large deck takes seconds)."""

    def __init__(self, ports: ImportPorts) -> None:
        self._ports = ports

    def preview(self, path: Path) -> ImportPreview:
        """What importing `path` would write and skip; PackageUnreadable says why not."""
        from coach_gui.operations import anki_import

        return anki_import.preview(self._ports, path)

    def apply(
        self,
        preview: ImportPreview,
        *,
        progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> ImportReport:
        """Write what `preview` planned; `report.changes` is what to broadcast."""
        from coach_gui.operations import anki_import

        return anki_import.apply(self._ports, preview, progress=progress, cancelled=cancelled)


class Sync:
    """The sync folder: a sync now, and pairing a computer by its fingerprint."""

    def __init__(self, ports: SyncPorts) -> None:
        self._ports = ports

    @property
    def on(self) -> bool:
        return self._ports.config.sync.folder is not None

    def now(self) -> str:
        return self._ports.clock.now()

    def sync(self, stop: Callable[[], bool]) -> SyncReport:
        from coach_gui.operations import sync as sync_ops

        return sync_ops.sync(self._ports, stop=stop)

    def pair(self, fingerprint: str) -> Pairing:
        from coach_gui.operations import sync as sync_ops

        return sync_ops.pair_computer(self._ports, fingerprint)


class Evals:
    """The paired eval: the judged sessions it can re-judge, a run, the past reports."""

    def __init__(self, ports: EvalPorts) -> None:
        self._ports = ports

    @property
    def config(self) -> Config:
        return self._ports.config

    def judged_sessions(self) -> list[JudgedSession]:
        from coach_gui.operations import evals as eval_ops

        return eval_ops.judged_sessions(self._ports)

    def past_runs(self) -> list[PastRun]:
        from coach_gui.operations import evals as eval_ops

        return eval_ops.past_runs(self._ports)

    def run(
        self,
        session_ids: Sequence[str],
        *,
        repeats: int,
        concurrency: int,
        on_progress: Callable[[int, int], None],
        cancelled: threading.Event,
    ) -> EvalRun:
        """Re-judge the sessions' answers with the window's live judge."""
        from coach_gui.operations import evals as eval_ops

        ports = self._ports
        items = eval_ops.eval_items(ports, session_ids=session_ids)
        return eval_ops.run(
            ports, items, repeats=repeats, concurrency=concurrency, on_progress=on_progress,
            cancelled=cancelled, live=True,
        )  # fmt: skip


class Closes(Protocol):
    def close(self) -> None: ...


@dataclass(frozen=True)
class UseCases:
    """Everything the window may do, built by `bootstrap.use_cases`."""

    practice: Practice
    review: Review
    notes: Notes
    settings: Settings
    keys: Keys
    schedule: Schedule
    sync: Sync
    evals: Evals
    imports: Imports
    exports: Exports
    _resources: Closes

    def close(self) -> None:
        """Let go of the journal (at quit, or when a test is done)."""
        self._resources.close()
