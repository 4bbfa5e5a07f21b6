"""Tables of this domain (imported by app/models.py for Alembic and the tests)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Index
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class Webhook(SQLModel, table=True):
    """An address the GM asked to hear the campaign's public news (issue 19), with what
    happened at its last delivery attempt, shown on the Rules tab."""

    __tablename__ = "webhook"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    url: str = Field(max_length=2000)
    # Kept as given: the HMAC of every delivery needs it. Never shown again after it is added.
    secret: str = Field(max_length=200)
    # Categories (rules.CATEGORIES); empty: every public entry.
    kinds: list[str] = Field(default_factory=list, sa_type=JSON)
    created_at: datetime = Field(default_factory=utcnow)
    last_at: datetime | None = None
    # The receiver's HTTP status (None: no answer, see last_error).
    last_status: int | None = None
    last_error: str | None = Field(default=None, max_length=300)


class WebhookDelivery(SQLModel, table=True):
    """The outbox: one row per hook and chronicle entry, written in the entry's own
    transaction (a rolled-back change sends nothing) and sent after commit. The entry is
    copied, not referenced: bulk-inserted entries have no ids at hand, and the copy is all a
    delivery needs."""

    __tablename__ = "webhook_delivery"
    __table_args__ = (
        CheckConstraint("status IN ('pending','sent','failed')", name="status"),
        Index("ix_webhook_delivery_pending", "status", "webhook_id", "id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    webhook_id: int = Field(foreign_key="webhook.id", index=True, ondelete="CASCADE")
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    kind: str = Field(max_length=40)
    category: str = Field(max_length=16)
    round: int = 0
    phase: str | None = Field(default=None, max_length=16)
    params: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    entry_at: datetime = Field(default_factory=utcnow)
    status: str = Field(default="pending", max_length=8)
    attempts: int = 0
    # When it may be tried (again); while a sender holds it, a little after its send would
    # have timed out (a sender that died leaves it to the next one then).
    next_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None
