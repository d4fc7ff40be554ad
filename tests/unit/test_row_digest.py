"""`row_digest` builds a row's canonical form straight from the record's fields (for speed);
it must give exactly the digest of the record's JSON dump, which is what sealed traces hold."""

from __future__ import annotations

import enum
import typing
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from coach_gui.domain.challenges import ChallengeKind
from coach_gui.domain.digests import digest
from coach_gui.domain.practice import Attempt, Disposition, SessionMode
from coach_gui.domain.session_records import (
    _ENUM_FIELDS,
    _ROW_KIND,
    ChallengeRecord,
    OutboxRecord,
    RejectionRecord,
    RowRecord,
    SessionRecord,
    row_digest,
)

_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
_word = _text.filter(str.strip)
_maybe = st.none() | _text
_count = st.none() | st.integers(0, 10**9)


def _dumped_digest(record: RowRecord) -> str:
    fields: dict[str, Any] = record.model_dump(mode="json")
    if isinstance(record, SessionRecord):
        fields.pop("sealed_trace_id")
    return digest({"row": _ROW_KIND[type(record)], **fields})


_sessions = st.builds(
    SessionRecord,
    id=_text,
    note_id=_text,
    note_title=_text,
    note_digest=_text,
    config_digest=_text,
    mode=st.sampled_from(SessionMode),
    started_at=_text,
    ended_at=_maybe,
    disposition=st.none() | st.sampled_from(Disposition),
    scheduler_decision_id=_maybe,
    gap_ids=st.lists(_text, max_size=3).map(tuple),
    sealed_trace_id=_maybe,
)
_challenges = st.builds(
    ChallengeRecord,
    id=_text,
    session_id=_text,
    position=st.integers(0, 99),
    kind=st.sampled_from(ChallengeKind),
    text=_text,
    origin=st.sampled_from(["tier1", "builtin", "follow_up"]),
    parent_challenge_id=_maybe,
    model=_maybe,
    target_assertions=st.lists(st.integers(0, 50), max_size=4).map(tuple),
    created_at=_text,
)
_rejections = st.builds(
    RejectionRecord,
    id=_text,
    session_id=_text,
    kind=_text,
    text_digest=_text,
    reason=_text,
    created_at=_text,
)
_attempts = st.builds(
    Attempt,
    id=_text,
    session_id=_text,
    challenge_id=_text,
    answer=_word,
    submitted_at=_text,
    status=st.sampled_from(["unjudged", "judged"]),
    unjudged_reason=_maybe,
)
_outbox = st.builds(
    OutboxRecord,
    id=_text,
    created_at=_text,
    model=_text,
    payload=_text,
    request_body=_text,
    response=_maybe,
    status=_text,
    error=_maybe,
    tokens_in=_count,
    tokens_out=_count,
    latency_ms=_count,
    provider=st.sampled_from(["gemini", "local"]),
)


@settings(max_examples=300, deadline=None)
@given(record=_sessions | _challenges | _rejections | _attempts | _outbox)
def test_a_row_digest_is_the_digest_of_the_rows_json_dump(record: RowRecord) -> None:
    assert row_digest(record) == _dumped_digest(record)


def test_every_enum_field_of_a_row_is_dumped_as_its_value() -> None:
    for record_type in _ROW_KIND:
        enum_fields = {
            name
            for name, field in record_type.model_fields.items()
            if any(
                isinstance(arg, type) and issubclass(arg, enum.Enum)
                for arg in (typing.get_args(field.annotation) or (field.annotation,))
            )
        }
        assert enum_fields == set(_ENUM_FIELDS.get(record_type, ())), record_type.__name__
