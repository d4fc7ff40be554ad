"""The journal's schema as forward migrations: version N's script turns a version N-1
database into version N. Never edit a released script; add the next version instead.

Conventions: ids are lowercase hex TEXT (uuid4 hex or SHA-256 hex), timestamps are
ISO-8601 UTC TEXT written by the caller, JSON columns are TEXT checked with json_valid,
every table is STRICT. Sealed records (traces, bindings, eval runs and their children)
are write-once, enforced by triggers.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import NamedTuple

from coach_gui.adapters.journal.trace_log import adopt_sealed_traces


class Migration(NamedTuple):
    version: int
    script: str
    # Runs after the script, in the same transaction, for what SQL cannot compute.
    after: Callable[[sqlite3.Connection], None] | None = None


# A column holding an id: non-empty lowercase hex.
def _hex(column: str) -> str:
    return f"CHECK (length({column}) > 0 AND {column} NOT GLOB '*[^0-9a-f]*')"


def _immutable(table: str) -> str:
    return f"""
CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
BEGIN SELECT RAISE(ABORT, 'sealed records are immutable'); END;
CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
BEGIN SELECT RAISE(ABORT, 'sealed records are immutable'); END;
"""


_V1 = f"""
CREATE TABLE sessions (
    id TEXT PRIMARY KEY {_hex("id")},
    note_id TEXT NOT NULL,
    note_title_at_start TEXT NOT NULL,
    note_digest TEXT NOT NULL,
    config_digest TEXT NOT NULL,
    mode TEXT NOT NULL CHECK (mode IN ('judged_with_assertions', 'judged_without', 'offline')),
    started_at TEXT NOT NULL,
    ended_at TEXT,
    disposition TEXT,
    scheduler_decision_id TEXT,
    gap_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(gap_ids)),
    sealed_trace_id TEXT REFERENCES sealed_traces (trace_id)
) STRICT;

CREATE TABLE challenges (
    id TEXT PRIMARY KEY {_hex("id")},
    session_id TEXT NOT NULL REFERENCES sessions (id),
    position INTEGER NOT NULL CHECK (position >= 0),
    kind TEXT NOT NULL,
    text TEXT NOT NULL CHECK (length(trim(text)) > 0),
    origin TEXT NOT NULL CHECK (origin IN ('tier1', 'builtin', 'follow_up')),
    parent_challenge_id TEXT REFERENCES challenges (id),
    model TEXT,
    target_assertions TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(target_assertions)),
    created_at TEXT NOT NULL,
    UNIQUE (session_id, position),
    UNIQUE (id, session_id)
) STRICT;

-- A challenge that quoted the note is kept only as a digest and the reason: its text
-- must never reach the learner, and the journal is something the learner can read.
CREATE TABLE challenge_rejections (
    id TEXT PRIMARY KEY {_hex("id")},
    session_id TEXT NOT NULL REFERENCES sessions (id),
    kind TEXT NOT NULL,
    text_digest TEXT NOT NULL {_hex("text_digest")},
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE attempts (
    id TEXT PRIMARY KEY {_hex("id")},
    session_id TEXT NOT NULL REFERENCES sessions (id),
    challenge_id TEXT NOT NULL,
    answer TEXT NOT NULL,
    submitted_at TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('unjudged', 'judged')),
    unjudged_reason TEXT,
    -- The challenge answered must belong to the same session.
    FOREIGN KEY (challenge_id, session_id) REFERENCES challenges (id, session_id)
) STRICT;

CREATE TABLE outbox (
    id TEXT PRIMARY KEY {_hex("id")},
    created_at TEXT NOT NULL,
    model TEXT NOT NULL,
    payload TEXT NOT NULL CHECK (json_valid(payload)),
    request_body TEXT NOT NULL,
    response TEXT,
    status TEXT NOT NULL CHECK (status IN ('sent', 'ok', 'error')),
    error TEXT,
    tokens_in INTEGER,
    tokens_out INTEGER,
    latency_ms INTEGER
) STRICT;

CREATE TABLE verdicts (
    id TEXT PRIMARY KEY {_hex("id")},
    attempt_id TEXT NOT NULL REFERENCES attempts (id),
    outbox_id TEXT REFERENCES outbox (id),
    verdict TEXT NOT NULL CHECK (verdict IN ('pass', 'fail')),
    gaps TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(gaps)),
    feedback TEXT NOT NULL,
    assertions_sent INTEGER NOT NULL CHECK (assertions_sent IN (0, 1)),
    assertions TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(assertions)),
    judge_model TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE judge_refusals (
    id TEXT PRIMARY KEY {_hex("id")},
    attempt_id TEXT NOT NULL REFERENCES attempts (id),
    reason_code TEXT NOT NULL,
    detail TEXT NOT NULL,
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE sealed_traces (
    trace_id TEXT PRIMARY KEY {_hex("trace_id")},
    session_id TEXT REFERENCES sessions (id),
    kind TEXT NOT NULL CHECK (kind IN ('session', 'bound', 'eval_child')),
    input_digest TEXT NOT NULL,
    body TEXT NOT NULL CHECK (json_valid(body)),
    created_at TEXT NOT NULL
) STRICT;

-- A binding's id is in the bound trace's chain, so the binding is written first and
-- bound_trace_id may be filled once afterwards; nothing else about it ever changes.
CREATE TABLE attempt_bindings (
    id TEXT PRIMARY KEY {_hex("id")},
    attempt_id TEXT NOT NULL REFERENCES attempts (id),
    verdict_id TEXT NOT NULL REFERENCES verdicts (id),
    bound_trace_id TEXT REFERENCES sealed_traces (trace_id),
    created_at TEXT NOT NULL
) STRICT;

CREATE TABLE eval_runs (
    id TEXT PRIMARY KEY {_hex("id")},
    created_at TEXT NOT NULL,
    repeats INTEGER NOT NULL CHECK (repeats >= 1),
    report TEXT NOT NULL CHECK (json_valid(report)),
    signature TEXT NOT NULL,
    key_id TEXT NOT NULL
) STRICT;

CREATE TABLE eval_children (
    eval_run_id TEXT NOT NULL REFERENCES eval_runs (id),
    trace_id TEXT NOT NULL REFERENCES sealed_traces (trace_id),
    arm TEXT NOT NULL CHECK (arm IN ('assertions_on', 'assertions_off')),
    repeat INTEGER NOT NULL CHECK (repeat >= 0),
    item INTEGER NOT NULL CHECK (item >= 0),
    PRIMARY KEY (eval_run_id, arm, repeat, item)
) STRICT, WITHOUT ROWID;

CREATE INDEX sessions_by_started ON sessions (started_at DESC);
CREATE INDEX sessions_by_note ON sessions (note_id, started_at DESC);
CREATE INDEX challenges_by_parent ON challenges (parent_challenge_id);
CREATE INDEX rejections_by_session ON challenge_rejections (session_id);
CREATE INDEX attempts_by_session ON attempts (session_id, submitted_at);
CREATE INDEX attempts_by_challenge ON attempts (challenge_id, session_id);
CREATE INDEX attempts_by_status ON attempts (status, submitted_at);
CREATE INDEX verdicts_by_attempt ON verdicts (attempt_id, created_at);
CREATE INDEX verdicts_by_outbox ON verdicts (outbox_id);
CREATE INDEX refusals_by_attempt ON judge_refusals (attempt_id);
CREATE INDEX traces_by_session ON sealed_traces (session_id);
CREATE INDEX bindings_by_attempt ON attempt_bindings (attempt_id);
CREATE INDEX bindings_by_verdict ON attempt_bindings (verdict_id);
CREATE INDEX bindings_by_trace ON attempt_bindings (bound_trace_id);
CREATE INDEX outbox_by_created ON outbox (created_at DESC);
CREATE INDEX eval_runs_by_created ON eval_runs (created_at DESC);
CREATE INDEX eval_children_by_trace ON eval_children (trace_id);
{_immutable("sealed_traces")}
{_immutable("eval_runs")}
{_immutable("eval_children")}
CREATE TRIGGER attempt_bindings_no_update BEFORE UPDATE ON attempt_bindings
WHEN NOT (OLD.bound_trace_id IS NULL AND NEW.bound_trace_id IS NOT NULL
          AND NEW.id = OLD.id AND NEW.attempt_id = OLD.attempt_id
          AND NEW.verdict_id = OLD.verdict_id AND NEW.created_at = OLD.created_at)
BEGIN SELECT RAISE(ABORT, 'sealed records are immutable'); END;
CREATE TRIGGER attempt_bindings_no_delete BEFORE DELETE ON attempt_bindings
BEGIN SELECT RAISE(ABORT, 'sealed records are immutable'); END;
"""

_SEALED = "SELECT RAISE(ABORT, 'sealed records are immutable')"


def _session_sealed(session_id: str) -> str:
    return (
        f"EXISTS (SELECT 1 FROM sessions s WHERE s.id = {session_id}"
        " AND s.sealed_trace_id IS NOT NULL)"
    )


def _attempt_sealed(attempt_id: str) -> str:
    return (
        "EXISTS (SELECT 1 FROM attempts a JOIN sessions s ON s.id = a.session_id"
        f" WHERE a.id = {attempt_id} AND s.sealed_trace_id IS NOT NULL)"
    )


def _frozen(table: str, sealed: str, *, no_insert: bool) -> str:
    """Refuse UPDATE and DELETE of `table`'s rows while `sealed` (a condition on OLD.*)
    holds for the old or the new row; INSERT of a new row too, if `no_insert`."""
    new = sealed.replace("OLD.", "NEW.")
    script = f"""
CREATE TRIGGER {table}_sealed_no_update BEFORE UPDATE ON {table}
WHEN {sealed} OR {new} BEGIN {_SEALED}; END;
CREATE TRIGGER {table}_sealed_no_delete BEFORE DELETE ON {table}
WHEN {sealed} BEGIN {_SEALED}; END;
"""
    if no_insert:
        script += f"""CREATE TRIGGER {table}_sealed_no_insert BEFORE INSERT ON {table}
WHEN {new} BEGIN {_SEALED}; END;
"""
    return script


_IN_SEALED_SESSION = _session_sealed("OLD.session_id")
_ON_SEALED_ATTEMPT = _attempt_sealed("OLD.attempt_id")


def _cited_by_sealed(table: str, alias: str) -> str:
    """A condition on OLD.* (an outbox row): a row of `table` on a sealed attempt cites it."""
    return (
        f"EXISTS (SELECT 1 FROM {table} {alias} WHERE {alias}.outbox_id = OLD.id"
        f" AND {_attempt_sealed(f'{alias}.attempt_id')})"
    )


_FROM_SEALED_VERDICT = _cited_by_sealed("verdicts", "v")

# v2: the rows of a sealed session are immutable (issue 5). A session row cannot change
# once it has its trace; its challenges, rejections and answers cannot change, go or be
# added; verdicts and refusals on its answers, and the outbox rows those verdicts came
# from, cannot change or go (new ones may still be added: judging later). A binding names
# the session trace it binds to, and that never changes either.
_V2 = f"""
ALTER TABLE attempt_bindings ADD COLUMN original_trace_id TEXT REFERENCES sealed_traces (trace_id);
CREATE INDEX bindings_by_original ON attempt_bindings (original_trace_id);

CREATE TRIGGER sessions_sealed_no_update BEFORE UPDATE ON sessions
WHEN OLD.sealed_trace_id IS NOT NULL BEGIN {_SEALED}; END;
CREATE TRIGGER sessions_sealed_no_delete BEFORE DELETE ON sessions
WHEN OLD.sealed_trace_id IS NOT NULL BEGIN {_SEALED}; END;
{_frozen("challenges", _IN_SEALED_SESSION, no_insert=True)}
{_frozen("challenge_rejections", _IN_SEALED_SESSION, no_insert=True)}
{_frozen("attempts", _IN_SEALED_SESSION, no_insert=True)}
{_frozen("verdicts", _ON_SEALED_ATTEMPT, no_insert=False)}
{_frozen("judge_refusals", _ON_SEALED_ATTEMPT, no_insert=False)}
CREATE TRIGGER outbox_sealed_no_update BEFORE UPDATE ON outbox
WHEN {_FROM_SEALED_VERDICT} BEGIN {_SEALED}; END;
CREATE TRIGGER outbox_sealed_no_delete BEFORE DELETE ON outbox
WHEN {_FROM_SEALED_VERDICT} BEGIN {_SEALED}; END;

DROP TRIGGER attempt_bindings_no_update;
CREATE TRIGGER attempt_bindings_no_update BEFORE UPDATE ON attempt_bindings
WHEN NOT (OLD.bound_trace_id IS NULL AND NEW.bound_trace_id IS NOT NULL
          AND NEW.id = OLD.id AND NEW.attempt_id = OLD.attempt_id
          AND NEW.verdict_id = OLD.verdict_id AND NEW.created_at = OLD.created_at
          AND NEW.original_trace_id IS OLD.original_trace_id)
BEGIN {_SEALED}; END;
"""

# v3: assertion memory (issue 7, ADR 0008). `self_ratings` is history: how the learner
# rated their own unjudged answer, per assertion (by content digest), until a verdict
# replaces it. `assertion_memory` is a derived cache of each assertion's FSRS state, never
# sealed and rebuildable from history at any time: triggers mark a note stale when
# anything that rates its assertions is written, and the scheduler replays stale notes.
_NOTE_OF_ATTEMPT = (
    "(SELECT s.note_id FROM attempts a JOIN sessions s ON s.id = a.session_id"
    " WHERE a.id = NEW.attempt_id)"
)


# No OR IGNORE: an outer statement's conflict clause (an upsert) would override it.
def _marks_stale(name: str, event: str, note_id: str) -> str:
    return f"""
CREATE TRIGGER {name} AFTER {event}
BEGIN INSERT INTO assertion_memory_stale (note_id) SELECT {note_id}
WHERE {note_id} IS NOT NULL
AND NOT EXISTS (SELECT 1 FROM assertion_memory_stale WHERE note_id = {note_id}); END;
"""


_V3 = f"""
CREATE TABLE self_ratings (
    attempt_id TEXT NOT NULL REFERENCES attempts (id),
    note_id TEXT NOT NULL,
    assertion_digest TEXT NOT NULL {_hex("assertion_digest")},
    assertion TEXT NOT NULL,
    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
    created_at TEXT NOT NULL,
    PRIMARY KEY (attempt_id, assertion_digest)
) STRICT;
CREATE INDEX self_ratings_by_note ON self_ratings (note_id);

CREATE TABLE assertion_memory (
    note_id TEXT NOT NULL,
    assertion_digest TEXT NOT NULL,
    assertion TEXT NOT NULL,
    state INTEGER NOT NULL,
    stability REAL NOT NULL,
    difficulty REAL NOT NULL,
    due TEXT NOT NULL,
    last_review TEXT NOT NULL,
    last_rating INTEGER NOT NULL CHECK (last_rating BETWEEN 1 AND 4),
    reviews INTEGER NOT NULL CHECK (reviews >= 1),
    gap TEXT CHECK (gap IN ('unexplained', 'wrong')),
    gap_id TEXT,
    PRIMARY KEY (note_id, assertion_digest)
) STRICT, WITHOUT ROWID;
CREATE INDEX assertion_memory_by_due ON assertion_memory (due);

CREATE TABLE assertion_memory_stale (note_id TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;
CREATE TABLE assertion_memory_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
INSERT INTO assertion_memory_stale (note_id) SELECT DISTINCT note_id FROM sessions;
{_marks_stale("verdicts_stale_memory", "INSERT ON verdicts FOR EACH ROW", _NOTE_OF_ATTEMPT)}
{_marks_stale("bindings_stale_memory", "INSERT ON attempt_bindings FOR EACH ROW", _NOTE_OF_ATTEMPT)}
{_marks_stale("bound_stale_memory", "UPDATE ON attempt_bindings FOR EACH ROW", _NOTE_OF_ATTEMPT)}
{_marks_stale("sealed_stale_memory", "UPDATE OF sealed_trace_id ON sessions", "NEW.note_id")}
{_marks_stale("self_ratings_stale_memory", "INSERT ON self_ratings", "NEW.note_id")}
{_marks_stale("self_rerated_stale_memory", "UPDATE ON self_ratings", "NEW.note_id")}
"""

_FROM_SEALED_REFUSAL = _cited_by_sealed("judge_refusals", "r")

# v4: nothing that left the machine goes unsealed, and no trace goes unnoticed (issue 21,
# ADR 0015). A refusal names the request that failed (NULL: nothing was sent, or it was
# recorded before v4), so the session's trace seals that outbox row too; such a row cannot
# change or go once its attempt is sealed. `trace_log` chains every sealed trace in the
# order it was sealed (write-once); `trace_log_head` is its one signed head, replaced at
# each seal. The traces already sealed are adopted into the log, oldest first.
_V4 = f"""
ALTER TABLE judge_refusals ADD COLUMN outbox_id TEXT REFERENCES outbox (id);
CREATE INDEX refusals_by_outbox ON judge_refusals (outbox_id);
DROP TRIGGER outbox_sealed_no_update;
DROP TRIGGER outbox_sealed_no_delete;
CREATE TRIGGER outbox_sealed_no_update BEFORE UPDATE ON outbox
WHEN {_FROM_SEALED_VERDICT} OR {_FROM_SEALED_REFUSAL} BEGIN {_SEALED}; END;
CREATE TRIGGER outbox_sealed_no_delete BEFORE DELETE ON outbox
WHEN {_FROM_SEALED_VERDICT} OR {_FROM_SEALED_REFUSAL} BEGIN {_SEALED}; END;

CREATE TABLE trace_log (
    position INTEGER PRIMARY KEY CHECK (position >= 1),
    trace_id TEXT NOT NULL UNIQUE REFERENCES sealed_traces (trace_id),
    previous TEXT NOT NULL {_hex("previous")},
    link TEXT NOT NULL {_hex("link")}
) STRICT;
{_immutable("trace_log")}
CREATE TABLE trace_log_head (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    position INTEGER NOT NULL CHECK (position >= 1),
    link TEXT NOT NULL {_hex("link")},
    signed_at TEXT NOT NULL,
    signature TEXT,
    key_id TEXT
) STRICT;
"""

# v5: the judge assesses each sent assertion with evidence from the answer (issue 18, DESIGN
# §4). A verdict keeps its assessments as JSON; verdicts recorded before hold none ('[]'),
# read as before and hash as before.
_V5 = """
ALTER TABLE verdicts ADD COLUMN assessments TEXT NOT NULL DEFAULT '[]'
    CHECK (json_valid(assessments));
"""

# v6: an outbox row says which judge it went to (issue 22): Google Gemini, or the model on
# this computer; rows recorded before went to Gemini. An eval may compare the two judges,
# so a child's arm may name one (the table is rebuilt: SQLite cannot change a CHECK).
_V6 = f"""
CREATE TABLE eval_children_v6 (
    eval_run_id TEXT NOT NULL REFERENCES eval_runs (id),
    trace_id TEXT NOT NULL REFERENCES sealed_traces (trace_id),
    arm TEXT NOT NULL
        CHECK (arm IN ('assertions_on', 'assertions_off', 'judge_local', 'judge_gemini')),
    repeat INTEGER NOT NULL CHECK (repeat >= 0),
    item INTEGER NOT NULL CHECK (item >= 0),
    PRIMARY KEY (eval_run_id, arm, repeat, item)
) STRICT, WITHOUT ROWID;
INSERT INTO eval_children_v6 (eval_run_id, trace_id, arm, repeat, item)
    SELECT eval_run_id, trace_id, arm, repeat, item FROM eval_children;
DROP TRIGGER eval_children_no_update;
DROP TRIGGER eval_children_no_delete;
DROP TABLE eval_children;
ALTER TABLE eval_children_v6 RENAME TO eval_children;
CREATE INDEX eval_children_by_trace ON eval_children (trace_id);
{_immutable("eval_children")}
"""


# v7: an open gap is always due (ADR 0023), so Today reads every row with a gap; a partial
# index holds just those (a few in a hundred), where a scan would read the whole cache.
_V7 = """
CREATE INDEX IF NOT EXISTS assertion_memory_open_gaps ON assertion_memory (due)
    WHERE gap IS NOT NULL;
"""


# v8: the learner steers their schedule (issue 19, ADR 0026). History, write-once: the
# scheduler decision each session was started with (its fields, so `coach verify` can
# recompute its id), undone/redone reviews, holds (suspend, bury, resume), and the FSRS
# parameters the learner applied. `note_first_seen` orders new notes. Derived, rebuilt
# from history: each assertion's lapses and first review, and every session review as a
# row (`assertion_reviews`) for statistics, timelines and the optimizer.
_V8 = f"""
CREATE TABLE scheduler_decisions (
    id TEXT PRIMARY KEY {_hex("id")},
    fields TEXT NOT NULL CHECK (json_valid(fields)),
    decided_at TEXT NOT NULL
) STRICT;
{_immutable("scheduler_decisions")}

CREATE TABLE review_changes (
    id TEXT PRIMARY KEY {_hex("id")},
    note_id TEXT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    action TEXT NOT NULL CHECK (action IN ('undo', 'redo')),
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX review_changes_by_note ON review_changes (note_id);
{_immutable("review_changes")}
{_marks_stale("review_changes_stale", "INSERT ON review_changes FOR EACH ROW", "NEW.note_id")}

CREATE TABLE schedule_holds (
    id TEXT PRIMARY KEY {_hex("id")},
    note_id TEXT NOT NULL,
    assertion_digest TEXT,
    assertion TEXT,
    action TEXT NOT NULL CHECK (action IN ('suspend', 'bury', 'resume')),
    until TEXT,
    created_at TEXT NOT NULL
) STRICT;
{_immutable("schedule_holds")}

CREATE TABLE fsrs_parameters (
    id TEXT PRIMARY KEY {_hex("id")},
    parameters TEXT NOT NULL CHECK (json_valid(parameters)),
    fit TEXT NOT NULL CHECK (json_valid(fit)),
    applied_at TEXT NOT NULL
) STRICT;
{_immutable("fsrs_parameters")}

CREATE TABLE note_first_seen (
    note_id TEXT PRIMARY KEY,
    first_seen TEXT NOT NULL
) STRICT, WITHOUT ROWID;

ALTER TABLE assertion_memory ADD COLUMN lapses INTEGER NOT NULL DEFAULT 0;
ALTER TABLE assertion_memory ADD COLUMN first_review TEXT NOT NULL DEFAULT '';
CREATE INDEX assertion_memory_by_lapses ON assertion_memory (lapses) WHERE lapses > 0;
-- One row per note with a memory, and when it was first reviewed: which notes are new
-- and how many were begun today, without reading every assertion's row.
CREATE TABLE assertion_memory_notes (
    note_id TEXT PRIMARY KEY,
    first_review TEXT NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX assertion_memory_notes_by_first ON assertion_memory_notes (first_review);
CREATE TABLE assertion_reviews (
    note_id TEXT NOT NULL,
    assertion_digest TEXT NOT NULL,
    session_id TEXT NOT NULL,
    at TEXT NOT NULL,
    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
    source TEXT NOT NULL CHECK (source IN ('judge', 'self', 'later')),
    was_due INTEGER NOT NULL CHECK (was_due IN (0, 1)),
    undone INTEGER NOT NULL CHECK (undone IN (0, 1)),
    PRIMARY KEY (note_id, assertion_digest, session_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX assertion_reviews_by_time ON assertion_reviews (at);
-- The counted reviews per UTC minute, kept by triggers as the rows come and go: the
-- statistics view bins a year of them into the learner's days without reading each row.
CREATE TABLE assertion_review_minutes (
    minute TEXT PRIMARY KEY,
    reviews INTEGER NOT NULL,
    due INTEGER NOT NULL,
    recalled INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TRIGGER assertion_reviews_counted AFTER INSERT ON assertion_reviews
WHEN NEW.undone = 0 BEGIN
INSERT INTO assertion_review_minutes (minute, reviews, due, recalled)
VALUES (substr(NEW.at, 1, 16), 1, NEW.was_due, NEW.was_due AND NEW.rating > 1)
ON CONFLICT (minute) DO UPDATE SET reviews = reviews + 1, due = due + excluded.due,
    recalled = recalled + excluded.recalled;
END;
CREATE TRIGGER assertion_reviews_uncounted AFTER DELETE ON assertion_reviews
WHEN OLD.undone = 0 BEGIN
UPDATE assertion_review_minutes SET reviews = reviews - 1, due = due - OLD.was_due,
    recalled = recalled - (OLD.was_due AND OLD.rating > 1)
WHERE minute = substr(OLD.at, 1, 16);
DELETE FROM assertion_review_minutes WHERE minute = substr(OLD.at, 1, 16) AND reviews = 0;
END;
DELETE FROM assertion_memory_meta WHERE key = 'fingerprint';
"""


# v9: two devices, one history (issue 20, ADR 0027). `sync_segments` holds every segment
# file this journal wrote or imported (so an evening's sync reads only new ones) and
# `sync_records` which segment and device each synced record came in, so export skips
# what is already in a segment and `coach verify` can name the device a record came from;
# `sync_state` how far export has looked (so an evening's export reads only what is new).
_V9 = f"""
CREATE TABLE sync_segments (
    digest TEXT PRIMARY KEY {_hex("digest")},
    device_id TEXT NOT NULL {_hex("device_id")},
    device_name TEXT NOT NULL,
    sequence INTEGER NOT NULL CHECK (sequence >= 1),
    file_name TEXT NOT NULL,
    created_at TEXT NOT NULL,
    records INTEGER NOT NULL CHECK (records >= 0),
    synced_at TEXT NOT NULL,
    written INTEGER NOT NULL CHECK (written IN (0, 1)),
    UNIQUE (device_id, file_name)
) STRICT;
CREATE TABLE sync_records (
    kind TEXT NOT NULL,
    record_id TEXT NOT NULL,
    device_id TEXT NOT NULL,
    segment TEXT NOT NULL REFERENCES sync_segments (digest),
    PRIMARY KEY (record_id, kind)
) STRICT, WITHOUT ROWID;
CREATE TABLE sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL CHECK (json_valid(value)))
    STRICT;
{_immutable("sync_segments")}
{_immutable("sync_records")}
"""


# v10: the trace log also logs the learner's schedule records (holds, undos, parameter
# sets) made on this computer, so a deleted one breaks the log as a deleted trace does
# (issue 34); an entry no longer has to name a sealed trace (verify checks that each
# names a stored trace or record), so the table is rebuilt without that foreign key.
_V10 = f"""
CREATE TABLE trace_log_v10 (
    position INTEGER PRIMARY KEY CHECK (position >= 1),
    trace_id TEXT NOT NULL UNIQUE,
    previous TEXT NOT NULL {_hex("previous")},
    link TEXT NOT NULL {_hex("link")}
) STRICT;
INSERT INTO trace_log_v10 (position, trace_id, previous, link)
    SELECT position, trace_id, previous, link FROM trace_log ORDER BY position;
DROP TABLE trace_log;
ALTER TABLE trace_log_v10 RENAME TO trace_log;
{_immutable("trace_log")}
"""


# v11: paired computers (issue 34, ADR 0033). Each row records that the learner paired
# (`trust`) a computer's public key after comparing its fingerprint, or forgot it; the last
# row of a computer decides. Write-once, and logged in the trace log as it is made, so a
# row deleted or slipped in without the keyring's key breaks the log.
_V11 = f"""
CREATE TABLE sync_pairings (
    id TEXT PRIMARY KEY {_hex("id")},
    device_id TEXT NOT NULL {_hex("device_id")},
    name TEXT NOT NULL,
    public_key TEXT NOT NULL {_hex("public_key")} CHECK (length(public_key) = 64),
    action TEXT NOT NULL CHECK (action IN ('trust', 'forget')),
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX sync_pairings_by_device ON sync_pairings (device_id);
{_immutable("sync_pairings")}
"""


# v12 (issue 36): the learner's corrections of a verdict's key point. A record of its own,
# bound to the verdict it corrects (which never changes), write-once, logged as it is made
# (`log_record`); its note's memory goes stale, so the review is replayed with it.
_V12 = f"""
CREATE TABLE learner_corrections (
    id TEXT PRIMARY KEY {_hex("id")},
    note_id TEXT NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id),
    attempt_id TEXT NOT NULL REFERENCES attempts (id),
    verdict_id TEXT NOT NULL REFERENCES verdicts (id),
    assertion INTEGER NOT NULL CHECK (assertion >= 0),
    status TEXT NOT NULL CHECK (status IN ('explained', 'unexplained', 'wrong')),
    note TEXT NOT NULL CHECK (length(note) <= 2000),
    created_at TEXT NOT NULL
) STRICT;
CREATE INDEX learner_corrections_by_note ON learner_corrections (note_id);
{_immutable("learner_corrections")}
{_marks_stale("corrections_stale", "INSERT ON learner_corrections FOR EACH ROW", "NEW.note_id")}
"""


# v13 (issue 37): review histories imported from Anki, one row per key point and card: the
# counted review log (JSON [[when, rating], ...]) and the card's state as Anki left it, the
# anchor the replay continues from (stability and difficulty as the text of the float:
# sync carries no float). Write-once, its id its content's, logged as it is made
# (`log_record`); its note's memory goes stale, so the note is replayed with it.
_V13 = f"""
CREATE TABLE imported_reviews (
    id TEXT PRIMARY KEY {_hex("id")},
    note_id TEXT NOT NULL,
    assertion_digest TEXT NOT NULL {_hex("assertion_digest")},
    assertion TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('anki', 'csv')),
    card TEXT NOT NULL,
    reviews TEXT NOT NULL,
    due TEXT NOT NULL,
    stability TEXT NOT NULL CHECK (CAST(stability AS REAL) > 0),
    difficulty TEXT NOT NULL CHECK (CAST(difficulty AS REAL) BETWEEN 1 AND 10),
    imported_at TEXT NOT NULL
) STRICT;
CREATE INDEX imported_reviews_by_note ON imported_reviews (note_id);
{_immutable("imported_reviews")}
{_marks_stale("imported_reviews_stale", "INSERT ON imported_reviews FOR EACH ROW", "NEW.note_id")}
-- The derived review rows may now say a review was imported: the cache is rebuilt.
DROP TABLE assertion_reviews;
DELETE FROM assertion_review_minutes;
CREATE TABLE assertion_reviews (
    note_id TEXT NOT NULL,
    assertion_digest TEXT NOT NULL,
    session_id TEXT NOT NULL,
    at TEXT NOT NULL,
    rating INTEGER NOT NULL CHECK (rating BETWEEN 1 AND 4),
    source TEXT NOT NULL CHECK (source IN ('judge', 'self', 'later', 'imported')),
    was_due INTEGER NOT NULL CHECK (was_due IN (0, 1)),
    undone INTEGER NOT NULL CHECK (undone IN (0, 1)),
    PRIMARY KEY (note_id, assertion_digest, session_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX assertion_reviews_by_time ON assertion_reviews (at);
CREATE TRIGGER assertion_reviews_counted AFTER INSERT ON assertion_reviews
WHEN NEW.undone = 0 BEGIN
INSERT INTO assertion_review_minutes (minute, reviews, due, recalled)
VALUES (substr(NEW.at, 1, 16), 1, NEW.was_due, NEW.was_due AND NEW.rating > 1)
ON CONFLICT (minute) DO UPDATE SET reviews = reviews + 1, due = due + excluded.due,
    recalled = recalled + excluded.recalled;
END;
CREATE TRIGGER assertion_reviews_uncounted AFTER DELETE ON assertion_reviews
WHEN OLD.undone = 0 BEGIN
UPDATE assertion_review_minutes SET reviews = reviews - 1, due = due - OLD.was_due,
    recalled = recalled - (OLD.was_due AND OLD.rating > 1)
WHERE minute = substr(OLD.at, 1, 16);
DELETE FROM assertion_review_minutes WHERE minute = substr(OLD.at, 1, 16) AND reviews = 0;
END;
DELETE FROM assertion_memory_meta WHERE key = 'fingerprint';
"""


def _add_outbox_provider(conn: sqlite3.Connection) -> None:
    """v6's outbox column, unless the journal has it already: a development build put it in
    v5 for a while (issue 22), and such a journal must open too."""
    columns = {row[1] for row in conn.execute("PRAGMA table_info(outbox)")}
    if "provider" not in columns:
        conn.execute(
            "ALTER TABLE outbox ADD COLUMN provider TEXT NOT NULL DEFAULT 'gemini'"
            " CHECK (provider IN ('gemini', 'local'))"
        )


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, _V1),
    Migration(2, _V2),
    Migration(3, _V3),
    Migration(4, _V4, adopt_sealed_traces),
    Migration(5, _V5),
    Migration(6, _V6, _add_outbox_provider),
    Migration(7, _V7),
    Migration(8, _V8),
    Migration(9, _V9),
    Migration(10, _V10),
    Migration(11, _V11),
    Migration(12, _V12),
    Migration(13, _V13),
)

LATEST_VERSION = MIGRATIONS[-1].version
