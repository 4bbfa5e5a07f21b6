"""The season's end (R12.4-R12.7): the map as each round was played, the club screen's
links and the members' calendar links (their tokens kept only as hashes)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class PlaceRound(SQLModel, table=True):
    """R12.6: a place's owner and hideout while round `round` was played (the state when it
    began: owners change only at End round), written by End round before its captures."""

    __tablename__ = "place_round"
    __table_args__ = (UniqueConstraint("campaign_id", "round", "place_id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int
    place_id: int = Field(foreign_key="place.id", index=True, ondelete="CASCADE")
    owner_player_id: int | None = Field(default=None, foreign_key="player.id", ondelete="SET NULL")
    hideout_player_id: int | None = Field(default=None, foreign_key="player.id", ondelete="SET NULL")


class ScreenLink(SQLModel, table=True):
    """R12.5: a public read-only club screen, opened by its token (kept hashed)."""

    __tablename__ = "screen_link"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class CalendarLink(SQLModel, table=True):
    """R12.7: a member's private calendar feed (one live link per member; a new one revokes it)."""

    __tablename__ = "calendar_link"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    user_id: int = Field(foreign_key="user_account.id", index=True, ondelete="CASCADE")
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None
