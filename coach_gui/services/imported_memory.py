"""Review histories imported from Anki in the replay (issue 37, ADR 0038): each imported
review is a rating of its key point (source "imported"), and after the last one the
replay starts again from the card as Anki left it — its due time and FSRS memory — so
Coach's FSRS continues where Anki's scheduler stopped rather than where a replay of the
log with Coach's parameters would put it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from fsrs import Card, State

from coach_gui.domain.imported_reviews import ImportedReview
from coach_gui.domain.memory import AssertionRating


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def imported_ratings(
    note_id: str, imported: Iterable[ImportedReview]
) -> tuple[list[AssertionRating], dict[str, Card]]:
    """The ratings of one note's imported histories, and per rating that ends a history
    (its session id) the card the replay continues from."""
    ratings: list[AssertionRating] = []
    anchors: dict[str, Card] = {}
    for record in imported:
        if record.note_id != note_id:
            continue
        for n, (at, rating) in enumerate(record.reviews):
            ratings.append(
                AssertionRating.model_construct(
                    session_id=f"{record.id}-{n}", attempt_id="", digest=record.digest,
                    text=record.text, rating=rating, at=at, source="imported", named=False,
                    gap=None, gap_id=None, explanation=None, later=False, key_point=None,
                )
            )  # fmt: skip
        last_at = record.reviews[-1][0]
        anchors[f"{record.id}-{len(record.reviews) - 1}"] = Card(
            card_id=1,
            state=State.Review,
            stability=record.stability,
            difficulty=record.difficulty,
            due=_utc(record.due),
            last_review=_utc(last_at),
        )
    return ratings, anchors
