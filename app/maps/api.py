from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Query, Request, Response, UploadFile

from app.accounts.deps import ApiUser, SessionDep
from app.archive import history
from app.campaigns.service import campaign_of
from app.core.errors import DomainError
from app.core.types import MAX_ID, PathId, QueryId
from app.events.service import events_by_place
from app.maps import reading, service
from app.maps.models import Path, Place
from app.maps.schemas import (
    BreadcrumbOut,
    MapImageOut,
    MapOut,
    PathIn,
    PathOut,
    PathPatch,
    PlaceIn,
    PlaceOut,
    PlacePatch,
    PlacesBulkIn,
    PlacesOut,
)
from app.movement import service as movement

router = APIRouter(tags=["map"])
RoundQuery = Annotated[int | None, Query(alias="round", ge=1, le=MAX_ID)]


def place_out(place: Place, hideout_ids: set[int], events: dict[int, list] | None = None) -> PlaceOut:
    return PlaceOut(
        id=place.id,
        name=place.name,
        description=place.description,
        income=place.income,
        hideout_slot=place.hideout_slot,
        x=place.x,
        y=place.y,
        parent_id=place.parent_id,
        has_map=place.has_map,
        entry=place.entry,
        owner_player_id=place.owner_player_id,
        hideout=place.id in hideout_ids,
        events=[e.id for e in (events or {}).get(place.id, [])],
    )


def path_out(path: Path) -> PathOut:
    return PathOut(id=path.id, from_id=path.from_place_id, to_id=path.to_place_id, one_way=path.one_way)


@router.get("/campaigns/{cid}/map", response_model=MapOut)
def get_map(cid: PathId, user: ApiUser, session: SessionDep, of: int | None = QueryId(), round_: RoundQuery = None):
    """`round`: the map as that round was played (R12.6), without warbands or events."""
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    view = history.as_of(session, reading.map_view(session, viewer, of, events_by_place(session, viewer.campaign)), round_)
    image = view.image
    holder = view.place or view.campaign
    shown = {p.id for p in view.places}
    return MapOut(
        of=of,
        name=view.place.name if view.place else view.campaign.name,
        image=MapImageOut(
            url=f"/media/{image[0]}",
            original_url=f"/media/{holder.map_original}" if holder.map_original else None,
            width=image[1],
            height=image[2],
        )
        if image
        else None,
        breadcrumbs=[BreadcrumbOut(id=p.id, name=p.name) for p in view.breadcrumbs],
        places=[place_out(p, view.hideouts, view.events) for p in view.places],
        paths=[path_out(p) for p in view.paths],
        warband_positions=[
            {"warband_id": w.warband_id, "name": w.name, "player_id": w.player_id, "place_id": w.place_id}
            for w in movement.positions(session, view.campaign)
            if w.place_id in shown and (round_ is None or round_ == view.campaign.round)
        ],
    )


@router.put("/campaigns/{cid}/maps/{target}/image", response_model=MapImageOut)
def put_map_image(cid: PathId, target: str, request: Request, user: ApiUser, session: SessionDep, file: UploadFile = File(...)):
    if target == "top":
        place_id = None
    elif target.isdigit() and 0 < int(target) <= MAX_ID:
        place_id = int(target)
    else:
        raise DomainError("not_found")
    holder = service.set_map_image(
        session,
        actor=user,
        campaign_id=cid,
        place_id=place_id,
        data=file.file.read(service.MAX_UPLOAD + 1),
        media_dir=request.app.state.settings.var_dir / "media",
    )
    return MapImageOut(
        url=f"/media/{holder.map_image}",
        original_url=f"/media/{holder.map_original}",
        width=holder.map_width,
        height=holder.map_height,
    )


@router.get("/campaigns/{cid}/places", response_model=list[PlaceOut])
def list_places(cid: PathId, user: ApiUser, session: SessionDep):
    campaign_of(session, actor=user, campaign_id=cid)
    hideouts = service.hideout_place_ids(session, cid)
    return [place_out(p, hideouts) for p in service.places(session, cid)]


@router.post("/campaigns/{cid}/places", status_code=201, response_model=PlaceOut)
def create_place(cid: PathId, body: PlaceIn, user: ApiUser, session: SessionDep):
    place = service.create_place(session, actor=user, campaign_id=cid, data=body.model_dump())
    return place_out(place, set())


@router.post("/campaigns/{cid}/places/bulk", status_code=201, response_model=PlacesOut)
def create_places(cid: PathId, body: PlacesBulkIn, user: ApiUser, session: SessionDep):
    """R12.14: all the places or none; a refusal's details name each item (`item`, 0-based)."""
    made = service.create_places(session, actor=user, campaign_id=cid, items=[p.model_dump() for p in body.places])
    return PlacesOut(items=[place_out(p, set()) for p in made.places], crowded=made.crowded)


@router.patch("/campaigns/{cid}/places/{pid}", response_model=PlaceOut)
def update_place(cid: PathId, pid: PathId, body: PlacePatch, user: ApiUser, session: SessionDep):
    place = service.update_place(session, actor=user, campaign_id=cid, place_id=pid, changes=body.model_dump(exclude_unset=True))
    return place_out(place, service.hideout_place_ids(session, cid))


@router.delete("/campaigns/{cid}/places/{pid}", status_code=204)
def delete_place(cid: PathId, pid: PathId, user: ApiUser, session: SessionDep):
    service.delete_place(session, actor=user, campaign_id=cid, place_id=pid)
    return Response(status_code=204)


@router.get("/campaigns/{cid}/paths", response_model=list[PathOut])
def list_paths(cid: PathId, user: ApiUser, session: SessionDep):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    service.require_module(viewer.campaign, service.PATHS_MODULE)
    return [path_out(p) for p in service.paths(session, cid)]


@router.post("/campaigns/{cid}/paths", status_code=201, response_model=PathOut)
def create_path(cid: PathId, body: PathIn, user: ApiUser, session: SessionDep):
    return path_out(
        service.create_path(session, actor=user, campaign_id=cid, from_id=body.from_id, to_id=body.to_id, one_way=body.one_way)
    )


@router.patch("/campaigns/{cid}/paths/{path_id}", response_model=PathOut)
def update_path(cid: PathId, path_id: PathId, body: PathPatch, user: ApiUser, session: SessionDep):
    return path_out(
        service.update_path(session, actor=user, campaign_id=cid, path_id=path_id, one_way=body.one_way, reverse=body.reverse)
    )


@router.delete("/campaigns/{cid}/paths/{path_id}", status_code=204)
def delete_path(cid: PathId, path_id: PathId, user: ApiUser, session: SessionDep):
    service.delete_path(session, actor=user, campaign_id=cid, path_id=path_id)
    return Response(status_code=204)
