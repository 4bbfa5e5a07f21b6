"""Mission-alliance routes of API.md over the alliance service (R8.7-R8.9)."""

from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser, SessionDep
from app.alliances import service
from app.alliances.schemas import AllianceIn, AllianceOut
from app.campaigns.service import campaign_of
from app.core.errors import DomainError
from app.core.types import PathId

router = APIRouter(tags=["alliances"])


def alliance_out(view: service.AllianceView) -> AllianceOut:
    a = view.alliance
    return AllianceOut(
        id=a.id,
        event_id=a.event_id,
        round=a.round,
        initiator_player_id=a.initiator_player_id,
        member_player_ids=view.member_ids,
        invited_player_ids=view.invited_ids,
        status=a.status,
    )


def _one(session, user, cid: int, alliance_id: int) -> AllianceOut:
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    view = next((v for v in service.alliances(session, viewer) if v.alliance.id == alliance_id), None)
    if view is None:
        raise DomainError("not_found")
    return alliance_out(view)


@router.get("/campaigns/{cid}/alliances", response_model=list[AllianceOut])
def list_alliances(cid: PathId, user: ApiUser, session: SessionDep):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return [alliance_out(v) for v in service.alliances(session, viewer)]


@router.post("/campaigns/{cid}/alliances", status_code=201, response_model=AllianceOut)
def create(cid: PathId, body: AllianceIn, user: ApiUser, session: SessionDep):
    alliance = service.create(
        session, actor=user, campaign_id=cid, event_id=body.event_id, invite_player_ids=body.invite_player_ids
    )
    return _one(session, user, cid, alliance.id)


@router.post("/campaigns/{cid}/alliances/{aid}/accept", response_model=AllianceOut)
def accept(cid: PathId, aid: PathId, user: ApiUser, session: SessionDep):
    service.accept(session, actor=user, campaign_id=cid, alliance_id=aid)
    return _one(session, user, cid, aid)


@router.post("/campaigns/{cid}/alliances/{aid}/decline", status_code=204)
def decline(cid: PathId, aid: PathId, user: ApiUser, session: SessionDep):
    service.decline(session, actor=user, campaign_id=cid, alliance_id=aid)


@router.post("/campaigns/{cid}/alliances/{aid}/withdraw", status_code=204)
def withdraw(cid: PathId, aid: PathId, user: ApiUser, session: SessionDep):
    service.withdraw(session, actor=user, campaign_id=cid, alliance_id=aid)
