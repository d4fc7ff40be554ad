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

from collections.abc import Callable
from dataclasses import dataclass

from coach_gui.domain.memory import SelfRating, assertion_digest
from coach_gui.domain.sync import Row, self_rating_id


def _not_yet_synced(kind: str, column: str) -> str:
    return (
        "NOT EXISTS (SELECT 1 FROM sync_records r"
        f" WHERE r.kind = '{kind}' AND r.record_id = {column})"
    )


_SEALED_SESSION = "s.sealed_trace_id IS NOT NULL"
_OF_SEALED_ATTEMPT = f"JOIN attempts a ON a.id = t.attempt_id JOIN sessions s ON s.id = a.session_id AND {_SEALED_SESSION}"  # noqa: E501
THROUGH_ANSWER = ":attempt_id"  # the session of the answer this row names
THROUGH_REQUEST = ":outbox_id"  # the sessions of the answers judged by this request


@dataclass(frozen=True)
class Kind:
    name: str
    table: str
    key: tuple[str, ...]  # the columns that find the row in its table
    pending: str  # SELECT owner, t.* of rows ready to travel and in no segment yet
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
        return f"it does not read as a rating ({str(error).splitlines()[0][:120]})"
    if assertion_digest(str(row["assertion"])) != row["assertion_digest"]:
        return "its assertion does not match its digest"
    return None


KINDS: tuple[Kind, ...] = (
    Kind(
        "session",
        "sessions",
        ("id",),
        "SELECT t.id AS owner, t.* FROM sessions t"
        f" WHERE t.sealed_trace_id IS NOT NULL AND {_not_yet_synced('session', 't.id')}",
        "id",
        _sealed_session,
    ),
    Kind(
        "challenge",
        "challenges",
        ("id",),
        "SELECT t.session_id AS owner, t.* FROM challenges t JOIN sessions s"
        f" ON s.id = t.session_id AND {_SEALED_SESSION}"
        f" WHERE {_not_yet_synced('challenge', 't.id')} ORDER BY t.session_id, t.position",
        "session_id",
        None,
    ),
    Kind(
        "challenge_rejection",
        "challenge_rejections",
        ("id",),
        "SELECT t.session_id AS owner, t.* FROM challenge_rejections t JOIN sessions s"
        f" ON s.id = t.session_id AND {_SEALED_SESSION}"
        f" WHERE {_not_yet_synced('challenge_rejection', 't.id')}",
        "session_id",
        None,
    ),
    Kind(
        "attempt",
        "attempts",
        ("id",),
        "SELECT t.session_id AS owner, t.* FROM attempts t JOIN sessions s"
        f" ON s.id = t.session_id AND {_SEALED_SESSION}"
        f" WHERE {_not_yet_synced('attempt', 't.id')}",
        "session_id",
        None,
    ),
    Kind(
        "outbox",
        "outbox",
        ("id",),
        # A request a verdict or refusal on a sealed answer names (so it never changes
        # again), with the first session it graded answers of.
        "SELECT owner, t.* FROM (SELECT o.*, (SELECT a.session_id FROM"
        " (SELECT attempt_id FROM verdicts WHERE outbox_id = o.id"
        " UNION ALL SELECT attempt_id FROM judge_refusals WHERE outbox_id = o.id) c"
        f" JOIN attempts a ON a.id = c.attempt_id JOIN sessions s ON s.id = a.session_id"
        f" AND {_SEALED_SESSION} ORDER BY a.session_id LIMIT 1) AS owner FROM outbox o"
        f" WHERE {_not_yet_synced('outbox', 'o.id')}) t WHERE owner IS NOT NULL",
        THROUGH_REQUEST,
        None,
    ),
    Kind(
        "verdict",
        "verdicts",
        ("id",),
        f"SELECT a.session_id AS owner, t.* FROM verdicts t {_OF_SEALED_ATTEMPT}"
        f" WHERE {_not_yet_synced('verdict', 't.id')}",
        THROUGH_ANSWER,
        None,
    ),
    Kind(
        "judge_refusal",
        "judge_refusals",
        ("id",),
        f"SELECT a.session_id AS owner, t.* FROM judge_refusals t {_OF_SEALED_ATTEMPT}"
        f" WHERE {_not_yet_synced('judge_refusal', 't.id')}",
        THROUGH_ANSWER,
        None,
    ),
    Kind(
        "trace",
        "sealed_traces",
        ("trace_id",),
        "SELECT t.session_id AS owner, t.* FROM sealed_traces t"
        f" WHERE t.kind IN ('session', 'bound') AND {_not_yet_synced('trace', 't.trace_id')}",
        "session_id",
        _practice_trace,
        record_id=lambda row: str(row["trace_id"]),
    ),
    Kind(
        "binding",
        "attempt_bindings",
        ("id",),
        f"SELECT a.session_id AS owner, t.* FROM attempt_bindings t {_OF_SEALED_ATTEMPT}"
        f" WHERE t.bound_trace_id IS NOT NULL AND {_not_yet_synced('binding', 't.id')}",
        THROUGH_ANSWER,
        None,
    ),
    Kind(
        "self_rating",
        "self_ratings",
        ("attempt_id", "assertion_digest"),
        f"SELECT a.session_id AS owner, t.* FROM self_ratings t {_OF_SEALED_ATTEMPT}",
        THROUGH_ANSWER,
        _self_rating,
        record_id=self_rating_id,
        id_in_sql=False,
    ),
)

BY_NAME = {kind.name: kind for kind in KINDS}
