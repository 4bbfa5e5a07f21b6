from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class LedgerEntry(SQLModel, table=True):
    """One change of one player's gold (R3.8). The balance always equals the sum of these."""

    __tablename__ = "ledger_entry"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    amount: int
    kind: str = Field(max_length=24)
    round: int = 0
    balance_after: int
    # Like the chronicle: with params, `note` is a message id shown in the reader's language
    # (`gettext(note) % params`); without, it is text as written (a name, the GM's reason).
    note: str = Field(default="", max_length=500)
    params: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow)
