"""Company, shop, ledger and the GM's rewards, phone first (R3.1-R3.9, R11.2)."""
from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import service as campaigns
from app.campaigns.rules import shop_open
from app.catalog.deps import CatalogDep
from app.catalog.names import TYPE_NAMES
from app.companies import service
from app.core.errors import DomainError
from app.core.forms import Form, int_field, refusal, see_other
from app.core.templating import render
from app.gold import rules as gold_rules, service as gold
from app.visibility import require_gm, viewer_for

router = APIRouter()



def _company_page(request, session, user, cid, catalog, player_id=None, status_code=200, **extra):
    viewer, view = service.view(session, actor=user, campaign_id=cid, player_id=player_id)
    campaign = viewer.campaign
    confirmed = bool(view.company and view.company.confirmed)
    refunds = {m.id: gold_rules.refund(m.price, confirmed=confirmed, sale_loss_percent=campaign.sale_loss_percent) for m in view.models}
    refunds.update({f"i{i.id}": gold_rules.refund(i.price, confirmed=confirmed, sale_loss_percent=campaign.sale_loss_percent) for i in view.items})
    nickname = next((p.nickname for p in campaigns.players(session, cid) if p.player_id == view.player.id), "")
    return render(
        request, "companies/company.html", status_code=status_code, viewer=viewer, campaign=campaign, view=view,
        catalog=catalog, refunds=refunds, nickname=nickname, own=viewer.player is not None and viewer.player.id == view.player.id,
        shop_is_open=shop_open(campaign.status, campaign.phase), tab="company", **extra,
    )


@router.get("/campaigns/{cid}/company")
def company(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
            player_id: int | None = Query(None)):
    viewer = viewer_for(session, user, cid)
    if viewer.is_gm and player_id is None:
        return see_other(f"/campaigns/{cid}/companies")
    return _company_page(request, session, user, cid, catalog, player_id)


def _act(request, session, user, cid, catalog, action, done: str | None = None):
    try:
        result = action()
    except DomainError as exc:
        return _company_page(request, session, user, cid, catalog, status_code=exc.status, error=refusal(request, session, exc))
    return see_other(done or f"/campaigns/{cid}/company") if not callable(done) else done(result)


@router.post("/campaigns/{cid}/company/faction")
def set_faction(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    faction = str(form.get("faction", ""))
    return _act(request, session, user, cid, catalog,
                lambda: service.choose_faction(session, actor=user, campaign_id=cid, faction=faction, catalog=catalog))


@router.post("/campaigns/{cid}/company/confirm")
def confirm(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _act(request, session, user, cid, catalog, lambda: service.confirm(session, actor=user, campaign_id=cid))


@router.post("/campaigns/{cid}/company/models/{mid}/sell")
def sell_model(cid: int, mid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _act(request, session, user, cid, catalog, lambda: service.sell_model(session, actor=user, campaign_id=cid, model_id=mid))


@router.post("/campaigns/{cid}/company/items/{iid}/sell")
def sell_item(cid: int, iid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _act(request, session, user, cid, catalog, lambda: service.sell_item(session, actor=user, campaign_id=cid, item_id=iid))


@router.post("/campaigns/{cid}/company/items/{iid}/assign")
def assign_item(cid: int, iid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    model_id = int_field(form.get("model_id")) if form.get("model_id") else None
    return _act(request, session, user, cid, catalog,
                lambda: service.assign_item(session, actor=user, campaign_id=cid, item_id=iid, model_id=model_id))


# --- shop ----------------------------------------------------------------------------


def _shop_page(request, session, user, cid, catalog, type_: str = "", q: str = "", status_code=200, **extra):
    viewer, view = service.view(session, actor=user, campaign_id=cid)
    campaign = viewer.campaign
    faction = view.company.faction if view.company else None
    needle = q.strip().lower()
    profiles = [
        p for p in (catalog.faction_profiles(faction) if faction else [])
        if (not type_ or type_ in p.types) and (not needle or needle in p.name.lower())
    ]
    held = {m.profile_key for m in view.models}
    items = sorted(
        (i for i in catalog.items.values() if i.rarity != "Unique" and (not needle or needle in i.name.lower())),
        key=lambda i: (i.slot, i.points, i.name),
    )
    return render(
        request, "companies/shop.html", status_code=status_code, viewer=viewer, campaign=campaign, view=view,
        catalog=catalog, faction=catalog.factions.get(faction) if faction else None, profiles=profiles, items=items,
        held=held, type_=type_, q=q, types=list(TYPE_NAMES), shop_is_open=shop_open(campaign.status, campaign.phase),
        gpp=campaign.gold_per_point, tab="company", **extra,
    )


@router.get("/campaigns/{cid}/shop")
def shop(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
         type: str = Query("", max_length=20), q: str = Query("", max_length=80)):
    return _shop_page(request, session, user, cid, catalog, type, q)


def _buy(request, session, user, cid, catalog, form, action, bought_name: str):
    type_, q = str(form.get("type", "")), str(form.get("q", ""))
    try:
        action()
    except DomainError as exc:
        return _shop_page(request, session, user, cid, catalog, type_, q, status_code=exc.status, error=refusal(request, session, exc))
    return _shop_page(request, session, user, cid, catalog, type_, q, bought=bought_name)


@router.post("/campaigns/{cid}/shop/models")
def buy_model(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    key = str(form.get("profile", ""))
    name = catalog.profiles[key].name if key in catalog.profiles else key
    return _buy(request, session, user, cid, catalog, form,
                lambda: service.buy_model(session, actor=user, campaign_id=cid, profile_key=key, catalog=catalog), name)


@router.post("/campaigns/{cid}/shop/items")
def buy_item(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    key = str(form.get("item", ""))
    name = catalog.items[key].name if key in catalog.items else key
    return _buy(request, session, user, cid, catalog, form,
                lambda: service.buy_item(session, actor=user, campaign_id=cid, item_key=key, catalog=catalog), name)


# --- the GM's view: companies, rewards, ledgers -------------------------------------------


def _companies_page(request, session, user, cid, catalog, selected, status_code=200, **extra):
    """Every player's gold is on this page: the GM's eyes only, also when a form failed."""
    viewer = viewer_for(session, user, cid)
    require_gm(viewer)
    return render(request, "companies/companies.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
                  players=campaigns.players(session, cid), catalog=catalog, selected=selected, tab="company", **extra)


@router.get("/campaigns/{cid}/companies")
def companies(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
              player_id: int | None = Query(None)):
    return _companies_page(request, session, user, cid, catalog, player_id)


@router.post("/campaigns/{cid}/rewards")
def reward(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    player_id = int_field(form.get("player_id"))
    item = str(form.get("item") or "") or None
    profile = str(form.get("profile") or "") or None
    try:
        if player_id is None:
            raise DomainError("field_required")
        service.grant_reward(session, actor=user, campaign_id=cid, player_id=player_id, catalog=catalog,
                             item_key=item, profile_key=profile)
    except DomainError as exc:
        message = refusal(request, session, exc)
        return _companies_page(request, session, user, cid, catalog, player_id, status_code=exc.status, error=message)
    return see_other(f"/campaigns/{cid}/company?player_id={player_id}")


def _ledger_page(request, session, user, cid, player_id, page=1, status_code=200, **extra):
    result = gold.ledger(session, actor=user, campaign_id=cid, player_id=player_id, page=page, per_page=30)
    viewer = viewer_for(session, user, cid)
    nickname = next((p.nickname for p in campaigns.players(session, cid) if p.player_id == result.player_id), "")
    return render(request, "gold/ledger.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
                  ledger=result, nickname=nickname, kinds=gold_rules.KINDS, tab="company", **extra)


@router.get("/campaigns/{cid}/ledger")
def ledger(cid: int, request: Request, user: PageLogin, session: SessionDep,
           player_id: int | None = Query(None), page: int = Query(1, ge=1, le=100_000)):
    viewer = viewer_for(session, user, cid)
    if viewer.is_gm and player_id is None:
        return see_other(f"/campaigns/{cid}/companies")
    return _ledger_page(request, session, user, cid, player_id, page)


@router.post("/campaigns/{cid}/ledger/adjustments")
def adjust(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    player_id, amount = int_field(form.get("player_id")), int_field(form.get("amount"))
    try:
        if player_id is None or amount is None:
            raise DomainError("field_not_integer")
        gold.adjust(session, actor=user, campaign_id=cid, player_id=player_id, amount=amount, reason=str(form.get("reason", "")))
    except DomainError as exc:
        message = refusal(request, session, exc)
        if player_id is None:
            raise
        return _ledger_page(request, session, user, cid, player_id, status_code=exc.status, error=message)
    return see_other(f"/campaigns/{cid}/ledger?player_id={player_id}")
