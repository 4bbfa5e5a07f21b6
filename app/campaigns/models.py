from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Campaign(SQLModel, table=True):
    __tablename__ = "campaign"
    __table_args__ = (
        CheckConstraint("status IN ('setup','hideouts','running','finished')", name="status"),
        CheckConstraint("round >= 0", name="round_nonnegative"),
    )
    id: int | None = Field(default=None, primary_key=True)
    gm_user_id: int = Field(foreign_key="user_account.id", index=True)
    name: str = Field(max_length=120)
    story: str = Field(default="")
    # File name of the web copy under the media folder (see core/images.py).
    cover_image: str | None = Field(default=None, max_length=64)
    # The top-level campaign map (see core/images.py); None draws the built-in background.
    map_image: str | None = Field(default=None, max_length=64)
    map_original: str | None = Field(default=None, max_length=64)
    map_width: int | None = None
    map_height: int | None = None
    status: str = Field(default="setup", max_length=16)
    round: int = 0
    phase: str | None = Field(default=None, max_length=16)
    # The highest wizard step saved; the wizard resumes after it.
    wizard_step: int = 1
    setup_complete: bool = False
    max_players: int = 6
    starting_gold: int = 400
    round_income: int = 50
    gold_per_point: int = 1
    sale_loss_percent: int = 50
    warband_points: int = 200
    underdog_points_per_die: int = 25
    alliance_fee: int = 10
    modules: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    guild: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    # Casualty table, experience awards, rank thresholds, retinue cost (house_rules.py).
    settlement_rules: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    # The battle clock's defaults (issue 18): minutes_per_side (none: no time limit), max_turns, extra_turn_on.
    clock: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow)
    started_at: datetime | None = None
    finished_at: datetime | None = None


class Player(SQLModel, table=True):
    __tablename__ = "player"
    __table_args__ = (
        UniqueConstraint("campaign_id", "user_id"),
        CheckConstraint("gold >= 0", name="gold_nonnegative"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    user_id: int = Field(foreign_key="user_account.id", index=True)
    joined_at: datetime = Field(default_factory=utcnow)
    # The balance; only app/gold/service.py changes it, always with a ledger entry (R3.8).
    gold: int = 0


class Invitation(SQLModel, table=True):
    __tablename__ = "invitation"
    __table_args__ = (
        UniqueConstraint("campaign_id", "user_id"),
        CheckConstraint("status IN ('pending','accepted','declined','lapsed')", name="status"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    user_id: int = Field(foreign_key="user_account.id", index=True)
    status: str = Field(default="pending", max_length=16)
    created_at: datetime = Field(default_factory=utcnow)
    decided_at: datetime | None = None
