"""The paired eval harness (DESIGN §7, issue 6): judged answers from the journal, judged
again R times with core assertions and R times without, through the same judging service
as practice (`judging.judge_items`, one answer per request as practice sends it, so every
payload is practice's and lands in the outbox). Each call is sealed as a child trace; the
report is signed and recorded with its children.

The eval never changes the learner's sessions: its verdicts live in the child traces, not
in the `verdicts` table. Errors count as errors, never as fails, and the run completes.
A cancel lets the calls under way finish and sends no more; what finished is recorded as
a partial report.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from coach_gui.domain.digests import digest
from coach_gui.domain.errors import CoachError
from coach_gui.domain.eval_traces import (
    ARMS,
    EVAL_POLICY_VERSION,
    JUDGE_ARMS,
    Arm,
    EvalChildInput,
    EvalChildTrace,
    child_json,
    seal_child,
    sign,
)
from coach_gui.domain.evals import CallResult, ChildRef, EvalReport, ItemRef, build_report
from coach_gui.domain.practice import JudgeRefusal, VerdictRecord, new_id
from coach_gui.domain.session_state import attempt_states
from coach_gui.domain.tier2 import Tier2Payload
from coach_gui.domain.verdicts import JudgeResponse
from coach_gui.services.judging import JudgeRequestItem, judge_items
from coach_gui.services.ports.evals import EvalStore, SigningKeys
from coach_gui.services.ports.judge import Judge
from coach_gui.services.ports.practice import Clock
from coach_gui.services.ports.sealing import SessionReader

log = logging.getLogger(__name__)

DEFAULT_LAST_SESSIONS = 10
_CHUNK = 50


class EvalRefused(CoachError):
    """An eval that cannot run as asked; nothing was sent."""


class AssertionsSwitchedOff(EvalRefused):
    """The `assertions_on` arm would send core assertions, which the switch forbids. The
    terminal is told the key to set; the window, the switch to turn on."""

    def __init__(self, config_file: str = "coach.config.json") -> None:
        super().__init__(
            "The eval compares the judge with and without your core assertions, but "
            "judge.includeAssertions is off, so assertions may not leave this computer and the "
            "assertions_on arm cannot run. Nothing was sent. To run it, turn on “Send core "
            f"assertions” in Coach, or set judge.includeAssertions to true in {config_file}."
        )

    @property
    def learner_text(self) -> str:
        return (
            "The eval compares the judge with and without your core assertions, but “Send "
            "core assertions” is off, so assertions may not leave this computer and the "
            "half with assertions cannot run. Nothing was sent. Switch on “Send core "
            "assertions” (toolbar or Settings) to run it."
        )


class NothingToEvaluate(EvalRefused):
    def __init__(self) -> None:
        super().__init__(
            "There are no judged answers to evaluate. Practise with the judge on "
            "(`coach practice NOTE`) or judge the pending answers (`coach judge-pending`) first."
        )


@dataclass(frozen=True)
class EvalItem:
    """One judged answer, with the challenge and the assertions as they were recorded."""

    session_id: str
    attempt_id: str
    challenge: str
    answer: str
    assertions: tuple[str, ...]


def judged_items(
    reader: SessionReader,
    *,
    session_ids: Sequence[str] | None = None,
    last: int | None = None,
) -> list[EvalItem]:
    """The judged answers of `session_ids` (unknown ones raise EvalRefused), or of the
    `last` newest sessions that have one; oldest session first, answers in order."""
    if session_ids:
        found = {r.session.id: r for r in reader.records_for(list(session_ids))}
        unknown = [s for s in session_ids if s not in found]
        if unknown:
            raise EvalRefused(
                f"There is no session {unknown[0]}; `coach sessions --json` lists them."
            )
        chosen = [found[s] for s in dict.fromkeys(session_ids)]
    else:
        wanted = DEFAULT_LAST_SESSIONS if last is None else last
        chosen = []
        offset = 0
        while len(chosen) < wanted:
            ids = reader.session_ids(newest_first=True, limit=_CHUNK, offset=offset)
            if not ids:
                break
            offset += len(ids)
            for records in reader.records_for(ids):
                if any(s.verdict is not None for s in attempt_states(records)):
                    chosen.append(records)
        chosen = chosen[:wanted]
        chosen.sort(key=lambda r: (r.session.started_at, r.session.id))
    items: list[EvalItem] = []
    for records in chosen:
        for state in attempt_states(records):
            if state.verdict is None or state.challenge is None:
                continue
            items.append(
                EvalItem(
                    session_id=records.session.id,
                    attempt_id=state.attempt.id,
                    challenge=state.challenge.text,
                    answer=state.attempt.answer,
                    assertions=state.verdict.assertions,
                )
            )
    return items


@dataclass
class EvalRun:
    report: EvalReport
    signature: str
    key_id: str
    traces: list[EvalChildTrace] = field(default_factory=list)


class _Metered:
    """The judge, keeping what one call sent and got back (tokens, latency)."""

    def __init__(self, judge: Judge, stopwatch: Callable[[], float]) -> None:
        self._judge, self._stopwatch = judge, stopwatch
        self.payload: Tier2Payload | None = None
        self.response: JudgeResponse | None = None
        self.elapsed_ms: int | None = None

    def judge(self, payload: Tier2Payload) -> JudgeResponse:
        self.payload = payload
        started = self._stopwatch()
        try:
            self.response = self._judge.judge(payload)
            return self.response
        finally:
            self.elapsed_ms = round((self._stopwatch() - started) * 1000)


class _Kept:
    """A `VerdictJournal` that keeps the verdict in memory: an eval's verdicts go into its
    child traces, never into the learner's sessions."""

    def __init__(self) -> None:
        self.verdict: VerdictRecord | None = None
        self.refusal: JudgeRefusal | None = None

    def record_verdict(self, verdict: VerdictRecord) -> None:
        self.verdict = verdict

    def record_refusal(self, refusal: JudgeRefusal) -> None:
        self.refusal = refusal


@dataclass(frozen=True)
class _Call:
    arm: Arm
    repeat: int
    index: int
    item: EvalItem


class _Harness:
    def __init__(
        self,
        judge: Judge,
        clock: Clock,
        judge_model: str,
        run_nonce: str,
        stopwatch: Callable[[], float],
        store: EvalStore,
    ) -> None:
        self.judge, self.clock, self.judge_model = judge, clock, judge_model
        self.run_nonce, self.stopwatch, self.store = run_nonce, stopwatch, store
        self.judges: dict[Arm, Judge] = {}  # per arm, when the arms are two judges

    def _outbox_digest(self, outbox_id: str | None) -> str | None:
        """The request's outbox row as it ended; None (only the payload is then sealed)
        if it cannot be read back, rather than losing the whole run."""
        if outbox_id is None:
            return None
        try:
            return self.store.outbox_digest(outbox_id)
        except CoachError as error:
            log.warning("an eval request's outbox row could not be read back: %s", error)
            return None

    def call(self, call: _Call) -> EvalChildTrace:
        item = call.item
        judge = self.judges.get(call.arm, self.judge)
        metered, kept = _Metered(judge, self.stopwatch), _Kept()
        request = JudgeRequestItem(item.attempt_id, item.challenge, item.answer, item.assertions)
        failure: CoachError | None = None
        try:
            judge_items(
                [request],
                judge=metered,
                journal=kept,
                clock=self.clock,
                include_assertions=call.arm != "assertions_off",  # the judges both get them
            )
        except CoachError as raised:  # e.g. the outbox could not be written: nothing left
            failure = raised
        response, verdict, refusal = metered.response, kept.verdict, kept.refusal
        error_code = error = None
        if verdict is None:
            error_code = refusal.reason_code if refusal is not None else "error"
            error = refusal.detail if refusal is not None else str(failure)
        payload = metered.payload
        # The request that left, whether it was graded or failed (a failure names it).
        outbox_id = response.outbox_id if response is not None else None
        if outbox_id is None and refusal is not None:
            outbox_id = refusal.outbox_id
        child = EvalChildInput(
            policy_version=EVAL_POLICY_VERSION,
            run_nonce=self.run_nonce,
            arm=call.arm,
            repeat=call.repeat,
            item=call.index,
            session_id=item.session_id,
            attempt_id=item.attempt_id,
            payload_digest=None if payload is None else digest(payload.to_json_dict()),
            outbox_id=outbox_id,
            outbox_digest=self._outbox_digest(outbox_id),
            judge_model=self.judge_model if response is None else response.model,
            status="error" if verdict is None else "pass" if verdict.passed else "fail",
            verdict_id=None if verdict is None else verdict.id,
            gaps=() if verdict is None else verdict.gaps,
            assessments=() if verdict is None else verdict.assessments,
            feedback=None if verdict is None else verdict.feedback,
            error_code=error_code,
            error=error,
            tokens_in=None if response is None else response.tokens_in,
            tokens_out=None if response is None else response.tokens_out,
            latency_ms=response.latency_ms if response is not None else metered.elapsed_ms,
            sealed_at=self.clock.now(),
        )
        return seal_child(child)


def run_eval(
    items: Sequence[EvalItem],
    *,
    judge: Judge,
    clock: Clock,
    store: EvalStore,
    keys: SigningKeys,
    repeats: int,
    concurrency: int,
    include_assertions: bool,
    judge_model: str,
    sampling: Mapping[str, object] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | threading.Event | None = None,
    config_file: str = "coach.config.json",
    stopwatch: Callable[[], float] = time.perf_counter,
    compare_with: Judge | None = None,
) -> EvalRun:
    """Judge every item `repeats` times in each arm, `concurrency` calls at a time; seal
    each call, then sign and store the report. Refuses (EvalRefused) before sending
    anything when the switch forbids assertions or there is nothing to judge.
    `compare_with`: a report of kind "judges" instead: `judge` is the one on this computer
    (arm judge_local), `compare_with` Gemini (judge_gemini), both with core assertions."""
    if not include_assertions:
        raise AssertionsSwitchedOff(config_file)
    if not items:
        raise NothingToEvaluate()
    if repeats < 1 or concurrency < 1:
        raise EvalRefused("Repeats and concurrency must each be at least 1.")
    stop = cancelled.is_set if isinstance(cancelled, threading.Event) else cancelled
    key_id, key = keys.signing_key()  # before any call: a keyring failure wastes nothing
    created_at = clock.now()
    harness = _Harness(judge, clock, judge_model, new_id(), stopwatch, store)
    arms = ARMS if compare_with is None else JUDGE_ARMS
    if compare_with is not None:
        harness.judges = {"judge_local": judge, "judge_gemini": compare_with}
    # Arms interleaved, repeat by repeat: a cancel leaves both arms equally far along.
    calls = [
        _Call(arm, repeat, index, item)
        for repeat in range(repeats)
        for index, item in enumerate(items)
        for arm in arms
    ]
    total, done, lock = len(calls), 0, threading.Lock()

    def one(call: _Call) -> EvalChildTrace | None:
        nonlocal done
        if stop is not None and stop():
            return None
        trace = harness.call(call)
        with lock:
            done += 1
            if on_progress is not None:
                on_progress(done, total)
        return trace

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="coach-eval") as pool:
        traces = [t for t in pool.map(one, calls) if t is not None]
    report = build_report(
        [CallResult.from_child(t) for t in traces],
        [ChildRef(**child_json(t)) for t in traces],
        item_refs=[ItemRef(session_id=i.session_id, attempt_id=i.attempt_id) for i in items],
        repeats=repeats,
        concurrency=concurrency,
        judge_model=judge_model,
        created_at=created_at,
        run_nonce=harness.run_nonce,
        calls_planned=total,
        sampling=sampling,
        kind="assertions" if compare_with is None else "judges",
    )
    # Read the key again: if another eval created the first key at the same moment as this
    # one did, the keyring holds only one of them now, and that is the one verify will use.
    key_id, key = keys.signing_key()
    signature = sign(report.canonical(), key)
    store.store_run(report, signature, key_id, traces)
    return EvalRun(report, signature, key_id, traces)
