"""Tables of this domain (imported by app/models.py for Alembic and the tests)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from app.core.db import utcnow


class ImportedSeat(SQLModel, table=True):
    """A player of an imported campaign that nobody has taken yet. Its data (company, gold,
    ledger, warbands, battles) came with the document, but the person behind the nickname
    has not agreed to join: the player row belongs to a placeholder account that cannot log
    in, and — when a user of this server has that nickname — an invitation waits for them.
    Accepting it binds them to this player (app/exports/service.py take_seat)."""

    __tablename__ = "imported_seat"
    id: int | None = Field(default=None, primary_key=True)
    campaign_id: int = Field(foreign_key="campaign.id", index=True, ondelete="CASCADE")
    player_id: int = Field(foreign_key="player.id", unique=True, ondelete="CASCADE")
    # The nickname as the document gave it (the placeholder account shows the same).
    nickname: str = Field(max_length=32)
    # The user of this server with that nickname, invited to take the seat; None: nobody here has it.
    invited_user_id: int | None = Field(default=None, foreign_key="user_account.id", index=True, ondelete="SET NULL")


class ImportStart(SQLModel, table=True):
    """An import a user started: at most exports/throttle.py's IMPORTS_PER_HOUR in any hour.
    Kept in the database, not in a server process, so that every worker counts the same
    imports (issue 28); rows older than the hour are pruned as imports start."""

    __tablename__ = "import_start"
    id: int | None = Field(default=None, primary_key=True)
    user_id: int = Field(foreign_key="user_account.id", index=True, ondelete="CASCADE")
    at: datetime = Field(default_factory=utcnow, index=True)
