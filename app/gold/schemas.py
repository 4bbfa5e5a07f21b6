"""API input and output shapes."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from app.core.pagination import PageOut
from app.core.types import MAX_AMOUNT, Amount, Between, Id


class LedgerEntryOut(BaseModel):
    id: int
    amount: int
    kind: str
    round: int
    balance_after: int | None  # null for the GM with the gold transfers module on (R11.2)
    note: str
    created_at: datetime


class LedgerPageOut(PageOut[LedgerEntryOut]):
    player_id: int
    balance: int | None  # null for the GM with the gold transfers module on (R11.2)


class AdjustmentIn(BaseModel):
    player_id: Id
    amount: Amount
    reason: str = Field(max_length=500)


class TransferIn(BaseModel):
    """R8.11: gold to another playing player, with an optional note only the two of them see."""

    model_config = ConfigDict(extra="forbid")
    to_player_id: Id
    amount: Annotated[int, Between(1, MAX_AMOUNT)]
    note: str = Field(default="", max_length=500)


class TransferOut(BaseModel):
    id: int
    from_player_id: int
    to_player_id: int
    amount: int
    note: str
    round: int
    created_at: datetime


class TransferPageOut(PageOut[TransferOut]):
    pass
