from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow

STATUSES = ("announced", "reported", "confirmed", "disputed", "resolved")


class Battle(SQLModel, table=True):
    """A battle announced when Battles begins (R6.1-R6.8)."""

    __tablename__ = "battle"
    __table_args__ = (
        CheckConstraint("status IN ('announced','reported','confirmed','disputed','resolved')", name="status"),
        # Issue 37: a round's rows of one campaign read without the other campaigns' or the
        # earlier rounds' (the round or the campaign alone grew with the host and the season).
        Index("ix_battle_campaign_id_round", "campaign_id", "round"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int
    place_id: int = Field(foreign_key="place.id", index=True, ondelete="CASCADE")
    event_id: int | None = Field(default=None, foreign_key="event.id", ondelete="SET NULL")
    # The destination's seed: the split, scenario and roles re-derive from it (R6.4).
    seed: int
    scenario: str | None = Field(default=None, max_length=120)
    other_mission: str | None = None
    roles: bool = False
    notes: str = ""
    status: str = Field(default="announced", max_length=16)
    winners: list[int] = Field(default_factory=list, sa_type=JSON)
    reported_by_player_id: int | None = Field(default=None, foreign_key="player.id")
    dispute_reason: str = ""
    created_at: datetime = Field(default_factory=utcnow)
    decided_at: datetime | None = None


class BattleWarband(SQLModel, table=True):
    """A warband in a battle, with its roster as it was announced (public, R6.5)."""

    __tablename__ = "battle_warband"
    __table_args__ = (UniqueConstraint("battle_id", "warband_id"),)
    id: int | None = Field(default=None, primary_key=True)
    battle_id: int = Field(foreign_key="battle.id", index=True, ondelete="CASCADE")
    side: int
    role: str | None = Field(default=None, max_length=16)  # attacker / defender
    warband_id: int = Field(foreign_key="warband.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    name: str = Field(max_length=80)
    points: int
    roster: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSON)
    underdog_dice: int = 0
    bonus_points: int = 0


class BattleConfirmation(SQLModel, table=True):
    __tablename__ = "battle_confirmation"
    __table_args__ = (UniqueConstraint("battle_id", "player_id"),)
    id: int | None = Field(default=None, primary_key=True)
    battle_id: int = Field(foreign_key="battle.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
    created_at: datetime = Field(default_factory=utcnow)


class Arrival(SQLModel, table=True):
    """A warband that did not fight where it went: alone (or among allies) it is
    unopposed (R6.2); left out by the split it neither fights nor takes the place (R6.4)."""

    __tablename__ = "arrival"
    __table_args__ = (
        CheckConstraint("kind IN ('unopposed','left_out')", name="kind"),
        # Issue 37: a round's rows of one campaign read without the other campaigns' or the
        # earlier rounds' (the round or the campaign alone grew with the host and the season).
        Index("ix_arrival_campaign_id_round", "campaign_id", "round"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int
    place_id: int = Field(foreign_key="place.id", ondelete="CASCADE")
    event_id: int | None = Field(default=None, foreign_key="event.id", ondelete="SET NULL")
    warband_id: int = Field(foreign_key="warband.id", ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
    kind: str = Field(max_length=16)
    seed: int


class ConfirmLink(SQLModel, table=True):
    """A one-tap confirm link (R12.2): the reporter shares it with the other sides, who
    confirm or dispute without logging in. Only its token's sha256 is kept; it is for one
    battle and the reporting side, works once, and only in the round and phase it was made."""

    __tablename__ = "battle_confirm_link"
    id: int | None = Field(default=None, primary_key=True)
    battle_id: int = Field(foreign_key="battle.id", index=True, ondelete="CASCADE")
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    token_hash: str = Field(max_length=64, unique=True)
    made_by_player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
    side: int  # the reporter's side: the link is for the others
    round: int
    phase: str = Field(max_length=16)
    created_at: datetime = Field(default_factory=utcnow)
    used_at: datetime | None = None


class BattlePhoto(SQLModel, table=True):
    """A photo of the table (R12.3), re-encoded without EXIF and kept under the var directory
    by its content's sha256 (`name`); `player_id` is its owner (none: the GM's)."""

    __tablename__ = "battle_photo"
    id: int | None = Field(default=None, primary_key=True)
    battle_id: int = Field(foreign_key="battle.id", index=True, ondelete="CASCADE")
    player_id: int | None = Field(default=None, foreign_key="player.id", ondelete="SET NULL")
    name: str = Field(max_length=80)
    width: int
    height: int
    created_at: datetime = Field(default_factory=utcnow)
