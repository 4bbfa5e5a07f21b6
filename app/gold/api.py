from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from app.accounts.deps import ApiUser, SessionDep
from app.gold import service

router = APIRouter(tags=["gold"])


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
    player_id: int
    amount: int = Field(ge=-1_000_000, le=1_000_000)
    reason: str = Field(max_length=500)


def _entry(e) -> LedgerEntryOut:
    return LedgerEntryOut(id=e.id, amount=e.amount, kind=e.kind, round=e.round, balance_after=e.balance_after,
                          note=e.note, created_at=e.created_at)


@router.get("/campaigns/{cid}/ledger", response_model=LedgerPageOut)
def ledger(cid: int, user: ApiUser, session: SessionDep, player_id: int | None = Query(None),
           page: int = Query(1, ge=1, le=100_000), per_page: int = Query(50, ge=1, le=200)):
    result = service.ledger(session, actor=user, campaign_id=cid, player_id=player_id, page=page, per_page=per_page)
    return LedgerPageOut(player_id=result.player_id, balance=result.balance, items=[_entry(e) for e in result.items],
                         page=result.page, pages=result.pages, total=result.total)


@router.post("/campaigns/{cid}/ledger/adjustments", status_code=201, response_model=LedgerEntryOut)
def adjust(cid: int, body: AdjustmentIn, user: ApiUser, session: SessionDep):
    return _entry(service.adjust(session, actor=user, campaign_id=cid, player_id=body.player_id, amount=body.amount, reason=body.reason))
