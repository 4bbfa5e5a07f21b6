"""The GM's audit trail (R12.9): one row for every GM action, with what it changed."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class AuditEntry(SQLModel, table=True):
    __tablename__ = "audit_entry"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    actor_user_id: int | None = Field(default=None, foreign_key="user_account.id", ondelete="SET NULL")
    at: datetime = Field(default_factory=utcnow)
    action: str = Field(max_length=40)
    # What it changed, as "kind:id" (e.g. "place:12", "player:3"), for undo and filters.
    target: str = Field(default="", max_length=120)
    before: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    after: dict[str, Any] | None = Field(default=None, sa_type=JSON)
    undone_at: datetime | None = None
