"""A request's key and, once it has acted, its answer (SPEC R11.6)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class IdempotencyKey(SQLModel, table=True):
    __tablename__ = "idempotency_key"
    __table_args__ = (UniqueConstraint("user_id", "key"),)
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True, ondelete="CASCADE")
    # "api:<the client's key>" or "form:<session>:<acts>:<method> <path>:<body hash>".
    key: str = Field(max_length=400)
    # What the key was first used for: the same key with another request is refused (API).
    request_hash: str = Field(max_length=64)
    claimed_at: datetime = Field(default_factory=utcnow, index=True)
    # Null while the first request is still acting.
    status: int | None = None
    headers: str | None = None  # JSON list of [name, value]
    body: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
