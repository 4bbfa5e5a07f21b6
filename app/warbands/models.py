from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Warband(SQLModel, table=True):
    """A warband built from a player's company (R4.1), with at most one hired mercenary
    (R4.4), kept as a snapshot of the catalog entry."""

    __tablename__ = "warband"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    name: str = Field(max_length=80)
    mercenary_key: str | None = Field(default=None, max_length=120)
    mercenary_name: str | None = Field(default=None, max_length=120)
    mercenary_points: int = 0
    mercenary_types: list[str] = Field(default_factory=list, sa_type=JSON)
    mercenary_alignment: str | None = Field(default=None, max_length=16)
    mercenary_unique: bool = False
    # Where it stands, with the movement module (R9.8); None there means scattered: its
    # player had no hideout left to fall back to, and the GM places it.
    location_place_id: int | None = Field(default=None, foreign_key="place.id", index=True, ondelete="SET NULL")
    created_at: datetime = Field(default_factory=utcnow)


class WarbandMember(SQLModel, table=True):
    """A model's place in a warband; the unique model makes it one warband at most (R4.1)."""

    __tablename__ = "warband_member"
    id: int | None = Field(default=None, primary_key=True)
    warband_id: int = Field(foreign_key="warband.id", index=True, ondelete="CASCADE")
    model_id: int = Field(foreign_key="company_model.id", unique=True, ondelete="CASCADE")


class Order(SQLModel, table=True):
    """A warband sent, in one round, to an event or to a place without events (R4.5)."""

    __tablename__ = "warband_order"
    __table_args__ = (
        UniqueConstraint("warband_id", "round"),
        # Issue 37: a round's rows of one campaign read without the other campaigns' or the
        # earlier rounds' (the round or the campaign alone grew with the host and the season).
        Index("ix_warband_order_campaign_id_round", "campaign_id", "round"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    warband_id: int = Field(foreign_key="warband.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    round: int
    event_id: int | None = Field(default=None, foreign_key="event.id", index=True, ondelete="CASCADE")
    place_id: int = Field(foreign_key="place.id", index=True, ondelete="CASCADE")
    # The mercenary fee paid on sending (R4.4), refunded if the GM undoes the order.
    fee: int = 0
    # The warband's points when it was sent (the roster itself is frozen until the round ends).
    points: int = 0
    # Where it set out from, with the movement module: a lost or drawn attack goes back there (R9.8).
    from_place_id: int | None = Field(default=None, foreign_key="place.id", ondelete="SET NULL")
    created_at: datetime = Field(default_factory=utcnow)
