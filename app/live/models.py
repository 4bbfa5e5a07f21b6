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


class LiveAudience(SQLModel, table=True):
    """Who may hear of a live event, one row an audience (app/live/seen.py `audiences`): every
    member, the GMs, one player, the GM's side of letters. Written with the event, from the
    same rules the stream applies, so that a page finds the newest event its viewer may see
    with one index seek per audience, whatever the number of events hidden from them (SPEC
    R11.2: scanning back through others' letters made every page draw dearer after each)."""

    __tablename__ = "live_audience"
    __table_args__ = (Index("ix_live_audience_campaign_id_audience_event_id", "campaign_id", "audience", "event_id"),)
    event_id: int = Field(foreign_key="live_event.id", primary_key=True, ondelete="CASCADE")
    audience: str = Field(primary_key=True, max_length=24)
    campaign_id: int
