"""Company, shop and the GM's rewards, phone first (R3.1-R3.9, R11.2)."""

from __future__ import annotations

from functools import partial
from urllib.parse import urlencode

from fastapi import APIRouter, Query

from app.campaigns import service as campaigns
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.rules import shop_open
from app.campaigns.service import gm_campaign
from app.companies import rules, service
from app.companies.models import CompanyModel
from app.companies.schemas import AssignIn, BuyItemIn, BuyModelIn, FactionIn, ModelNameIn, RewardIn, ShopForm
from app.core.errors import N_
from app.core.forms import blank_to_none, see_other, typed, unplaced, validate
from app.core.page_actions import Ask, page_action
from app.core.rows import row_by_id
from app.core.templating import render
from app.core.types import PathId, QueryId
from app.gold import rules as gold_rules

router = APIRouter()
LABELS = {
    "faction": N_("Faction"),
    "model_id": N_("Give to"),
    "profile": N_("Model"),
    "item": N_("Item"),
    "player_id": N_("Player"),
    "type": N_("Type"),
    "q": N_("Name"),
    "given_name": N_("Name"),
}


def _company_page(page: CampaignContext, player_id=None, status_code=200, **extra):
    session, catalog = page.session, page.catalog
    viewer, view = service.view_for(session, page.viewer, player_id)
    campaign = viewer.campaign
    confirmed = bool(view.company and view.company.confirmed)
    refunds = {
        m.id: gold_rules.refund(m.price, confirmed=confirmed, sale_loss_percent=campaign.sale_loss_percent) for m in view.models
    }
    refunds.update(
        {
            f"i{i.id}": gold_rules.refund(i.price, confirmed=confirmed, sale_loss_percent=campaign.sale_loss_percent)
            for i in view.items
        }
    )
    nickname = campaigns.nicknames(session, page.cid).get(view.player.id, "")
    return render(
        page.request,
        "companies/company.html",
        status_code=status_code,
        viewer=viewer,
        campaign=campaign,
        view=view,
        catalog=catalog,
        refunds=refunds,
        nickname=nickname,
        mine=viewer.player is not None and viewer.player.id == view.player.id,
        # R12.4: a finished campaign's company is read only — no form to change it.
        own=viewer.player is not None and viewer.player.id == view.player.id and campaign.status != "finished",
        shop_is_open=shop_open(campaign.status, campaign.phase),
        tab="company",
        **extra,
    )


@router.get("/campaigns/{cid}/company")
def company(page: CampaignPage, player_id: int | None = QueryId()):
    if page.viewer.is_gm and player_id is None:
        return see_other(f"/campaigns/{page.cid}/companies")
    return _company_page(page, player_id)


def _back(page: CampaignContext, message: str, **params):
    return page.redirect(f"/campaigns/{page.cid}/company", message, **params)


@router.post("/campaigns/{cid}/company/faction")
def set_faction(page: CampaignPage):
    body, errors = validate(page.request, FactionIn, typed(page.form, "faction"), LABELS)
    if errors:  # a choice of the list: said above the page
        return _company_page(page, status_code=422, error=unplaced(errors))
    faction, catalog = body.faction, page.catalog
    name = catalog.factions[faction].name if faction in catalog.factions else faction
    return page_action(
        page,
        lambda: service.choose_faction(page.session, actor=page.user, campaign_id=page.cid, faction=faction, catalog=catalog),
        again=partial(_company_page, page),
        done=lambda _company: _back(page, N_("Faction chosen: %(faction)s."), faction=name),
    )


CONFIRM_COMPANY = (
    N_("Confirm the company?"),
    N_("The faction is then fixed, and selling a model or item returns only %(percent)s%% of its price. This cannot be undone."),
    N_("Confirm the company"),
)
CONFIRM_SELL = (
    N_("Sell %(name)s for %(n)s gold back?"),
    N_("The company is confirmed: a sale returns less than the price, and buying again costs the full price."),
    N_("Sell for %(n)s gold"),
)


def _ask(page: CampaignContext, texts: tuple[str, str, str], **params) -> Ask:
    """The confirm step without JavaScript, on the company tab."""
    return page.ask(texts, cancel=f"/campaigns/{page.cid}/company", tab="company", **params)


@router.post("/campaigns/{cid}/company/confirm")
def confirm(page: CampaignPage):
    """R3.5: one way; the page asks first (a dialog with JavaScript, a confirm page without)."""
    return page_action(
        page,
        lambda: service.confirm(page.session, actor=page.user, campaign_id=page.cid),
        again=partial(_company_page, page),
        ask=lambda _company: _ask(page, CONFIRM_COMPANY, percent=100 - page.viewer.campaign.sale_loss_percent),
        done=lambda _company: _back(page, N_("Company confirmed.")),
    )


def _sell(page: CampaignContext, sell):
    """R3.4: selling after the company is confirmed loses gold, so the page asks first."""
    return page_action(
        page,
        sell,
        again=partial(_company_page, page),
        ask=lambda sale: _ask(page, CONFIRM_SELL, name=sale.name, n=sale.refund) if sale.refund < sale.paid else None,
        done=lambda sale: _back(page, N_("Sold %(name)s, %(n)s gold back."), name=sale.name, n=sale.refund),
    )


@router.post("/campaigns/{cid}/company/models/{mid}/sell")
def sell_model(mid: PathId, page: CampaignPage):
    return _sell(page, lambda: service.sell_model(page.session, actor=page.user, campaign_id=page.cid, model_id=mid))


@router.post("/campaigns/{cid}/company/items/{iid}/sell")
def sell_item(iid: PathId, page: CampaignPage):
    return _sell(page, lambda: service.sell_item(page.session, actor=page.user, campaign_id=page.cid, item_id=iid))


@router.post("/campaigns/{cid}/company/items/{iid}/assign")
def assign_item(iid: PathId, page: CampaignPage):
    body, errors = validate(page.request, AssignIn, blank_to_none({"model_id": None, **typed(page.form, "model_id")}), LABELS)
    if errors:
        return _company_page(page, status_code=422, error=unplaced(errors))
    model_id = body.model_id

    def done(item):
        if item.model_id is None:
            return _back(page, N_("%(item)s is in the stash."), item=item.name)
        model = row_by_id(page.session, CompanyModel, item.model_id)
        label = service.labels_of(page.session, [model.id]).get(model.id, "") if model else ""
        return _back(page, N_("%(item)s given to %(model)s."), item=item.name, model=label)

    return page_action(
        page,
        lambda: service.assign_item(page.session, actor=page.user, campaign_id=page.cid, item_id=iid, model_id=model_id),
        again=partial(_company_page, page),
        done=done,
    )


@router.post("/campaigns/{cid}/company/models/{mid}/name")
def name_model(mid: PathId, page: CampaignPage):
    """Issue 29: the player's own name for a model; an empty one gives back "Ax 2"."""
    body, errors = validate(page.request, ModelNameIn, {"given_name": None, **typed(page.form, "given_name")}, LABELS)
    if errors:
        return _company_page(page, status_code=422, error=unplaced(errors))

    def done(model):
        label = service.labels_of(page.session, [model.id])[model.id]
        return page.redirect(f"/campaigns/{page.cid}/company#m{model.id}", N_("The model is now called %(name)s."), name=label)

    return page_action(
        page,
        lambda: service.name_model(page.session, actor=page.user, campaign_id=page.cid, model_id=mid, given_name=body.given_name),
        again=partial(_company_page, page),
        done=done,
    )


# --- shop ----------------------------------------------------------------------------


def _shop_page(page: CampaignContext, type_: str = "", q: str = "", status_code=200, **extra):
    catalog = page.catalog
    viewer, view = service.view_for(page.session, page.viewer)
    campaign = viewer.campaign
    faction = view.company.faction if view.company else None
    needle = q.strip().lower()
    profiles = [
        p
        for p in (catalog.faction_profiles(faction) if faction else [])
        if (not type_ or type_ in p.types) and (not needle or needle in p.name.lower())
    ]
    held = {m.profile_key for m in view.models}
    owned: dict[str, int] = {}
    for m in view.models:
        owned[m.profile_key] = owned.get(m.profile_key, 0) + 1
    items = sorted(
        (i for i in catalog.items.values() if i.rarity != "Unique" and (not needle or needle in i.name.lower())),
        key=lambda i: (i.slot, i.points, i.name),
    )
    return render(
        page.request,
        "companies/shop.html",
        status_code=status_code,
        viewer=viewer,
        campaign=campaign,
        view=view,
        catalog=catalog,
        faction=catalog.factions.get(faction) if faction else None,
        profiles=profiles,
        items=items,
        groups=rules.shop_groups(profiles, owned),
        held=held,
        type_=type_,
        q=q,
        types=list(rules.SHOP_TYPE_ORDER),
        shop_is_open=shop_open(campaign.status, campaign.phase),
        gpp=campaign.gold_per_point,
        tab="company",
        **extra,
    )


@router.get("/campaigns/{cid}/shop")
def shop(page: CampaignPage, type: str = Query("", max_length=20), q: str = Query("", max_length=80)):
    return _shop_page(page, type, q)


def _buy(page: CampaignContext, schema, action, anchor):
    """R3.2: a purchase answers 303 back to the shop with the same filter, at the card
    bought (so a refresh buys nothing and the page does not jump to the top). `schema` is
    the API's input of the purchase; `action(body)` buys, `anchor(body)` is the card."""
    shop, shop_errors = validate(page.request, ShopForm, typed(page.form, "type", "q"), LABELS)
    type_, q = (shop.type, shop.q) if shop else ("", "")
    body, errors = validate(page.request, schema, typed(page.form, "profile", "item"), LABELS)
    if errors or shop_errors:
        return _shop_page(page, type_, q, status_code=422, error=unplaced({**shop_errors, **errors}))
    query = urlencode({k: v for k, v in (("type", type_), ("q", q)) if v})
    url = f"/campaigns/{page.cid}/shop" + (f"?{query}" if query else "") + f"#{anchor(body)}"
    return page_action(
        page,
        lambda: action(body),
        again=partial(_shop_page, page, type_, q),
        done=lambda bought: page.redirect(url, N_("Bought %(name)s for %(n)s gold."), name=bought.name, n=bought.price),
    )


@router.post("/campaigns/{cid}/shop/models")
def buy_model(page: CampaignPage):
    return _buy(
        page,
        BuyModelIn,
        lambda body: service.buy_model(
            page.session, actor=page.user, campaign_id=page.cid, profile_key=body.profile, catalog=page.catalog
        ),
        lambda body: f"p-{body.profile}",
    )


@router.post("/campaigns/{cid}/shop/items")
def buy_item(page: CampaignPage):
    return _buy(
        page,
        BuyItemIn,
        lambda body: service.buy_item(
            page.session, actor=page.user, campaign_id=page.cid, item_key=body.item, catalog=page.catalog
        ),
        lambda body: f"i-{body.item}",
    )


# --- the GM's view: companies, rewards, ledgers -------------------------------------------


def _companies_page(page: CampaignContext, selected, status_code=200, **extra):
    """Every player's gold is on this page: the GM's eyes only, also when a form failed."""
    viewer = gm_campaign(page.session, actor=page.user, campaign_id=page.cid)
    return render(
        page.request,
        "companies/companies.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        players=campaigns.players(page.session, page.cid, viewer),
        catalog=page.catalog,
        selected=selected,
        tab="company",
        **extra,
    )


@router.get("/campaigns/{cid}/companies")
def companies(page: CampaignPage, player_id: int | None = QueryId()):
    return _companies_page(page, player_id)


@router.post("/campaigns/{cid}/rewards")
def reward(page: CampaignPage):
    """Every problem next to its field; the choices made stay chosen."""
    data = typed(page.form, "player_id", "item", "profile")
    body, errors = validate(page.request, RewardIn, blank_to_none(data), LABELS)
    if errors:
        return _companies_page(page, None, status_code=422, reward_errors=errors, reward_form=data)
    player_id = body.player_id

    def done(granted):
        nickname = campaigns.nicknames(page.session, page.cid).get(player_id, "")
        return page.redirect(
            f"/campaigns/{page.cid}/company?player_id={player_id}",
            N_("Reward granted to %(nickname)s: %(name)s."),
            nickname=nickname,
            name=granted.name,
        )

    return page_action(
        page,
        lambda: service.grant_reward(
            page.session,
            actor=page.user,
            campaign_id=page.cid,
            player_id=player_id,
            catalog=page.catalog,
            item_key=body.item,
            profile_key=body.profile,
        ),
        again=partial(_companies_page, page, player_id, reward_form=data),
        done=done,
    )
