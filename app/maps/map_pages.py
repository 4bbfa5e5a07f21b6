"""The map page (R1.2, R1.3, R9.7): an SVG over the map image with a details sheet, the
GM's visual editor (add, move, paths) and a plain list that works without JavaScript."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query
from fastapi.responses import Response

from app.archive import history
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.service import gm_campaign
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, see_other, typed, validate
from app.core.i18n import translations
from app.core.page_actions import page_action
from app.core.spliced import Kept
from app.core.templating import render
from app.core.types import PathId, QueryId
from app.events.service import events_by_place
from app.maps import reading, service
from app.maps import view as drawing
from app.maps.schemas import MapForm, MoveForm, PathChangeForm, PathForm
from app.movement import rules as movement_rules
from app.movement import service as movement
from app.versions.remembered import map_version_seen
from app.warbands import service as warbands

router = APIRouter()
LABELS = {
    "of": N_("Map"),
    "from_id": N_("Path"),
    "to_id": N_("New path to"),
    "one_way": N_("One-way (from here)"),
    "action": N_("Path"),
    "x": N_("Position x (%%)"),
    "y": N_("Position y (%%)"),
}


def map_url(cid: PathId, of: int | None, **extra) -> str:
    query = {k: v for k, v in {"of": of, **extra}.items() if v is not None}
    return f"/campaigns/{cid}/map" + (f"?{urlencode(query)}" if query else "")


def _stands(positions) -> dict[int, list]:
    """Place id -> the warbands standing there (R9.8: positions are public)."""
    by_place: dict[int, list] = {}
    for p in positions:
        if p.place_id is not None:
            by_place.setdefault(p.place_id, []).append(p)
    return by_place


def _may_reach(session, campaign, places, mine: list, place_id: int, has_events: bool) -> list:
    """With the movement module, only the warbands that may be sent to `place_id` from where
    they stand (R9.8: `movement.rules.moves`, the paths' graph read once for all of them);
    staying is not sending, so a warband is sent to its own place only for an event there."""
    if not movement.on(campaign):
        return mine
    paths_on = bool(campaign.modules.get(service.PATHS_MODULE))
    graph = service.path_graph(session, campaign.id) if paths_on and mine else {}
    everywhere = {p.id for p in places}
    return [
        w
        for w in mine
        if place_id in movement_rules.moves(w.location_place_id, paths_on, graph, everywhere)
        and (has_events or w.location_place_id != place_id)
    ]


def _sheet_context(session, viewer, place_id: int, positions=None) -> dict:
    places = service.places(session, viewer.campaign.id)
    place = next((p for p in places if p.id == place_id), None)
    if place is None:
        raise DomainError("not_found")
    names = {p.id: p.name for p in places}
    owners = reading.map_view(session, viewer, place.parent_id).owners
    campaign = viewer.campaign
    mine = warbands.unsent_warbands(session, campaign, viewer.player.id) if viewer.player and campaign.phase == "orders" else []
    place_events = events_by_place(session, campaign).get(place.id, [])
    context = {
        "place_events": place_events,
        "can_send": bool(viewer.player and campaign.status == "running" and campaign.phase == "orders"),
        "my_warbands": _may_reach(session, campaign, places, mine, place.id, bool(place_events)),
        "place": place,
        "owner": owners.get(place.owner_player_id, (None, 0))[0],
        "is_hideout": place.id in service.hideout_place_ids(session, viewer.campaign.id),
        "place_paths": [],
        "path_targets": [],
        "names": names,
        "parent_options": service.parent_choices(places, place.id) if viewer.is_gm else [],
        "can_have_map": service.can_have_map(places, place.id),
        "back": map_url(viewer.campaign.id, place.parent_id),
    }
    context["moving"] = movement.on(campaign)
    if context["moving"]:
        # R9.8: who stands here is public (orders stay secret); the GM corrects a position or
        # places a scattered warband here.
        positions = movement.positions(session, campaign) if positions is None else positions
        context.update(
            here=_stands(positions).get(place.id, []),
            owners=owners,
            scattered=[p for p in positions if p.place_id is None] if viewer.is_gm else [],
            place_choices=sorted(service.place_labels(places).items(), key=lambda item: item[1].lower()) if viewer.is_gm else [],
        )
    if viewer.campaign.modules.get(service.PATHS_MODULE):
        context["place_paths"] = [
            p for p in service.paths(session, viewer.campaign.id) if place.id in (p.from_place_id, p.to_place_id)
        ]
        joined = {p.from_place_id for p in context["place_paths"]} | {p.to_place_id for p in context["place_paths"]}
        context["path_targets"] = [
            p for p in places if p.parent_id == place.parent_id and p.id != place.id and p.id not in joined
        ]
    return context


def show_map(page: CampaignContext, of: int | None, status_code=200, selected: int | None = None, **extra):
    """The map page of the map `of` (None: the campaign's own), with the sheet of `selected` open."""
    request, session, cid = page.request, page.session, page.cid
    viewer = page.viewer
    frame = reading.map_frame(session, viewer, of)
    positions = None
    language = translations(request.state.locale)

    def draw() -> drawing.Drawing:
        nonlocal positions
        view = reading.map_view(session, viewer, of, events_by_place(session, viewer.campaign))
        markers = drawing.markers(view)
        # R9.8: where warbands stand, one statement (nothing with the module off).
        positions = movement.positions(session, viewer.campaign)
        stands = _stands(positions)
        return drawing.Drawing(
            # Kept: sent from their compressed form, made once per drawing (app/core/spliced.py).
            paths=Kept.made(drawing.svg_paths(drawing.lines(view, markers))),
            places=Kept.made(drawing.svg_places(markers, stands, viewer.campaign.id, language.ngettext)),
            items=Kept.made(drawing.place_list(view, stands, viewer.campaign.id, of, language)),
            empty=not view.places,
            timeline=history.timeline(session, view),  # R12.6: the round slider's rounds
        )

    # Keyed by the changes of what the map is drawn from alone: a hidden purchase or letter must
    # not make the next viewer's map dearer (R11.2, app/versions/service.py MAP_TABLES). The
    # campaign's creation time tells a new campaign from a deleted one that had its id.
    key = (cid, viewer.campaign.created_at, of, map_version_seen(session, viewer), request.state.locale)
    drawn = request.app.state.map_drawings.get(key, draw)
    context = _sheet_context(session, viewer, selected, positions) if selected is not None else {}
    return render(
        request,
        "maps/map.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        view=frame,
        drawn=drawn,
        of=of,
        tab="map",
        paths_on=bool(viewer.campaign.modules.get(service.PATHS_MODULE)),
        selected=selected,
        **context,
        **extra,
    )


@router.get("/campaigns/{cid}/map")
def map_page(page: CampaignPage, of: int | None = QueryId(), place: int | None = QueryId()):
    return show_map(page, of, selected=place)


@router.get("/campaigns/{cid}/map/places/{pid}")
def place_sheet(pid: PathId, page: CampaignPage):
    """The details sheet: an htmx partial, or the map page with the sheet open."""
    viewer, cid = page.viewer, page.cid
    if not page.request.headers.get("hx-request"):
        place = next((p for p in service.places(page.session, cid) if p.id == pid), None)
        if place is None:
            raise DomainError("not_found")
        return see_other(map_url(cid, place.parent_id, place=pid) + "#sheet")
    return render(
        page.request,
        "maps/_sheet.html",
        viewer=viewer,
        campaign=viewer.campaign,
        paths_on=bool(viewer.campaign.modules.get(service.PATHS_MODULE)),
        **_sheet_context(page.session, viewer, pid),
    )


@router.get("/campaigns/{cid}/map/new-place")
def new_place_sheet(
    page: CampaignPage,
    of: int | None = QueryId(),
    x: float = Query(50, ge=0, le=100),
    y: float = Query(50, ge=0, le=100),
    mode: str | None = Query(None),
):
    """The New place sheet; from the editor's Add place mode (`mode=add`) the saved place
    leads back to the map still in that mode, so the next tap adds another place."""
    viewer = gm_campaign(page.session, actor=page.user, campaign_id=page.cid)
    template = "maps/_new_place.html" if page.request.headers.get("hx-request") else "maps/new_place.html"
    back = map_url(page.cid, of, mode="add" if mode == "add" else None)
    return render(
        page.request,
        template,
        viewer=viewer,
        campaign=viewer.campaign,
        of=of,
        x=round(x, 1),
        y=round(y, 1),
        paths_on=bool(viewer.campaign.modules.get(service.PATHS_MODULE)),
        back=back,
        tab="map",
    )


def _as_text(status_code: int, error: str) -> Response:
    return Response(error, status_code=status_code, media_type="text/plain")


def _problem(page: CampaignContext, of: int | None):
    """A refused map form: for htmx (the editor's sheet) the reason as text; else the map
    page with every problem above it."""

    def again(status_code: int, error: str):
        if page.request.headers.get("hx-request"):
            return _as_text(status_code, error)
        return show_map(page, of, status_code=status_code, map_error=error)

    return again


def _back_to_map(page: CampaignContext, schema, data: dict, action, message: str):
    """Check the form `data` with `schema` (it names the map to go back to, `of`), run
    `action(body)`, and go back to that map with a flash `message` (htmx: 204 +
    HX-Redirect, the cookie too). The map shows every problem above it."""
    body, errors = validate(page.request, schema, blank_to_none(data), LABELS)
    if errors:
        return _problem(page, None)(422, " ".join(errors.values()))
    return page_action(
        page,
        lambda: action(body),
        again=_problem(page, body.of),
        done=lambda _result: page.redirect(map_url(page.cid, body.of), message),
    )


@router.post("/campaigns/{cid}/places/{pid}/move")
def move_place(pid: PathId, page: CampaignPage):
    """Dragging a marker: the new position in percent of the map (script only: every answer
    is plain text or none)."""
    body, errors = validate(page.request, MoveForm, typed(page.form, "x", "y"), LABELS)
    if errors:
        return _as_text(422, " ".join(errors.values()))
    changes = {"x": round(body.x, 1), "y": round(body.y, 1)}
    return page_action(
        page,
        lambda: service.update_place(page.session, actor=page.user, campaign_id=page.cid, place_id=pid, changes=changes),
        again=_as_text,
        done=lambda _place: Response(status_code=204),
    )


async def _map_file(form: Form) -> bytes | None:
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None
    return await upload.read(service.MAX_UPLOAD + 1)


@router.post("/campaigns/{cid}/map/image")
def upload_map_image(page: CampaignPage, data: Annotated[bytes | None, Depends(_map_file)]):
    def action(body):
        if data is None:
            raise DomainError("image_invalid")
        service.set_map_image(
            page.session,
            actor=page.user,
            campaign_id=page.cid,
            place_id=body.of,
            data=data,
            media_dir=page.request.app.state.settings.var_dir / "media",
        )

    return _back_to_map(page, MapForm, typed(page.form, "of"), action, N_("Map image uploaded."))


@router.post("/campaigns/{cid}/paths")
def add_path(page: CampaignPage):
    form = page.form
    data = {**typed(form, "of", "from_id", "to_id"), "one_way": form.get("one_way") == "on"}
    return _back_to_map(
        page,
        PathForm,
        data,
        lambda body: service.create_path(
            page.session, actor=page.user, campaign_id=page.cid, from_id=body.from_id, to_id=body.to_id, one_way=body.one_way
        ),
        N_("Path added."),
    )


@router.post("/campaigns/{cid}/paths/{path_id}")
def change_path(path_id: PathId, page: CampaignPage):
    def action(body):
        patch = body.patch()
        service.update_path(
            page.session, actor=page.user, campaign_id=page.cid, path_id=path_id, one_way=patch.one_way, reverse=patch.reverse
        )

    return _back_to_map(page, PathChangeForm, typed(page.form, "of", "action"), action, N_("Path changed."))


@router.post("/campaigns/{cid}/paths/{path_id}/delete")
def remove_path(path_id: PathId, page: CampaignPage):
    return _back_to_map(
        page,
        MapForm,
        typed(page.form, "of"),
        lambda _body: service.delete_path(page.session, actor=page.user, campaign_id=page.cid, path_id=path_id),
        N_("Path deleted."),
    )


@router.post("/campaigns/{cid}/places/{pid}/map")
def open_place_map(pid: PathId, page: CampaignPage):
    """„Mapa miejsca” (R1.3): the place gets its own map (the built-in background until an
    image is uploaded) and the editor goes inside it. A district (third level) is refused."""
    session, cid = page.session, page.cid
    gm_campaign(session, actor=page.user, campaign_id=cid)
    place = next((p for p in service.places(session, cid) if p.id == pid), None)
    if place is None:
        raise DomainError("not_found")
    return page_action(
        page,
        lambda: service.update_place(session, actor=page.user, campaign_id=cid, place_id=pid, changes={"has_map": True}),
        again=lambda status_code, error: show_map(page, place.parent_id, status_code=status_code, map_error=error),
        done=lambda _place: page.redirect(map_url(cid, pid), N_("%(place)s has its own map now."), place=place.name),
    )
