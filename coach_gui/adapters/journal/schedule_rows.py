"""The learner's schedule decisions as stored rows (schema v8, ADR 0026): the fields each
record's content id is computed from, read back from its row — for `coach verify` and for
checking a record that came from another computer (ADR 0027)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from coach_gui.domain.digests import content_id

# table -> the kind its ids are content ids of
SCHEDULE_TABLES = {
    "review_changes": "review_change",
    "schedule_holds": "schedule_hold",
    "fsrs_parameters": "fsrs_parameters",
    "scheduler_decisions": "scheduler_decision",
    "learner_corrections": "learner_correction",
    "imported_reviews": "imported_review",
}


def schedule_fields(table: str, row: Mapping[str, Any]) -> dict[str, object] | None:
    """The fields the row's id was computed from; None when they cannot be read."""
    try:
        if table == "review_changes":
            return {"note_id": row["note_id"], "session_id": row["session_id"],
                    "action": row["action"], "created_at": row["created_at"]}  # fmt: skip
        if table == "schedule_holds":
            return {
                "note_id": row["note_id"], "digest": row["assertion_digest"],
                "text": row["assertion"], "action": row["action"], "until": row["until"],
                "created_at": row["created_at"],
            }  # fmt: skip
        if table == "fsrs_parameters":
            return {"parameters": json.loads(row["parameters"]), "fit": json.loads(row["fit"]),
                    "applied_at": row["applied_at"]}  # fmt: skip
        if table == "learner_corrections":
            names = ("note_id", "session_id", "attempt_id", "verdict_id", "assertion",
                     "status", "note", "created_at")  # fmt: skip
            return {name: row[name] for name in names}
        if table == "imported_reviews":
            return {
                "note_id": row["note_id"], "digest": row["assertion_digest"],
                "text": row["assertion"], "source": row["source"], "card": row["card"],
                "reviews": json.loads(row["reviews"]), "due": row["due"],
                "stability": float(row["stability"]), "difficulty": float(row["difficulty"]),
                "imported_at": row["imported_at"],
            }  # fmt: skip
        if table == "scheduler_decisions":
            fields = json.loads(row["fields"])
            return fields if isinstance(fields, dict) else None
    except (KeyError, TypeError, ValueError):
        return None
    raise ValueError(f"{table} holds no schedule records")


def id_problem(table: str, row: Mapping[str, Any]) -> str | None:
    """Why a stored row is not the record its id names, or None when it is."""
    fields = schedule_fields(table, row)
    if fields is None:
        return "its fields do not read"
    if content_id(SCHEDULE_TABLES[table], fields) != row["id"]:
        return "its id is not its content's"
    return None
