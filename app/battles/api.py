from __future__ import annotations


from fastapi import APIRouter, Query

from app.accounts.deps import ApiUser, SessionDep
from app.battles import service
from app.core.types import PathId, QueryRound
from app.battles.schemas import BattleOut, BattlePage, BattleWarbandOut, DisputeIn, SideOut, WinnersIn
from app.campaigns.service import campaign_of

router = APIRouter(tags=["battles"])


def battle_out(view: service.BattleView) -> BattleOut:
    b = view.battle
    return BattleOut(
        id=b.id, round=b.round, place_id=b.place_id, event_id=b.event_id, scenario=b.scenario, other_mission=b.other_mission,
        roles=b.roles, beacon_hint=service.beacon_hint(b), notes=b.notes, status=b.status, seed=b.seed,
        sides=[SideOut(side=ws[0].side, player_ids=sorted({w.player_id for w in ws}), role=ws[0].role,
                       warbands=[BattleWarbandOut(id=w.warband_id, player_id=w.player_id, name=w.name, points=w.points,
                                                  roster=w.roster, underdog_dice=w.underdog_dice, bonus_points=w.bonus_points)
                                 for w in ws]) for ws in view.sides()],
        winners=b.winners, reported_by_player_id=b.reported_by_player_id, confirmed_by=sorted(view.confirmations),
        dispute_reason=b.dispute_reason,
    )


@router.get("/campaigns/{cid}/battles", response_model=BattlePage)
def list_battles(cid: PathId, user: ApiUser, session: SessionDep, round: int | None = QueryRound(),
                 page: int = Query(1, ge=1, le=100_000), per_page: int = Query(50, ge=1, le=200)):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    found = service.battle_page(session, viewer.campaign, round, page=page, per_page=per_page)
    return BattlePage(items=[battle_out(v) for v in found.items], page=found.page, pages=found.pages, total=found.total)


@router.get("/campaigns/{cid}/battles/{bid}", response_model=BattleOut)
def get_battle(cid: PathId, bid: PathId, user: ApiUser, session: SessionDep):
    return battle_out(service.battle(session, actor=user, campaign_id=cid, battle_id=bid)[1])


def _after(session, user, cid, bid) -> BattleOut:
    return get_battle(cid, bid, user, session)


@router.post("/campaigns/{cid}/battles/{bid}/result", response_model=BattleOut)
def result(cid: PathId, bid: PathId, body: WinnersIn, user: ApiUser, session: SessionDep):
    service.report(session, actor=user, campaign_id=cid, battle_id=bid, winners=body.winner_player_ids)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/confirm", response_model=BattleOut)
def confirm(cid: PathId, bid: PathId, user: ApiUser, session: SessionDep):
    service.confirm(session, actor=user, campaign_id=cid, battle_id=bid)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/dispute", response_model=BattleOut)
def dispute(cid: PathId, bid: PathId, body: DisputeIn, user: ApiUser, session: SessionDep):
    service.dispute(session, actor=user, campaign_id=cid, battle_id=bid, reason=body.reason)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/resolve", response_model=BattleOut)
def resolve(cid: PathId, bid: PathId, body: WinnersIn, user: ApiUser, session: SessionDep):
    service.resolve(session, actor=user, campaign_id=cid, battle_id=bid, winners=body.winner_player_ids)
    return _after(session, user, cid, bid)
