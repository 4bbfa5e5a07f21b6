"""API input and output shapes."""
from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field

from app.core.types import Amount, Id


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
