"""`coach verify`: recompute every id, digest and identity chain in the journal (or of one
trace, or one session) and report the first entry that does not check out.

Per session, in this order: the content id of each record (challenges, answers, verdicts,
refusals, bindings) that no trace holds a row digest of; each trace against its own body;
the session's pointer to its trace; each trace's chain entries and row digests against the
stored rows; that a sealed session holds nothing its trace does not; each binding against
the traces it names. A file too damaged to read is reported as such (`coach doctor` runs
SQLite's full integrity check of the file's structure).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from coach_gui.domain.digests import content_id
from coach_gui.domain.errors import CoachError, JournalError
from coach_gui.domain.sealing import SealedPracticeTrace, VerifyFailure, parse_trace
from coach_gui.domain.session_records import (
    RowRecord,
    SessionRecords,
    recomputed_ids,
    row_digest,
)
from coach_gui.domain.trace_log import LOG, LogCheck, LogFailure, LogHead, check_log
from coach_gui.domain.traces import inspect_trace
from coach_gui.services.eval_verify import EvalCheckFailed, check_eval_run
from coach_gui.services.ports.evals import EvalRunReader, SigningKeyLookup
from coach_gui.services.ports.sealing import SessionReader, TraceRowReader

CHUNK = 200  # sessions read at a time
JOURNAL = "journal"  # the id reported when the file itself is damaged


class VerifyTargetNotFound(CoachError):
    """The id given to `coach verify` names no trace and no session."""


@dataclass(frozen=True)
class Failure:
    id: str
    reason: str
    device: str | None = None  # the other device the record came from (sync, ADR 0027)


@dataclass(frozen=True)
class LogSummary:
    """The trace log as verify found it: how many traces it holds and its head."""

    size: int
    head: LogHead | None

    def to_json(self) -> dict[str, Any]:
        head = self.head
        return {
            "size": self.size,
            "head": None
            if head is None
            else {
                "position": head.position,
                "link": head.link,
                "signed_at": head.signed_at,
                "signed": head.signature is not None,
                "key_id": head.key_id,
            },
        }


@dataclass(frozen=True)
class VerifyReport:
    ok: bool
    checked: int
    first_failure: Failure | None
    log: LogSummary | None = None  # checked with the whole journal only
    # The computers records came from through sync, each with how many and its pairing
    # (issue 34): {"device_id", "name", "records", "paired", "fingerprint"}.
    sources: tuple[dict[str, Any], ...] = ()
    source: str | None = None  # the computer the one record verified came from

    def to_json(self) -> dict[str, Any]:
        failure = self.first_failure
        found: dict[str, Any] = {
            "ok": self.ok,
            "checked": self.checked,
            "first_failure": None
            if failure is None
            else {"id": failure.id, "reason": failure.reason},
        }
        if failure is not None and failure.device is not None:
            found["first_failure"]["device"] = failure.device
        if self.log is not None:
            found["log"] = self.log.to_json()
        found["imported_from"] = list(self.sources)
        if self.source is not None:
            found["source"] = self.source
        return found


class _Found(Exception):
    def __init__(self, record_id: str, reason: VerifyFailure) -> None:
        self.failure = Failure(record_id, reason.value)


def _fail(record_id: str, reason: VerifyFailure) -> _Found:
    return _Found(record_id, reason)


class _Session:
    """Checks one session's records; raises `_Found` at the first failure."""

    def __init__(
        self, records: SessionRecords, reader: TraceRowReader, only_trace: str | None
    ) -> None:
        self.records = records
        self.reader = reader
        self.session = records.session
        stored = [t for t in records.traces if only_trace in (None, t.trace_id)]
        self.stored = stored
        self.parsed: dict[str, SealedPracticeTrace] = {}  # the intact ones
        self.damaged: dict[str, VerifyFailure] = {}
        for row in stored:
            trace = inspect_trace(row.body)
            if isinstance(trace, SealedPracticeTrace):
                self.parsed[row.trace_id] = trace
            else:
                self.damaged[row.trace_id] = trace
        self.whole = only_trace is None
        self.rows: dict[str, RowRecord] = {self.session.id: self.session}
        self.rows.update((c.id, c) for c in records.challenges)
        self.rows.update((r.id, r) for r in records.rejections)
        self.rows.update((a.id, a) for a in records.attempts)
        self.rows.update((o.id, o) for o in records.outbox)
        self.scope: set[str] | None = None
        if only_trace is not None:
            self.scope = {self.session.id}
            for trace in self.parsed.values():
                self.scope |= {link.id for link in trace.upstream_identity_chain}
                self.scope |= set(trace.input.row_digests)
        self.checked = 0

    def _in_scope(self, record_id: str) -> bool:
        return self.scope is None or record_id in self.scope

    def run(self) -> None:
        self._record_ids()
        self._decision()
        self._traces_against_their_bodies()
        if self.whole:
            self._session_pointer()
        for trace in self.parsed.values():
            self._chain(trace)
        if self.whole:
            self._nothing_unsealed()
        self._bindings()

    def _record_ids(self) -> None:
        for broken in self.records.broken:
            if self._in_scope(broken.id):
                raise _fail(broken.id, VerifyFailure.DIGEST_MISMATCH)
        # A row an intact trace holds the digest of is checked against that digest instead:
        # the same row is the row that was sealed, whose id was checked when it was sealed.
        sealed_rows = {r for t in self.parsed.values() for r in t.input.row_digests}
        for _, stored, recomputed in recomputed_ids(self.records, skip=sealed_rows):
            if self._in_scope(stored):
                self.checked += 1
                if stored != recomputed:
                    raise _fail(stored, VerifyFailure.DIGEST_MISMATCH)

    def _decision(self) -> None:
        """The scheduler decision the session was started with is the one its id names:
        its stored fields hash to it (a changed limit or parameter would not)."""
        decision_id = self.session.scheduler_decision_id
        if decision_id is None or not self._in_scope(self.session.id):
            return
        fields = self.reader.scheduler_decision(decision_id)
        if fields is None:
            return  # started before decisions were kept (schema v8): only the id is sealed
        self.checked += 1
        try:
            recomputed = content_id("scheduler_decision", json.loads(fields))
        except (ValueError, TypeError, RecursionError):  # (nested too deep)
            recomputed = ""
        if recomputed != decision_id:
            raise _fail(decision_id, VerifyFailure.DIGEST_MISMATCH)

    def _traces_against_their_bodies(self) -> None:
        for row in self.stored:
            self.checked += 1
            if row.trace_id in self.damaged:
                raise _fail(row.trace_id, self.damaged[row.trace_id])
            trace = self.parsed[row.trace_id]
            if (row.trace_id, row.input_digest, row.created_at) != (
                trace.trace_id,
                trace.input_digest,
                trace.input.sealed_at,
            ):
                raise _fail(row.trace_id, VerifyFailure.DIGEST_MISMATCH)
            if (row.kind, row.session_id) != (trace.input.kind, trace.input.session_id):
                raise _fail(row.trace_id, VerifyFailure.BROKEN_CHAIN)

    def _session_pointer(self) -> None:
        sealed = self.session.sealed_trace_id
        own = [t for t in self.parsed.values() if t.input.kind == "session"]
        if any(t.trace_id != sealed for t in own):
            raise _fail(self.session.id, VerifyFailure.BROKEN_CHAIN)
        if sealed is None or sealed in self.parsed:
            return
        row = self.reader.trace_row(sealed)
        if row is None:
            raise _fail(sealed, VerifyFailure.MISSING_RECORD)
        trace = parse_trace(row.body)
        ours = isinstance(trace, SealedPracticeTrace) and trace.input.session_id == self.session.id
        raise _fail(sealed if ours else self.session.id, VerifyFailure.BROKEN_CHAIN)

    def _chain(self, trace: SealedPracticeTrace) -> None:
        known = {
            "challenge": {c.id for c in self.records.challenges},
            "attempt": {a.id for a in self.records.attempts},
            "verdict": {v.id for v in self.records.verdicts},
            "judge_refusal": {r.id for r in self.records.refusals},
            "attempt_binding": {b.binding.id for b in self.records.bindings},
            "session": {self.session.id},
        }
        for link in trace.upstream_identity_chain:
            if link.kind in known and link.id not in known[link.kind]:
                raise _fail(link.id, VerifyFailure.MISSING_RECORD)
        for record_id, expected in trace.input.row_digests.items():
            record = self.rows.get(record_id)
            if record is None:
                raise _fail(record_id, VerifyFailure.MISSING_RECORD)
            self.checked += 1
            if row_digest(record) != expected:
                raise _fail(record_id, VerifyFailure.DIGEST_MISMATCH)
        if trace.input.kind == "bound":
            if trace.input.original_trace_id != self.session.sealed_trace_id:
                raise _fail(trace.trace_id, VerifyFailure.BROKEN_CHAIN)
            bound = {b.binding.id: b.bound_trace_id for b in self.records.bindings}
            for binding_id in trace.input.attempt_binding_ids:
                if bound.get(binding_id) != trace.trace_id:
                    raise _fail(binding_id, VerifyFailure.BROKEN_CHAIN)

    def _nothing_unsealed(self) -> None:
        """A sealed session holds no challenge, rejection or answer its trace left out."""
        trace = self.parsed.get(self.session.sealed_trace_id or "")
        if trace is None:
            return
        held = [c.id for c in self.records.challenges] + [r.id for r in self.records.rejections]
        for record_id in held + [a.id for a in self.records.attempts]:
            if record_id not in trace.input.row_digests:
                raise _fail(record_id, VerifyFailure.BROKEN_CHAIN)

    def _bindings(self) -> None:
        for stored in self.records.bindings:
            binding = stored.binding
            if not self._in_scope(binding.id):
                continue
            if binding.original_trace_id != self.session.sealed_trace_id:
                raise _fail(binding.id, VerifyFailure.BROKEN_CHAIN)
            bound = stored.bound_trace_id
            if bound is None or bound in self.parsed:
                continue
            missing = self.reader.trace_row(bound) is None
            raise _fail(
                bound, VerifyFailure.MISSING_RECORD if missing else VerifyFailure.BROKEN_CHAIN
            )


def _sessions(
    reader: SessionReader, session_ids: list[str], on_progress: Callable[[int, int], None] | None
) -> Iterator[SessionRecords]:
    for start in range(0, len(session_ids), CHUNK):
        chunk = session_ids[start : start + CHUNK]
        found = reader.records_for(chunk)
        read = {r.session.id for r in found}
        for session_id in chunk:
            if session_id not in read:  # its row no longer reads as a session
                raise _fail(session_id, VerifyFailure.DIGEST_MISMATCH)
        yield from found
        if on_progress is not None:
            on_progress(min(start + CHUNK, len(session_ids)), len(session_ids))


def check_session(records: SessionRecords, reader: TraceRowReader) -> Failure | None:
    """The first failure in one session's records and traces, or None (the ✓ of the
    Sessions view). Does not check the file as a whole."""
    try:
        _Session(records, reader, None).run()
    except _Found as found:
        return found.failure
    return None


def _verify_evals(
    evals: EvalRunReader, keys: SigningKeyLookup, ids: list[str], checked: int
) -> VerifyReport:
    for eval_run_id in ids:
        try:
            checked += check_eval_run(evals, keys, eval_run_id)
        except EvalCheckFailed as failed:
            return VerifyReport(False, checked, Failure(failed.record_id, failed.reason))
        except JournalError:
            return VerifyReport(False, checked, Failure(JOURNAL, VerifyFailure.DAMAGED_FILE.value))
    return VerifyReport(True, checked, None)


def _check_log(reader: SessionReader, keys: SigningKeyLookup | None) -> LogCheck:
    """The trace log against every stored trace, and its head against the keyring's key
    (links only without `keys`). A computer with no keyring can have signed nothing; one
    whose keyring does not answer (locked) cannot vouch for the head, signed or not."""
    stored = reader.trace_log()
    silent: CoachError | None = None
    try:
        key_exists = keys is not None and keys.has_key()
    except CoachError as error:
        key_exists = False
        if keys is not None and keys.has_keyring():
            silent = error
    silent_failure = LogCheck(
        len(stored.entries), 0, stored.head, (LOG, LogFailure.KEYRING_SILENT.value)
    )
    if silent is not None and stored.entries:
        return silent_failure
    try:
        return check_log(
            stored.entries,
            stored.trace_ids,
            stored.head,
            key_for=None if keys is None else keys.key_for,
            key_exists=key_exists,
            record_ids=stored.record_ids,
        )
    except CoachError:  # the keyring stopped answering while the head was checked
        return silent_failure


def verify(
    reader: SessionReader,
    target_id: str | None = None,
    *,
    on_progress: Callable[[int, int], None] | None = None,
    evals: EvalRunReader | None = None,
    keys: SigningKeyLookup | None = None,
) -> VerifyReport:
    """Check the whole journal, or one trace, one session or one eval run (`target_id`);
    either way the trace log last, which ties every trace to the signed head. Eval runs
    are checked only when `evals` and `keys` are given. Raises VerifyTargetNotFound when
    `target_id` names none of them."""
    if (
        target_id is not None
        and evals is not None
        and keys is not None
        and evals.eval_run(target_id) is not None
    ):
        report = _verify_evals(evals, keys, [target_id], 0)
        return _with_log(reader, keys, report.checked) if report.ok else report
    checked = 0
    only_trace: str | None = None
    try:
        if target_id is None:
            session_ids = reader.session_ids()
        else:
            found = reader.find(target_id)
            if found is None:
                raise VerifyTargetNotFound(
                    f"No trace or session has the id {target_id}; `coach sessions --json` "
                    "lists them (an eval run's id is the one `coach eval` printed)."
                )
            session_id, only_trace = found
            if session_id is None:
                raise VerifyTargetNotFound(f"{target_id} is not a practice trace.")
            session_ids = [session_id]
        for records in _sessions(reader, session_ids, on_progress):
            check = _Session(records, reader, only_trace)
            try:
                check.run()
            finally:
                checked += check.checked
        if target_id is None:
            orphans = reader.orphaned_ids()
            checked += 1
            if orphans:  # their session or eval run was deleted (issue 21)
                raise _fail(orphans[0], VerifyFailure.MISSING_RECORD)
            # The learner's schedule decisions (ADR 0026): each id is its fields' content
            # id, so an edited undo, hold or parameter set shows.
            for kind, stored, fields in reader.schedule_records():
                checked += 1
                if content_id(kind, fields) != stored:
                    raise _fail(stored, VerifyFailure.DIGEST_MISMATCH)
    except _Found as found_failure:
        return VerifyReport(False, checked, found_failure.failure)
    except JournalError:
        return VerifyReport(False, checked, Failure(JOURNAL, VerifyFailure.DAMAGED_FILE.value))
    if target_id is None and evals is not None and keys is not None:
        report = _verify_evals(evals, keys, evals.eval_run_ids(), checked)
        if not report.ok:
            return report
        checked = report.checked
    return _with_log(reader, keys, checked)


def _with_log(reader: SessionReader, keys: SigningKeyLookup | None, checked: int) -> VerifyReport:
    # Last, the log that ties every trace together: what the checks above cannot see (a
    # whole session deleted, or re-sealed by someone without the key) breaks it.
    try:
        log_check = _check_log(reader, keys)
    except JournalError:
        return VerifyReport(False, checked, Failure(JOURNAL, VerifyFailure.DAMAGED_FILE.value))
    checked += log_check.checked
    log = LogSummary(log_check.size, log_check.head)
    if log_check.failure is not None:
        return VerifyReport(False, checked, Failure(*log_check.failure), log)
    return VerifyReport(True, checked, None, log)
