"""Tables of this domain (imported by app/models.py for Alembic and the tests)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import JSON
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class PhaseDeadline(SQLModel, table=True):
    """When the GM wants the current phase to end (issue 19). It belongs to one round and
    phase: a phase change deletes it, and one left from another phase counts as none."""

    __tablename__ = "phase_deadline"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", unique=True, ondelete="CASCADE")
    round: int
    phase: str = Field(max_length=16)
    ends_at: datetime = Field(index=True)
    auto_advance: bool = False
    set_by_user_id: int | None = Field(default=None, foreign_key="user_account.id", ondelete="SET NULL")
    # Each change adds one: the scheduler claims a deadline by the version it read, so a GM's
    # change in between, or another process that got there first, makes its claim miss.
    version: int = 1
    # The "deadline near" chronicle entry went out (once per deadline).
    near_noted_at: datetime | None = None
    # Why the auto-advance waits (a refusal's code and parameters), for the GM; none while it
    # has not tried, or once it stops waiting.
    waiting_code: str | None = Field(default=None, max_length=40)
    waiting_params: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    waiting_since: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)


class DigestSubscription(SQLModel, table=True):
    """A user's daily e-mail of what waits for them (off until they opt in on the Account page)."""

    __tablename__ = "digest_subscription"
    user_id: int = Field(foreign_key="user_account.id", primary_key=True, ondelete="CASCADE")
    email: str = Field(default="", max_length=254)
    enabled: bool = False
    # The day (UTC) whose digest was made — claimed before sending, so that at most one goes
    # out per day whatever the number of processes; and when one last went out.
    last_run_on: date | None = None
    last_sent_at: datetime | None = None
    # Double opt-in (issue 28): `email` receives digests only once confirmed, by the link
    # mailed to it; the link's token is kept as its SHA-256 only, with when it was sent.
    confirmed_at: datetime | None = None
    token_hash: str | None = Field(default=None, max_length=64)
    token_sent_at: datetime | None = None


class DigestConfirmationMail(SQLModel, table=True):
    """Each confirmation mail sent: at most a few an hour per user and per address, so that
    the form cannot be used to mail-bomb someone (issue 28)."""

    __tablename__ = "digest_confirmation_mail"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True, ondelete="CASCADE")
    # Lower-cased: one mailbox however its address is typed.
    address: str = Field(max_length=254, index=True)
    sent_at: datetime = Field(default_factory=utcnow, index=True)
