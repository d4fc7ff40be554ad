"""What travels between devices (issue 20, ADR 0027): one declaration per record kind.

Each kind names its table, the columns that find a row, the SQL that lists its rows ready
to travel (sealed, so they never change again) that no segment holds yet, with the
practice session they belong to, and how a row from another device is checked before it
is stored: read back as its domain record, and its content id recomputed where it has
one. Rows travel column by column as stored, so a column added by a later schema travels
without a change here. Import stores kinds in this order (parents first).

To add a kind (a table of the scheduling issue, say): one `Kind(...)` in `KINDS`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from coach_gui.adapters.journal.schedule_rows import id_problem
from coach_gui.domain.memory import SelfRating, assertion_digest
from coach_gui.domain.sync import Row, self_rating_id

log = logging.getLogger(__name__)


def _not_yet_synced(kind: str, column: str) -> str:
    return (
        "NOT EXISTS (SELECT 1 FROM sync_records r"
        f" WHERE r.kind = '{kind}' AND r.record_id = {column})"
    )


_SEALED_SESSION = "s.sealed_trace_id IS NOT NULL"
_OF_SEALED_ATTEMPT = (
    "JOIN attempts a ON a.id = t.attempt_id"
    f" JOIN sessions s ON s.id = a.session_id AND {_SEALED_SESSION}"
)
THROUGH_ANSWER = ":attempt_id"  # the session of the answer this row names
THROUGH_REQUEST = ":outbox_id"  # the sessions of the answers judged by this request


@dataclass(frozen=True)
class Kind:
    name: str
    table: str
    key: tuple[str, ...]  # the columns that find the row in its table
    # SELECT owner, t.* of the rows ready to travel that no segment holds yet: those in
    # the candidate sessions (SESSIONS), or every such row if it does not use them.
    pending: str
    # The column naming the row's session, ":attempt_id" (the session of that answer),
    # or ":outbox_id" (the sessions whose verdicts or refusals name the request).
    owner: str | None
    # Why a row cannot be stored at all, or None. Every row of a practice session is then
    # checked once stored, with its whole session, as `coach verify` checks it: read back
    # as its record, its content id or sealed row digest recomputed, its traces too.
    problem: Callable[[Row], str | None] | None
    record_id: Callable[[Row], str] = lambda row: str(row["id"])
    # False: `pending` lists every row ready to travel, and the ones a segment holds
    # are left out by their computed id (a self-rating has no id column).
    id_in_sql: bool = True


def _correction_problem(row: Row) -> str | None:
    """A learner's correction from another computer reads as one (its note within bounds,
    its status one of the three), and its id is its content's."""
    from pydantic import ValidationError

    from coach_gui.domain.corrections import LearnerCorrection

    try:
        LearnerCorrection.model_validate({k: row.get(k) for k in LearnerCorrection.model_fields})
    except ValidationError:
        return "it does not read as a learner's correction"
    return id_problem("learner_corrections", row)


def _imported_problem(row: Row) -> str | None:
    """An imported review history from another computer reads as one, and its id is its
    content's."""
    from pydantic import ValidationError

    from coach_gui.adapters.journal.schedule_rows import schedule_fields
    from coach_gui.domain.imported_reviews import ImportedReview

    fields = schedule_fields("imported_reviews", row)
    if fields is None:
        return "its fields do not read"
    try:
        reviews = fields["reviews"]
        ImportedReview.model_validate(
            {**fields, "id": row.get("id"),
             "reviews": tuple(tuple(r) for r in reviews) if isinstance(reviews, list) else reviews}
        )  # fmt: skip
    except (ValidationError, TypeError):
        return "it does not read as an imported review history"
    return id_problem("imported_reviews", row)


def _sealed_session(row: Row) -> str | None:
    return None if row.get("sealed_trace_id") else "an unsealed session never travels"


def _practice_trace(row: Row) -> str | None:
    if row.get("kind") in ("session", "bound") and row.get("session_id"):
        return None
    return "only the traces of practice sessions travel"


def _self_rating(row: Row) -> str | None:
    try:
        SelfRating.model_validate(
            {
                "attempt_id": row["attempt_id"],
                "note_id": row["note_id"],
                "digest": row["assertion_digest"],
                "text": row["assertion"],
                "rating": row["rating"],
                "created_at": row["created_at"],
            }
        )
    except (ValueError, TypeError, KeyError) as error:
        log.info("a synced rating is not one: %s", str(error).splitlines()[0][:200])
        return "one of its ratings is not a rating Coach writes"
    if assertion_digest(str(row["assertion"])) != row["assertion_digest"]:
        return "its assertion does not match its digest"
    return None


# The practice sessions to look in: those with a trace, verdict or refusal stored since the
# last export (`SqliteSyncJournal.pending_export`), as a JSON array bound to :sessions.
SESSIONS = "(SELECT value FROM json_each(:sessions))"


def _of_sessions(kind: str, table: str, extra: str = "") -> str:
    """The rows of `table` (with a session_id) in sealed candidate sessions."""
    return (
        f"SELECT t.session_id AS owner, t.* FROM {table} t JOIN sessions s"
        f" ON s.id = t.session_id AND {_SEALED_SESSION} WHERE t.session_id IN {SESSIONS}"
        f"{extra} AND {_not_yet_synced(kind, 't.' + ('trace_id' if kind == 'trace' else 'id'))}"
    )


def _of_answers(kind: str, table: str, extra: str = "") -> str:
    """The rows of `table` on answers of sealed candidate sessions."""
    return (
        f"SELECT a.session_id AS owner, t.* FROM {table} t {_OF_SEALED_ATTEMPT}"
        f" WHERE a.session_id IN {SESSIONS}{extra} AND {_not_yet_synced(kind, 't.id')}"
    )


KINDS: tuple[Kind, ...] = (
    Kind(
        "session",
        "sessions",
        ("id",),
        "SELECT t.id AS owner, t.* FROM sessions t WHERE t.sealed_trace_id IS NOT NULL"
        f" AND t.id IN {SESSIONS} AND {_not_yet_synced('session', 't.id')}",
        "id",
        _sealed_session,
    ),
    Kind(
        "challenge",
        "challenges",
        ("id",),
        _of_sessions("challenge", "challenges") + " ORDER BY t.session_id, t.position",
        "session_id",
        None,
    ),
    Kind(
        "challenge_rejection",
        "challenge_rejections",
        ("id",),
        _of_sessions("challenge_rejection", "challenge_rejections"),
        "session_id",
        None,
    ),
    Kind("attempt", "attempts", ("id",), _of_sessions("attempt", "attempts"), "session_id", None),
    Kind(
        "outbox",
        "outbox",
        ("id",),
        # A request a verdict or refusal on a sealed answer names (so it never changes
        # again), with the first session it judged answers of.
        f"WITH a AS (SELECT a.id, a.session_id FROM attempts a JOIN sessions s"
        f" ON s.id = a.session_id AND {_SEALED_SESSION} WHERE a.session_id IN {SESSIONS}),"
        " cited(owner, outbox_id) AS (SELECT a.session_id, v.outbox_id FROM a"
        " JOIN verdicts v ON v.attempt_id = a.id WHERE v.outbox_id IS NOT NULL"
        " UNION SELECT a.session_id, r.outbox_id FROM a"
        " JOIN judge_refusals r ON r.attempt_id = a.id WHERE r.outbox_id IS NOT NULL)"
        " SELECT min(cited.owner) AS owner, o.* FROM cited JOIN outbox o"
        f" ON o.id = cited.outbox_id WHERE {_not_yet_synced('outbox', 'o.id')} GROUP BY o.id",
        THROUGH_REQUEST,
        None,
    ),
    Kind("verdict", "verdicts", ("id",), _of_answers("verdict", "verdicts"), THROUGH_ANSWER, None),
    Kind(
        "judge_refusal",
        "judge_refusals",
        ("id",),
        _of_answers("judge_refusal", "judge_refusals"),
        THROUGH_ANSWER,
        None,
    ),
    Kind(
        "trace",
        "sealed_traces",
        ("trace_id",),
        _of_sessions("trace", "sealed_traces", " AND t.kind IN ('session', 'bound')"),
        "session_id",
        _practice_trace,
        record_id=lambda row: str(row["trace_id"]),
    ),
    Kind(
        "binding",
        "attempt_bindings",
        ("id",),
        _of_answers("binding", "attempt_bindings", " AND t.bound_trace_id IS NOT NULL"),
        THROUGH_ANSWER,
        None,
    ),
    Kind(
        "self_rating",
        "self_ratings",
        ("attempt_id", "assertion_digest"),
        # Every rating: one may be given or changed after its session was sealed.
        f"SELECT a.session_id AS owner, t.* FROM self_ratings t {_OF_SEALED_ATTEMPT}",
        THROUGH_ANSWER,
        _self_rating,
        record_id=self_rating_id,
        id_in_sql=False,
    ),
)

# The learner's schedule decisions (issue 19, ADR 0026): a scheduler decision travels with
# the session that was started with it; an undo or redo, a hold and an applied parameter
# set whenever they are made (any time after their session), so every one is looked at on
# each export (few rows: one per decision the learner made). Each is checked by its content
# id; the memory is replayed from them on every computer.
_SCHEDULE_KINDS: tuple[Kind, ...] = (
    Kind(
        "scheduler_decision",
        "scheduler_decisions",
        ("id",),
        "SELECT s.id AS owner, t.* FROM scheduler_decisions t JOIN sessions s"
        f" ON s.scheduler_decision_id = t.id AND {_SEALED_SESSION}"
        f" WHERE s.id IN {SESSIONS} AND {_not_yet_synced('scheduler_decision', 't.id')}",
        None,
        lambda row: id_problem("scheduler_decisions", row),
    ),
    Kind(
        "review_change",
        "review_changes",
        ("id",),
        "SELECT t.session_id AS owner, t.* FROM review_changes t JOIN sessions s"
        f" ON s.id = t.session_id AND {_SEALED_SESSION}"
        f" WHERE {_not_yet_synced('review_change', 't.id')}",
        None,
        lambda row: id_problem("review_changes", row),
    ),
    Kind(
        "learner_correction",
        "learner_corrections",
        ("id",),
        "SELECT t.session_id AS owner, t.* FROM learner_corrections t JOIN sessions s"
        f" ON s.id = t.session_id AND {_SEALED_SESSION}"
        f" WHERE {_not_yet_synced('learner_correction', 't.id')}",
        None,
        lambda row: _correction_problem(row),
    ),
    Kind(
        "imported_review",
        "imported_reviews",
        ("id",),
        "SELECT 'schedule' AS owner, t.* FROM imported_reviews t"
        f" WHERE {_not_yet_synced('imported_review', 't.id')}",
        None,
        lambda row: _imported_problem(row),
    ),
    Kind(
        "schedule_hold",
        "schedule_holds",
        ("id",),
        "SELECT 'schedule' AS owner, t.* FROM schedule_holds t"
        f" WHERE {_not_yet_synced('schedule_hold', 't.id')}",
        None,
        lambda row: id_problem("schedule_holds", row),
    ),
    Kind(
        "fsrs_parameters",
        "fsrs_parameters",
        ("id",),
        "SELECT 'schedule' AS owner, t.* FROM fsrs_parameters t"
        f" WHERE {_not_yet_synced('fsrs_parameters', 't.id')}",
        None,
        lambda row: id_problem("fsrs_parameters", row),
    ),
)
KINDS = KINDS + _SCHEDULE_KINDS

BY_NAME = {kind.name: kind for kind in KINDS}
