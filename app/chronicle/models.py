from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class ChronicleEntry(SQLModel, table=True):
    """The public log. Stored as a kind with parameters so each reader gets it in their
    own language."""

    __tablename__ = "chronicle_entry"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    round: int = 0
    phase: str | None = Field(default=None, max_length=16)
    kind: str = Field(max_length=40)
    params: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow, index=True)
