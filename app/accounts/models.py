from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class User(SQLModel, table=True):
    __tablename__ = "user_account"
    id: int | None = Field(default=None, primary_key=True)
    nickname: str = Field(max_length=32)
    # Lower-cased nickname: "Anna" and "anna" are one person.
    nickname_key: str = Field(max_length=32, unique=True)
    password_hash: str = Field(max_length=255)
    locale: str | None = Field(default=None, max_length=8)
    # The reader's IANA time zone ("Europe/Warsaw"): pages say times in it; None is UTC (issue 34).
    time_zone: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=utcnow)


class UserSession(SQLModel, table=True):
    __tablename__ = "user_session"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True, ondelete="CASCADE")
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow)
    # Written at most every few minutes (accounts/rules.py SESSION_TOUCH); an idle or
    # too old session is deleted when next seen.
    last_seen_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None
    # How many page forms this session has acted on: its forms' one-time key (SPEC R11.6).
    # Only the session's own acts move it, so no page shows another viewer's activity.
    acts: int = Field(default=0, sa_column_kwargs={"server_default": "0"})


class ApiToken(SQLModel, table=True):
    __tablename__ = "api_token"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True, ondelete="CASCADE")
    name: str = Field(default="", max_length=80)
    token_hash: str = Field(max_length=64, unique=True)
    created_at: datetime = Field(default_factory=utcnow)
    revoked_at: datetime | None = None


class LoginFailure(SQLModel, table=True):
    __tablename__ = "login_failure"
    id: int | None = Field(default=None, primary_key=True)
    nickname_key: str = Field(max_length=64, index=True)
    address: str = Field(max_length=64, index=True)
    at: datetime = Field(default_factory=utcnow, index=True)
