"""Settlement routes (API.md: settlements GET/PUT/close/roll; extended with reopen, the
round's list and ransoms). A settlement is seen by its owner and the GM only (R11.2)."""

from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser, SessionDep
from app.battles import service as battles
from app.core.types import PathId, QueryRound
from app.settlement import service
from app.settlement.schemas import (
    DueOut,
    ExperienceIn,
    PendingOut,
    ProposalOut,
    RansomOfferIn,
    RansomOut,
    RollIn,
    RollOut,
    SettlementIn,
    SettlementItemOut,
    SettlementListOut,
    SettlementModelOut,
    SettlementOut,
)

router = APIRouter(tags=["settlement"])
BASE = "/campaigns/{cid}/battles/{bid}/settlements/{wid}"


def ransom_out(r, names: dict[int, str], battle_id: int | None = None) -> RansomOut:
    return RansomOut(
        id=r.id,
        round=r.round,
        battle_id=battle_id,
        model_id=r.model_id,
        model_name=names.get(r.model_id, ""),
        owner_player_id=r.owner_player_id,
        captor_player_id=r.captor_player_id,
        price=r.price,
        status=r.status,
        decided_at=r.decided_at,
    )


def settlement_out(sv: service.SettlementView) -> SettlementOut:
    steps = {k: v for k, v in sv.steps.items() if k not in ("proposal", "due")}
    names = {m.model_id: m.name for m in sv.ctx.company}
    rolls = [
        RollOut(model_id=int(mid), **{k: r[k] for k in ("seed", "face", "result", "items_lost", "healer")})
        for mid, entries in sorted(sv.rolls.items())
        for r in entries
    ]
    return SettlementOut(
        battle_id=sv.battle.battle.id,
        warband_id=sv.warband.warband_id,
        player_id=sv.warband.player_id,
        round=sv.battle.battle.round,
        status=sv.status,
        result=sv.ctx.result,
        steps=steps,
        proposal=ProposalOut(
            experience=[ExperienceIn(model_id=m, xp=x) for m, x in sv.steps["proposal"].items()],
            leader_bonus=sv.ctx.settings["xp"]["leader_bonus"],
            due_promotions=[DueOut(model_id=m, ranks=r) for m, r in sv.steps["due"].items()],
        ),
        rolls=rolls,
        healer=sv.healer,
        healer_used=sv.healer_used,
        models=[
            SettlementModelOut(
                model_id=m.id,
                name=m.name,
                types=m.types,
                healer=m.healer,
                status=m.status,
                xp=m.xp,
                rank=m.rank,
                role=m.role,
                injuries=m.injuries,
            )
            for m in (sv.models[i] for i in sv.ctx.member_ids)
        ],
        items=[
            SettlementItemOut(item_id=i.item_id, name=i.name, slot=i.slot, rarity=i.rarity, model_id=i.model_id)
            for i in sv.ctx.items
        ],
        retinue_cost=sv.retinue_cost(),
        ransoms=[ransom_out(r, names, sv.battle.battle.id) for r in sv.ransoms],
        problem=sv.problem.code if sv.problem is not None else None,
        closed_at=sv.settlement.closed_at if sv.settlement else None,
    )


@router.get(BASE, response_model=SettlementOut)
def get_settlement(cid: PathId, bid: PathId, wid: PathId, user: ApiUser, session: SessionDep):
    """The six steps as they stand (saved, or the defaults), with what the house rules propose
    (experience by V14, rank-ups due by V15). Owner and GM only; others get 404."""
    return settlement_out(service.get(session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid))


@router.put(BASE, response_model=SettlementOut)
def put_settlement(cid: PathId, bid: PathId, wid: PathId, body: SettlementIn, user: ApiUser, session: SessionDep):
    """Saves any of the six steps as a draft (owner, in Settlement); a step left out keeps
    what was saved. Refused once the settlement is closed."""
    changes = body.model_dump(exclude_unset=True, exclude_none=True)
    return settlement_out(service.save(session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid, changes=changes))


@router.post(BASE + "/close", response_model=SettlementOut)
def close_settlement(cid: PathId, bid: PathId, wid: PathId, user: ApiUser, session: SessionDep):
    """Applies all six steps in one transaction (statuses, experience, ranks, items, retinue,
    prisoners to ransom); final for the player. Steps never filled take the defaults."""
    return settlement_out(service.close(session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid))


@router.post(BASE + "/roll", response_model=SettlementOut)
def roll(cid: PathId, bid: PathId, wid: PathId, body: RollIn, user: ApiUser, session: SessionDep):
    """Rolls a taken-out model's casualty result on the campaign's table (the seed is stored);
    `reroll: true` spends the Healer's one re-roll of this battle."""
    return settlement_out(
        service.roll(
            session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid, model_id=body.model_id, reroll=body.reroll
        )
    )


@router.post(BASE + "/reopen", response_model=SettlementOut)
def reopen(cid: PathId, bid: PathId, wid: PathId, user: ApiUser, session: SessionDep):
    """The GM reopens a closed settlement (until Twilight); what closing changed is undone."""
    return settlement_out(service.reopen(session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid))


@router.get("/campaigns/{cid}/settlements", response_model=SettlementListOut)
def list_settlements(cid: PathId, user: ApiUser, session: SessionDep, round: int | None = QueryRound()):
    """The round's closed settlements this viewer may see (own; all for the GM), and the
    warbands whose settlement is still open — the GM sees who still has to settle."""
    viewer, rows = service.round_settlements(session, actor=user, campaign_id=cid, round_=round)
    shown = viewer.campaign.round if round is None else round
    views = battles.battles_of(session, viewer.campaign, shown)
    pending = service.pending_seen_by(session, viewer, views)
    return SettlementListOut(
        round=shown,
        closed=[
            {
                "battle_id": s.battle_id,
                "warband_id": s.warband_id,
                "player_id": s.player_id,
                "closed_at": s.closed_at.isoformat() if s.closed_at else None,
            }
            for s in rows
            if s.status == "closed"
        ],
        pending=[PendingOut(**p.__dict__) for p in pending],
    )


@router.get("/campaigns/{cid}/ransoms", response_model=list[RansomOut])
def list_ransoms(cid: PathId, user: ApiUser, session: SessionDep):
    """Prisoners' ransoms: seen by the owner, the captor and the GM (V12, R11.2)."""
    _viewer, found, names = service.ransoms(session, actor=user, campaign_id=cid)
    return [ransom_out(r, names) for r in found]


def _one(session, user, cid, rid) -> RansomOut:
    _viewer, found, names = service.ransoms(session, actor=user, campaign_id=cid)
    return ransom_out(next(r for r in found if r.id == rid), names)


@router.post("/campaigns/{cid}/ransoms/{rid}/offer", response_model=RansomOut)
def offer(cid: PathId, rid: PathId, body: RansomOfferIn, user: ApiUser, session: SessionDep):
    """The captor names (or changes) the price until the owner answers."""
    service.offer(session, actor=user, campaign_id=cid, ransom_id=rid, price=body.price)
    return _one(session, user, cid, rid)


@router.post("/campaigns/{cid}/ransoms/{rid}/pay", response_model=RansomOut)
def pay(cid: PathId, rid: PathId, user: ApiUser, session: SessionDep):
    """The owner pays: a `ransom` ledger entry on both sides, and the model is back."""
    service.answer(session, actor=user, campaign_id=cid, ransom_id=rid, pay=True)
    return _one(session, user, cid, rid)


@router.post("/campaigns/{cid}/ransoms/{rid}/refuse", response_model=RansomOut)
def refuse(cid: PathId, rid: PathId, user: ApiUser, session: SessionDep):
    """The owner refuses: the model is lost to them."""
    service.answer(session, actor=user, campaign_id=cid, ransom_id=rid, pay=False)
    return _one(session, user, cid, rid)
