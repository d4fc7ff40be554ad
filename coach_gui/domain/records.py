"""The one strict base for every domain record."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """Frozen, strict, and closed: an unknown field is an error, never silently kept."""

    model_config = ConfigDict(
        strict=True,
        frozen=True,
        extra="forbid",
        validate_default=True,
        allow_inf_nan=False,
    )
