from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Company(SQLModel, table=True):
    """A player's company: models of one faction (R3.1)."""

    __tablename__ = "company"
    __table_args__ = (UniqueConstraint("player_id"),)
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", ondelete="CASCADE")
    faction: str | None = Field(default=None, max_length=120)
    confirmed: bool = False
    confirmed_at: datetime | None = None


class CompanyModel(SQLModel, table=True):
    """A model in a company, with a snapshot of what it was bought as (V3)."""

    __tablename__ = "company_model"
    __table_args__ = (
        CheckConstraint("status IN ('ready','miss_next','captured','dead')", name="status"),
        CheckConstraint("price >= 0", name="price_nonnegative"),
    )
    id: int | None = Field(default=None, primary_key=True)
    company_id: int = Field(foreign_key="company.id", index=True, ondelete="CASCADE")
    profile_key: str = Field(max_length=120)
    name: str = Field(max_length=120)
    # The player's own name for the model (issue 29); without one it reads "Ax 2" (rules.model_labels).
    given_name: str | None = Field(default=None, max_length=40)
    types: list[str] = Field(default_factory=list, sa_type=JSON)
    points: int
    stats: dict[str, str] = Field(default_factory=dict, sa_type=JSON)
    special_rules: list[str] = Field(default_factory=list, sa_type=JSON)
    unique: bool = False
    healer: bool = False
    # What the player paid; a GM reward costs nothing and refunds nothing.
    price: int = 0
    reward: bool = False
    status: str = Field(default="ready", max_length=16)
    # Settlement (V12-V16): the round whose battle a resting model misses (ready again when
    # that round ends), experience, rank, permanent injuries, promotions' upgrades, and the
    # model's role in the company: "leader", "retinue" or None (no CHECK constraint: adding one
    # would make SQLite rebuild the table under its foreign keys; the service sets it).
    miss_round: int | None = None
    xp: int = 0
    rank: int = 0
    injuries: list[str] = Field(default_factory=list, sa_type=JSON)
    upgrades: list[dict[str, Any]] = Field(default_factory=list, sa_type=JSON)
    role: str | None = Field(default=None, max_length=16)
    created_at: datetime = Field(default_factory=utcnow)


class CompanyItem(SQLModel, table=True):
    """An item of a company: carried by a model, or in the stash (model_id empty)."""

    __tablename__ = "company_item"
    __table_args__ = (CheckConstraint("price >= 0", name="price_nonnegative"),)
    id: int | None = Field(default=None, primary_key=True)
    company_id: int = Field(foreign_key="company.id", index=True, ondelete="CASCADE")
    model_id: int | None = Field(default=None, foreign_key="company_model.id", index=True, ondelete="SET NULL")
    item_key: str = Field(max_length=120)
    name: str = Field(max_length=120)
    rarity: str = Field(max_length=16)
    slot: str = Field(max_length=16)
    points: int
    price: int = 0
    reward: bool = False
    created_at: datetime = Field(default_factory=utcnow)
