from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.accounts.deps import ApiUser, SessionDep
from app.core.types import PathId, QueryId
from app.gold import service
from app.gold.schemas import AdjustmentIn, LedgerEntryOut, LedgerPageOut, TransferIn, TransferOut, TransferPageOut
from app.campaigns.service import campaign_of
from app.core.templating import request_gettext
from app.gold.notes import note_text

router = APIRouter(tags=["gold"])


def _entry(e, gettext) -> LedgerEntryOut:
    return LedgerEntryOut(id=e.id, amount=e.amount, kind=e.kind, round=e.round, balance_after=e.balance_after,
                          note=note_text(e, gettext), created_at=e.created_at)


@router.get("/campaigns/{cid}/ledger", response_model=LedgerPageOut)
def ledger(cid: PathId, request: Request, user: ApiUser, session: SessionDep, player_id: int | None = QueryId(),
           page: int = Query(1, ge=1, le=100_000), per_page: int = Query(50, ge=1, le=200)):
    result = service.ledger(session, actor=user, campaign_id=cid, player_id=player_id, page=page, per_page=per_page)
    return LedgerPageOut(player_id=result.player_id, balance=result.balance, items=[_entry(e, request_gettext(request)) for e in result.items],
                         page=result.page, pages=result.pages, total=result.total)


@router.post("/campaigns/{cid}/ledger/adjustments", status_code=201, response_model=LedgerEntryOut)
def adjust(cid: PathId, body: AdjustmentIn, request: Request, user: ApiUser, session: SessionDep):
    entry = service.adjust(session, actor=user, campaign_id=cid, player_id=body.player_id, amount=body.amount, reason=body.reason)
    return _entry(entry, request_gettext(request))


def _transfer(t) -> TransferOut:
    return TransferOut(id=t.id, from_player_id=t.from_player_id, to_player_id=t.to_player_id, amount=t.amount, note=t.note,
                       round=t.round, created_at=t.created_at)


@router.get("/campaigns/{cid}/transfers", response_model=TransferPageOut)
def list_transfers(cid: PathId, user: ApiUser, session: SessionDep, page: int = Query(1, ge=1, le=100_000),
                   per_page: int = Query(50, ge=1, le=200)):
    found = service.transfers(session, campaign_of(session, actor=user, campaign_id=cid), page=page, per_page=per_page)
    return TransferPageOut(items=[_transfer(t) for t in found.items], page=found.page, pages=found.pages, total=found.total)


@router.post("/campaigns/{cid}/transfers", status_code=201, response_model=TransferOut)
def send(cid: PathId, body: TransferIn, user: ApiUser, session: SessionDep):
    return _transfer(service.send_gold(session, actor=user, campaign_id=cid, to_player_id=body.to_player_id, amount=body.amount,
                                       note=body.note))
