from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from app.core.types import Flag
from app.season.rules import utc


class DeadlineIn(BaseModel):
    """When the current phase ends (ISO 8601; a time without an offset is UTC) and whether
    the round then moves on by itself, as the GM's switch would."""

    model_config = ConfigDict(extra="forbid")
    ends_at: datetime
    auto_advance: Flag = False

    @field_validator("ends_at")
    @classmethod
    def _in_utc(cls, value: datetime) -> datetime:
        try:
            return utc(value)
        except (OverflowError, ValueError) as exc:  # year 1 at +14:00 is no moment at all
            raise ValueError("not a moment in UTC") from exc


class DeadlineOut(BaseModel):
    round: int
    phase: str | None
    ends_at: str | None  # ISO 8601, UTC; null: the phase has no deadline
    auto_advance: bool
    waiting: str | None  # the GM only: why the auto-advance waits


class DigestForm(BaseModel):
    model_config = ConfigDict(extra="forbid")
    email: str = Field(default="", max_length=254)
    enabled: bool = False


class DigestOut(BaseModel):
    email: str
    enabled: bool
    confirmed: bool  # digests go only to a confirmed address
    confirmation_sent_at: datetime | None
    last_sent_at: datetime | None
    # What a PUT did: on, off, cleared, confirm_sent, confirm_pending, confirm_waits (no SMTP yet).
    outcome: str | None = None
