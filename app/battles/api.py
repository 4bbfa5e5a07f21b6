from __future__ import annotations

from math import ceil

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from app.accounts.deps import ApiUser, SessionDep
from app.battles import service
from app.visibility import viewer_for

router = APIRouter(tags=["battles"])


class BattleWarbandOut(BaseModel):
    id: int
    player_id: int
    name: str
    points: int
    roster: list[dict]
    underdog_dice: int
    bonus_points: int


class SideOut(BaseModel):
    side: int
    player_ids: list[int]
    warbands: list[BattleWarbandOut]
    role: str | None


class BattleOut(BaseModel):
    id: int
    round: int
    place_id: int
    event_id: int | None
    scenario: str | None
    other_mission: str | None
    roles: bool
    beacon_hint: bool
    notes: str
    status: str
    seed: int
    sides: list[SideOut]
    winners: list[int]
    reported_by_player_id: int | None
    confirmed_by: list[int]
    dispute_reason: str


class BattlePage(BaseModel):
    items: list[BattleOut]
    page: int
    pages: int
    total: int


class WinnersIn(BaseModel):
    winner_player_ids: list[int] = Field(default_factory=list, max_length=40)


class DisputeIn(BaseModel):
    reason: str = Field(max_length=2000)


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
def list_battles(cid: int, user: ApiUser, session: SessionDep, round: int | None = Query(None, ge=0),
                 page: int = Query(1, ge=1, le=100_000), per_page: int = Query(50, ge=1, le=200)):
    viewer = viewer_for(session, user, cid)
    views = service.battles_of(session, viewer.campaign, round)
    chunk = views[(page - 1) * per_page: page * per_page]
    return BattlePage(items=[battle_out(v) for v in chunk], page=page, pages=max(1, ceil(len(views) / per_page)), total=len(views))


@router.get("/campaigns/{cid}/battles/{bid}", response_model=BattleOut)
def get_battle(cid: int, bid: int, user: ApiUser, session: SessionDep):
    return battle_out(service.battle(session, actor=user, campaign_id=cid, battle_id=bid)[1])


def _after(session, user, cid, bid) -> BattleOut:
    return get_battle(cid, bid, user, session)


@router.post("/campaigns/{cid}/battles/{bid}/result", response_model=BattleOut)
def result(cid: int, bid: int, body: WinnersIn, user: ApiUser, session: SessionDep):
    service.report(session, actor=user, campaign_id=cid, battle_id=bid, winners=body.winner_player_ids)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/confirm", response_model=BattleOut)
def confirm(cid: int, bid: int, user: ApiUser, session: SessionDep):
    service.confirm(session, actor=user, campaign_id=cid, battle_id=bid)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/dispute", response_model=BattleOut)
def dispute(cid: int, bid: int, body: DisputeIn, user: ApiUser, session: SessionDep):
    service.dispute(session, actor=user, campaign_id=cid, battle_id=bid, reason=body.reason)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/resolve", response_model=BattleOut)
def resolve(cid: int, bid: int, body: WinnersIn, user: ApiUser, session: SessionDep):
    service.resolve(session, actor=user, campaign_id=cid, battle_id=bid, winners=body.winner_player_ids)
    return _after(session, user, cid, bid)
