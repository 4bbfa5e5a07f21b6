from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Index
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Event(SQLModel, table=True):
    """Something happening at a place for some rounds (R5.1-R5.5)."""

    __tablename__ = "event"
    __table_args__ = (
        CheckConstraint("duration >= 1", name="duration_positive"),
        CheckConstraint("points_limit IS NULL OR points_limit >= 1", name="points_limit_positive"),
        CheckConstraint("roles IS NULL OR roles IN ('attacker_defender','none')", name="roles"),
        # Issue 37: the campaign's active events read without those that ended before.
        Index("ix_event_campaign_id_ended_round", "campaign_id", "ended_round"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    place_id: int = Field(foreign_key="place.id", index=True, ondelete="CASCADE")
    title: str = Field(max_length=120)
    text: str = ""
    round_added: int
    duration: int = 1
    # Set when the GM ends the event early, or when the end of its last round passes.
    ended_round: int | None = None
    scenario: str | None = Field(default=None, max_length=120)
    # A mission written by the GM instead of a catalog scenario (R5.2).
    other_mission: str | None = None
    roles: str | None = Field(default=None, max_length=20)
    blockade: bool = False
    points_limit: int | None = None
    reward: str = ""
    # How the scenario works for more than two warbands (R6.7).
    notes: str = ""
    # The battle clock for this event's battles (issue 18); None: the campaign's.
    clock: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow)
