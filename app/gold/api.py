from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns.service import campaign_of
from app.core.pagination import Paging
from app.core.templating import request_gettext
from app.core.types import PathId, QueryId
from app.gold import service
from app.gold.notes import note_text
from app.gold.schemas import AdjustmentIn, LedgerEntryOut, LedgerPageOut, TransferIn, TransferOut, TransferPageOut

router = APIRouter(tags=["gold"])


def _entry(e, gettext) -> LedgerEntryOut:
    return LedgerEntryOut(
        id=e.id,
        amount=e.amount,
        kind=e.kind,
        round=e.round,
        balance_after=e.balance_after,
        note=note_text(e, gettext),
        created_at=e.created_at,
    )


@router.get("/campaigns/{cid}/ledger", response_model=LedgerPageOut)
def ledger(
    cid: PathId,
    request: Request,
    user: ApiUser,
    session: SessionDep,
    paging: Paging,
    player_id: int | None = QueryId(),
):
    result = service.ledger(session, actor=user, campaign_id=cid, player_id=player_id, page=paging.page, per_page=paging.per_page)
    gettext = request_gettext(request)
    return LedgerPageOut.of(result, lambda e: _entry(e, gettext), player_id=result.player_id, balance=result.balance)


@router.post("/campaigns/{cid}/ledger/adjustments", status_code=201, response_model=LedgerEntryOut)
def adjust(cid: PathId, body: AdjustmentIn, request: Request, user: ApiUser, session: SessionDep):
    entry = service.adjust(session, actor=user, campaign_id=cid, player_id=body.player_id, amount=body.amount, reason=body.reason)
    return _entry(entry, request_gettext(request))


def _transfer(t) -> TransferOut:
    return TransferOut(
        id=t.id,
        from_player_id=t.from_player_id,
        to_player_id=t.to_player_id,
        amount=t.amount,
        note=t.note,
        round=t.round,
        created_at=t.created_at,
    )


@router.get("/campaigns/{cid}/transfers", response_model=TransferPageOut)
def list_transfers(
    cid: PathId,
    user: ApiUser,
    session: SessionDep,
    paging: Paging,
):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return TransferPageOut.of(service.transfers(session, viewer, page=paging.page, per_page=paging.per_page), _transfer)


@router.post("/campaigns/{cid}/transfers", status_code=201, response_model=TransferOut)
def send(cid: PathId, body: TransferIn, user: ApiUser, session: SessionDep):
    return _transfer(
        service.send_gold(
            session, actor=user, campaign_id=cid, to_player_id=body.to_player_id, amount=body.amount, note=body.note
        )
    )
