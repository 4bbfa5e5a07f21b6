from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Index
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class LedgerEntry(SQLModel, table=True):
    """One change of one player's gold (R3.8). The balance always equals the sum of these."""

    __tablename__ = "ledger_entry"
    # Issue 37: a kind of entries of one campaign (the standings' sums) read without the others.
    __table_args__ = (Index("ix_ledger_entry_campaign_id_kind", "campaign_id", "kind"),)
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


class Transfer(SQLModel, table=True):
    """Gold sent by one player to another (R8.11): seen only by the two of them. Each side has
    its ledger entry (kind `transfer`), written in the same transaction."""

    __tablename__ = "transfer"
    __table_args__ = (
        CheckConstraint("amount > 0", name="amount_positive"),
        CheckConstraint("from_player_id <> to_player_id", name="not_to_self"),
    )
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    from_player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    to_player_id: int = Field(foreign_key="player.id", index=True, ondelete="CASCADE")
    amount: int
    note: str = Field(default="", max_length=500)
    round: int = 0
    created_at: datetime = Field(default_factory=utcnow)
