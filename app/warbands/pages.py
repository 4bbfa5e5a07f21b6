"""Warband pages: my warbands, the builder with a live check, sending and cancelling
orders, and the round's orders as the viewer may see them."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter

from app.campaigns import service as campaigns
from app.campaigns.deps import CampaignPage
from app.campaigns.rules import orders_public
from app.core.errors import N_, DomainError, detail_messages
from app.core.forms import confirmed, see_other, typed, unplaced, validate
from app.core.page_actions import page_action
from app.core.templating import render
from app.core.types import PathId, QueryId
from app.events import service as events
from app.maps import reading as map_reading
from app.versions.remembered import remembered
from app.warbands import orders as warband_orders
from app.warbands import service
from app.warbands.models import Warband
from app.warbands.schemas import SendForm, TakeOutForm, WarbandCheckForm, WarbandForm
from app.warbands.undo import undone_this_round
from app.warbands.warbands_view import LABELS, PLACED, builder_page, list_page, read_builder, send_page

router = APIRouter()


@router.get("/campaigns/{cid}/warbands")
def warbands(page: CampaignPage):
    return list_page(page)


@router.get("/campaigns/{cid}/warbands/new")
def new_warband(page: CampaignPage):
    return builder_page(page)


@router.get("/campaigns/{cid}/warbands/{wid}/edit")
def edit_warband(wid: PathId, page: CampaignPage):
    return builder_page(page, warband_id=wid)


@router.post("/campaigns/{cid}/warbands/check")
def check(page: CampaignPage):
    """The builder's live check (an htmx partial; without JavaScript, the whole builder)."""
    _body, errors, shown = read_builder(page.request, page.form, WarbandCheckForm)
    refused = dict(status_code=422, errors=errors, error=unplaced(errors, *PLACED)) if errors else {}
    return builder_page(page, **shown, partial=bool(page.request.headers.get("hx-request")), **refused)


@router.post("/campaigns/{cid}/warbands/save")
def save(page: CampaignPage):
    """Every problem next to its field (a name too long for its column too), what was typed
    kept; the builder lists the warband's own problems as well."""
    body, errors, shown = read_builder(page.request, page.form, WarbandForm)
    if errors:
        return builder_page(page, **shown, status_code=422, errors=errors, error=unplaced(errors, *PLACED))
    session, user, cid, catalog = page.session, page.user, page.cid, page.catalog

    def store():
        if body.warband_id is None:
            return service.create_warband(
                session,
                actor=user,
                campaign_id=cid,
                name=body.name,
                model_ids=body.model_ids,
                mercenary_key=body.mercenary,
                catalog=catalog,
                location_place_id=body.location_place_id,
            )
        return service.update_warband(
            session,
            actor=user,
            campaign_id=cid,
            warband_id=body.warband_id,
            catalog=catalog,
            name=body.name,
            model_ids=body.model_ids,
            mercenary_key=body.mercenary,
        )

    return page_action(
        page,
        store,
        again=lambda status_code, error: builder_page(page, **shown, status_code=status_code, error=error),
        done=lambda warband: page.redirect(
            f"/campaigns/{cid}/warbands#w{warband.id}", N_("Warband %(name)s saved."), name=warband.name
        ),
    )


def _warband_name(session, wid: PathId) -> str:
    """For the flash message only, shown after the service allowed the action."""
    warband = session.get(Warband, wid)
    return warband.name if warband is not None else ""


@router.post("/campaigns/{cid}/warbands/{wid}/disband")
def disband(wid: PathId, page: CampaignPage):
    name = _warband_name(page.session, wid)
    return page_action(
        page,
        lambda: service.disband(page.session, actor=page.user, campaign_id=page.cid, warband_id=wid),
        again=partial(list_page, page),
        done=lambda _none: page.redirect(f"/campaigns/{page.cid}/warbands", N_("Warband %(name)s disbanded."), name=name),
    )


@router.post("/campaigns/{cid}/warbands/{wid}/take-out")
def take_out(wid: PathId, page: CampaignPage):
    """R4.7: one tap takes a model that cannot fight out of its warband (from the list, or
    from the builder, which it reopens)."""
    form, cid = page.form, page.cid
    body, errors = validate(page.request, TakeOutForm, typed(form, "model_id"), {"model_id": N_("Models")})
    if errors:
        return list_page(page, status_code=422, error=unplaced(errors))
    builder = "builder" in (form.get("from"), page.request.query_params.get("from"))
    back = f"/campaigns/{cid}/warbands/{wid}/edit" if builder else f"/campaigns/{cid}/warbands#w{wid}"
    return page_action(
        page,
        lambda: service.take_out(page.session, actor=page.user, campaign_id=cid, warband_id=wid, model_id=body.model_id),
        again=partial(list_page, page),
        done=lambda taken: page.redirect(back, N_("%(model)s is out of %(warband)s."), model=taken[1], warband=taken[0]),
    )


# --- orders --------------------------------------------------------------------------


@router.get("/campaigns/{cid}/send")
def choose_warband(cid: PathId, warband: int = QueryId(...), event: int | None = QueryId(), place: int | None = QueryId()):
    """The map sheet's "Send" form: on to the chosen warband's send page."""
    query = f"event={event}" if event is not None else (f"place={place}" if place is not None else "")
    return see_other(f"/campaigns/{cid}/warbands/{warband}/send" + (f"?{query}" if query else ""))


@router.get("/campaigns/{cid}/warbands/{wid}/send")
def send_form(wid: PathId, page: CampaignPage, event: int | None = QueryId(), place: int | None = QueryId()):
    return send_page(page, wid, chosen_event=event, chosen_place=place)


# Sending is a one-way step (R4.6): the page's button and the confirm page say so.
CONFIRM_SEND = (
    N_("Send %(warband)s to %(where)s?"),
    N_("The warband is final for this round: only the game master can undo the order."),
    N_("Send the warband"),
)


@router.post("/campaigns/{cid}/warbands/{wid}/send")
def send(wid: PathId, page: CampaignPage):
    request, session, form, cid = page.request, page.session, page.form, page.cid
    body, errors = validate(request, SendForm, typed(form, "target"), LABELS)
    if errors:
        # One choice of radio buttons: its problem above them, said once.
        return send_page(page, wid, status_code=422, error=next(iter(errors.values())))
    target = body.order()
    try:
        sent = warband_orders.send(
            session,
            actor=page.user,
            campaign_id=cid,
            warband_id=wid,
            catalog=page.catalog,
            event_id=target.event_id,
            place_id=target.place_id,
        )
    except DomainError as exc:
        # Not page_action's answer: the refusal lists the models it is about (its details).
        message = page.refusal(exc)
        details = [d["message"] for d in detail_messages(exc.details, page.gettext)]
        if exc.code == "order_model_unavailable" and len(details) == 1:
            details = []  # the message itself names the one model and why
        return send_page(page, wid, status_code=exc.status, error=message, details=details)
    if not confirmed(form):
        # R4.6, R11.6: a sent warband is final for its owner; the send was only rehearsed.
        ask = page.ask(
            CONFIRM_SEND,
            cancel=f"/campaigns/{cid}/warbands/{wid}/send",
            tab="warbands",
            warband=sent.warband,
            where=sent.destination,
        )
        return page.confirm(ask)
    return page.redirect(
        f"/campaigns/{cid}/warbands#w{wid}", N_("%(warband)s sent to %(where)s."), warband=sent.warband, where=sent.destination
    )


@router.post("/campaigns/{cid}/warbands/{wid}/cancel")
def cancel(wid: PathId, page: CampaignPage):
    back = f"/campaigns/{page.cid}/orders" if page.form.get("from") == "orders" else f"/campaigns/{page.cid}/warbands"
    name = _warband_name(page.session, wid)
    return page_action(
        page,
        lambda: warband_orders.cancel(page.session, actor=page.user, campaign_id=page.cid, warband_id=wid),
        again=partial(list_page, page),
        done=lambda _order: page.redirect(back, N_("The order of %(warband)s is undone."), warband=name),
    )


@router.get("/campaigns/{cid}/orders")
def orders(page: CampaignPage):
    viewer = page.viewer
    rows, names, event_titles, away = remembered(
        page.session, viewer, "orders_page", None, partial(_orders_read, page.session, viewer)
    )
    nicknames = campaigns.nicknames_seen(page.session, viewer)
    return render(
        page.request,
        "warbands/orders.html",
        viewer=viewer,
        campaign=viewer.campaign,
        orders=rows,
        warband_names=names,
        nicknames=nicknames,
        labels=map_reading.labels_seen(page.session, viewer),
        event_titles=event_titles,
        public=orders_public(viewer.campaign, viewer.campaign.round),
        not_sent=warband_orders.not_sent_yet(viewer, rows, nicknames, away),
        tab="orders",
    )


def _orders_read(session, viewer) -> tuple:
    """What the orders page shows, read (rows, shown and never changed), and remembered while
    nothing the viewer may see has changed (app/versions/remembered.py)."""
    rows = warband_orders.orders_seen_by(session, viewer, rows=True).orders
    names = service.names_read_with(rows)
    titles = events.active_event_titles(session, viewer.campaign)
    return rows, names, titles, campaigns.away_now(session, viewer.campaign)


# --- the dashboard panel -------------------------------------------------------------------------


def dashboard_panel(session, viewer):
    """R5.5, R4.6: the player's orders undone this round, each with why (the GM undid it, or
    the event now refuses it); the same live events told them at the moment (one statement)."""
    undone = undone_this_round(session, viewer)
    return ("warbands/_dashboard.html", {"undone": undone}) if undone else None
