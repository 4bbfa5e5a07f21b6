"""The API of people who come and go (issue 36): co-GMs (R12.8), away rounds (R12.11), a
seat handed over (R12.10)."""

from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns.api import _players as campaign_players
from app.campaigns.schemas import PlayerOut
from app.core.types import PathId
from app.people import service
from app.people.schemas import AwayIn, AwayOut, GameMasterOut, NicknameIn
from app.visibility import viewer_for

router = APIRouter(tags=["people"])


def _out(row: service.GameMasterRow) -> GameMasterOut:
    return GameMasterOut(user_id=row.user_id, nickname=row.nickname, owner=row.owner)


@router.get("/campaigns/{cid}/game-masters", response_model=list[GameMasterOut])
def game_masters(cid: PathId, user: ApiUser, session: SessionDep):
    return [_out(r) for r in service.game_masters(session, viewer_for(session, user, cid))]


@router.post("/campaigns/{cid}/game-masters", status_code=201, response_model=GameMasterOut)
def add_game_master(cid: PathId, body: NicknameIn, user: ApiUser, session: SessionDep):
    return _out(service.add_game_master(session, actor=user, campaign_id=cid, nickname=body.nickname))


@router.delete("/campaigns/{cid}/game-masters/{user_id}", status_code=204)
def remove_game_master(cid: PathId, user_id: PathId, user: ApiUser, session: SessionDep):
    service.remove_game_master(session, actor=user, campaign_id=cid, user_id=user_id)


@router.put("/campaigns/{cid}/players/{pid}/away", response_model=AwayOut)
def mark_away(cid: PathId, pid: PathId, body: AwayIn, user: ApiUser, session: SessionDep):
    away = service.mark_away(
        session, actor=user, campaign_id=cid, player_id=pid, from_round=body.from_round, to_round=body.to_round
    )
    return AwayOut(player_id=away.player_id, from_round=away.from_round, to_round=away.to_round)


@router.delete("/campaigns/{cid}/players/{pid}/away", status_code=204)
def clear_away(cid: PathId, pid: PathId, user: ApiUser, session: SessionDep):
    service.clear_away(session, actor=user, campaign_id=cid, player_id=pid)


@router.post("/campaigns/{cid}/players/{pid}/handover", response_model=PlayerOut)
def handover(cid: PathId, pid: PathId, body: NicknameIn, user: ApiUser, session: SessionDep):
    service.handover(session, actor=user, campaign_id=cid, player_id=pid, nickname=body.nickname)
    viewer = viewer_for(session, user, cid)
    return next(p for p in campaign_players(session, cid, viewer) if p.player_id == pid)
