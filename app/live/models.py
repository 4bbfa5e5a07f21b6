from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, Index
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class LiveEvent(SQLModel, table=True):
    """One thing that happened in a campaign, for its open streams (R11.4). It names what
    changed by id (a battle, a letter…) and never carries a secret: each stream checks the
    subject against its own viewer before telling anything. Ids grow in commit order within a
    campaign (app/live/service.py), so a stream's last id is an exact resume point. No foreign
    key to the campaign: a phase change holds the campaign row locked, and the insert must not
    wait for it. Rows older than RETENTION are pruned."""

    __tablename__ = "live_event"
    __table_args__ = (Index("ix_live_event_campaign_id_id", "campaign_id", "id"), {"sqlite_autoincrement": True})
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int
    kind: str = Field(max_length=24)
    subject_id: int | None = None
    # The user whose action this was: their own pages refresh without a toast.
    actor_user_id: int | None = None
    # Public facts only (a phase name, a round number).
    data: dict = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow, index=True)
