"""People who come and go (R12.8, R12.11): the co-GMs of a campaign and the rounds a player is
away (imported by app/models.py for Alembic and the tests)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class GameMaster(SQLModel, table=True):
    """R12.8: a co-GM — the GM's rights and limits; never a player of the same campaign.
    The campaign's own GM (campaign.gm_user_id) is not a row here and cannot be removed."""

    __tablename__ = "game_master"
    __table_args__ = (UniqueConstraint("campaign_id", "user_id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    user_id: int = Field(foreign_key="user_account.id", index=True)
    added_at: datetime = Field(default_factory=utcnow)


class Away(SQLModel, table=True):
    """R12.11: the rounds from_round..to_round (both included) a player is away; one span a
    player, a new one replaces it."""

    __tablename__ = "player_away"
    __table_args__ = (
        CheckConstraint("from_round >= 1 AND to_round >= from_round", name="rounds"),
        UniqueConstraint("player_id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
    from_round: int
    to_round: int
