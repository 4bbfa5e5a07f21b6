"""Warband pages: my warbands, the builder with a live check, sending and cancelling
orders, and the round's orders as the viewer may see them."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.core.types import PathId, QueryId
from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import service as campaigns
from app.catalog.deps import CatalogDep
from app.companies import service as companies
from app.core import flash
from app.core.errors import DomainError, N_, detail_messages
from app.core.forms import Form, blank_to_none, refusal, see_other, typed, unplaced, validate
from app.core.templating import render, request_gettext
from app.events import service as events
from app.maps import service as maps
from app.movement import service as movement
from app.warbands import rules as warband_rules, service
from app.warbands.models import Warband
from app.warbands.schemas import SendForm, WarbandCheckForm, WarbandForm
from app.campaigns.service import campaign_of

router = APIRouter()
# Each field's label, so that a problem names its field ("Name: This value is too long (at most 80).").
LABELS = {"name": N_("Name"), "model_ids": N_("Models"), "mercenary": N_("Mercenary"), "warband_id": N_("Warband"),
          "kind": N_("Destination"), "number": N_("Destination"), "location_place_id": N_("Gathers at")}
PLACED = ("name", "model_ids", "mercenary", "location_place_id")  # the builder's fields with their problem next to them


def _positions(session, campaign, player_id: int | None) -> dict:
    """With the movement module (R9.8): the player's hideouts, for saying where a warband
    gathers or stands. Nothing (and no statement) when it is off."""
    if not movement.on(campaign) or player_id is None:
        return {"moving": False, "hideouts": []}
    return {"moving": True, "hideouts": movement.hideouts_of(session, player_id)}


def _id_or_none(value) -> int | None:
    """What the builder shows again of a posted hideout choice (the schema checks it on Save)."""
    return int(value) if isinstance(value, str) and value.isdigit() and len(value) < 10 else None


def _builder(request, session, user, cid, catalog, warband_id=None, model_ids=None, mercenary=None, name="",
             location_place_id=None, status_code=200, partial=False, **extra):
    viewer, view = companies.view(session, actor=user, campaign_id=cid)
    elsewhere = {mid: wname for mid, (wid, wname) in service.memberships(session, view.player.id).items() if wid != warband_id}
    warband = None
    if warband_id is not None:
        warband, current = service.own_warband(session, view.player.id, warband_id)
        if model_ids is None:
            model_ids, mercenary, name = current, warband.mercenary_key, warband.name
    model_ids = model_ids or []
    total, found = service.preview(session, actor=user, campaign_id=cid, model_ids=[m for m in model_ids if m not in elsewhere],
                                   mercenary_key=mercenary, catalog=catalog, warband_id=warband_id)
    context = dict(
        viewer=viewer, campaign=viewer.campaign, view=view, catalog=catalog, selected=set(model_ids), elsewhere=elsewhere,
        mercenary=mercenary, name=name, warband_id=warband_id, points=total, limit=service.warband_limit(session, viewer.campaign, view.player.id),
        problems=detail_messages(service.problem_details(found), request_gettext(request)),
        gpp=viewer.campaign.gold_per_point, building=warband_rules.building_open(viewer.campaign.status, viewer.campaign.phase),
        tab="warbands", **extra,
    )
    if not partial:
        # R9.8: a new warband gathers in a hideout (the player picks which); one away from a
        # hideout keeps its roster until it is back in one.
        context.update(_positions(session, viewer.campaign, view.player.id), stands=warband.location_place_id if warband else None)
        if context["moving"]:
            context["labels"] = maps.labels(session, cid)
            if warband is None:
                hideouts = context["hideouts"]
                context["gather"] = location_place_id if location_place_id in hideouts else next(iter(hideouts), None)
    template = "warbands/_check.html" if partial else "warbands/builder.html"
    return render(request, template, status_code=status_code, **context)


def _read(request, form, schema):
    """The builder's form checked by `schema`: (the form, errors by field, what to show
    again). A refused form shows again what was valid of it: its fields without a problem."""
    names = ("warband_id", "name", "mercenary") + (("location_place_id",) if schema is WarbandForm else ())
    data = blank_to_none(typed(form, *names, lists=("model_ids",)))
    body, errors = validate(request, schema, data, LABELS)
    shown = body
    if errors:
        shown, _ = validate(request, WarbandCheckForm, {k: v for k, v in data.items() if k not in errors})
    kept = dict(warband_id=shown.warband_id, model_ids=shown.model_ids, mercenary=shown.mercenary) if shown else {}
    return body, errors, dict(kept, name=data.get("name") or "", location_place_id=_id_or_none(form.get("location_place_id")))


@router.get("/campaigns/{cid}/warbands")
def warbands(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _list_page(request, session, user, cid, catalog)


def _list_page(request, session, user, cid, catalog, status_code=200, **extra):
    viewer, views = service.list_warbands(session, actor=user, campaign_id=cid, catalog=catalog)
    labels = maps.labels(session, cid)
    event_titles = {e.id: e.title for e in events.active_events(session, viewer.campaign)}
    return render(request, "warbands/warbands.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
                  views=views, limit=service.warband_limit(session, viewer.campaign, viewer.player.id) if viewer.player else viewer.campaign.warband_points, labels=labels, event_titles=event_titles, catalog=catalog,
                  building=warband_rules.building_open(viewer.campaign.status, viewer.campaign.phase),
                  problems={v.warband.id: detail_messages(service.problem_details(v.problems), request_gettext(request)) for v in views},
                  tab="warbands", **_positions(session, viewer.campaign, viewer.player.id if viewer.player and views else None),
                  **extra)


@router.get("/campaigns/{cid}/warbands/new")
def new_warband(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _builder(request, session, user, cid, catalog)


@router.get("/campaigns/{cid}/warbands/{wid}/edit")
def edit_warband(cid: PathId, wid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _builder(request, session, user, cid, catalog, warband_id=wid)


@router.post("/campaigns/{cid}/warbands/check")
def check(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    """The builder's live check (an htmx partial; without JavaScript, the whole builder)."""
    _body, errors, shown = _read(request, form, WarbandCheckForm)
    refused = dict(status_code=422, errors=errors, error=unplaced(errors, *PLACED)) if errors else {}
    return _builder(request, session, user, cid, catalog, **shown, partial=bool(request.headers.get("hx-request")), **refused)


@router.post("/campaigns/{cid}/warbands/save")
def save(cid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    """Every problem next to its field (a name too long for its column too), what was typed
    kept; the builder lists the warband's own problems as well."""
    body, errors, shown = _read(request, form, WarbandForm)
    if errors:
        return _builder(request, session, user, cid, catalog, **shown, status_code=422, errors=errors, error=unplaced(errors, *PLACED))
    try:
        if body.warband_id is None:
            warband = service.create_warband(session, actor=user, campaign_id=cid, name=body.name, model_ids=body.model_ids,
                                             mercenary_key=body.mercenary, catalog=catalog, location_place_id=body.location_place_id)
        else:
            warband = service.update_warband(session, actor=user, campaign_id=cid, warband_id=body.warband_id, catalog=catalog,
                                             name=body.name, model_ids=body.model_ids, mercenary_key=body.mercenary)
    except DomainError as exc:
        message = refusal(request, session, exc)
        return _builder(request, session, user, cid, catalog, **shown, status_code=exc.status, error=message)
    return flash.redirect(request, f"/campaigns/{cid}/warbands#w{warband.id}", N_("Warband %(name)s saved."), name=warband.name)


def _list_action(request, session, user, cid, catalog, action, done, message, **params):
    try:
        action()
    except DomainError as exc:
        return _list_page(request, session, user, cid, catalog, status_code=exc.status, error=refusal(request, session, exc))
    return flash.redirect(request, done, message, **params)


def _warband_name(session, wid: PathId) -> str:
    """For the flash message only, shown after the service allowed the action."""
    warband = session.get(Warband, wid)
    return warband.name if warband is not None else ""


@router.post("/campaigns/{cid}/warbands/{wid}/disband")
def disband(cid: PathId, wid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    name = _warband_name(session, wid)
    return _list_action(request, session, user, cid, catalog, lambda: service.disband(session, actor=user, campaign_id=cid, warband_id=wid),
                        f"/campaigns/{cid}/warbands", N_("Warband %(name)s disbanded."), name=name)


# --- orders --------------------------------------------------------------------------


def _send_page(request, session, user, cid, catalog, wid, status_code=200, **extra):
    viewer, warband = service.warband_to_send(session, actor=user, campaign_id=cid, warband_id=wid)
    campaign = viewer.campaign
    places = maps.places(session, cid)
    by_place = events.events_by_place(session, campaign)
    # R9.8: with movement, only the moves from where the warband stands (one path step with
    # paths); staying is not sending, so its own place is offered only for an event there.
    moves = movement.allowed_places(session, campaign, warband)
    reachable = service.destinations(session, campaign, viewer.player.id) if moves is None else moves
    open_events = [e for e in events.active_events(session, campaign) if reachable is None or e.place_id in reachable]
    free_places = [p for p in places if not by_place.get(p.id) and (reachable is None or p.id in reachable)
                   and (moves is None or p.id != warband.location_place_id)]
    return render(request, "warbands/send.html", status_code=status_code, viewer=viewer, campaign=campaign, warband=warband,
                  moving=moves is not None, open_events=open_events, free_places=free_places, labels=maps.place_labels(places),
                  fee=warband.mercenary_points * campaign.gold_per_point, tab="warbands", **extra)


@router.get("/campaigns/{cid}/send")
def choose_warband(cid: PathId, warband: int = QueryId(...), event: int | None = QueryId(), place: int | None = QueryId()):
    """The map sheet's "Send" form: on to the chosen warband's send page."""
    query = f"event={event}" if event is not None else (f"place={place}" if place is not None else "")
    return see_other(f"/campaigns/{cid}/warbands/{warband}/send" + (f"?{query}" if query else ""))


@router.get("/campaigns/{cid}/warbands/{wid}/send")
def send_page(cid: PathId, wid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
              event: int | None = QueryId(), place: int | None = QueryId()):
    return _send_page(request, session, user, cid, catalog, wid, chosen_event=event, chosen_place=place)


@router.post("/campaigns/{cid}/warbands/{wid}/send")
def send(cid: PathId, wid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    body, errors = validate(request, SendForm, typed(form, "target"), LABELS)
    if errors:
        # One choice of radio buttons: its problem above them, said once.
        return _send_page(request, session, user, cid, catalog, wid, status_code=422, error=next(iter(errors.values())))
    target = body.order()
    try:
        order = service.send(session, actor=user, campaign_id=cid, warband_id=wid, catalog=catalog,
                             event_id=target.event_id, place_id=target.place_id)
    except DomainError as exc:
        message = refusal(request, session, exc)
        details = [d["message"] for d in detail_messages(exc.details, request_gettext(request))]
        return _send_page(request, session, user, cid, catalog, wid, status_code=exc.status, error=message, details=details)
    where = maps.labels(session, cid).get(order.place_id, "")
    if order.event_id is not None:
        event = next((e for e in events.active_events(session, campaign_of(session, actor=user, campaign_id=cid).campaign) if e.id == order.event_id), None)
        where = f"{event.title} · {where}" if event else where
    return flash.redirect(request, f"/campaigns/{cid}/warbands#w{wid}", N_("%(warband)s sent to %(where)s."),
                          warband=_warband_name(session, wid), where=where)


@router.post("/campaigns/{cid}/warbands/{wid}/cancel")
def cancel(cid: PathId, wid: PathId, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    done = f"/campaigns/{cid}/orders" if form.get("from") == "orders" else f"/campaigns/{cid}/warbands"
    name = _warband_name(session, wid)
    return _list_action(request, session, user, cid, catalog,
                        lambda: service.cancel(session, actor=user, campaign_id=cid, warband_id=wid), done,
                        N_("The order of %(warband)s is undone."), warband=name)


@router.get("/campaigns/{cid}/orders")
def orders(cid: PathId, request: Request, user: PageLogin, session: SessionDep):
    seen = service.orders_seen(session, actor=user, campaign_id=cid)
    viewer, campaign, rows = seen.viewer, seen.viewer.campaign, seen.orders
    warbands_ = service.warbands_by_id(session, [o.warband_id for o in rows])
    nicknames = {p.player_id: p.nickname for p in campaigns.players(session, cid)}
    event_titles = {e.id: e.title for e in events.active_events(session, campaign)}
    return render(request, "warbands/orders.html", viewer=viewer, campaign=campaign, orders=rows, warbands=warbands_,
                  nicknames=nicknames, labels=maps.labels(session, cid), event_titles=event_titles,
                  public=seen.public, not_sent=service.not_sent_yet(viewer, rows, nicknames),
                  tab="orders")
