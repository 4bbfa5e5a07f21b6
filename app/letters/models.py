from __future__ import annotations

from datetime import datetime

from sqlalchemy import CheckConstraint, Index
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Letter(SQLModel, table=True):
    """A sealed letter (R8.12): seen only by its sender and its recipient. A participant is a
    player or the GM; the GM's side is a null player id (API.md: `to_player_id` null, `to_gm`)."""

    __tablename__ = "letter"
    __table_args__ = (
        CheckConstraint("from_player_id IS NOT NULL OR to_player_id IS NOT NULL", name="not_gm_to_gm"),
        CheckConstraint("from_player_id IS NULL OR to_player_id IS NULL OR from_player_id <> to_player_id", name="not_to_self"),
        # Issue 37, R11.2: a viewer's letters (and every page's count of their unread ones) read
        # without the campaign's others: read through the campaign's index alone, a page took
        # longer the more letters other members had written to each other.
        Index("ix_letter_campaign_id_to_player_id", "campaign_id", "to_player_id"),
        Index("ix_letter_campaign_id_from_player_id", "campaign_id", "from_player_id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    from_player_id: int | None = Field(default=None, foreign_key="player.id", index=True, ondelete="CASCADE")
    to_player_id: int | None = Field(default=None, foreign_key="player.id", index=True, ondelete="CASCADE")
    # The letter it answers: a thread is a letter and its replies.
    reply_to_id: int | None = Field(default=None, foreign_key="letter.id", index=True, ondelete="SET NULL")
    thread_id: int | None = Field(default=None, index=True)
    subject: str = Field(max_length=200)
    body: str = Field(max_length=20_000)
    round: int = 0
    created_at: datetime = Field(default_factory=utcnow)
    read_at: datetime | None = None
