"""The map page (R1.2, R1.3, R9.7): an SVG over the map image with a details sheet, the
GM's visual editor (add, move, paths) and a plain list that works without JavaScript."""
from __future__ import annotations

from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from app.accounts.deps import PageLogin, SessionDep
from app.core.errors import DomainError
from app.core.forms import Form, int_field, refusal, see_other
from app.core.templating import render
from app.maps import service, view as drawing
from app.visibility import require_gm, viewer_for

router = APIRouter()


def map_url(cid: int, of: int | None, **extra) -> str:
    query = {k: v for k, v in {"of": of, **extra}.items() if v is not None}
    return f"/campaigns/{cid}/map" + (f"?{urlencode(query)}" if query else "")



def _float(value, default=None):
    try:
        return float(str(value))
    except (TypeError, ValueError):
        return default


def _sheet_context(session, viewer, place_id: int) -> dict:
    places = service.places(session, viewer.campaign.id)
    place = next((p for p in places if p.id == place_id), None)
    if place is None:
        raise DomainError("not_found")
    names = {p.id: p.name for p in places}
    owners = service.map_view(session, viewer, place.parent_id).owners
    from app.events.service import events_by_place
    from app.warbands import service as warbands

    campaign = viewer.campaign
    context = {
        "place_events": events_by_place(session, campaign).get(place.id, []),
        "can_send": bool(viewer.player and campaign.status == "running" and campaign.phase == "orders"),
        "my_warbands": warbands.unsent_warbands(session, campaign, viewer.player.id)
        if viewer.player and campaign.phase == "orders" else [],
        "place": place, "owner": owners.get(place.owner_player_id, (None, 0))[0],
        "is_hideout": place.id in service.hideout_place_ids(session, viewer.campaign.id),
        "place_paths": [], "path_targets": [], "names": names,
        "parent_options": service.parent_choices(places, place.id) if viewer.is_gm else [],
        "can_have_map": service.can_have_map(places, place.id),
        "back": map_url(viewer.campaign.id, place.parent_id),
    }
    if viewer.campaign.modules.get(service.PATHS_MODULE):
        context["place_paths"] = [p for p in service.paths(session, viewer.campaign.id) if place.id in (p.from_place_id, p.to_place_id)]
        joined = {p.from_place_id for p in context["place_paths"]} | {p.to_place_id for p in context["place_paths"]}
        context["path_targets"] = [p for p in places if p.parent_id == place.parent_id and p.id != place.id and p.id not in joined]
    return context


def _map_page(request, session, user, cid: int, of: int | None, status_code=200, selected: int | None = None, **extra):
    viewer = viewer_for(session, user, cid)
    view = service.map_view(session, viewer, of)
    markers = drawing.markers(view)
    context = {}
    if selected is not None:
        context = _sheet_context(session, viewer, selected)
    return render(
        request, "maps/map.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign, view=view,
        markers=markers, lines=drawing.lines(view, markers), of=of, tab="map",
        paths_on=bool(viewer.campaign.modules.get(service.PATHS_MODULE)), selected=selected, **context, **extra,
    )


@router.get("/campaigns/{cid}/map")
def map_page(cid: int, request: Request, user: PageLogin, session: SessionDep,
             of: int | None = Query(None), place: int | None = Query(None)):
    return _map_page(request, session, user, cid, of, selected=place)


@router.get("/campaigns/{cid}/map/places/{pid}")
def place_sheet(cid: int, pid: int, request: Request, user: PageLogin, session: SessionDep):
    """The details sheet: an htmx partial, or the map page with the sheet open."""
    viewer = viewer_for(session, user, cid)
    if not request.headers.get("hx-request"):
        place = next((p for p in service.places(session, cid) if p.id == pid), None)
        if place is None:
            raise DomainError("not_found")
        return see_other(map_url(cid, place.parent_id, place=pid) + "#sheet")
    return render(request, "maps/_sheet.html", viewer=viewer, campaign=viewer.campaign,
                  paths_on=bool(viewer.campaign.modules.get(service.PATHS_MODULE)), **_sheet_context(session, viewer, pid))


@router.get("/campaigns/{cid}/map/new-place")
def new_place_sheet(cid: int, request: Request, user: PageLogin, session: SessionDep,
                    of: int | None = Query(None), x: float = Query(50, ge=0, le=100), y: float = Query(50, ge=0, le=100)):
    viewer = viewer_for(session, user, cid)
    require_gm(viewer)
    template = "maps/_new_place.html" if request.headers.get("hx-request") else "maps/new_place.html"
    return render(request, template, viewer=viewer, campaign=viewer.campaign, of=of, x=round(x, 1), y=round(y, 1),
                  paths_on=bool(viewer.campaign.modules.get(service.PATHS_MODULE)), back=map_url(cid, of), tab="map")


def _back_to_map(request, session, user, cid, form, action):
    of = int_field(form.get("of"))
    try:
        action()
    except DomainError as exc:
        message = refusal(request, session, exc)
        if request.headers.get("hx-request"):
            return Response(message, status_code=exc.status, media_type="text/plain")
        return _map_page(request, session, user, cid, of, status_code=exc.status, map_error=message)
    if request.headers.get("hx-request"):
        return Response(status_code=204, headers={"HX-Redirect": map_url(cid, of)})
    return see_other(map_url(cid, of))


@router.post("/campaigns/{cid}/places/{pid}/move")
def move_place(cid: int, pid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """Dragging a marker: the new position in percent of the map."""
    x, y = _float(form.get("x")), _float(form.get("y"))
    try:
        if x is None or y is None or not (0 <= x <= 100 and 0 <= y <= 100):
            raise DomainError("field_invalid")
        service.update_place(session, actor=user, campaign_id=cid, place_id=pid, changes={"x": round(x, 1), "y": round(y, 1)})
    except DomainError as exc:
        message = refusal(request, session, exc)
        return Response(message, status_code=exc.status, media_type="text/plain")
    return Response(status_code=204)


async def _map_file(form: Form) -> bytes | None:
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None
    return await upload.read(service.MAX_UPLOAD + 1)


@router.post("/campaigns/{cid}/map/image")
def upload_map_image(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form,
                     data: Annotated[bytes | None, Depends(_map_file)]):
    of = int_field(form.get("of"))

    def action():
        if data is None:
            raise DomainError("image_invalid")
        service.set_map_image(session, actor=user, campaign_id=cid, place_id=of, data=data,
                              media_dir=request.app.state.settings.var_dir / "media")

    return _back_to_map(request, session, user, cid, form, action)


@router.post("/campaigns/{cid}/paths")
def add_path(cid: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    def action():
        a, b = int_field(form.get("from_id")), int_field(form.get("to_id"))
        if a is None or b is None:
            raise DomainError("field_required")
        service.create_path(session, actor=user, campaign_id=cid, from_id=a, to_id=b, one_way=form.get("one_way") == "on")

    return _back_to_map(request, session, user, cid, form, action)


@router.post("/campaigns/{cid}/paths/{path_id}")
def change_path(cid: int, path_id: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    action = str(form.get("action", ""))
    return _back_to_map(request, session, user, cid, form, lambda: service.update_path(
        session, actor=user, campaign_id=cid, path_id=path_id,
        one_way={"one_way": True, "two_way": False}.get(action), reverse=action == "reverse",
    ))


@router.post("/campaigns/{cid}/paths/{path_id}/delete")
def remove_path(cid: int, path_id: int, request: Request, user: PageLogin, session: SessionDep, form: Form):
    return _back_to_map(request, session, user, cid, form,
                        lambda: service.delete_path(session, actor=user, campaign_id=cid, path_id=path_id))
