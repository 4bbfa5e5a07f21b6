from __future__ import annotations

from fastapi import APIRouter, File, UploadFile

from app.accounts.deps import ApiUser, SessionDep
from app.catalog.battlescribe.roster import MAX_BYTES as MAX_ROSTER_BYTES
from app.catalog.deps import CatalogDep
from app.companies import roster_import, service
from app.companies.models import CompanyItem, CompanyModel
from app.companies.schemas import (
    AssignIn,
    BuyItemIn,
    BuyModelIn,
    CompanyOut,
    FactionIn,
    ItemOut,
    ModelNameIn,
    ModelOut,
    RefundOut,
    RewardIn,
    RosterImportOut,
)
from app.core.types import PathId, QueryId

router = APIRouter(tags=["company"])


def model_out(model: CompanyModel, items: list[CompanyItem], labels: dict[int, str]) -> ModelOut:
    return ModelOut(
        id=model.id,
        name=model.name,
        given_name=model.given_name,
        label=labels.get(model.id, model.name),
        profile=model.profile_key,
        types=model.types,
        points=model.points,
        price=model.price,
        stats=model.stats,
        special_rules=model.special_rules,
        unique=model.unique,
        reward=model.reward,
        status=model.status,
        item_ids=[i.id for i in items if i.model_id == model.id],
        xp=model.xp,
        rank=model.rank,
        role=model.role,
        injuries=model.injuries,
        upgrades=model.upgrades,
    )


def item_out(item: CompanyItem) -> ItemOut:
    return ItemOut(
        id=item.id,
        item=item.item_key,
        name=item.name,
        rarity=item.rarity,
        slot=item.slot,
        points=item.points,
        price=item.price,
        reward=item.reward,
        model_id=item.model_id,
    )


def company_out(session, user, cid: PathId, player_id: int | None = None) -> CompanyOut:
    _viewer, view = service.view(session, actor=user, campaign_id=cid, player_id=player_id)
    return CompanyOut(
        player_id=view.player.id,
        faction=view.company.faction if view.company else None,
        confirmed=bool(view.company and view.company.confirmed),
        gold=view.gold,
        models=[model_out(m, view.items, view.labels) for m in view.models],
        items=[item_out(i) for i in view.items],
    )


@router.get("/campaigns/{cid}/company", response_model=CompanyOut)
def get_company(cid: PathId, user: ApiUser, session: SessionDep, player_id: int | None = QueryId()):
    return company_out(session, user, cid, player_id)


@router.put("/campaigns/{cid}/company/faction", response_model=CompanyOut)
def set_faction(cid: PathId, body: FactionIn, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    service.choose_faction(session, actor=user, campaign_id=cid, faction=body.faction, catalog=catalog)
    return company_out(session, user, cid)


@router.post("/campaigns/{cid}/company/models", status_code=201, response_model=ModelOut)
def buy_model(cid: PathId, body: BuyModelIn, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    model = service.buy_model(session, actor=user, campaign_id=cid, profile_key=body.profile, catalog=catalog).row
    return model_out(model, [], service.labels_of(session, [model.id]))


@router.post("/campaigns/{cid}/company/import", status_code=201, response_model=RosterImportOut)
def import_roster(cid: PathId, user: ApiUser, session: SessionDep, catalog: CatalogDep, file: UploadFile = File(...)):
    """R12.15: a BattleScribe or New Recruit roster (.ros, .rosz) bought into the company,
    all or nothing; the entries not in the catalog are listed."""
    imported = roster_import.import_roster(
        session, actor=user, campaign_id=cid, data=file.file.read(MAX_ROSTER_BYTES + 1), catalog=catalog
    )
    labels = service.labels_of(session, [m.id for m in imported.bought])
    return RosterImportOut(
        bought=[model_out(m, imported.items, labels) for m in imported.bought],
        items=[item_out(i) for i in imported.items],
        unmatched=imported.unmatched,
        refused=imported.refused,
        gold=imported.gold,
    )


@router.patch("/campaigns/{cid}/company/models/{mid}", response_model=ModelOut)
def name_model(cid: PathId, mid: PathId, body: ModelNameIn, user: ApiUser, session: SessionDep):
    """Issue 29: the player's own name for a model of their company."""
    model = service.name_model(session, actor=user, campaign_id=cid, model_id=mid, given_name=body.given_name)
    items = [i for i in service.view(session, actor=user, campaign_id=cid)[1].items if i.model_id == model.id]
    return model_out(model, items, service.labels_of(session, [model.id]))


@router.delete("/campaigns/{cid}/company/models/{mid}", response_model=RefundOut)
def sell_model(cid: PathId, mid: PathId, user: ApiUser, session: SessionDep):
    return RefundOut(refund=service.sell_model(session, actor=user, campaign_id=cid, model_id=mid).refund)


@router.post("/campaigns/{cid}/company/items", status_code=201, response_model=ItemOut)
def buy_item(cid: PathId, body: BuyItemIn, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    return item_out(service.buy_item(session, actor=user, campaign_id=cid, item_key=body.item, catalog=catalog).row)


@router.delete("/campaigns/{cid}/company/items/{iid}", response_model=RefundOut)
def sell_item(cid: PathId, iid: PathId, user: ApiUser, session: SessionDep):
    return RefundOut(refund=service.sell_item(session, actor=user, campaign_id=cid, item_id=iid).refund)


@router.put("/campaigns/{cid}/company/items/{iid}", response_model=ItemOut)
def assign_item(cid: PathId, iid: PathId, body: AssignIn, user: ApiUser, session: SessionDep):
    return item_out(service.assign_item(session, actor=user, campaign_id=cid, item_id=iid, model_id=body.model_id))


@router.post("/campaigns/{cid}/company/confirm", response_model=CompanyOut)
def confirm(cid: PathId, user: ApiUser, session: SessionDep):
    service.confirm(session, actor=user, campaign_id=cid)
    return company_out(session, user, cid)


@router.post("/campaigns/{cid}/rewards", status_code=201, response_model=ItemOut | ModelOut)
def reward(cid: PathId, body: RewardIn, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    granted = service.grant_reward(
        session,
        actor=user,
        campaign_id=cid,
        player_id=body.player_id,
        catalog=catalog,
        item_key=body.item,
        profile_key=body.profile,
    )
    return (
        item_out(granted)
        if isinstance(granted, CompanyItem)
        else model_out(granted, [], service.labels_of(session, [granted.id]))
    )
