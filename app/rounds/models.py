from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class TwilightChoice(SQLModel, table=True):
    """The GM's choice of who takes a place in Twilight when the rules leave it open
    (R7.3, R7.5); End round applies it."""

    __tablename__ = "twilight_choice"
    __table_args__ = (UniqueConstraint("campaign_id", "round", "place_id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int
    place_id: int = Field(foreign_key="place.id", ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
    created_at: datetime = Field(default_factory=utcnow)
