"""The warband pages as the forms draw them again (R4.1-R4.7, R9.8): the builder and its live
check, the list of my warbands, and a warband's send page."""

from __future__ import annotations

from app.campaigns import service as campaigns
from app.campaigns.deps import CampaignContext
from app.companies import service as companies
from app.core.errors import N_, detail_messages, message_for
from app.core.forms import blank_to_none, typed, validate
from app.core.templating import render, request_gettext
from app.events import service as events
from app.maps import rules as map_rules
from app.maps import service as maps
from app.maps.reading import hideout_holders
from app.movement import service as movement
from app.warbands import orders as warband_orders
from app.warbands import rules as warband_rules
from app.warbands import service
from app.warbands.schemas import WarbandCheckForm, WarbandForm

# Each field's label, so that a problem names its field ("Name: This value is too long (at most 80).").
LABELS = {
    "name": N_("Name"),
    "model_ids": N_("Models"),
    "mercenary": N_("Mercenary"),
    "warband_id": N_("Warband"),
    "kind": N_("Destination"),
    "number": N_("Destination"),
    "location_place_id": N_("Gathers at"),
}
PLACED = ("name", "model_ids", "mercenary", "location_place_id")  # the builder's fields with their problem next to them


def positions(session, campaign, player_id: int | None) -> dict:
    """With the movement module (R9.8): the player's hideouts, for saying where a warband
    gathers or stands. Nothing (and no statement) when it is off."""
    if not movement.on(campaign) or player_id is None:
        return {"moving": False, "hideouts": []}
    return {"moving": True, "hideouts": movement.hideouts_of(session, player_id)}


def unfit(request, members, labels: dict[int, str] | None = None) -> dict[int, str]:
    """R4.7: model id -> why it cannot fight ("Greatax misses the next battle"), shown where
    the warband is built and listed rather than discovered at Send; a company's models are
    named by `labels` (issue 29: "Ax 2")."""
    gettext = request_gettext(request)
    labels = labels or {}
    return {
        (mid := m.model_id if hasattr(m, "model_id") else m.id): message_for(
            warband_rules.unfit_code(m.status), {"model": labels.get(mid, m.name)}, gettext
        )
        for m in members
        if m.status != "ready"
    }


def _id_or_none(value) -> int | None:
    """What the builder shows again of a posted hideout choice (the schema checks it on Save)."""
    return int(value) if isinstance(value, str) and value.isdigit() and len(value) < 10 else None


def builder_page(
    page: CampaignContext,
    warband_id=None,
    model_ids=None,
    mercenary=None,
    name="",
    location_place_id=None,
    status_code=200,
    partial=False,
    **extra,
):
    """The builder (or, `partial`, its live check): the warband `warband_id` or a new one, with
    the models, mercenary and name shown (a refused form's, or the saved ones)."""
    request, session, catalog = page.request, page.session, page.catalog
    viewer, view = companies.view_for(session, page.viewer)
    elsewhere = {mid: wname for mid, (wid, wname) in service.memberships(session, view.player.id).items() if wid != warband_id}
    warband, current = None, []
    if warband_id is not None:
        warband, current = service.own_warband(session, view.player.id, warband_id)
        if model_ids is None:
            model_ids, mercenary, name = current, warband.mercenary_key, warband.name
    model_ids = model_ids or []
    total, found = service.preview_for(
        session, viewer, [m for m in model_ids if m not in elsewhere], mercenary, catalog, warband_id=warband_id
    )
    context = dict(
        viewer=viewer,
        campaign=viewer.campaign,
        view=view,
        catalog=catalog,
        selected=set(model_ids),
        elsewhere=elsewhere,
        mercenary=mercenary,
        name=name,
        warband_id=warband_id,
        points=total,
        limit=service.own_warband_limit(session, viewer),
        problems=detail_messages(service.problem_details(found), request_gettext(request)),
        gpp=viewer.campaign.gold_per_point,
        building=warband_rules.building_open(viewer.campaign.status, viewer.campaign.phase),
        unfit=unfit(request, view.models, view.labels),
        saved=set(current) if warband is not None else set(),
        tab="warbands",
        **extra,
    )
    if not partial:
        context.update(_gathering(session, viewer, view.player.id, warband, location_place_id))
    template = "warbands/_check.html" if partial else "warbands/builder.html"
    return render(request, template, status_code=status_code, **context)


def _gathering(session, viewer, player_id: int, warband, location_place_id) -> dict:
    """R9.8: a new warband gathers in a hideout (the player picks which); one away from a
    hideout keeps its roster until it is back in one."""
    found = dict(positions(session, viewer.campaign, player_id), stands=warband.location_place_id if warband else None)
    if found["moving"]:
        found["labels"] = maps.labels(session, viewer.campaign.id)
        if warband is None:
            hideouts = found["hideouts"]
            found["gather"] = location_place_id if location_place_id in hideouts else next(iter(hideouts), None)
    return found


def read_builder(request, form, schema):
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


def list_page(page: CampaignContext, status_code=200, **extra):
    request, session, cid, catalog = page.request, page.session, page.cid, page.catalog
    viewer, views = service.warbands_for(session, page.viewer, catalog)
    labels = maps.labels(session, cid)
    event_titles = events.active_event_titles(session, viewer.campaign)
    return render(
        request,
        "warbands/warbands.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        views=views,
        limit=service.own_warband_limit(session, viewer) if viewer.player else viewer.campaign.warband_points,
        labels=labels,
        event_titles=event_titles,
        catalog=catalog,
        building=warband_rules.building_open(viewer.campaign.status, viewer.campaign.phase),
        problems={v.warband.id: detail_messages(service.problem_details(v.problems), request_gettext(request)) for v in views},
        unfit={v.warband.id: unfit(request, v.members) for v in views},
        tab="warbands",
        **positions(session, viewer.campaign, viewer.player.id if viewer.player and views else None),
        **extra,
    )


def send_page(page: CampaignContext, wid: int, status_code=200, **extra):
    request, session, cid = page.request, page.session, page.cid
    viewer, warband = service.warband_to_send(session, actor=page.user, campaign_id=cid, warband_id=wid)
    campaign = viewer.campaign
    places = maps.places(session, cid)
    by_place = events.events_by_place(session, campaign)
    # R9.8: with movement, only the moves from where the warband stands (one path step with
    # paths); staying is not sending, so its own place is offered only for an event there.
    moves = movement.allowed_places(session, campaign, warband)
    reachable = warband_orders.destinations(session, campaign, viewer.player.id) if moves is None else moves
    open_events = [e for e in events.active_events(session, campaign) if reachable is None or e.place_id in reachable]
    free_places = [
        p
        for p in places
        if not by_place.get(p.id)
        and (reachable is None or p.id in reachable)
        and (moves is None or p.id != warband.location_place_id)
    ]
    # R9.8, issue 29: who holds each place and whose hideout it is are public; said per place.
    hideouts = hideout_holders(session, cid)
    me = viewer.player.id
    holders = {
        p.id: (*map_rules.holding(p.owner_player_id, hideouts.get(p.id), me), p.owner_player_id, hideouts.get(p.id))
        for p in places
    }
    labels = maps.place_labels(places)
    mine = [labels[place_id] for place_id, player_id in sorted(hideouts.items()) if player_id == me and place_id in labels]
    return render(
        request,
        "warbands/send.html",
        status_code=status_code,
        viewer=viewer,
        campaign=campaign,
        warband=warband,
        moving=moves is not None,
        open_events=open_events,
        free_places=free_places,
        labels=labels,
        holders=holders,
        names=campaigns.nicknames(session, cid),
        my_hideouts=mine,
        fee=warband.mercenary_points * campaign.gold_per_point,
        tab="warbands",
        **extra,
    )
