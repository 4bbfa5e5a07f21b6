"""API input and output shapes."""
from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from app.core.types import MAX_AMOUNT, Amount, Id, Int


class LedgerEntryOut(BaseModel):
    id: int
    amount: int
    kind: str
    round: int
    balance_after: int
    note: str
    created_at: datetime


class LedgerPageOut(BaseModel):
    player_id: int
    balance: int
    items: list[LedgerEntryOut]
    page: int
    pages: int
    total: int


class AdjustmentIn(BaseModel):
    player_id: Id
    amount: Amount
    reason: str = Field(max_length=500)


class TransferIn(BaseModel):
    """R8.11: gold to another playing player, with an optional note only the two of them see."""

    model_config = ConfigDict(extra="forbid")
    to_player_id: Id
    amount: Int(1, MAX_AMOUNT)
    note: str = Field(default="", max_length=500)


class TransferOut(BaseModel):
    id: int
    from_player_id: int
    to_player_id: int
    amount: int
    note: str
    round: int
    created_at: datetime


class TransferPageOut(BaseModel):
    items: list[TransferOut]
    page: int
    pages: int
    total: int
