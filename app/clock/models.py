from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class BattleClock(SQLModel, table=True):
    """The chess clock of one battle (issue 18). Time is kept as what each side has used plus
    when the running side's run began, never as a ticking counter: every phone works out the
    same remaining time from these, and a reload loses nothing."""

    __tablename__ = "battle_clock"
    __table_args__ = (CheckConstraint("status IN ('running','paused','ended')", name="status"),)
    id: int | None = Field(default=None, primary_key=True)
    battle_id: int = Field(foreign_key="battle.id", unique=True, ondelete="CASCADE")
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    # The settings the clock was started with (the campaign's or the event's).
    minutes_per_side: int | None = None
    max_turns: int = 6
    extra_turn_on: int | None = None
    # Side numbers in playing order: the side that started first.
    order: list[int] = Field(default_factory=list, sa_type=JSON)
    status: str = Field(default="running", max_length=8)
    turn: int = 1
    running_side: int | None = None
    running_since: datetime | None = None
    # Side number (as text: JSON keys) -> milliseconds used; -> the turn its time ran out.
    used_ms: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    out_turn: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    extra_roll: int | None = None
    # "turns" (the last turn was played), "time" (every side ran out), "manual" (ended at the table).
    ended_reason: str | None = Field(default=None, max_length=8)
    # Each change adds one: a tap made on an older clock (a double tap) is refused.
    version: int = 0
    updated_at: datetime = Field(default_factory=utcnow)
