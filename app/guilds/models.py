from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Guild(SQLModel, table=True):
    """A permanent alliance of players (R8.1-R8.6); a dissolved guild stays for the chronicle."""

    __tablename__ = "guild"
    __table_args__ = (
        CheckConstraint("level >= 1", name="level_positive"),
        CheckConstraint("status IN ('active','dissolved')", name="status"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    name: str = Field(max_length=60)
    founder_player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    level: int = 1
    status: str = Field(default="active", max_length=16)
    founded_round: int = 0
    dissolved_round: int | None = None
    created_at: datetime = Field(default_factory=utcnow)


class GuildMember(SQLModel, table=True):
    """A player's place in a guild. One row per player at most: a player belongs to one guild
    (R8.3), and the database says so too."""

    __tablename__ = "guild_member"
    __table_args__ = (UniqueConstraint("player_id", name="uq_guild_member_player"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    guild_id: int = Field(foreign_key="guild.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
    joined_round: int = 0
    created_at: datetime = Field(default_factory=utcnow)


class GuildRequest(SQLModel, table=True):
    """A way in (R8.3): a player's paid request, or the guild's free invitation."""

    __tablename__ = "guild_request"
    __table_args__ = (
        CheckConstraint("kind IN ('request','invitation')", name="kind"),
        CheckConstraint("status IN ('pending','accepted','rejected','declined','lapsed')", name="status"),
        # Issue 37: the pending ones (every player's page counts those waiting for them) read
        # without the season's decided ones.
        Index("ix_guild_request_campaign_id_status", "campaign_id", "status"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    guild_id: int = Field(foreign_key="guild.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    kind: str = Field(max_length=16)
    status: str = Field(default="pending", max_length=16)
    fee: int = 0
    round: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    decided_at: datetime | None = None


class GuildRoundMember(SQLModel, table=True):
    """Who stood in which guild when the round's battles were announced. Sides (R6.2) and the
    captures of Twilight (R7.3, R8.10) read this, so that joining, leaving or dissolving after
    the battles cannot change who won a place."""

    __tablename__ = "guild_round_member"
    __table_args__ = (UniqueConstraint("campaign_id", "round", "player_id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int
    guild_id: int = Field(foreign_key="guild.id", ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
    founder_player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
