"""Warband pages: my warbands, the builder with a live check, sending and cancelling
orders, and the round's orders as the viewer may see them."""
from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import service as campaigns
from app.catalog.deps import CatalogDep
from app.companies import service as companies
from app.core.errors import DomainError
from app.core.forms import Form, int_field, refusal, see_other
from app.core.templating import render, request_gettext
from app.events import service as events
from app.maps import service as maps
from app.visibility import orders_public, viewer_for, visible_orders
from app.warbands import rules as warband_rules, service
from app.warbands.models import Warband

router = APIRouter()


def _builder(request, session, user, cid, catalog, warband_id=None, model_ids=None, mercenary=None, name="",
             status_code=200, partial=False, **extra):
    viewer, view = companies.view(session, actor=user, campaign_id=cid)
    elsewhere = {mid: wname for mid, (wid, wname) in service.memberships(session, view.player.id).items() if wid != warband_id}
    if warband_id is not None:
        warband, current = service.own_warband(session, view.player.id, warband_id)
        if model_ids is None:
            model_ids, mercenary, name = current, warband.mercenary_key, warband.name
    model_ids = model_ids or []
    total, found = service.preview(session, actor=user, campaign_id=cid, model_ids=[m for m in model_ids if m not in elsewhere],
                                   mercenary_key=mercenary, catalog=catalog, warband_id=warband_id)
    context = dict(
        viewer=viewer, campaign=viewer.campaign, view=view, catalog=catalog, selected=set(model_ids), elsewhere=elsewhere,
        mercenary=mercenary, name=name, warband_id=warband_id, points=total, limit=viewer.campaign.warband_points,
        problems=service.problem_details(found, request_gettext(request)),
        gpp=viewer.campaign.gold_per_point, building=warband_rules.building_open(viewer.campaign.status, viewer.campaign.phase),
        tab="warbands", **extra,
    )
    template = "warbands/_check.html" if partial else "warbands/builder.html"
    return render(request, template, status_code=status_code, **context)


def _ids(form) -> list[int]:
    return [i for i in (int_field(v) for v in form.getlist("model_ids")) if i is not None]


@router.get("/campaigns/{cid}/warbands")
def warbands(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _list_page(request, session, user, cid, catalog)


def _list_page(request, session, user, cid, catalog, status_code=200, **extra):
    viewer, views = service.list_warbands(session, actor=user, campaign_id=cid, catalog=catalog)
    labels = maps.place_labels(maps.places(session, cid))
    event_titles = {e.id: e.title for e in events.active_events(session, viewer.campaign)}
    return render(request, "warbands/warbands.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
                  views=views, labels=labels, event_titles=event_titles, catalog=catalog,
                  building=warband_rules.building_open(viewer.campaign.status, viewer.campaign.phase),
                  problems={v.warband.id: service.problem_details(v.problems, request_gettext(request)) for v in views},
                  tab="warbands", **extra)


@router.get("/campaigns/{cid}/warbands/new")
def new_warband(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _builder(request, session, user, cid, catalog)


@router.get("/campaigns/{cid}/warbands/{wid}/edit")
def edit_warband(cid: int, wid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _builder(request, session, user, cid, catalog, warband_id=wid)


@router.post("/campaigns/{cid}/warbands/check")
def check(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    """The builder's live check (an htmx partial; without JavaScript, the whole builder)."""
    return _builder(request, session, user, cid, catalog, warband_id=int_field(form.get("warband_id")), model_ids=_ids(form),
                    mercenary=str(form.get("mercenary") or "") or None, name=str(form.get("name", "")),
                    partial=bool(request.headers.get("hx-request")))


@router.post("/campaigns/{cid}/warbands/save")
def save(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    warband_id = int_field(form.get("warband_id"))
    name = str(form.get("name", "")).strip()
    mercenary = str(form.get("mercenary") or "") or None
    model_ids = _ids(form)
    try:
        if not name:
            raise DomainError("field_required")
        if warband_id is None:
            service.create_warband(session, actor=user, campaign_id=cid, name=name, model_ids=model_ids,
                                   mercenary_key=mercenary, catalog=catalog, gettext=request_gettext(request))
        else:
            service.update_warband(session, actor=user, campaign_id=cid, warband_id=warband_id, catalog=catalog,
                                   gettext=request_gettext(request), name=name, model_ids=model_ids, mercenary_key=mercenary)
    except DomainError as exc:
        message = refusal(request, session, exc)
        return _builder(request, session, user, cid, catalog, warband_id=warband_id, model_ids=model_ids, mercenary=mercenary,
                        name=name, status_code=exc.status, error=message)
    return see_other(f"/campaigns/{cid}/warbands")


def _list_action(request, session, user, cid, catalog, action, done=None):
    try:
        action()
    except DomainError as exc:
        return _list_page(request, session, user, cid, catalog, status_code=exc.status, error=refusal(request, session, exc))
    return see_other(done or f"/campaigns/{cid}/warbands")


@router.post("/campaigns/{cid}/warbands/{wid}/disband")
def disband(cid: int, wid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _list_action(request, session, user, cid, catalog, lambda: service.disband(session, actor=user, campaign_id=cid, warband_id=wid))


# --- orders --------------------------------------------------------------------------


def _send_page(request, session, user, cid, catalog, wid, status_code=200, **extra):
    viewer = viewer_for(session, user, cid)
    warband = session.get(Warband, wid)
    if warband is None or viewer.player is None or warband.player_id != viewer.player.id:
        raise DomainError("not_found")
    campaign = viewer.campaign
    places = maps.places(session, cid)
    by_place = events.events_by_place(session, campaign)
    reachable = service.destinations(session, campaign, viewer.player.id)
    open_events = [e for e in events.active_events(session, campaign) if reachable is None or e.place_id in reachable]
    free_places = [p for p in places if not by_place.get(p.id) and (reachable is None or p.id in reachable)]
    return render(request, "warbands/send.html", status_code=status_code, viewer=viewer, campaign=campaign, warband=warband,
                  open_events=open_events, free_places=free_places, labels=maps.place_labels(places),
                  fee=warband.mercenary_points * campaign.gold_per_point, tab="warbands", **extra)


@router.get("/campaigns/{cid}/send")
def choose_warband(cid: int, warband: int = Query(...), event: int | None = Query(None), place: int | None = Query(None)):
    """The map sheet's "Send" form: on to the chosen warband's send page."""
    query = f"event={event}" if event is not None else (f"place={place}" if place is not None else "")
    return see_other(f"/campaigns/{cid}/warbands/{warband}/send" + (f"?{query}" if query else ""))


@router.get("/campaigns/{cid}/warbands/{wid}/send")
def send_page(cid: int, wid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
              event: int | None = Query(None), place: int | None = Query(None)):
    return _send_page(request, session, user, cid, catalog, wid, chosen_event=event, chosen_place=place)


@router.post("/campaigns/{cid}/warbands/{wid}/send")
def send(cid: int, wid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    target = str(form.get("target", ""))
    kind, _sep, raw = target.partition(":")
    number = int_field(raw)
    try:
        if number is None or kind not in ("event", "place"):
            raise DomainError("order_destination")
        service.send(session, actor=user, campaign_id=cid, warband_id=wid, catalog=catalog, gettext=request_gettext(request),
                     event_id=number if kind == "event" else None, place_id=number if kind == "place" else None)
    except DomainError as exc:
        message = refusal(request, session, exc)
        details = [d["message"] for d in exc.details]
        return _send_page(request, session, user, cid, catalog, wid, status_code=exc.status, error=message, details=details)
    return see_other(f"/campaigns/{cid}/warbands")


@router.post("/campaigns/{cid}/warbands/{wid}/cancel")
def cancel(cid: int, wid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    done = f"/campaigns/{cid}/orders" if form.get("from") == "orders" else None
    return _list_action(request, session, user, cid, catalog,
                        lambda: service.cancel(session, actor=user, campaign_id=cid, warband_id=wid), done)


@router.get("/campaigns/{cid}/orders")
def orders(cid: int, request: Request, user: PageLogin, session: SessionDep):
    viewer = viewer_for(session, user, cid)
    campaign = viewer.campaign
    rows = visible_orders(session, viewer, campaign.round)
    warbands_ = service.warbands_by_id(session, [o.warband_id for o in rows])
    nicknames = {p.player_id: p.nickname for p in campaigns.players(session, cid)}
    event_titles = {e.id: e.title for e in events.active_events(session, campaign)}
    return render(request, "warbands/orders.html", viewer=viewer, campaign=campaign, orders=rows, warbands=warbands_,
                  nicknames=nicknames, labels=maps.place_labels(maps.places(session, cid)), event_titles=event_titles,
                  public=orders_public(campaign, campaign.round), tab="orders")
