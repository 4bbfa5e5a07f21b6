from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Index, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Settlement(SQLModel, table=True):
    """One warband's settlement of one battle (R7.1, V11-V16): the six steps as saved (a
    draft until closed), the casualty rolls with their seeds, and — once closed — what
    closing changed, so that the GM can reopen it until Twilight."""

    __tablename__ = "settlement"
    __table_args__ = (
        UniqueConstraint("battle_id", "warband_id"),
        CheckConstraint("status IN ('draft','closed')", name="status"),
        # Issue 37: a round's rows of one campaign read without the other campaigns' or the
        # earlier rounds' (the round or the campaign alone grew with the host and the season).
        Index("ix_settlement_campaign_id_round", "campaign_id", "round"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int
    battle_id: int = Field(foreign_key="battle.id", index=True, ondelete="CASCADE")
    warband_id: int = Field(foreign_key="warband.id", ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    status: str = Field(default="draft", max_length=16)
    steps: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    # {model_id: [{"seed", "face", "result", "items_lost", "healer"}...]}: the last one stands.
    rolls: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    healer_used: bool = False
    applied: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    closed_at: datetime | None = None


class Ransom(SQLModel, table=True):
    """A prisoner (V12): the captor names a price, the owner pays it (ledger entries on both
    sides) or refuses, and the model is lost to them. Seen by the two players and the GM."""

    __tablename__ = "ransom"
    __table_args__ = (
        CheckConstraint("status IN ('awaiting','offered','paid','refused','lapsed')", name="status"),
        CheckConstraint("price IS NULL OR price >= 0", name="price_nonnegative"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int
    settlement_id: int = Field(foreign_key="settlement.id", index=True, ondelete="CASCADE")
    model_id: int = Field(foreign_key="company_model.id", ondelete="CASCADE")
    owner_player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    captor_player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    price: int | None = None
    status: str = Field(default="awaiting", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)
    decided_at: datetime | None = None
