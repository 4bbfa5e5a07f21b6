from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Alliance(SQLModel, table=True):
    """A mission alliance (R8.7-R8.9): players allied at one event of one round. Secret to
    everyone but its members and invitees until that round's Battles."""

    __tablename__ = "mission_alliance"
    __table_args__ = (
        CheckConstraint("status IN ('active','ended','lapsed')", name="status"),
        # Issue 37: a round's rows of one campaign read without the other campaigns' or the
        # earlier rounds' (the round or the campaign alone grew with the host and the season).
        Index("ix_mission_alliance_campaign_id_round", "campaign_id", "round"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int
    event_id: int = Field(foreign_key="event.id", index=True, ondelete="CASCADE")
    initiator_player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    # 'ended': its initiator withdrew; 'lapsed': the round it was made for ended.
    status: str = Field(default="active", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)


class AllianceMember(SQLModel, table=True):
    """A player invited to, in, or out of a mission alliance; `fee` is what they paid."""

    __tablename__ = "mission_alliance_member"
    __table_args__ = (
        UniqueConstraint("alliance_id", "player_id"),
        CheckConstraint("status IN ('invited','member','declined','withdrawn')", name="status"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    alliance_id: int = Field(foreign_key="mission_alliance.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    status: str = Field(default="invited", max_length=16)
    fee: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    decided_at: datetime | None = None
