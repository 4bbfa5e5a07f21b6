"""Company, shop and the GM's rewards, phone first (R3.1-R3.9, R11.2)."""
from __future__ import annotations

from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request

from app.core.types import PathId, QueryId
from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import service as campaigns
from app.campaigns.rules import shop_open
from app.catalog.deps import CatalogDep
from app.catalog.names import TYPE_NAMES
from app.companies import service
from app.companies.models import CompanyModel
from app.core import flash
from app.core.errors import N_, DomainError
from app.companies.schemas import AssignIn, BuyItemIn, BuyModelIn, FactionIn, RewardIn, ShopForm
from app.core.forms import Form, blank_to_none, confirm_page, confirmed, refusal, see_other, typed, unplaced, validate
from app.core.templating import render, request_gettext
from app.gold import rules as gold_rules
from app.campaigns.service import campaign_of, gm_campaign

router = APIRouter()
LABELS = {"faction": N_("Faction"), "model_id": N_("Give to"), "profile": N_("Model"), "item": N_("Item"),
          "player_id": N_("Player"), "type": N_("Type"), "q": N_("Name")}


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
def company(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
            player_id: int | None = QueryId()):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    if viewer.is_gm and player_id is None:
        return see_other(f"/campaigns/{cid}/companies")
    return _company_page(request, session, user, cid, catalog, player_id)


def _act(request, session, user, cid, catalog, action, done):
    """Run a company action; `done(result)` answers (a redirect with a flash message, or
    the confirm step). A refusal shows the company page with the reason."""
    try:
        result = action()
    except DomainError as exc:
        return _company_page(request, session, user, cid, catalog, status_code=exc.status, error=refusal(request, session, exc))
    return done(result)


def _back(request, cid, message, **params):
    return flash.redirect(request, f"/campaigns/{cid}/company", message, **params)


@router.post("/campaigns/{cid}/company/faction")
def set_faction(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    body, errors = validate(request, FactionIn, typed(form, "faction"), LABELS)
    if errors:  # a choice of the list: said above the page
        return _company_page(request, session, user, cid, catalog, status_code=422, error=unplaced(errors))
    faction = body.faction
    name = catalog.factions[faction].name if faction in catalog.factions else faction
    return _act(request, session, user, cid, catalog,
                lambda: service.choose_faction(session, actor=user, campaign_id=cid, faction=faction, catalog=catalog),
                lambda _company: _back(request, cid, N_("Faction chosen: %(faction)s."), faction=name))


CONFIRM_COMPANY = N_("Confirm the company?")
CONFIRM_COMPANY_DETAIL = N_("The faction is then fixed, and selling a model or item returns only %(percent)s%% of its price. "
                            "This cannot be undone.")
CONFIRM_SELL = N_("Sell %(name)s for %(n)s gold back?")
CONFIRM_SELL_DETAIL = N_("The company is confirmed: a sale returns less than the price, and buying again costs the full price.")


def _ask(request, session, user, cid, form, **texts):
    """The confirm step without JavaScript, on the company tab (see core/forms.confirm_page)."""
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return confirm_page(request, session, form, cancel=f"/campaigns/{cid}/company", viewer=viewer,
                        campaign=viewer.campaign, tab="company", **texts)


@router.post("/campaigns/{cid}/company/confirm")
def confirm(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    """R3.5: one way; the page asks first (a dialog with JavaScript, a confirm page without)."""
    def done(_company):
        if not confirmed(form):
            gettext = request_gettext(request)
            percent = 100 - campaign_of(session, actor=user, campaign_id=cid).campaign.sale_loss_percent
            return _ask(request, session, user, cid, form, question=gettext(CONFIRM_COMPANY),
                        detail=gettext(CONFIRM_COMPANY_DETAIL) % {"percent": percent},
                        action=f"/campaigns/{cid}/company/confirm", button=gettext(N_("Confirm the company")))
        return _back(request, cid, N_("Company confirmed."))

    return _act(request, session, user, cid, catalog, lambda: service.confirm(session, actor=user, campaign_id=cid), done)


def _sell(request, session, user, cid, catalog, form, sell, path: str):
    """R3.4: selling after the company is confirmed loses gold, so the page asks first."""

    def done(sale: service.Sale):
        if sale.refund < sale.paid and not confirmed(form):
            gettext = request_gettext(request)
            return _ask(request, session, user, cid, form, question=gettext(CONFIRM_SELL) % {"name": sale.name, "n": sale.refund},
                        detail=gettext(CONFIRM_SELL_DETAIL), action=path,
                        button=gettext(N_("Sell for %(n)s gold")) % {"n": sale.refund})
        return _back(request, cid, N_("Sold %(name)s, %(n)s gold back."), name=sale.name, n=sale.refund)

    return _act(request, session, user, cid, catalog, sell, done)


@router.post("/campaigns/{cid}/company/models/{mid}/sell")
def sell_model(cid: PathId, mid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    return _sell(request, session, user, cid, catalog, form,
                 lambda: service.sell_model(session, actor=user, campaign_id=cid, model_id=mid),
                 f"/campaigns/{cid}/company/models/{mid}/sell")


@router.post("/campaigns/{cid}/company/items/{iid}/sell")
def sell_item(cid: PathId, iid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    return _sell(request, session, user, cid, catalog, form,
                 lambda: service.sell_item(session, actor=user, campaign_id=cid, item_id=iid),
                 f"/campaigns/{cid}/company/items/{iid}/sell")


@router.post("/campaigns/{cid}/company/items/{iid}/assign")
def assign_item(cid: PathId, iid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    body, errors = validate(request, AssignIn, blank_to_none({"model_id": None, **typed(form, "model_id")}), LABELS)
    if errors:
        return _company_page(request, session, user, cid, catalog, status_code=422, error=unplaced(errors))
    model_id = body.model_id

    def done(item):
        if item.model_id is None:
            return _back(request, cid, N_("%(item)s is in the stash."), item=item.name)
        model = session.get(CompanyModel, item.model_id)
        return _back(request, cid, N_("%(item)s given to %(model)s."), item=item.name, model=model.name if model else "")

    return _act(request, session, user, cid, catalog,
                lambda: service.assign_item(session, actor=user, campaign_id=cid, item_id=iid, model_id=model_id), done)


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
def shop(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
         type: str = Query("", max_length=20), q: str = Query("", max_length=80)):
    return _shop_page(request, session, user, cid, catalog, type, q)


def _buy(request, session, user, cid, catalog, form, schema, action, anchor):
    """R3.2: a purchase answers 303 back to the shop with the same filter, at the card
    bought (so a refresh buys nothing and the page does not jump to the top). `schema` is
    the API's input of the purchase; `action(body)` buys, `anchor(body)` is the card."""
    shop, shop_errors = validate(request, ShopForm, typed(form, "type", "q"), LABELS)
    type_, q = (shop.type, shop.q) if shop else ("", "")
    body, errors = validate(request, schema, typed(form, "profile", "item"), LABELS)
    if errors or shop_errors:
        return _shop_page(request, session, user, cid, catalog, type_, q, status_code=422, error=unplaced({**shop_errors, **errors}))
    try:
        bought = action(body)
    except DomainError as exc:
        return _shop_page(request, session, user, cid, catalog, type_, q, status_code=exc.status, error=refusal(request, session, exc))
    query = urlencode({k: v for k, v in (("type", type_), ("q", q)) if v})
    url = f"/campaigns/{cid}/shop" + (f"?{query}" if query else "") + f"#{anchor(body)}"
    return flash.redirect(request, url, N_("Bought %(name)s for %(n)s gold."), name=bought.name, n=bought.price)


@router.post("/campaigns/{cid}/shop/models")
def buy_model(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    return _buy(request, session, user, cid, catalog, form, BuyModelIn,
                lambda body: service.buy_model(session, actor=user, campaign_id=cid, profile_key=body.profile, catalog=catalog),
                lambda body: f"p-{body.profile}")


@router.post("/campaigns/{cid}/shop/items")
def buy_item(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    return _buy(request, session, user, cid, catalog, form, BuyItemIn,
                lambda body: service.buy_item(session, actor=user, campaign_id=cid, item_key=body.item, catalog=catalog),
                lambda body: f"i-{body.item}")


# --- the GM's view: companies, rewards, ledgers -------------------------------------------


def _companies_page(request, session, user, cid, catalog, selected, status_code=200, **extra):
    """Every player's gold is on this page: the GM's eyes only, also when a form failed."""
    viewer = gm_campaign(session, actor=user, campaign_id=cid)
    return render(request, "companies/companies.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
                  players=campaigns.players(session, cid, viewer), catalog=catalog, selected=selected, tab="company", **extra)


@router.get("/campaigns/{cid}/companies")
def companies(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
              player_id: int | None = QueryId()):
    return _companies_page(request, session, user, cid, catalog, player_id)


@router.post("/campaigns/{cid}/rewards")
def reward(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    """Every problem next to its field; the choices made stay chosen."""
    data = typed(form, "player_id", "item", "profile")
    body, errors = validate(request, RewardIn, blank_to_none(data), LABELS)
    if errors:
        return _companies_page(request, session, user, cid, catalog, None, status_code=422, reward_errors=errors, reward_form=data)
    try:
        granted = service.grant_reward(session, actor=user, campaign_id=cid, player_id=body.player_id, catalog=catalog,
                                       item_key=body.item, profile_key=body.profile)
    except DomainError as exc:
        message = refusal(request, session, exc)
        return _companies_page(request, session, user, cid, catalog, body.player_id, status_code=exc.status, error=message,
                               reward_form=data)
    player_id = body.player_id
    nickname = next((p.nickname for p in campaigns.players(session, cid) if p.player_id == player_id), "")
    return flash.redirect(request, f"/campaigns/{cid}/company?player_id={player_id}",
                          N_("Reward granted to %(nickname)s: %(name)s."), nickname=nickname, name=granted.name)
